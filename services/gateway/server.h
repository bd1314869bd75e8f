// File: services/gateway/server.h
//
// Composition root of assisted-gateway: the public REST/JSON API (/api/assisted-install/v2/…,
// port 8080 by default) that maps onto the other services' gRPC APIs. It keeps no state. Its own
// gRPC port (9093) carries only health checks and reflection, for the same probes and tools that
// watch the other services.

#ifndef ASSISTED_SERVICES_GATEWAY_SERVER_H_
#define ASSISTED_SERVICES_GATEWAY_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lib/config/config.h"
#include "lib/grpc/server.h"
#include "lib/service/runner.h"

namespace assisted::gateway {

struct Config {
  grpcutil::GrpcServerOptions grpc{.listen = "0.0.0.0:9093"};
  std::string http_listen = "0.0.0.0:8080";
  std::string inventory_address = "localhost:9091";
  std::string orchestrator_address = "localhost:9090";
  std::string image_address = "localhost:9092";

  void Register(config::Parser& parser);
};

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context);

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_SERVER_H_
