#include "services/gateway/server.h"

#include "lib/service/grpc_host.h"
#include "lib/status/status_macros.h"

namespace assisted::gateway {

void Config::Register(config::Parser& parser) {
  grpc.Register(parser);
  parser.String("http-listen", &http_listen, "REST API listen address host:port")
      .Check(config::HostPort);
  parser.String("inventory-address", &inventory_address, "assisted-inventory gRPC host:port")
      .Check(config::HostPort);
  parser
      .String("orchestrator-address", &orchestrator_address, "assisted-orchestrator gRPC host:port")
      .Check(config::HostPort);
  parser.String("image-address", &image_address, "assisted-image gRPC host:port")
      .Check(config::HostPort);
}

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context) {
  auto host = std::make_unique<service::GrpcServiceHost>();
  RETURN_IF_ERROR(host->Start(config.grpc, context));
  return host;
}

}  // namespace assisted::gateway
