#include "services/orchestrator/server.h"

#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "assisted/orchestrator/v1/orchestrator_service.grpc.pb.h"
#include "lib/grpc/channel.h"
#include "lib/random/random.h"
#include "lib/service/grpc_host.h"
#include "lib/status/status_macros.h"
#include "services/orchestrator/agent_hub.h"

namespace assisted::orchestrator {

void Config::Register(config::Parser& parser) {
  grpc.Register(parser);
  parser.String("inventory-address", &inventory_address, "assisted-inventory gRPC host:port")
      .Check(config::HostPort);
  parser.Int("max-agent-streams", &max_agent_streams, "agent streams this server holds")
      .Range(1, 1'000'000);
  parser
      .Int("max-agent-streams-per-peer", &max_agent_streams_per_peer,
           "agent streams from one address, 0 = no cap (NAT gateways front many hosts)")
      .Range(0, 1'000'000);
  parser.Int("workers", &workers, "threads doing inventory work for agent streams").Range(1, 256);
}

namespace {

// What the services use, destroyed after them (see GrpcServiceHost::Keep).
struct Parts {
  SystemRandom random;
  std::unique_ptr<AgentHub> hub;
};

}  // namespace

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context) {
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::Channel> inventory,
                   grpcutil::MakeChannel(config.inventory_address, {}));
  auto parts = std::make_shared<Parts>();
  parts->hub = std::make_unique<AgentHub>(
      std::move(inventory),
      HubOptions{.max_sessions = config.max_agent_streams,
                 .max_sessions_per_peer = config.max_agent_streams_per_peer,
                 .workers = config.workers},
      parts->random, context.log.Child("agents"));
  auto host = std::make_unique<service::GrpcServiceHost>();
  host->Keep(parts);
  host->Add(std::make_unique<AgentServiceImpl>(*parts->hub),
            agent::v1::AgentService::service_full_name());
  host->Add(std::make_unique<v1::OrchestratorService::CallbackService>(),
            v1::OrchestratorService::service_full_name());
  RETURN_IF_ERROR(host->Start(config.grpc, context));
  return host;
}

}  // namespace assisted::orchestrator
