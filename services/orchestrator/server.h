// File: services/orchestrator/server.h
//
// Composition root of assisted-orchestrator: the agents' one stream per host
// (assisted.agent.v1.AgentService) and the user actions that go through the state machines
// (assisted.orchestrator.v1.OrchestratorService), both on gRPC port 9090 by default. It keeps
// nothing on disk; the inventory service is its system of record.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_SERVER_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lib/config/config.h"
#include "lib/grpc/server.h"
#include "lib/service/runner.h"

namespace assisted::orchestrator {

struct Config {
  // Synchronous OrchestratorService handlers block on the inventory: at most 64 at a time.
  grpcutil::GrpcServerOptions grpc{.listen = "0.0.0.0:9090", .max_threads = 64};
  // Where assisted-inventory listens.
  std::string inventory_address = "localhost:9091";
  int max_agent_streams = 20000;
  int max_agent_streams_per_peer = 0;
  int workers = 8;
  // The OS image hosts write to disk (the install step's os_image).
  std::string os_image_url = "file:///var/lib/assisted/images/os-image.raw";
  std::string os_image_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  void Register(config::Parser& parser);
};

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context);

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_SERVER_H_
