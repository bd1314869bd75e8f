// File: services/orchestrator/server.h
//
// Composition root of assisted-orchestrator. Two gRPC listeners:
//   - the agent port (--grpc-listen, 0.0.0.0:9090), which host networks reach: the agents' one
//     stream per host (assisted.agent.v1.AgentService) and the post-reboot reporter's calls
//     (assisted.orchestrator.v1.ControllerService, each with a token scoped to its cluster);
//   - the internal listener (--internal-grpc-listen, 127.0.0.1:9094): the management API that
//     goes through the state machines (assisted.orchestrator.v1.OrchestratorService), which
//     only the gateway calls. Never serve it where hosts can reach it.
// It keeps nothing on disk; the inventory service is its system of record.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_SERVER_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/config/config.h"
#include "lib/grpc/channel.h"
#include "lib/grpc/server.h"
#include "lib/service/runner.h"
#include "services/orchestrator/release_images.h"
#include "services/orchestrator/stream_admission.h"

namespace assisted::orchestrator {

struct Config {
  // The agent port. Synchronous ControllerService handlers block on the inventory: at most 64
  // at a time.
  grpcutil::GrpcServerOptions grpc{.listen = "0.0.0.0:9090",
                                   .max_receive_message_bytes = grpcutil::kMaxAgentMessageBytes,
                                   .max_threads = 64};
  // The management API; keepalive and stream limits follow `grpc`'s.
  grpcutil::GrpcServerOptions internal_grpc{
      .listen = "127.0.0.1:9094", .max_threads = 64, .internal = true};
  // Where assisted-inventory listens, and how calls to it authenticate.
  std::string inventory_address = "localhost:9091";
  grpcutil::InternalClientTls internal_tls;
  // Which agent streams are held (stream_admission.h); max_unregistered follows max_registered.
  AdmissionLimits agent_streams;
  int workers = 8;
  // The OS image hosts write to disk (the install step's os_image).
  std::string os_image_url = "file:///var/lib/assisted/images/os-image.raw";
  std::string os_image_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  // Liveness and the monitor (see agent_hub.h).
  std::string replica_id;
  absl::Duration monitor_interval = absl::Seconds(5);
  absl::Duration recheck_after = absl::Seconds(30);
  absl::Duration max_recheck_after = absl::Minutes(10);
  absl::Duration host_disconnection_timeout = absl::Minutes(3);
  // The release image catalog (release_images.h), JSON.
  std::string release_images = kDefaultReleaseImages;
  // A YAML file of time limits (timeouts_file.h); empty: the reference's defaults.
  std::string timeouts_file;
  // A hardware requirements document replacing the embedded one (the schema of
  // core/data/hw_requirements.json); empty: the embedded one.
  std::string hw_requirements_file;
  // Events per host: a burst, then one per `event_refill`.
  int event_burst = 20;
  absl::Duration event_refill = absl::Seconds(5);
  // The image service's URL-signing key (same flag and file): agents' tokens are checked with
  // it. Empty: agents are not authenticated (development only).
  std::string url_signing_key_file;
  // Without url_signing_key_file: a key (32 bytes or more, as that one) of the controller tokens
  // alone, which installing hosts get for their post-reboot reports (node 0 of the agent-based
  // installer, whose own agents carry no token). Empty: installed hosts do not report.
  std::string controller_token_key_file;

  void Register(config::Parser& parser);
};

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context);

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_SERVER_H_
