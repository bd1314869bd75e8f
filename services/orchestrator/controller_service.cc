#include "services/orchestrator/controller_service.h"

#include "absl/strings/str_cat.h"
#include "lib/grpc/channel.h"

namespace assisted::orchestrator {
namespace {

constexpr absl::Duration kInventoryTimeout = absl::Seconds(10);

grpc::Status NotYourCluster() {
  return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                      "the controller token is not for this cluster");
}

}  // namespace

ControllerServiceImpl::ControllerServiceImpl(v1::OrchestratorService::Service& actions,
                                             const ControllerTokens* tokens,
                                             std::shared_ptr<grpc::Channel> inventory,
                                             const Clock& clock)
    : actions_(actions),
      tokens_(tokens),
      inventory_(inventory::v1::InventoryService::NewStub(std::move(inventory))),
      clock_(clock) {}

grpc::Status ControllerServiceImpl::TokenCluster(const grpc::ServerContext& context,
                                                 std::string* cluster_id) const {
  absl::StatusOr<std::string> scope = tokens_->Verify(BearerToken(context), clock_.Now());
  if (!scope.ok()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, std::string(scope.status().message()));
  }
  *cluster_id = *std::move(scope);
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::Authorize(const grpc::ServerContext& context,
                                              const std::string& cluster_id) const {
  if (tokens_ == nullptr) return grpc::Status::OK;
  std::string scope;
  if (grpc::Status valid = TokenCluster(context, &scope); !valid.ok()) return valid;
  return scope == cluster_id ? grpc::Status::OK : NotYourCluster();
}

grpc::Status ControllerServiceImpl::UpdateHostProgress(grpc::ServerContext* context,
                                                       const v1::UpdateHostProgressRequest* request,
                                                       types::v1::Host* response) {
  if (tokens_ != nullptr) {
    // The token is checked before the host is looked up: an unauthenticated caller learns
    // nothing about which hosts exist.
    std::string scope;
    if (grpc::Status valid = TokenCluster(*context, &scope); !valid.ok()) return valid;
    inventory::v1::GetHostRequest get;
    get.set_infra_env_id(request->infra_env_id());
    get.set_id(request->host_id());
    types::v1::Host host;
    const grpc::Status read =
        inventory_->GetHost(grpcutil::ContextWithin(kInventoryTimeout).get(), get, &host);
    if (read.error_code() == grpc::StatusCode::NOT_FOUND ||
        read.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      return NotYourCluster();
    }
    if (!read.ok()) return read;
    if (host.cluster_id() != scope) return NotYourCluster();
  }
  return actions_.UpdateHostProgress(context, request, response);
}

grpc::Status ControllerServiceImpl::UpdateFinalizingProgress(
    grpc::ServerContext* context, const v1::UpdateFinalizingProgressRequest* request,
    types::v1::Cluster* response) {
  return ForCluster(context, request, response,
                    &v1::OrchestratorService::Service::UpdateFinalizingProgress);
}

grpc::Status ControllerServiceImpl::ReportOperatorStatus(
    grpc::ServerContext* context, const v1::ReportOperatorStatusRequest* request,
    types::v1::Cluster* response) {
  return ForCluster(context, request, response,
                    &v1::OrchestratorService::Service::ReportOperatorStatus);
}

grpc::Status ControllerServiceImpl::UploadIngressCert(grpc::ServerContext* context,
                                                      const v1::UploadIngressCertRequest* request,
                                                      types::v1::Cluster* response) {
  return ForCluster(context, request, response,
                    &v1::OrchestratorService::Service::UploadIngressCert);
}

grpc::Status ControllerServiceImpl::CompleteInstallation(
    grpc::ServerContext* context, const v1::CompleteInstallationRequest* request,
    types::v1::Cluster* response) {
  return ForCluster(context, request, response,
                    &v1::OrchestratorService::Service::CompleteInstallation);
}

}  // namespace assisted::orchestrator
