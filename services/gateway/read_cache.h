// File: services/gateway/read_cache.h
//
// The gateway's read cache: rendered REST answers (JSON bytes) of single-resource reads, kept
// coherent by the inventory's change log the way a Kubernetes watch cache is, so that repeated
// GETs of a cluster, infra-env or host cost no inventory call, no PostgreSQL query and no
// proto -> JSON rendering.
//
// Tenancy is not re-implemented here. The caller builds the key from everything that shapes an
// answer: the caller's identity exactly as forwarded to the inventory (user, org), the kind of
// principal and its scope, and the request. A caller therefore only ever gets bytes the inventory
// produced for the same identity and the same request; another tenant has another key.
//
// Coherence works by tags. Each entry carries the tags of every resource its answer shows
// (`cluster:<id>`, `infra-env:<id>`, `host:<id>`; TagsOf() below) and invalidating a tag drops
// every entry carrying it. Tags are invalidated
//   - by the change log (FollowerCallbacks(), TagsOfChange()): every committed change to a
//     cluster, infra-env or host, whoever made it;
//   - by the gateway's own writes, when they return (Invalidate()), so a client that writes
//     through this replica and then reads sees its write.
// A miss-fetch that overlaps an invalidation of one of its tags is returned to its caller but
// not kept: the cache numbers invalidations and remembers the most recent ones (a bounded
// ring); an answer is inserted only if no invalidation since its fetch began touched its tags
// and the ring still reaches back to that point.
// While the change log is not followed (before the Watch stream's first message, and from a
// broken stream until its successor's first message) the cache stands down: no lookups, no
// inserts, and it is emptied; it is emptied again when the follower resyncs after the log was
// trimmed past it.
//
// Consistency model: a read sees every write acknowledged before it began, whoever made it (this
// replica, another gateway replica, the orchestrator, an agent). A hit is served only once the
// change log this cache follows has passed the head the inventory reports for it
// (change_log_head.h: one GetChangeLogHead shared by the reads that arrive while it is in flight,
// then usually no wait, since changes reach the follower within milliseconds). A read that cannot
// confirm that within `catch_up_timeout` (inventory slow or down, follower behind) is fetched
// from the inventory instead. Misses need no head: the fetch itself reads the inventory.
//
//   ChangeLogHead head(InventoryChangeLogHead(stub));
//   ReadCache cache({.max_entries = 10000}, metrics,
//                   [&head](absl::Time deadline) { return head.Current(deadline); });
//   WatchFollower follower(stub, ReadCache::WatchedKinds(), cache.FollowerCallbacks(), log);
//   absl::StatusOr<std::shared_ptr<const std::string>> body = cache.GetOrFetch(key, [&] {
//     return FetchAndRender(...);  // -> ReadCache::Fetched{json, TagsOf(cluster)}
//   });
//
// Thread-safe; one mutex, held only for map operations and waits for the follower (never during a
// fetch).

#ifndef ASSISTED_SERVICES_GATEWAY_READ_CACHE_H_
#define ASSISTED_SERVICES_GATEWAY_READ_CACHE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/infra_env.pb.h"
#include "lib/inventory_client/watch_follower.h"
#include "services/gateway/read_cache_metrics.h"

namespace assisted::gateway {

struct ReadCacheOptions {
  // Bounds: the least recently used entries go first when either is exceeded.
  int64_t max_entries = 10000;
  int64_t max_bytes = int64_t{256} << 20;  // bodies and keys
  // How many recent invalidations a fetch in flight can be checked against; a fetch that
  // outlives this many invalidations is not kept.
  int recent_invalidations = 4096;
  // How long a hit may wait for the change-log head and for the follower to pass it before the
  // read goes to the inventory instead.
  absl::Duration catch_up_timeout = absl::Seconds(1);
};

class ReadCache {
 public:
  // What a miss fetches: the rendered answer and the tags of every resource it shows.
  struct Fetched {
    std::string body;
    std::vector<std::string> tags;
  };

  // The change-log head as of a moment after the call began (ChangeLogHead::Current).
  using CurrentHead = std::function<absl::StatusOr<int64_t>(absl::Time deadline)>;

  // `metrics` must outlive the cache. Starts standing down until SetFollowing(true).
  ReadCache(ReadCacheOptions options, ReadCacheMetrics& metrics, CurrentHead current_head);
  ReadCache(const ReadCache&) = delete;
  ReadCache& operator=(const ReadCache&) = delete;

