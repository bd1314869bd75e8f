// File: services/inventory/host_store.h
//
// Hosts in PostgreSQL, each in an infra-env (and bound to a cluster or not): registration
// (idempotent by id, inheriting the infra-env's owner), read, list with keyset paging, tenancy
// and filters, field-mask updates with optimistic concurrency, status compare-and-set, soft
// delete or purge. The rules every resource store follows: resource_common.h. SQL:
// resource_queries.h.

#ifndef ASSISTED_SERVICES_INVENTORY_HOST_STORE_H_
#define ASSISTED_SERVICES_INVENTORY_HOST_STORE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/infra_env.pb.h"
#include "google/protobuf/field_mask.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "lib/pg/pool.h"
#include "services/inventory/resource_common.h"
#include "services/inventory/store_common.h"

namespace assisted::inventory {

using HostStatusChange = StatusChange<types::v1::HostStatus, types::v1::Host>;

// A host's key: hosts are identified within their infra-env.
struct HostKey {
  std::string infra_env_id;
  std::string id;
};

// Which hosts HostStore::List returns. Empty fields do not filter.
struct HostQuery {
  PageRequest page;
  types::v1::Owner owner_scope;
  std::string cluster_id;
  std::string infra_env_id;
  std::vector<types::v1::HostStatus> statuses;
  std::vector<types::v1::HostRole> roles;
  bool include_deleted = false;
  bool unbound_only = false;       // only hosts bound to no cluster
  bool omit_reports = false;       // without the agent reports (inventory, connectivity, ...)
  std::string held_by_other_than;  // only hosts whose agent stream another replica holds
};

class HostStore {
 public:
  explicit HostStore(pg::Pool& pool, ResourceStoreOptions options = {})
      : pool_(pool), options_(std::move(options)) {}

  // Into a live infra-env the caller may see, whose owner it inherits. id and infra_env_id are
  // required; status defaults to DISCOVERING (DISCOVERING_UNBOUND without a cluster).
  absl::StatusOr<types::v1::Host> Create(const Caller& caller, types::v1::Host host);
  absl::StatusOr<types::v1::Host> Get(const Caller& caller, const HostKey& key,
                                      bool include_deleted = false);
  absl::StatusOr<v1::ListHostsResponse> List(const Caller& caller, const HostQuery& query);
  // `patch` carries the key (infra_env_id and id).
  absl::StatusOr<types::v1::Host> Update(const Caller& caller, const types::v1::Host& patch,
                                         const google::protobuf::FieldMask& mask,
                                         const Precondition& precondition = {});
  absl::Status Delete(const Caller& caller, const HostKey& key,
                      const Precondition& precondition = {}, bool purge = false);
  absl::StatusOr<types::v1::Host> UpdateStatus(const Caller& caller, const HostKey& key,
                                               const HostStatusChange& change);

 private:
  pg::Pool& pool_;
  const ResourceStoreOptions options_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_HOST_STORE_H_
