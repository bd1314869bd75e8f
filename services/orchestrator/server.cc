#include "services/orchestrator/server.h"

#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "assisted/orchestrator/v1/orchestrator_service.grpc.pb.h"
#include "lib/service/grpc_host.h"
#include "lib/status/status_macros.h"

namespace assisted::orchestrator {

void Config::Register(config::Parser& parser) {
  grpc.Register(parser);
  parser.String("inventory-address", &inventory_address, "assisted-inventory gRPC host:port")
      .Check(config::HostPort);
}

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context) {
  auto host = std::make_unique<service::GrpcServiceHost>();
  host->Add(std::make_unique<agent::v1::AgentService::CallbackService>(),
            agent::v1::AgentService::service_full_name());
  host->Add(std::make_unique<v1::OrchestratorService::CallbackService>(),
            v1::OrchestratorService::service_full_name());
  RETURN_IF_ERROR(host->Start(config.grpc, context));
  return host;
}

}  // namespace assisted::orchestrator
