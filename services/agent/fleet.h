// File: services/agent/fleet.h
//
// Many simulated agents in ONE process (assisted-agent-fleet, tests, bench/agents). Each agent is
// a distinct simulated host (services/agent/simulation/profile.h: host #i of a profile) with its
// own gRPC channel and TCP connection, its own instance id, and the real agent's protocol code:
// each runs a ProtocolSession (services/agent/protocol_session.h: register first, run pushed
// steps, send results with seq numbers kept until acknowledged, re-send after a reconnect with
// exponential backoff and jitter). The fleet adds only what simulates a host: hardware, steps,
// the reboot and the in-cluster controller, and the books below.
//
// Scale: the sessions use gRPC's callback API (one reactor per live stream, no thread per
// agent); steps of all agents run on one small shared pool (each agent's steps one at a time,
// in arrival order), and reconnects, deadlines and delays wait on one shared timer thread. So
// the thread count is fixed whatever the number of agents.
//
// Install (services/agent/steps/install.h): the install step writes the agent's disk image;
// once its result is acknowledged the agent reports Rebooting and ends its stream for good. The
// simulated host then either boots the discovery image again (profile knob
// reboot_into_discovery: a new agent instance re-registers) or plays the in-cluster controller:
// it reports its remaining stages through ControllerService.UpdateHostProgress (on the agent
// port, with the controller token its install step carried), stage_delay
// apart, and the bootstrap host then reports the finalizing stages and CompleteInstallation
// (retried with backoff while the orchestrator refuses them, e.g. before the cluster is
// finalizing).
//
// Every agent keeps a record of what it sent and what was acknowledged (Records()), so fault
// tests can check "no result lost or applied twice" against the agents' own books.
//
//   Fleet::Options options{.profile = "tests/fixtures/profiles/worker.json", .count = 5, ...};
//   ASSIGN_OR_RETURN(auto fleet, Fleet::Start(options, [](const FleetEvent& e) { ... }, log));
//   ...
//   fleet->Stop();

#ifndef ASSISTED_SERVICES_AGENT_FLEET_H_
#define ASSISTED_SERVICES_AGENT_FLEET_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "assisted/types/v1/step.pb.h"
#include "lib/grpc/channel.h"
#include "lib/log/log.h"
#include "lib/time/backoff.h"
#include "services/agent/steps/simulation.h"

namespace assisted::agent {

// Something that happened to one agent of a fleet.
struct FleetEvent {
  enum class Kind {
    kRegistered,    // the orchestrator accepted the agent's registration
    kRefused,       // registration refused (detail: the reason)
    kInstruction,   // an instruction arrived (step set)
    kAcknowledged,  // the orchestrator acknowledged messages up to seq
    kDisconnected,  // the stream ended (detail: the status message)
    kRebooted,      // the simulated host rebooted after its install step
    kReported,      // the simulated controller's call succeeded (detail: what it reported)
  };
  Kind kind;
  int agent = 0;  // index within the fleet
  std::string host_id;
  absl::Time at;         // when the agent saw it (wall clock)
  types::v1::Step step;  // kInstruction
  // kAcknowledged: acknowledged up to it; kRegistered: the last seq the orchestrator had
  // applied, which acknowledges everything up to it as well (an Ack lost with a killed
  // orchestrator is made good this way).
  uint64_t seq = 0;
  std::string detail;
};

// Called on gRPC and pool threads, possibly concurrently; must be quick and must not block.
using FleetObserver = std::function<void(const FleetEvent&)>;

class Fleet {
 public:
  struct Options {
    std::string profile;  // profile file (services/agent/simulation/profile.h)
    int count = 1;        // agents
    int first_index = 0;  // host indexes first_index .. first_index + count - 1
    std::string orchestrator_address;
    std::string infra_env_id;
    std::string agent_token;
    grpcutil::ChannelOptions channel;  // TLS, CA bundle, keepalive
    std::string state_dir;             // disk images; empty: a folder under /tmp
    std::string seed;                  // distinguishes host ids of fleets from one profile
    int step_threads = 4;              // the shared step pool
    BackoffPolicy backoff;
    absl::Duration stage_delay = absl::ZeroDuration();  // between simulated install stages
    // Replaces the profile's container-image-availability answers when set: what the
    // registry of the image asked for answered (a test that checks images for real).
    std::function<steps::RegistryAnswer(const std::string& image)> registry;
  };

  // Loads the profile, prepares the disk images and starts every agent connecting.
  // INVALID_ARGUMENT for bad options or profile (named), or a CA bundle that cannot be read.
  static absl::StatusOr<std::unique_ptr<Fleet>> Start(Options options, FleetObserver observer,
                                                      log::Logger log);

  // Stop()s.
  ~Fleet();

  // Cancels every stream and pending step and waits for them. Idempotent.
  void Stop();

  int size() const;
  // Agents whose stream is registered right now.
  int registered() const;
  // Host id of agent `index` (0 .. size()-1).
  std::string host_id(int index) const;

  // JSON array, one object per agent: {"agent", "host_id", "instance_id", "registrations",
  // "acknowledged_up_to", "sent": [{"seq", "kind", "step_id", "step_type", "exit_code",
  // "error", "stage"}], "rejected": [seq...], "reported": ["<stage or call>"...],
  // "previous_instances":
  // [{"instance_id", "acknowledged_up_to", "sent"}]} — what the agent sent (each seq once,
  // re-sends not repeated), the highest seq the orchestrator acknowledged, and what the
  // simulated controller reported after the reboot.
  std::string Records() const;
  // Writes Records() to `path` (atomically: a temporary file renamed into place).
  absl::Status WriteRecords(const std::string& path) const;

  class Impl;

 private:
  explicit Fleet(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Boots the discovery ISO at `iso_path`: sets the orchestrator address, infra-env id, agent
// token and TLS settings of `options` from the Ignition in the ISO's embed area, as a host that
// booted it would see them (a pinned CA bundle is written to state_dir, or /tmp when empty, as
// discovery-ca.pem). INVALID_ARGUMENT or NOT_FOUND naming the ISO when it carries no agent.
absl::Status ApplyDiscoveryIso(const std::string& iso_path, Fleet::Options& options);

}  // namespace assisted::agent

#endif  // ASSISTED_SERVICES_AGENT_FLEET_H_
