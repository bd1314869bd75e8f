// File: services/image/server.h
//
// Composition root of assisted-image: discovery Ignition, ISO/PXE/iPXE artifacts. Metadata and
// signed URLs over gRPC (assisted.image.v1.ImageService, port 9092 by default); the bytes
// themselves over HTTP (port 8888) so browsers, BMC virtual media and PXE firmware can fetch them.

#ifndef ASSISTED_SERVICES_IMAGE_SERVER_H_
#define ASSISTED_SERVICES_IMAGE_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lib/config/config.h"
#include "lib/grpc/server.h"
#include "lib/service/runner.h"

namespace assisted::image {

struct Config {
  grpcutil::GrpcServerOptions grpc{.listen = "0.0.0.0:9092"};
  // Where ISO/PXE downloads are served.
  std::string http_listen = "0.0.0.0:8888";
  // Where assisted-inventory listens.
  std::string inventory_address = "localhost:9091";

  void Register(config::Parser& parser);
};

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context);

}  // namespace assisted::image

#endif  // ASSISTED_SERVICES_IMAGE_SERVER_H_