  // The answer for `key`: the cached one once the follower has passed the current head, or
  // `fetch`'s (kept unless the cache stands down or an invalidation raced the fetch). Errors of
  // `fetch` are returned as they are and never kept.
  absl::StatusOr<std::shared_ptr<const std::string>> GetOrFetch(
      absl::string_view key, absl::FunctionRef<absl::StatusOr<Fetched>()> fetch);

  // Drops every entry carrying one of `tags`, and refuses fetches in flight that carry one.
  void Invalidate(absl::Span<const std::string> tags);

  // Whether the change log is being followed: false empties the cache and makes it stand down
  // (every read is fetched, nothing is kept); true puts it back to work, empty.
  void SetFollowing(bool following);

  // Drops everything, and refuses every fetch in flight.
  void Clear();

  // The follower has delivered every change numbered up to `seq` (its on_position).
  void Reached(int64_t seq);

  // Entries held.
  int64_t size() const;

  // The change-log kinds the cache depends on (events and artifacts are not cached).
  static std::vector<inventory::v1::ResourceKind> WatchedKinds();
  // Callbacks that keep the cache coherent with a WatchFollower of WatchedKinds(): changes
  // invalidate their tags, established/broken streams turn SetFollowing on/off, a resync
  // clears, positions feed Reached(). The cache must outlive the follower.
  inventory_client::WatchFollower::Callbacks FollowerCallbacks();

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<const std::string> body;
    std::vector<std::string> tags;
    int64_t bytes = 0;
  };
  struct Invalidation {
    uint64_t number;
    std::string tag;
  };

  // The cached answer for `key` if there is one and the follower has caught up with the head
  // fetched for this read; null otherwise (then the read fetches).
  std::shared_ptr<const std::string> CurrentHit(absl::string_view key, absl::Time deadline);
  void Insert(absl::string_view key, std::shared_ptr<const std::string> body,
              std::vector<std::string> tags, uint64_t fetch_began)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether no invalidation after `fetch_began` touched `tags`, as far as the ring can tell.
  bool UntouchedSince(uint64_t fetch_began, const std::vector<std::string>& tags) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Erase(std::list<Entry>::iterator entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ClearLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ReadCacheOptions options_;
  ReadCacheMetrics& metrics_;
  const CurrentHead current_head_;
  mutable absl::Mutex mu_;
  bool following_ ABSL_GUARDED_BY(mu_) = false;
  // The follower's position: every change numbered up to it has been applied.
  int64_t position_ ABSL_GUARDED_BY(mu_) = 0;
  // Invalidations so far (one per tag, one per clear).
  uint64_t invalidations_ ABSL_GUARDED_BY(mu_) = 0;
  // The most recent tag invalidations, oldest first; a clear empties it.
  std::deque<Invalidation> recent_ ABSL_GUARDED_BY(mu_);
  // Entries, most recently used first; the maps' keys are views of Entry::key.
  std::list<Entry> lru_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<absl::string_view, std::list<Entry>::iterator> by_key_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, absl::flat_hash_set<absl::string_view>> by_tag_
      ABSL_GUARDED_BY(mu_);
  int64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

// A key made of `parts`, unambiguous whatever they contain (each is length-prefixed).
std::string ReadCacheKey(absl::Span<const absl::string_view> parts);

// Tags of one resource (ids compared case-insensitively, as the inventory's UUIDs are); empty
// for an empty id.
std::string ClusterTag(absl::string_view id);
std::string InfraEnvTag(absl::string_view id);
std::string HostTag(absl::string_view id);

// Tags of an answer showing these: the resource itself, what it names (a host's infra-env and
// cluster, an infra-env's cluster), and for a cluster every host listed in it with theirs.
std::vector<std::string> TagsOf(const types::v1::Cluster& cluster);
std::vector<std::string> TagsOf(const types::v1::InfraEnv& infra_env);
std::vector<std::string> TagsOf(const types::v1::Host& host);
std::vector<std::string> TagsOf(const google::protobuf::RepeatedPtrField<types::v1::Host>& hosts);

// Tags a change-log entry invalidates: a cluster's own; an infra-env's and its cluster's; a
// host's, its infra-env's and its (new) cluster's (entries of the cluster it left carry the
// host's tag). None for other kinds.
std::vector<std::string> TagsOfChange(const inventory::v1::WatchEvent& event);

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_READ_CACHE_H_
