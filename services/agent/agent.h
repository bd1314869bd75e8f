// File: services/agent/agent.h
//
// Composition root of assisted-agent, the program each host runs from the discovery image. It
// opens ONE bidirectional gRPC stream to the orchestrator (always from the host side, so
// firewalls and proxies need no inbound rule), registers the host and runs the steps it is sent.
//
// The agent registers, keeps its stream, and runs the steps it is pushed with the executors of
// services/agent/steps (connectivity, NTP, DNS, registries, disk speed, logs, …).

#ifndef ASSISTED_SERVICES_AGENT_AGENT_H_
#define ASSISTED_SERVICES_AGENT_AGENT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lib/config/config.h"
#include "lib/service/runner.h"

namespace assisted::agent {

struct Config {
  // Where the orchestrator's AgentService listens.
  std::string orchestrator_address = "localhost:9090";
  // The infra-env whose discovery image booted this host (baked into the image's Ignition).
  std::string infra_env_id;
  // Overrides the host id derived from the hardware.
  std::string host_id;
  // Infra-env scoped token presented to the orchestrator; never logged.
  std::string agent_token;
  // TLS towards the orchestrator: on with system roots, or with this CA bundle.
  bool tls = false;
  std::string ca_bundle;
  // Root of the file system the hardware inventory is read from (a fixture tree in tests).
  std::string root = "/";
  // A simulated-host profile file (services/agent/simulation/profile.h); empty on real hardware.
  // The profile's tree replaces --root, its disk image stands for the disks, its scripted
  // answers replace the network, and no probe listener is opened.
  std::string simulate;
  // With --simulate: which host of the profile this is (address offset, hostname, host id).
  int simulate_index = 0;
  // With --simulate: where the simulated host keeps its disk image; empty: a folder under /tmp.
  std::string state_dir;
  // Port other hosts' connectivity checks probe (0: no listener).
  int probe_port = 9099;
  // Steps running at once.
  int max_concurrent_steps = 4;

  void Register(config::Parser& parser);
};

// Starts the agent's connection loop. INVALID_ARGUMENT for an unreadable CA bundle.
absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context);

}  // namespace assisted::agent

#endif  // ASSISTED_SERVICES_AGENT_AGENT_H_
