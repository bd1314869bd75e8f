// File: services/inventory/cluster_store.h
//
// Clusters in PostgreSQL: create (idempotent by id), read (optionally with their hosts), list
// with keyset paging and tenancy, field-mask updates with optimistic concurrency, status
// compare-and-set, soft delete (with their hosts) or purge (with their hosts and artifacts).
// The rules every resource store follows: resource_common.h. SQL: resource_queries.h.

#ifndef ASSISTED_SERVICES_INVENTORY_CLUSTER_STORE_H_
#define ASSISTED_SERVICES_INVENTORY_CLUSTER_STORE_H_

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

using ClusterStatusChange = StatusChange<types::v1::ClusterStatus, types::v1::Cluster>;

// Which clusters ClusterStore::List returns. Empty fields do not filter.
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

class ClusterStore {
 public:
  explicit ClusterStore(pg::Pool& pool, ResourceStoreOptions options = {})
      : pool_(pool), options_(std::move(options)) {}

  // Status defaults to PENDING_FOR_INPUT, id to a new UUID. `pull_secret` is stored sealed and
  // read back only by GetPullSecret. kValidateOnly runs the same checks and returns the
  // cluster as it would be stored, storing nothing.
  absl::StatusOr<types::v1::Cluster> Create(const Caller& caller, types::v1::Cluster cluster,
                                            const std::string& pull_secret = "",
                                            CreateMode mode = CreateMode::kStore);
  absl::StatusOr<types::v1::Cluster> Get(const Caller& caller, const std::string& id,
                                         bool include_hosts = false, bool include_deleted = false);
  absl::StatusOr<v1::ListClustersResponse> List(const Caller& caller, const ClusterQuery& query);
  // Writes the fields of `patch` (which carries the id) named in `mask`; "pull_secret" in the
  // mask writes `pull_secret`.
  absl::StatusOr<types::v1::Cluster> Update(const Caller& caller, const types::v1::Cluster& patch,
                                            const google::protobuf::FieldMask& mask,
                                            const Precondition& precondition = {},
                                            const std::string& pull_secret = "");
  // Soft-deletes the cluster and its hosts; `purge` removes their rows and artifacts instead.
  absl::Status Delete(const Caller& caller, const std::string& id,
                      const Precondition& precondition = {}, bool purge = false);
  absl::StatusOr<types::v1::Cluster> UpdateStatus(const Caller& caller, const std::string& id,
                                                  const ClusterStatusChange& change);
  // The cluster's pull secret, opened ("" when it has none).
  absl::StatusOr<std::string> GetPullSecret(const Caller& caller, const std::string& id);

 private:
  pg::Pool& pool_;
  const ResourceStoreOptions options_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_CLUSTER_STORE_H_
