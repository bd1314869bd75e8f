// File: services/orchestrator/inventory_port.cc

#include "services/orchestrator/inventory_port.h"

#include <utility>

#include "google/protobuf/util/time_util.h"
#include "grpcpp/client_context.h"
#include "lib/grpc/channel.h"
#include "lib/inventory_client/watch_follower.h"
#include "lib/status/grpc_status.h"
#include "lib/status/status_macros.h"

namespace assisted::orchestrator {
namespace {

namespace inv = inventory::v1;

void SetMask(const std::vector<std::string>& paths, google::protobuf::FieldMask& mask) {
  for (const std::string& path : paths) mask.add_paths(path);
}

// `request` as the compare-and-set of `stored`'s status to `to` with `status_info` and
// `patch` (UpdateHostStatusRequest or UpdateClusterStatusRequest).
template <typename Request, typename Record, typename Status>
void CompareAndSet(const Record& stored, Status to, const std::string& status_info,
                   const core::FieldsUpdate<Record>& patch, Request& request) {
  request.set_id(stored.id());
  request.set_expected_status(stored.status());
  request.set_new_status(to);
  request.set_status_info(status_info);
  *request.mutable_patch() = patch.fields;
  SetMask(patch.paths, *request.mutable_patch_mask());
}

class FollowerSubscription final : public WatchSubscription {
 public:
  explicit FollowerSubscription(std::unique_ptr<inventory_client::WatchFollower> follower)
      : follower_(std::move(follower)) {}

