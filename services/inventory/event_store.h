// File: services/inventory/event_store.h
//
// Events: an append-only history per cluster, host and infra-env, filtered and counted for the
// UI, and pruned after a retention period. Each append is also logged as a change
// (RESOURCE_KIND_EVENT), so watchers hear of new events. SQL: event_queries.h.

#ifndef ASSISTED_SERVICES_INVENTORY_EVENT_STORE_H_
#define ASSISTED_SERVICES_INVENTORY_EVENT_STORE_H_

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "assisted/types/v1/event.pb.h"
#include "lib/log/log.h"
#include "lib/pg/pool.h"
#include "services/inventory/store_common.h"

namespace assisted::inventory {

// The most events one ListEvents call returns (also the default): "all" (-1) and larger limits
// get this many, and the caller pages on with offset (total_count tells how many match). Bounds
// the memory and the message size of a reply whatever the history holds.
inline constexpr int kMaxEventsPerPage = 5000;

// One pass of event retention (PruneEvents).
struct EventPruning {
  // Events whose event_time is older than this are deleted.
  absl::Duration older_than = absl::Hours(24 * 30);
  // Rows per DELETE, each in its own short transaction, so that pruning a long backlog never
  // holds locks, a pool connection or the WAL for long.
  int batch = 1000;
  // DELETEs per pass; whatever is left waits for the next pass.
  int max_batches = 20;
};

// Deletes the events older than pruning.older_than, oldest first, in at most max_batches
// transactions of at most `batch` rows each. Returns how many it deleted. Replicas may run it at
// once: rows another replica is deleting are skipped, not waited for.
absl::StatusOr<int64_t> PruneEvents(pg::Pool& pool, const EventPruning& pruning);

// Runs PruneEvents every `interval` on a thread of its own (not the change feed's: a long backlog
// must not delay numbering), until destroyed.
class EventRetention {
 public:
  EventRetention(pg::Pool& pool, EventPruning pruning, absl::Duration interval, log::Logger log);
  // Stops the thread, waiting for a pass under way.
  ~EventRetention();

 private:
  void Run();

  pg::Pool& pool_;
  const EventPruning pruning_;
  const absl::Duration interval_;
  const log::Logger log_;
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: starts once everything it uses is set
};

// Which events EventStore::List returns. Empty fields do not filter.
struct EventQuery {
  types::v1::Owner owner_scope;  // narrows a system caller's view to one tenant
  std::string cluster_id;
  std::string host_id;
  std::string infra_env_id;
  std::vector<std::string> host_ids;  // any of these hosts
  bool cluster_level = false;         // only events of no host
  std::vector<types::v1::EventSeverity> severities;
  std::vector<types::v1::EventCategory> categories;
  std::string message;  // a case-insensitive substring of the message
  // 0, -1 or above kMaxEventsPerPage mean kMaxEventsPerPage; below -1 is INVALID_ARGUMENT.
  int limit = 0;
  int offset = 0;  // negative is INVALID_ARGUMENT
  bool newest_first = false;
};

class EventStore {
 public:
  explicit EventStore(pg::Pool& pool) : pool_(pool) {}

  // Stores `event`; fills id, owner (the caller's, or the resource's for system callers) and
  // event_time (now) when unset. INVALID_ARGUMENT without a message or severity; NOT_FOUND
  // naming the field when a user (not a system caller) names a cluster, infra-env or host
  // that is not theirs or does not exist.
  absl::StatusOr<types::v1::Event> Append(const Caller& caller, types::v1::Event event);

  // The events matching `query`, oldest first unless newest_first. The counts (total_count,
  // severity_counts) ignore limit and offset.
  absl::StatusOr<v1::ListEventsResponse> List(const Caller& caller, const EventQuery& query);

 private:
  pg::Pool& pool_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_EVENT_STORE_H_
