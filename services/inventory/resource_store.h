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
//
// Its SQL, every statement named: resource_queries.h. Callers pass plain arguments; the gRPC
// edge (service.cc) converts requests into them.

#ifndef ASSISTED_SERVICES_INVENTORY_RESOURCE_STORE_H_
#define ASSISTED_SERVICES_INVENTORY_RESOURCE_STORE_H_

#include <functional>
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

// Where a list resumes (a next_page_token it returned, or "" for the first page) and how many
// rows it returns (0: PageLimits::default_size; capped at max_size; negative: INVALID_ARGUMENT).
struct PageRequest {
  std::string token;
  int size = 0;
};

// A host's key: hosts are identified within their infra-env.
struct HostKey {
  std::string infra_env_id;
  std::string id;
};

// What a write must find to go ahead: the resource still at `resource_version` (0: any), and
// `fence` still held (empty: not fenced).
struct Precondition {
  int64_t resource_version = 0;
  Fence fence;
};

// A status compare-and-set: from `expected` to `next` with `info` as status_info, writing the
// fields of `patch` named in `patch_mask` with it. Status is a ClusterStatus or HostStatus, M
// the resource.
template <typename Status, typename M>
struct StatusChange {
  Status expected{};
  Status next{};  // required (not *_UNSPECIFIED)
  std::string info;
  M patch;
  google::protobuf::FieldMask patch_mask;
  Fence fence;
};
using ClusterStatusChange = StatusChange<types::v1::ClusterStatus, types::v1::Cluster>;
using HostStatusChange = StatusChange<types::v1::HostStatus, types::v1::Host>;

// Which clusters ListClusters returns. Empty fields do not filter.
struct ClusterQuery {
  PageRequest page;
  types::v1::Owner owner_scope;  // narrows a system caller's view to one tenant
  std::vector<types::v1::ClusterStatus> statuses;
  std::vector<types::v1::ClusterKind> kinds;
  std::string openshift_cluster_id;
  std::optional<google::protobuf::Timestamp> updated_before;
  bool include_deleted = false;
  bool include_hosts = false;  // each cluster with its live hosts and their counts
};

// Which infra-envs ListInfraEnvs returns. Empty fields do not filter.
struct InfraEnvQuery {
  PageRequest page;
  types::v1::Owner owner_scope;
  std::string cluster_id;
};

// Which hosts ListHosts returns. Empty fields do not filter.
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

  // ---- Clusters. A cluster's `pull_secret` is written sealed, never read back by Get or List.

  // Status defaults to PENDING_FOR_INPUT, id to a new UUID.
  absl::StatusOr<types::v1::Cluster> CreateCluster(const Caller& caller, types::v1::Cluster cluster,
                                                   const std::string& pull_secret = "");
  absl::StatusOr<types::v1::Cluster> GetCluster(const Caller& caller, const std::string& id,
                                                bool include_hosts = false,
                                                bool include_deleted = false);
  absl::StatusOr<v1::ListClustersResponse> ListClusters(const Caller& caller,
                                                        const ClusterQuery& query);
  // Writes the fields of `patch` (which carries the id) named in `mask`; "pull_secret" in the
  // mask writes `pull_secret`.
  absl::StatusOr<types::v1::Cluster> UpdateCluster(const Caller& caller,
                                                   const types::v1::Cluster& patch,
                                                   const google::protobuf::FieldMask& mask,
                                                   const Precondition& precondition = {},
                                                   const std::string& pull_secret = "");
  // Soft-deletes the cluster and its hosts; `purge` removes their rows and artifacts instead.
  absl::Status DeleteCluster(const Caller& caller, const std::string& id,
                             const Precondition& precondition = {}, bool purge = false);
  absl::StatusOr<types::v1::Cluster> UpdateClusterStatus(const Caller& caller,
                                                         const std::string& id,
                                                         const ClusterStatusChange& change);

  // ---- Infra-envs.

  absl::StatusOr<types::v1::InfraEnv> CreateInfraEnv(const Caller& caller,
                                                     types::v1::InfraEnv infra_env,
                                                     const std::string& pull_secret = "");
  absl::StatusOr<types::v1::InfraEnv> GetInfraEnv(const Caller& caller, const std::string& id);
  absl::StatusOr<v1::ListInfraEnvsResponse> ListInfraEnvs(const Caller& caller,
                                                          const InfraEnvQuery& query);
  absl::StatusOr<types::v1::InfraEnv> UpdateInfraEnv(const Caller& caller,
                                                     const types::v1::InfraEnv& patch,
                                                     const google::protobuf::FieldMask& mask,
                                                     const Precondition& precondition = {},
                                                     const std::string& pull_secret = "");
  // FAILED_PRECONDITION while it has live hosts, unless `force` (which deletes them too).
  absl::Status DeleteInfraEnv(const Caller& caller, const std::string& id,
                              const Precondition& precondition = {}, bool force = false);

  // ---- Secrets.

  // The pull secret of a cluster or of an infra-env, opened ("" when it has none).
  absl::StatusOr<std::string> GetClusterPullSecret(const Caller& caller, const std::string& id);
  absl::StatusOr<std::string> GetInfraEnvPullSecret(const Caller& caller, const std::string& id);

  // An infra-env's signing key (mixed into its agent tokens' signatures), made from
  // SecureRandomBytes on first use. System callers only: PERMISSION_DENIED for tenants.
  absl::StatusOr<std::string> GetInfraEnvSigningKey(const Caller& caller,
                                                    const std::string& infra_env_id);
  // Replaces the key with a new random one, bumping the infra-env's resource_version and
  // logging the change (so caches keyed by the version, like the image service's, let go).
  absl::StatusOr<types::v1::InfraEnv> RegenerateInfraEnvSigningKey(const Caller& caller,
                                                                   const std::string& infra_env_id);

  // ---- Hosts.

  // Into a live infra-env the caller may see, whose owner it inherits. id and infra_env_id are
  // required; status defaults to DISCOVERING (DISCOVERING_UNBOUND without a cluster).
  absl::StatusOr<types::v1::Host> CreateHost(const Caller& caller, types::v1::Host host);
  absl::StatusOr<types::v1::Host> GetHost(const Caller& caller, const HostKey& key,
                                          bool include_deleted = false);
  absl::StatusOr<v1::ListHostsResponse> ListHosts(const Caller& caller, const HostQuery& query);
  // `patch` carries the key (infra_env_id and id).
  absl::StatusOr<types::v1::Host> UpdateHost(const Caller& caller, const types::v1::Host& patch,
                                             const google::protobuf::FieldMask& mask,
                                             const Precondition& precondition = {});
  absl::Status DeleteHost(const Caller& caller, const HostKey& key,
                          const Precondition& precondition = {}, bool purge = false);
  absl::StatusOr<types::v1::Host> UpdateHostStatus(const Caller& caller, const HostKey& key,
                                                   const HostStatusChange& change);

 private:
  pg::Pool& pool_;
  Validators validators_;
  PageLimits limits_;
  CommitHook committed_;
  const crypto::Sealer* const sealer_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_RESOURCE_STORE_H_
