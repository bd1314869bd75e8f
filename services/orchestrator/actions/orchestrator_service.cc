#include "services/orchestrator/actions/orchestrator_service.h"

#include <initializer_list>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/status/grpc_status.h"

namespace assisted::orchestrator::actions {
namespace {

// INVALID_ARGUMENT naming the first empty field of {name, value} pairs.
absl::Status Required(std::initializer_list<std::pair<const char*, const std::string*>> fields) {
  for (const auto& [name, value] : fields) {
    if (value->empty()) return absl::InvalidArgumentError(absl::StrCat(name, ": required"));
  }
  return absl::OkStatus();
}

// Runs `action` once the required fields are there and stores its result in `response`.
template <typename T, typename Action>
grpc::Status Answer(const absl::Status& required, Action action, T* response) {
  if (!required.ok()) return ToGrpcStatus(required);
  absl::StatusOr<T> result = action();
  if (!result.ok()) return ToGrpcStatus(result.status());
  *response = *std::move(result);
  return grpc::Status::OK;
}

}  // namespace

grpc::Status OrchestratorServiceImpl::InstallCluster(grpc::ServerContext*,
                                                     const v1::InstallClusterRequest* request,
                                                     types::v1::Cluster* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] { return actions_.clusters().InstallCluster(request->cluster_id()); }, response);
}

grpc::Status OrchestratorServiceImpl::CancelInstallation(
    grpc::ServerContext*, const v1::CancelInstallationRequest* request,
    types::v1::Cluster* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] { return actions_.clusters().CancelInstallation(request->cluster_id()); }, response);
}

grpc::Status OrchestratorServiceImpl::ResetCluster(grpc::ServerContext*,
                                                   const v1::ResetClusterRequest* request,
                                                   types::v1::Cluster* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] { return actions_.clusters().ResetCluster(request->cluster_id()); }, response);
}

grpc::Status OrchestratorServiceImpl::AllowAddWorkers(grpc::ServerContext*,
                                                      const v1::AllowAddWorkersRequest* request,
                                                      types::v1::Cluster* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] { return actions_.clusters().AllowAddWorkers(request->cluster_id()); }, response);
}

grpc::Status OrchestratorServiceImpl::RefreshCluster(grpc::ServerContext*,
                                                     const v1::RefreshClusterRequest* request,
                                                     types::v1::Cluster* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] { return actions_.clusters().RefreshCluster(request->cluster_id()); }, response);
}

grpc::Status OrchestratorServiceImpl::GetClusterValidations(
    grpc::ServerContext*, const v1::GetClusterValidationsRequest* request,
    v1::GetClusterValidationsResponse* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] { return actions_.clusters().GetClusterValidations(request->cluster_id()); }, response);
}

grpc::Status OrchestratorServiceImpl::InstallHost(grpc::ServerContext*,
                                                  const v1::InstallHostRequest* request,
                                                  types::v1::Host* response) {
  return Answer(
      Required({{"infra_env_id", &request->infra_env_id()}, {"host_id", &request->host_id()}}),
      [&] { return actions_.hosts().InstallHost(request->infra_env_id(), request->host_id()); },
      response);
}

grpc::Status OrchestratorServiceImpl::ResetHost(grpc::ServerContext*,
                                                const v1::ResetHostRequest* request,
                                                types::v1::Host* response) {
  return Answer(
      Required({{"infra_env_id", &request->infra_env_id()}, {"host_id", &request->host_id()}}),
      [&] { return actions_.hosts().ResetHost(request->infra_env_id(), request->host_id()); },
      response);
}

grpc::Status OrchestratorServiceImpl::UpdateHost(grpc::ServerContext*,
                                                 const v1::UpdateHostRequest* request,
                                                 types::v1::Host* response) {
  return Answer(
      Required({{"infra_env_id", &request->infra_env_id()}, {"host_id", &request->host_id()}}),
      [&] { return actions_.hosts().UpdateHost(*request); }, response);
}

grpc::Status OrchestratorServiceImpl::BindHost(grpc::ServerContext*,
                                               const v1::BindHostRequest* request,
                                               types::v1::Host* response) {
  return Answer(
      Required({{"infra_env_id", &request->infra_env_id()},
                {"host_id", &request->host_id()},
                {"cluster_id", &request->cluster_id()}}),
      [&] {
        return actions_.hosts().BindHost(request->infra_env_id(), request->host_id(),
                                         request->cluster_id());
      },
      response);
}

grpc::Status OrchestratorServiceImpl::UnbindHost(grpc::ServerContext*,
                                                 const v1::UnbindHostRequest* request,
                                                 types::v1::Host* response) {
  return Answer(
      Required({{"infra_env_id", &request->infra_env_id()}, {"host_id", &request->host_id()}}),
      [&] { return actions_.hosts().UnbindHost(request->infra_env_id(), request->host_id()); },
      response);
}

grpc::Status OrchestratorServiceImpl::UpdateHostProgress(
    grpc::ServerContext*, const v1::UpdateHostProgressRequest* request, types::v1::Host* response) {
  return Answer(
      Required({{"infra_env_id", &request->infra_env_id()}, {"host_id", &request->host_id()}}),
      [&] {
        return actions_.progress().ApplyHostProgress(request->infra_env_id(), request->host_id(),
                                                     request->current_stage(),
                                                     request->progress_info());
      },
      response);
}

