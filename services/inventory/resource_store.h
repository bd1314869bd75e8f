// File: services/inventory/resource_store.h
//
// Clusters, infra-envs and hosts in PostgreSQL: create (idempotent by id), read, list with
// keyset paging and tenancy, field-mask updates with optimistic concurrency, status
// compare-and-set, soft delete. Every write bumps the resource's resource_version and appends to
// the change log in the same transaction.
//
// Rules that hold for all three kinds:
// - A stale resource_version (≠ 0) fails with ABORTED; so does a lost status compare-and-set,
//   whose message names the actual status.
// - Another tenant's resource is NOT_FOUND.
// - Bad input is INVALID_ARGUMENT naming the field; nothing is written.
// - Lock order: a cluster's row before its hosts' rows (DeleteCluster), never the reverse.

#ifndef ASSISTED_SERVICES_INVENTORY_RESOURCE_STORE_H_
#define ASSISTED_SERVICES_INVENTORY_RESOURCE_STORE_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/infra_env.pb.h"
#include "lib/crypto/sealed.h"
#include "lib/pg/pool.h"
#include "services/inventory/change_log.h"
#include "services/inventory/store_common.h"

namespace assisted::inventory {

// Input checks applied to a resource as it will be stored (after a field-mask merge).
// Any may be empty (no check). Each returns INVALID_ARGUMENT naming the field.
struct Validators {
  std::function<absl::Status(const types::v1::Cluster&)> cluster;
  std::function<absl::Status(const types::v1::InfraEnv&)> infra_env;
  std::function<absl::Status(const types::v1::Host&)> host;
  std::function<absl::Status(absl::string_view)> pull_secret;
};

struct PageLimits {
  int default_size = 100;
  int max_size = 1000;
};

// Told of each create or update of one resource once it has committed, on the writer's thread
// (the inventory hands it to its ChangeFeed as a hint). It must not block.
using CommitHook = std::function<void(const Change&)>;

class ResourceStore {
 public:
  // `sealer` seals pull secrets and signing keys at rest (secret_columns.h); null stores them in
  // plain (development only). It must outlive the store.
  ResourceStore(pg::Pool& pool, Validators validators, PageLimits limits = {},
                CommitHook committed = nullptr, const crypto::Sealer* sealer = nullptr)
      : pool_(pool),
        validators_(std::move(validators)),
        limits_(limits),
        committed_(std::move(committed)),
        sealer_(sealer) {}

  absl::StatusOr<types::v1::Cluster> CreateCluster(const Caller& caller,
                                                   const v1::CreateClusterRequest& request);
  absl::StatusOr<types::v1::Cluster> GetCluster(const Caller& caller,
                                                const v1::GetClusterRequest& request);
  absl::StatusOr<v1::ListClustersResponse> ListClusters(const Caller& caller,
                                                        const v1::ListClustersRequest& request);
  absl::StatusOr<types::v1::Cluster> UpdateCluster(const Caller& caller,
                                                   const v1::UpdateClusterRequest& request);
  absl::Status DeleteCluster(const Caller& caller, const v1::DeleteClusterRequest& request);
  absl::StatusOr<types::v1::Cluster> UpdateClusterStatus(
      const Caller& caller, const v1::UpdateClusterStatusRequest& request);

  absl::StatusOr<types::v1::InfraEnv> CreateInfraEnv(const Caller& caller,
                                                     const v1::CreateInfraEnvRequest& request);
  absl::StatusOr<types::v1::InfraEnv> GetInfraEnv(const Caller& caller,
                                                  const v1::GetInfraEnvRequest& request);
  absl::StatusOr<v1::ListInfraEnvsResponse> ListInfraEnvs(const Caller& caller,
                                                          const v1::ListInfraEnvsRequest& request);
  absl::StatusOr<types::v1::InfraEnv> UpdateInfraEnv(const Caller& caller,
                                                     const v1::UpdateInfraEnvRequest& request);
  absl::Status DeleteInfraEnv(const Caller& caller, const v1::DeleteInfraEnvRequest& request);

  absl::StatusOr<std::string> GetPullSecret(const Caller& caller,
                                            const v1::GetPullSecretRequest& request);

  // An infra-env's signing key (mixed into its agent tokens' signatures), made from
  // SecureRandomBytes on first use. System callers only: PERMISSION_DENIED for tenants.
  absl::StatusOr<std::string> GetInfraEnvSigningKey(const Caller& caller,
                                                    const std::string& infra_env_id);
  // Replaces the key with a new random one, bumping the infra-env's resource_version and
  // logging the change (so caches keyed by the version, like the image service's, let go).
  absl::StatusOr<types::v1::InfraEnv> RegenerateInfraEnvSigningKey(const Caller& caller,
                                                                   const std::string& infra_env_id);

  absl::StatusOr<types::v1::Host> CreateHost(const Caller& caller,
                                             const v1::CreateHostRequest& request);
  absl::StatusOr<types::v1::Host> GetHost(const Caller& caller, const v1::GetHostRequest& request);
  absl::StatusOr<v1::ListHostsResponse> ListHosts(const Caller& caller,
                                                  const v1::ListHostsRequest& request);
  absl::StatusOr<types::v1::Host> UpdateHost(const Caller& caller,
                                             const v1::UpdateHostRequest& request);
  absl::Status DeleteHost(const Caller& caller, const v1::DeleteHostRequest& request);
  absl::StatusOr<types::v1::Host> UpdateHostStatus(const Caller& caller,
                                                   const v1::UpdateHostStatusRequest& request);

 private:
  pg::Pool& pool_;
  Validators validators_;
  PageLimits limits_;
  CommitHook committed_;
  const crypto::Sealer* const sealer_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_RESOURCE_STORE_H_
