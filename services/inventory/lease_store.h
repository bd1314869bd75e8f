// File: services/inventory/lease_store.h
//
// Leases: leader election among the replicas of another service (the orchestrator), with
// fencing epochs that writes can carry (store_common.h: Fence) so a deposed leader cannot
// overwrite its successor's decisions. SQL: lease_queries.h.

#ifndef ASSISTED_SERVICES_INVENTORY_LEASE_STORE_H_
#define ASSISTED_SERVICES_INVENTORY_LEASE_STORE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "lib/pg/pool.h"

namespace assisted::inventory {

class LeaseStore {
 public:
  explicit LeaseStore(pg::Pool& pool) : pool_(pool) {}

  // Acquire takes a free or expired lease (or keeps one already held); Renew extends only the
  // holder's unexpired lease; Release frees it. Acquire and Renew hold it for `ttl` (1 ms to
  // 1 hour). The epoch increases exactly when the lease changes hands. INVALID_ARGUMENT without
  // a name, a holder or an action.
  absl::StatusOr<v1::LeaseResponse> Lease(v1::LeaseAction action, const std::string& name,
                                          const std::string& holder, absl::Duration ttl);

 private:
  pg::Pool& pool_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_LEASE_STORE_H_
