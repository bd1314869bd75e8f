// File: services/inventory/infra_env_store.h
//
// Infra-envs (the discovery environments hosts boot into) in PostgreSQL: create (idempotent by
// id), read, list with keyset paging and tenancy, field-mask updates with optimistic
// concurrency, soft delete. Their signing keys: signing_key_store.h. The rules every resource
// store follows: resource_common.h. SQL: resource_queries.h.

#ifndef ASSISTED_SERVICES_INVENTORY_INFRA_ENV_STORE_H_
#define ASSISTED_SERVICES_INVENTORY_INFRA_ENV_STORE_H_

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

// Which infra-envs InfraEnvStore::List returns. Empty fields do not filter.
struct InfraEnvQuery {
  PageRequest page;
  types::v1::Owner owner_scope;
  std::string cluster_id;
};

class InfraEnvStore {
 public:
  explicit InfraEnvStore(pg::Pool& pool, ResourceStoreOptions options = {})
      : pool_(pool), options_(std::move(options)) {}

  // Id defaults to a new UUID. `pull_secret` is stored sealed, read back only by GetPullSecret.
  // kValidateOnly as in ClusterStore::Create.
  absl::StatusOr<types::v1::InfraEnv> Create(const Caller& caller, types::v1::InfraEnv infra_env,
                                             const std::string& pull_secret = "",
                                             CreateMode mode = CreateMode::kStore);
  absl::StatusOr<types::v1::InfraEnv> Get(const Caller& caller, const std::string& id);
  absl::StatusOr<v1::ListInfraEnvsResponse> List(const Caller& caller, const InfraEnvQuery& query);
  // As ClusterStore::Update.
  absl::StatusOr<types::v1::InfraEnv> Update(const Caller& caller, const types::v1::InfraEnv& patch,
                                             const google::protobuf::FieldMask& mask,
                                             const Precondition& precondition = {},
                                             const std::string& pull_secret = "");
  // FAILED_PRECONDITION while it has live hosts, unless `force` (which deletes them too).
  absl::Status Delete(const Caller& caller, const std::string& id,
                      const Precondition& precondition = {}, bool force = false);
  // The infra-env's pull secret, opened ("" when it has none).
  absl::StatusOr<std::string> GetPullSecret(const Caller& caller, const std::string& id);

 private:
  pg::Pool& pool_;
  const ResourceStoreOptions options_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_INFRA_ENV_STORE_H_
