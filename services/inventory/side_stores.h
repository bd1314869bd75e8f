// File: services/inventory/side_stores.h
//
// The inventory's stores besides resources: events (an append-only history per cluster, host
// and infra-env), artifacts (generated files of a cluster: install-config, Ignition, credentials,
// logs) and leases (leader election with fencing epochs).

#ifndef ASSISTED_SERVICES_INVENTORY_SIDE_STORES_H_
#define ASSISTED_SERVICES_INVENTORY_SIDE_STORES_H_

#include <cstdint>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "assisted/types/v1/event.pb.h"
#include "lib/crypto/sealed.h"
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

class EventStore {
 public:
  explicit EventStore(pg::Pool& pool) : pool_(pool) {}

  // Stores an event; fills id, owner (the caller's, or the resource's for system callers) and
  // event_time (now) when unset. INVALID_ARGUMENT without a message or severity.
  absl::StatusOr<types::v1::Event> Append(const Caller& caller,
                                          const v1::AppendEventRequest& request);

  // Events matching the reference's filters; limit 0 or -1 or above kMaxEventsPerPage means
  // kMaxEventsPerPage; newest last unless order is DESC. Counts ignore limit/offset.
  absl::StatusOr<v1::ListEventsResponse> List(const Caller& caller,
                                              const v1::ListEventsRequest& request);

 private:
  pg::Pool& pool_;
};

class ArtifactStore {
 public:
  // `sealer` seals secret artifacts at rest (secret_columns.h: IsSecretArtifact); null stores
  // them in plain (development only). It must outlive the store.
  ArtifactStore(pg::Pool& pool, int64_t max_bytes, const crypto::Sealer* sealer = nullptr)
      : pool_(pool), max_bytes_(max_bytes), sealer_(sealer) {}

  // Creates, replaces (offset 0) or extends (offset > 0, chunked uploads) an artifact of a
  // cluster the caller can see. RESOURCE_EXHAUSTED beyond max_bytes; FAILED_PRECONDITION for an
  // offset past the stored size; ALREADY_EXISTS with if_absent.
  absl::StatusOr<v1::ArtifactInfo> Put(const Caller& caller, const v1::PutArtifactRequest& request);
  absl::StatusOr<v1::Artifact> Get(const Caller& caller, const v1::GetArtifactRequest& request);
  absl::StatusOr<v1::ListArtifactsResponse> List(const Caller& caller,
                                                 const v1::ListArtifactsRequest& request);
  absl::StatusOr<v1::DeleteArtifactsResponse> Delete(const Caller& caller,
                                                     const v1::DeleteArtifactsRequest& request);

 private:
  // A later chunk of a sealed artifact (`stored_base64`, locked in `tx`): opened, extended and
  // sealed again. Returns the row's kArtifactInfoColumns.
  absl::StatusOr<pg::Result> ExtendSealed(pg::Transaction& tx,
                                          const v1::PutArtifactRequest& request,
                                          absl::string_view stored_base64) const;

  pg::Pool& pool_;
  const int64_t max_bytes_;
  const crypto::Sealer* const sealer_;
};

class LeaseStore {
 public:
  explicit LeaseStore(pg::Pool& pool) : pool_(pool) {}

  // Acquire takes a free or expired lease (or keeps one already held); Renew extends only the
  // holder's unexpired lease; Release frees it. The epoch increases exactly when the lease
  // changes hands. Times come from the database clock, the one clock all replicas share.
  absl::StatusOr<v1::LeaseResponse> Lease(const v1::LeaseRequest& request);

 private:
  pg::Pool& pool_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_SIDE_STORES_H_
