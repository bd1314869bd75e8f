// File: services/image/server.h
//
// Composition root of assisted-image: discovery Ignition, ISO/PXE/iPXE artifacts. Metadata and
// signed URLs over gRPC (assisted.image.v1.ImageService, port 9092 by default); the bytes
// themselves over HTTP (port 8888) so browsers, BMC virtual media and PXE firmware can fetch
// them. The image service is not ready (gRPC health NOT_SERVING for ImageService, HTTP /ready
// 503) until every configured base image is fetched and verified.

#ifndef ASSISTED_SERVICES_IMAGE_SERVER_H_
#define ASSISTED_SERVICES_IMAGE_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lib/config/config.h"
#include "lib/grpc/channel.h"
#include "lib/grpc/server.h"
#include "lib/http/server.h"
#include "lib/service/runner.h"

namespace assisted::image {

struct Config {
  // Internal: only the gateway calls it (it hands out discovery Ignition with agent tokens).
  grpcutil::GrpcServerOptions grpc{.listen = "127.0.0.1:9092", .internal = true};
  http::HttpServerOptions http{.listen = "0.0.0.0:8888"};
  // Where assisted-inventory listens, and how calls to it authenticate.
  std::string inventory_address = "localhost:9091";
  grpcutil::InternalClientTls internal_tls;
  // JSON array of {openshift_version, cpu_architecture, url, version, sha256?} (like
  // assisted-service's OS_IMAGES).
  std::string os_images = "[]";
  std::string image_cache_dir = "/var/lib/assisted/images";
  // How clients reach the HTTP port; download URLs start with it.
  std::string public_url = "http://localhost:8888";
  // File holding the URL-signing key (>= 32 bytes). Empty: a random key per process, so links
  // stop working when it restarts.
  std::string url_signing_key_file;
  absl::Duration url_ttl = absl::Hours(4);
  // The orchestrator as the hosts reach it, baked into the discovery Ignition.
  std::string orchestrator_address = "localhost:9090";
  bool orchestrator_tls = false;
  std::string orchestrator_ca_file;
  // For infra-envs that name no OpenShift version.
  std::string default_openshift_version;

  void Register(config::Parser& parser);
};

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context);

}  // namespace assisted::image

#endif  // ASSISTED_SERVICES_IMAGE_SERVER_H_
