#include "services/orchestrator/install/inventory_client.h"

namespace assisted::orchestrator::install {

namespace inv = inventory::v1;

absl::StatusOr<types::v1::Cluster> InventoryClient::Cluster(const std::string& id) const {
  inv::GetClusterRequest request;
  request.set_id(id);
  request.set_include_hosts(true);
  return Call(&Stub::GetCluster, request);
}

absl::StatusOr<types::v1::Host> InventoryClient::Host(const std::string& infra_env_id,
                                                      const std::string& id) const {
  inv::GetHostRequest request;
  request.set_infra_env_id(infra_env_id);
  request.set_id(id);
  return Call(&Stub::GetHost, request);
}

absl::StatusOr<std::optional<std::string>> InventoryClient::Artifact(
    const std::string& cluster_id, const std::string& name) const {
  inv::GetArtifactRequest request;
  request.set_cluster_id(cluster_id);
  request.set_name(name);
  absl::StatusOr<inv::Artifact> artifact = Call(&Stub::GetArtifact, request);
  if (absl::IsNotFound(artifact.status())) return std::nullopt;
  if (!artifact.ok()) return artifact.status();
  return std::optional<std::string>(artifact->content());
}

}  // namespace assisted::orchestrator::install
