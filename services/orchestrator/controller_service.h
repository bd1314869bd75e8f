// File: services/orchestrator/controller_service.h
//
// assisted.orchestrator.v1.ControllerService: the post-reboot reporter's calls on the agent
// port, each authorised by a controller token (controller_token.h) scoped to the cluster the
// call is about, then handed to the OrchestratorService implementation, which does the work
// exactly as for an internal caller. UpdateHostProgress names a host, not a cluster: the host
// is read from the inventory and must belong to the token's cluster.
//
// Statuses: UNAUTHENTICATED without a valid controller token; PERMISSION_DENIED when the token
// is for another cluster (or the host is not one of its cluster's, or does not exist: a caller
// learns nothing about other clusters); otherwise those of OrchestratorService.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CONTROLLER_SERVICE_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CONTROLLER_SERVICE_H_

#include <memory>
#include <string>

#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "assisted/orchestrator/v1/controller_service.grpc.pb.h"
#include "assisted/orchestrator/v1/orchestrator_service.grpc.pb.h"
#include "grpcpp/channel.h"
#include "lib/time/clock.h"
#include "services/orchestrator/controller_token.h"

namespace assisted::orchestrator {

class ControllerServiceImpl final : public v1::ControllerService::Service {
 public:
  // `actions` does the work; `tokens` null means no caller is authenticated (development
  // set-ups without --url-signing-key-file, like agents then). All borrowed.
  ControllerServiceImpl(v1::OrchestratorService::Service& actions, const ControllerTokens* tokens,
                        std::shared_ptr<grpc::Channel> inventory, const Clock& clock);

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

 private:
  // Sets `cluster_id` to the cluster of the call's controller token; UNAUTHENTICATED without a
  // valid one. Only with tokens_.
  grpc::Status TokenCluster(const grpc::ServerContext& context, std::string* cluster_id) const;
  // OK when the call carries a controller token for `cluster_id` (or tokens_ is null).
  grpc::Status Authorize(const grpc::ServerContext& context, const std::string& cluster_id) const;
  // `method` of actions_ for a request naming its cluster_id, once the call is authorised for
  // that cluster.
  template <typename Request, typename Response>
  grpc::Status ForCluster(grpc::ServerContext* context, const Request* request, Response* response,
                          grpc::Status (v1::OrchestratorService::Service::*method)(
                              grpc::ServerContext*, const Request*, Response*)) {
    if (grpc::Status allowed = Authorize(*context, request->cluster_id()); !allowed.ok()) {
      return allowed;
    }
    return (actions_.*method)(context, request, response);
  }

  v1::OrchestratorService::Service& actions_;
  const ControllerTokens* tokens_;
  std::unique_ptr<inventory::v1::InventoryService::Stub> inventory_;
  const Clock& clock_;
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CONTROLLER_SERVICE_H_
