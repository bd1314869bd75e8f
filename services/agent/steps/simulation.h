// File: services/agent/steps/simulation.h
//
// Hooks through which a simulated host (`assisted-agent --simulate PROFILE`) answers the questions
// executors would otherwise put to the machine and the network, so hundreds of agents can run
// on one machine through the same executor code. Each executor asks its hook at the lowest level
// (one probe, one lookup) and keeps its own argument checks, aggregation and output format.
//
// A StepContext with a non-null `simulation` means "simulated host". An empty hook then means
// the documented simulation default (listed per hook), never "touch the real host".

#ifndef ASSISTED_SERVICES_AGENT_STEPS_SIMULATION_H_
#define ASSISTED_SERVICES_AGENT_STEPS_SIMULATION_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/net/ip.h"
#include "lib/process/subprocess.h"

namespace assisted::agent::steps {

// Addresses a name resolves to. Empty lists: the name does not exist.
struct ResolvedName {
  std::vector<std::string> ipv4;
  std::vector<std::string> ipv6;
  std::vector<std::string> cnames;
};

// One NTP source as the ntp-synchronizer step reports it. state is one of "synced", "combined",
// "not_combined", "unreachable", "error", "variable".
struct NtpSourceState {
  std::string name;
  std::string state;
};

// What a registry's /v2/ endpoint answered. http_status 0: no HTTP answer (error says why).
struct RegistryAnswer {
  long http_status = 0;
  std::string error;
  absl::Duration time;           // the whole request, connection setup included
  absl::Duration transfer_time;  // request sent to response received; zero: same as time
  int64_t bytes = 0;             // received, headers included
};

struct SimulationHooks {
  // connectivity-check, free-network-addresses: the round-trip time of one probe to `address`,
  // or nullopt when nothing answers. Empty: nothing answers.
  std::function<std::optional<absl::Duration>(const net::IpAddress& address)> probe;
  // connectivity-check, free-network-addresses: the MAC the neighbour table holds for
  // `address` (lower case, colon separated). Empty: no entries.
  std::function<std::optional<std::string>(const net::IpAddress& address)> neighbour_mac;
  // domain-resolution. Empty: every name is unknown.
  std::function<ResolvedName(const std::string& name)> resolve;
  // ntp-synchronizer: the sources after adding `requested`. Empty: no sources.
  std::function<std::vector<NtpSourceState>(const std::vector<std::string>& requested)> ntp;
  // container-image-availability: the answer of the registry of `image`. Empty: no answer.
  std::function<RegistryAnswer(const std::string& image)> registry;
  // installation-disk-speed-check: the file that stands for the block device `device`
  // (a disk image). Empty, or an empty answer: the step fails as on a host without that disk.
  std::function<std::string(const std::string& device)> disk_image;
  // installation-disk-speed-check: the latency of one synchronous write to the simulated disk.
  // The writes still go to the disk image (without O_DSYNC), each then takes this long and
  // reports it, so results do not depend on the machine running the simulation. Empty, or nullopt:
  // each write is timed on the disk image file with O_DSYNC.
  std::function<std::optional<absl::Duration>()> disk_sync_latency;
  // stop-installation, reboot-for-reclaim: commands that act on the host itself. Empty: they
  // succeed without doing anything.
  std::function<absl::StatusOr<process::CommandResult>(const process::Command& command)>
      host_command;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_SIMULATION_H_