grpc::Status OrchestratorServiceImpl::UpdateFinalizingProgress(
    grpc::ServerContext*, const v1::UpdateFinalizingProgressRequest* request,
    types::v1::Cluster* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] {
        return actions_.progress().UpdateFinalizingProgress(request->cluster_id(),
                                                            request->finalizing_stage());
      },
      response);
}

grpc::Status OrchestratorServiceImpl::ReportOperatorStatus(
    grpc::ServerContext*, const v1::ReportOperatorStatusRequest* request,
    types::v1::Cluster* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}, {"name", &request->name()}}),
      [&] { return actions_.progress().ReportOperatorStatus(*request); }, response);
}

grpc::Status OrchestratorServiceImpl::UploadIngressCert(grpc::ServerContext*,
                                                        const v1::UploadIngressCertRequest* request,
                                                        types::v1::Cluster* response) {
  return Answer(
      Required(
          {{"cluster_id", &request->cluster_id()}, {"ca_certificate", &request->ca_certificate()}}),
      [&] {
        return actions_.progress().UploadIngressCert(request->cluster_id(),
                                                     request->ca_certificate());
      },
      response);
}

grpc::Status OrchestratorServiceImpl::CompleteInstallation(
    grpc::ServerContext*, const v1::CompleteInstallationRequest* request,
    types::v1::Cluster* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] {
        return actions_.progress().CompleteInstallation(
            request->cluster_id(), request->is_success(), request->error_info());
      },
      response);
}

grpc::Status OrchestratorServiceImpl::SetIgnoredValidations(
    grpc::ServerContext*, const v1::SetIgnoredValidationsRequest* request,
    types::v1::Cluster* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] { return actions_.clusters().SetIgnoredValidations(*request); }, response);
}

grpc::Status OrchestratorServiceImpl::GetInstallConfig(grpc::ServerContext*,
                                                       const v1::GetInstallConfigRequest* request,
                                                       v1::GetInstallConfigResponse* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&]() -> absl::StatusOr<v1::GetInstallConfigResponse> {
        absl::StatusOr<std::string> document =
            actions_.clusters().GetInstallConfig(request->cluster_id());
        if (!document.ok()) return document.status();
        v1::GetInstallConfigResponse answer;
        answer.set_install_config(*std::move(document));
        return answer;
      },
      response);
}

grpc::Status OrchestratorServiceImpl::UpdateInstallConfig(
    grpc::ServerContext*, const v1::UpdateInstallConfigRequest* request,
    types::v1::Cluster* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] {
        return actions_.clusters().UpdateInstallConfig(request->cluster_id(),
                                                       request->install_config_overrides());
      },
      response);
}

grpc::Status OrchestratorServiceImpl::GetPreflightRequirements(
    grpc::ServerContext*, const v1::GetPreflightRequirementsRequest* request,
    v1::PreflightRequirements* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] { return actions_.clusters().GetPreflightRequirements(request->cluster_id()); },
      response);
}

grpc::Status OrchestratorServiceImpl::GetSupportedPlatforms(
    grpc::ServerContext*, const v1::GetSupportedPlatformsRequest* request,
    v1::GetSupportedPlatformsResponse* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] { return actions_.clusters().GetSupportedPlatforms(request->cluster_id()); }, response);
}

grpc::Status OrchestratorServiceImpl::ResetHostValidation(
    grpc::ServerContext*, const v1::ResetHostValidationRequest* request,
    types::v1::Host* response) {
  return Answer(
      Required({{"infra_env_id", &request->infra_env_id()},
                {"host_id", &request->host_id()},
                {"validation_id", &request->validation_id()}}),
      [&] { return actions_.hosts().ResetHostValidation(*request); }, response);
}

grpc::Status OrchestratorServiceImpl::ListClusterManifests(
    grpc::ServerContext*, const v1::ListClusterManifestsRequest* request,
    v1::ListClusterManifestsResponse* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] { return actions_.clusters().ListManifests(request->cluster_id()); }, response);
}

grpc::Status OrchestratorServiceImpl::GetClusterManifest(grpc::ServerContext*,
                                                         const v1::ClusterManifestRef* request,
                                                         v1::ClusterManifest* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] { return actions_.clusters().GetManifest(*request); }, response);
}

grpc::Status OrchestratorServiceImpl::CreateClusterManifest(grpc::ServerContext*,
                                                            const v1::ClusterManifest* request,
                                                            v1::ClusterManifest* response) {
  return Answer(
      Required({{"ref.cluster_id", &request->ref().cluster_id()}}),
      [&] { return actions_.clusters().CreateManifest(*request); }, response);
}

grpc::Status OrchestratorServiceImpl::UpdateClusterManifest(
    grpc::ServerContext*, const v1::UpdateClusterManifestRequest* request,
    v1::ClusterManifest* response) {
  return Answer(
      Required({{"ref.cluster_id", &request->ref().cluster_id()}}),
      [&] { return actions_.clusters().UpdateManifest(*request); }, response);
}

grpc::Status OrchestratorServiceImpl::DeleteClusterManifest(grpc::ServerContext*,
                                                            const v1::ClusterManifestRef* request,
                                                            v1::ClusterManifestRef* response) {
  return Answer(
      Required({{"cluster_id", &request->cluster_id()}}),
      [&] { return actions_.clusters().DeleteManifest(*request); }, response);
}

}  // namespace assisted::orchestrator::actions
