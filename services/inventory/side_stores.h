// File: services/inventory/side_stores.h
//
// The inventory's stores besides resources: events (an append-only history per cluster, host
// and infra-env), artifacts (generated files of a cluster: install-config, Ignition, credentials,
// logs) and leases (leader election with fencing epochs).

#ifndef ASSISTED_SERVICES_INVENTORY_SIDE_STORES_H_
#define ASSISTED_SERVICES_INVENTORY_SIDE_STORES_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "assisted/types/v1/event.pb.h"
#include "lib/pg/pool.h"
#include "services/inventory/store_common.h"

namespace assisted::inventory {

class EventStore {
 public:
  explicit EventStore(pg::Pool& pool) : pool_(pool) {}

  // Stores an event; fills id, owner (the caller's, or the resource's for system callers) and
  // event_time (now) when unset. INVALID_ARGUMENT without a message or severity.
  absl::StatusOr<types::v1::Event> Append(const Caller& caller,
                                          const v1::AppendEventRequest& request);

  // Events matching the reference's filters; limit 0 = 5000, -1 = all; newest last unless
  // order is DESC. Counts ignore limit/offset.
  absl::StatusOr<v1::ListEventsResponse> List(const Caller& caller,
                                              const v1::ListEventsRequest& request);

 private:
  pg::Pool& pool_;
};

class ArtifactStore {
 public:
  ArtifactStore(pg::Pool& pool, int64_t max_bytes) : pool_(pool), max_bytes_(max_bytes) {}

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
  pg::Pool& pool_;
  const int64_t max_bytes_;
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
