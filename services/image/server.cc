#include "services/image/server.h"

#include "assisted/image/v1/image_service.grpc.pb.h"
#include "lib/service/grpc_host.h"
#include "lib/status/status_macros.h"

namespace assisted::image {

void Config::Register(config::Parser& parser) {
  grpc.Register(parser);
  parser.String("http-listen", &http_listen, "ISO/PXE download listen address host:port")
      .Check(config::HostPort);
  parser.String("inventory-address", &inventory_address, "assisted-inventory gRPC host:port")
      .Check(config::HostPort);
}

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context) {
  auto host = std::make_unique<service::GrpcServiceHost>();
  host->Add(std::make_unique<v1::ImageService::CallbackService>(),
            v1::ImageService::service_full_name());
  RETURN_IF_ERROR(host->Start(config.grpc, context));
  return host;
}

}  // namespace assisted::image
