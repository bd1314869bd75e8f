// File: services/gateway/change_stream.h
//
// Live updates for the web UI without polling: GET /api/assisted-install/v2/changes answers
// text/event-stream (Server-Sent Events) with what changed in the caller's clusters, hosts,
// infra-envs and events, as the inventory's change log (Watch, with hints: at commit time)
// tells the gateway. Each event names a resource and how it changed, never its content: the
// browser re-reads it through the REST API, where tenancy and rendering are decided once.
//
// Two parts:
//   - ChangeFeed: the last `capacity` changes, numbered by the feed itself (hints have no seq),
//     fed by a WatchFollower. A position is "<boot>-<n>": after a gateway restart, or once a
//     position fell out of the ring, the client is told to resync (re-read everything) rather
//     than trust a gap. Waiters sleep on the feed's mutex until something is appended.
//   - ChangeStream: the HTTP handler. lib/http sends bodies of known length only, so one answer
//     carries the changes available when it returns and ends; the client (EventSource, or fetch
//     with the same parser) asks again from the last id it got, at once ("retry: 0"). An answer
//     is held open until a change for the caller arrives or `max_wait` passes, so an idle screen
//     costs one request per max_wait and a change reaches the browser as soon as it commits.
//
// Request: ?cluster_id=ID narrows to one cluster (its hosts, infra-envs and events too; 404 when
// the caller cannot read it); without it, only cluster changes, each shown only when the caller
// can read that cluster. The position comes in the Last-Event-ID header (EventSource sends it on
// reconnects) or ?last_event_id=; without one the answer is at once and carries just the
// current position ("event: position"), to start from before the first read.
//
// Events, each "id: <position>", "event: <type>", "data: <JSON>":
//   position  {}                                        where to resume from
//   change    {"kind":"cluster|host|infra-env|event", "id", "cluster_id", "infra_env_id",
//              "change":"created|updated|deleted", "status", "resource_version"} (status of
//              clusters and hosts; resource_version, the resource's after the change, except
//              for events and deletions)
//   resync    {}                                        changes may have been missed: re-read
// Holding answers open ties up HTTP handler threads, so at most `max_watchers` wait at once;
// callers beyond that get their answer at once with "retry: 5000" (they fall back to a slow
// cadence instead of starving the REST API).

#ifndef ASSISTED_SERVICES_GATEWAY_CHANGE_STREAM_H_
#define ASSISTED_SERVICES_GATEWAY_CHANGE_STREAM_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "lib/http/message.h"
#include "lib/http/router.h"
#include "lib/inventory_client/watch_follower.h"
#include "lib/time/clock.h"
#include "services/gateway/auth.h"

namespace assisted::gateway {

class ChangeFeed {
 public:
  // `boot` tells this feed's positions from another process's (a random token in production).
  ChangeFeed(std::string boot, size_t capacity = 4096);

  // What the watch follower calls: on_change appends, on_resync appends a resync marker.
  inventory_client::WatchFollower::Callbacks FollowerCallbacks();

  void Append(const inventory::v1::WatchEvent& event);
  // Changes may have been missed (the change log was trimmed past the follower's position):
  // every client re-reads.
  void Resync();
  // Wakes every waiter for good (shutdown): they answer with what they have.
  void Close();

  struct Entry {
    int64_t n = 0;
    bool resync = false;
    inventory::v1::WatchEvent event;
  };
  struct Batch {
    int64_t head = 0;            // the position after this batch
    bool gap = false;            // `after` is not in the ring: the client must resync
    std::vector<Entry> entries;  // (after, head], when !gap
    bool closed = false;
  };
  // The entries after `after`, waiting until there is one, `deadline` passes or Close().
  Batch WaitAfter(int64_t after, absl::Time deadline) const;

  int64_t head() const;
  const std::string& boot() const { return boot_; }

 private:
  const std::string boot_;
  const size_t capacity_;
  mutable absl::Mutex mu_;
  std::deque<Entry> ring_ ABSL_GUARDED_BY(mu_);
  int64_t head_ ABSL_GUARDED_BY(mu_) = 0;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

// Callbacks for one follower serving a cache and `feed`: each change goes to `cache` first (when
// of one of `cache_kinds`), then to the feed; a resync to both. So a browser that re-reads on
// hearing of a change never gets the cached answer from before it. Stream state (established,
// broken) is the cache's business only.
inventory_client::WatchFollower::Callbacks FeedAfterCache(
    inventory_client::WatchFollower::Callbacks cache,
    std::vector<inventory::v1::ResourceKind> cache_kinds, ChangeFeed& feed);

class ChangeStream {
 public:
  // OK when the caller may read cluster `cluster_id` (the inventory's answer, as the caller);
  // NOT_FOUND otherwise.
  using ClusterCheck =
      std::function<absl::Status(const Principal& caller, const std::string& cluster_id)>;

  struct Options {
    absl::Duration max_wait = absl::Seconds(25);
    int max_watchers = 8;
  };

  // Everything given must outlive the stream.
  ChangeStream(const ChangeFeed& feed, const Authenticator& authenticator, const Clock& clock,
               ClusterCheck can_read_cluster, Options options);

  static constexpr char kPath[] = "/api/assisted-install/v2/changes";

  absl::Status Register(http::Router& router) const;
  http::Response Serve(const http::Request& request) const;

 private:
  absl::StatusOr<http::Response> Answer(const http::Request& request) const;

  const ChangeFeed& feed_;
  const Authenticator& authenticator_;
  const Clock& clock_;
  const ClusterCheck can_read_cluster_;
  const Options options_;
  mutable absl::Mutex mu_;
  mutable int watchers_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_CHANGE_STREAM_H_
