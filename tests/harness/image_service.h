// File: tests/harness/image_service.h
//
// Starts a real assisted-image for a test: a test base ISO built with xorriso (lib/iso) into
// `dir` (or a given one), served as OpenShift 4.16 x86_64 on a free loopback HTTP port, waiting
// until the ImageService reports SERVING (its catalog is usable).

#ifndef ASSISTED_TESTS_HARNESS_IMAGE_SERVICE_H_
#define ASSISTED_TESTS_HARNESS_IMAGE_SERVICE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/harness/service_launcher.h"

namespace assisted::testing {

struct ImageServiceOptions {
  std::string dir;                // base ISO, build tree and image cache go here
  std::string inventory_address;  // host:port
  std::string url_signing_key_file;
  std::string orchestrator_address;  // written into discovery images; empty: the default
  // The base ISO to serve (e.g. ./dev os-images' live.iso); empty: a test ISO built into `dir`.
  std::string base_iso;
  // The address its download URLs name (--public-url); empty: its own HTTP port. Replicas
  // behind one front name the front.
  std::string public_url;
  std::vector<std::string> extra_args;
  int grpc_port = 0;  // 0 picks a free one
  // How readiness probes reach its gRPC port: TLS and a client certificate when extra_args
  // give it --tls-cert, --tls-key and --tls-client-ca; plaintext by default.
  grpcutil::ChannelOptions probe_channel;
};

// The running service; its HTTP base URL is in `http_base` ("http://127.0.0.1:PORT").
struct RunningImageService {
  std::unique_ptr<LaunchedService> service;
  std::string http_base;
  int http_port = 0;
  std::string base_iso;  // path of the base ISO it serves
};

absl::StatusOr<RunningImageService> LaunchImageService(const ImageServiceOptions& options);

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_IMAGE_SERVICE_H_
