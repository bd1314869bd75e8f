// File: services/orchestrator/actions/orchestrator_service.h
//
// assisted.orchestrator.v1.OrchestratorService over the user actions (user_actions.h): a
// synchronous gRPC service (its handlers block on inventory calls; the server's thread cap bounds
// them) that only checks required ids and converts statuses.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_ORCHESTRATOR_SERVICE_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_ORCHESTRATOR_SERVICE_H_

#include "assisted/orchestrator/v1/orchestrator_service.grpc.pb.h"
#include "services/orchestrator/actions/user_actions.h"

namespace assisted::orchestrator::actions {

class OrchestratorServiceImpl final : public v1::OrchestratorService::Service {
 public:
  explicit OrchestratorServiceImpl(UserActions& actions) : actions_(actions) {}

  grpc::Status InstallCluster(grpc::ServerContext* context,
                              const v1::InstallClusterRequest* request,
                              types::v1::Cluster* response) override;
  grpc::Status CancelInstallation(grpc::ServerContext* context,
                                  const v1::CancelInstallationRequest* request,
                                  types::v1::Cluster* response) override;
  grpc::Status ResetCluster(grpc::ServerContext* context, const v1::ResetClusterRequest* request,
                            types::v1::Cluster* response) override;
  grpc::Status AllowAddWorkers(grpc::ServerContext* context,
                               const v1::AllowAddWorkersRequest* request,
                               types::v1::Cluster* response) override;
  grpc::Status RefreshCluster(grpc::ServerContext* context,
                              const v1::RefreshClusterRequest* request,
                              types::v1::Cluster* response) override;
  grpc::Status GetClusterValidations(grpc::ServerContext* context,
                                     const v1::GetClusterValidationsRequest* request,
                                     v1::GetClusterValidationsResponse* response) override;
  grpc::Status InstallHost(grpc::ServerContext* context, const v1::InstallHostRequest* request,
                           types::v1::Host* response) override;
  grpc::Status ResetHost(grpc::ServerContext* context, const v1::ResetHostRequest* request,
                         types::v1::Host* response) override;
  grpc::Status BindHost(grpc::ServerContext* context, const v1::BindHostRequest* request,
                        types::v1::Host* response) override;
  grpc::Status UnbindHost(grpc::ServerContext* context, const v1::UnbindHostRequest* request,
                          types::v1::Host* response) override;
  grpc::Status UpdateHost(grpc::ServerContext* context, const v1::UpdateHostRequest* request,
                          types::v1::Host* response) override;
  grpc::Status UpdateHostProgress(grpc::ServerContext* context,
                                  const v1::UpdateHostProgressRequest* request,
                                  types::v1::Host* response) override;
  grpc::Status UpdateFinalizingProgress(grpc::ServerContext* context,
                                        const v1::UpdateFinalizingProgressRequest* request,
                                        types::v1::Cluster* response) override;
  grpc::Status ReportOperatorStatus(grpc::ServerContext* context,
                                    const v1::ReportOperatorStatusRequest* request,
                                    types::v1::Cluster* response) override;
  grpc::Status UploadIngressCert(grpc::ServerContext* context,
                                 const v1::UploadIngressCertRequest* request,
                                 types::v1::Cluster* response) override;
  grpc::Status CompleteInstallation(grpc::ServerContext* context,
                                    const v1::CompleteInstallationRequest* request,
                                    types::v1::Cluster* response) override;
  grpc::Status SetIgnoredValidations(grpc::ServerContext* context,
                                     const v1::SetIgnoredValidationsRequest* request,
                                     types::v1::Cluster* response) override;
  grpc::Status GetInstallConfig(grpc::ServerContext* context,
                                const v1::GetInstallConfigRequest* request,
                                v1::GetInstallConfigResponse* response) override;
  grpc::Status UpdateInstallConfig(grpc::ServerContext* context,
                                   const v1::UpdateInstallConfigRequest* request,
                                   types::v1::Cluster* response) override;
  grpc::Status GetPreflightRequirements(grpc::ServerContext* context,
                                        const v1::GetPreflightRequirementsRequest* request,
                                        v1::PreflightRequirements* response) override;
  grpc::Status GetSupportedPlatforms(grpc::ServerContext* context,
                                     const v1::GetSupportedPlatformsRequest* request,
                                     v1::GetSupportedPlatformsResponse* response) override;
  grpc::Status ResetHostValidation(grpc::ServerContext* context,
                                   const v1::ResetHostValidationRequest* request,
                                   types::v1::Host* response) override;
  grpc::Status ListClusterManifests(grpc::ServerContext* context,
                                    const v1::ListClusterManifestsRequest* request,
                                    v1::ListClusterManifestsResponse* response) override;
  grpc::Status GetClusterManifest(grpc::ServerContext* context,
                                  const v1::ClusterManifestRef* request,
                                  v1::ClusterManifest* response) override;
  grpc::Status CreateClusterManifest(grpc::ServerContext* context,
                                     const v1::ClusterManifest* request,
                                     v1::ClusterManifest* response) override;
  grpc::Status UpdateClusterManifest(grpc::ServerContext* context,
                                     const v1::UpdateClusterManifestRequest* request,
                                     v1::ClusterManifest* response) override;
  grpc::Status DeleteClusterManifest(grpc::ServerContext* context,
                                     const v1::ClusterManifestRef* request,
                                     v1::ClusterManifestRef* response) override;

 private:
  UserActions& actions_;
};

}  // namespace assisted::orchestrator::actions

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_ORCHESTRATOR_SERVICE_H_