 private:
  std::unique_ptr<inventory_client::WatchFollower> follower_;
};

}  // namespace

absl::StatusOr<std::optional<std::string>> InventoryPort::ArtifactContent(
    const std::string& cluster_id, const std::string& name) {
  absl::StatusOr<inv::Artifact> artifact = GetArtifact(cluster_id, name, /*metadata_only=*/false);
  if (absl::IsNotFound(artifact.status())) return std::nullopt;
  if (!artifact.ok()) return artifact.status();
  return std::optional<std::string>(std::move(*artifact->mutable_content()));
}

GrpcInventory::GrpcInventory(std::shared_ptr<grpc::Channel> channel, absl::Duration timeout,
                             log::Logger log)
    : stub_(inv::InventoryService::NewStub(std::move(channel))),
      timeout_(timeout),
      log_(std::move(log)) {}

template <typename Request, typename Response>
absl::StatusOr<Response> GrpcInventory::Call(grpc::Status (Stub::*method)(grpc::ClientContext*,
                                                                          const Request&,
                                                                          Response*),
                                             const Request& request) {
  Response response;
  const grpc::Status status =
      ((*stub_).*method)(grpcutil::ContextWithin(timeout_).get(), request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<types::v1::Cluster> GrpcInventory::GetCluster(const std::string& id,
                                                             bool with_hosts) {
  inv::GetClusterRequest request;
  request.set_id(id);
  request.set_include_hosts(with_hosts);
  return Call(&Stub::GetCluster, request);
}

absl::StatusOr<types::v1::Host> GrpcInventory::GetHost(const std::string& infra_env_id,
                                                       const std::string& id) {
  inv::GetHostRequest request;
  request.set_infra_env_id(infra_env_id);
  request.set_id(id);
  return Call(&Stub::GetHost, request);
}

absl::StatusOr<types::v1::InfraEnv> GrpcInventory::GetInfraEnv(const std::string& id) {
  inv::GetInfraEnvRequest request;
  request.set_id(id);
  return Call(&Stub::GetInfraEnv, request);
}

absl::StatusOr<std::vector<types::v1::InfraEnv>> GrpcInventory::ListClusterInfraEnvs(
    const std::string& cluster_id) {
  inv::ListInfraEnvsRequest request;
  request.set_cluster_id(cluster_id);
  request.set_page_size(1000);
  std::vector<types::v1::InfraEnv> all;
  do {
    ASSIGN_OR_RETURN(inv::ListInfraEnvsResponse page, Call(&Stub::ListInfraEnvs, request));
    for (types::v1::InfraEnv& infra_env : *page.mutable_infra_envs()) {
      all.push_back(std::move(infra_env));
    }
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return all;
}

absl::StatusOr<std::vector<types::v1::Host>> GrpcInventory::ListHostsHeldByOthers(
    const std::string& holder) {
  inv::ListHostsRequest request;
  request.set_held_by_other_than(holder);
  request.set_omit_reports(true);
  request.set_page_size(1000);
  std::vector<types::v1::Host> all;
  do {
    ASSIGN_OR_RETURN(inv::ListHostsResponse page, Call(&Stub::ListHosts, request));
    for (types::v1::Host& host : *page.mutable_hosts()) all.push_back(std::move(host));
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return all;
}

absl::StatusOr<std::string> GrpcInventory::GetPullSecret(const std::string& cluster_id) {
  inv::GetPullSecretRequest request;
  request.set_cluster_id(cluster_id);
  ASSIGN_OR_RETURN(inv::GetPullSecretResponse response, Call(&Stub::GetPullSecret, request));
  return std::move(*response.mutable_pull_secret());
}

absl::StatusOr<std::string> GrpcInventory::GetInfraEnvSigningKey(const std::string& infra_env_id) {
  inv::GetInfraEnvSigningKeyRequest request;
  request.set_infra_env_id(infra_env_id);
  ASSIGN_OR_RETURN(inv::GetInfraEnvSigningKeyResponse response,
                   Call(&Stub::GetInfraEnvSigningKey, request));
  return std::move(*response.mutable_signing_key());
}

absl::StatusOr<types::v1::Host> GrpcInventory::CreateHost(const types::v1::Host& host) {
  inv::CreateHostRequest request;
  *request.mutable_host() = host;
  return Call(&Stub::CreateHost, request);
}

absl::StatusOr<types::v1::Host> GrpcInventory::UpdateHost(const std::string& infra_env_id,
                                                          const std::string& id,
                                                          const core::HostFieldsUpdate& update,
                                                          int64_t expected_version) {
  inv::UpdateHostRequest request;
  *request.mutable_host() = update.fields;
  request.mutable_host()->set_infra_env_id(infra_env_id);
  request.mutable_host()->set_id(id);
  SetMask(update.paths, *request.mutable_update_mask());
  request.set_resource_version(expected_version);
  return Call(&Stub::UpdateHost, request);
}

absl::StatusOr<types::v1::Cluster> GrpcInventory::UpdateCluster(
    const std::string& id, const core::ClusterFieldsUpdate& update, int64_t expected_version) {
  inv::UpdateClusterRequest request;
  *request.mutable_cluster() = update.fields;
  request.mutable_cluster()->set_id(id);
  SetMask(update.paths, *request.mutable_update_mask());
  request.set_resource_version(expected_version);
  return Call(&Stub::UpdateCluster, request);
}

absl::StatusOr<types::v1::Host> GrpcInventory::UpdateHostStatus(
    const types::v1::Host& stored, types::v1::HostStatus to, const std::string& status_info,
    const core::HostFieldsUpdate& patch) {
  inv::UpdateHostStatusRequest request;
  request.set_infra_env_id(stored.infra_env_id());
  CompareAndSet(stored, to, status_info, patch, request);
  return Call(&Stub::UpdateHostStatus, request);
}

absl::StatusOr<types::v1::Cluster> GrpcInventory::UpdateClusterStatus(
    const types::v1::Cluster& stored, types::v1::ClusterStatus to, const std::string& status_info,
    const core::ClusterFieldsUpdate& patch) {
  inv::UpdateClusterStatusRequest request;
  CompareAndSet(stored, to, status_info, patch, request);
  return Call(&Stub::UpdateClusterStatus, request);
}

absl::Status GrpcInventory::AppendEvent(const types::v1::Event& event) {
  inv::AppendEventRequest request;
  *request.mutable_event() = event;
  return Call(&Stub::AppendEvent, request).status();
}

absl::StatusOr<inv::Artifact> GrpcInventory::GetArtifact(const std::string& cluster_id,
                                                         const std::string& name,
                                                         bool metadata_only) {
  inv::GetArtifactRequest request;
  request.set_cluster_id(cluster_id);
  request.set_name(name);
  request.set_metadata_only(metadata_only);
  return Call(&Stub::GetArtifact, request);
}

absl::Status GrpcInventory::PutArtifact(const ArtifactWrite& write) {
  inv::PutArtifactRequest request;
  request.set_cluster_id(write.cluster_id);
  request.set_name(write.name);
  request.set_kind(write.kind);
  request.set_content_type(write.content_type);
  request.set_content(write.content);
  request.set_offset(write.offset);
  request.set_partial(write.partial);
  request.set_if_absent(write.if_absent);
  if (write.fence.has_value()) *request.mutable_fence() = *write.fence;
  for (types::v1::ClusterStatus status : write.cluster_status_in) {
    request.add_cluster_status_in(status);
  }
  return Call(&Stub::PutArtifact, request).status();
}

absl::Status GrpcInventory::DeleteArtifacts(const std::string& cluster_id,
                                            const std::vector<inv::ArtifactKind>& kinds) {
  inv::DeleteArtifactsRequest request;
  request.set_cluster_id(cluster_id);
  for (inv::ArtifactKind kind : kinds) request.add_kinds(kind);
  return Call(&Stub::DeleteArtifacts, request).status();
}

absl::StatusOr<std::vector<inv::ArtifactInfo>> GrpcInventory::ListArtifacts(
    const std::string& cluster_id, inv::ArtifactKind kind) {
  inv::ListArtifactsRequest request;
  request.set_cluster_id(cluster_id);
  request.add_kinds(kind);
  ASSIGN_OR_RETURN(inv::ListArtifactsResponse response, Call(&Stub::ListArtifacts, request));
  return std::vector<inv::ArtifactInfo>(response.artifacts().begin(), response.artifacts().end());
}

absl::StatusOr<int64_t> GrpcInventory::DeleteArtifact(
    const std::string& cluster_id, const std::string& name,
    const std::vector<types::v1::ClusterStatus>& cluster_status_in) {
  inv::DeleteArtifactsRequest request;
  request.set_cluster_id(cluster_id);
  request.set_name(name);
  for (types::v1::ClusterStatus status : cluster_status_in) {
    request.add_cluster_status_in(status);
  }
  ASSIGN_OR_RETURN(inv::DeleteArtifactsResponse response, Call(&Stub::DeleteArtifacts, request));
  return response.deleted_count();
}

absl::StatusOr<LeaseState> GrpcInventory::AcquireLease(const std::string& name,
                                                       const std::string& holder,
                                                       absl::Duration ttl) {
  inv::LeaseRequest request;
  request.set_name(name);
  request.set_holder(holder);
  *request.mutable_ttl() =
      google::protobuf::util::TimeUtil::MillisecondsToDuration(absl::ToInt64Milliseconds(ttl));
  request.set_action(inv::LEASE_ACTION_ACQUIRE);
  ASSIGN_OR_RETURN(inv::LeaseResponse response, Call(&Stub::Lease, request));
  return LeaseState{response.granted(), response.holder(), response.epoch()};
}

absl::Status GrpcInventory::ReleaseLease(const std::string& name, const std::string& holder) {
  inv::LeaseRequest request;
  request.set_name(name);
  request.set_holder(holder);
  request.set_action(inv::LEASE_ACTION_RELEASE);
  return Call(&Stub::Lease, request).status();
}

std::unique_ptr<WatchSubscription> GrpcInventory::Watch(std::vector<inv::ResourceKind> kinds,
                                                        bool hints, WatchCallbacks callbacks) {
  return std::make_unique<FollowerSubscription>(std::make_unique<inventory_client::WatchFollower>(
      *stub_, inventory_client::WatchFollower::Options{.kinds = std::move(kinds), .hints = hints},
      inventory_client::WatchFollower::Callbacks{.on_change = std::move(callbacks.on_change),
                                                 .on_resync = std::move(callbacks.on_resync)},
      log_.Child("watch")));
}

}  // namespace assisted::orchestrator
