// File: tests/harness/gateway_service.h
//
// Starts a real assisted-gateway for a test in front of running backends, with JWT auth (the
// local issuer's key file) and the image service's URL signing key, on a free loopback HTTP port;
// and runs aictl against it in process (the same code as the binary).

#ifndef ASSISTED_TESTS_HARNESS_GATEWAY_SERVICE_H_
#define ASSISTED_TESTS_HARNESS_GATEWAY_SERVICE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/harness/service_launcher.h"

namespace assisted::testing {

struct GatewayServiceOptions {
  std::string inventory_address;  // host:port of each backend
  std::string orchestrator_address;
  std::string image_address;
  std::string jwt_secret_file;
  std::string url_signing_key_file;
  std::vector<std::string> extra_args;
};

// The running gateway; its REST base is `http_base` ("http://127.0.0.1:PORT").
struct RunningGateway {
  std::unique_ptr<LaunchedService> service;
  std::string http_base;
  int http_port = 0;
};

absl::StatusOr<RunningGateway> LaunchGatewayService(const GatewayServiceOptions& options);

// What an aictl run printed and how it ended.
struct AictlOutcome {
  int code = -1;
  std::string out;
  std::string err;
  // stdout without surrounding white space (an id printed by a create command).
  std::string Trimmed() const;
};

// aictl `args` against the gateway at `server`, with `token` (AICTL_TOKEN; empty: none).
AictlOutcome RunAictl(const std::string& server, const std::string& token,
                      const std::vector<std::string>& args);

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_GATEWAY_SERVICE_H_
