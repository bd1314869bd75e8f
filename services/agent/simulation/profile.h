// File: services/agent/simulation/profile.h
//
// A simulated host (`assisted-agent --simulate PROFILE`, `assisted-agent-fleet --profile P`):
// a hardware fixture tree, a disk image file standing in for the installation disk, and scripted
// answers to the questions the step executors put to the network (NTP, DNS, registries,
// connectivity probes). Everything runs through the real executors via SimulationHooks
// (services/agent/steps/simulation.h); only the lowest-level answers are scripted.
//
// Profile file schema (JSON; every key optional unless marked, unknown keys are refused so a typo
// is an error, not a silent default):
//
//   {
//     "name": "master",                     // REQUIRED; names hosts ("<name>-<index>") and ids
//     "hardware_root": "../hosts/vm",       // REQUIRED; fixture tree, relative to the profile
//                                           // file's real location (links followed)
//     "cpu_count": 8,                       // replaces the tree's cpu.count
//     "memory_bytes": 34359738368,          // replaces memory.physical_bytes and usable_bytes
//     "ipv4": {"enp1s0": "192.168.122.10/24"},  // replaces a NIC's IPv4 addresses (first host);
//                                           // host #i gets address + i (must stay in the subnet);
//                                           // that NIC's IPv6 addresses are dropped
//     "disk_size_bytes": 1073741824,        // size of the disk image file (default 64 MiB); the
//                                           // inventory keeps the tree's disk sizes
//     "probe_rtt_ms": 0.4,                  // round trip of a probe to an address on our subnets
//     "disk_sync_ms": 2,                    // latency of one synchronous disk write; absent:
//                                           // timed on the disk image file (machine-dependent)
//     "ntp": [{"name": "192.168.122.1", "state": "synced"}],   // ntp-synchronizer's sources
//     "dns": [{"suffix": "example.com", "ipv4": ["192.168.122.5"], "ipv6": []}],
//                                           // names ending in suffix resolve; others: NXDOMAIN
//     "registry": {"http_status": 200, "time_ms": 40, "bytes": 2048},  // every registry's answer
//     "reboot_into_discovery": false        // after install, boot the discovery image again
//   }
//
// Per-agent overrides (a fleet runs many hosts from one profile): host #i gets its own host id
// (a name-based UUID of profile name, fleet seed and index unless given), hostname
// "<name>-<index>", IPv4 addresses offset by i, and every NIC with an IPv4 address gets the MAC
// SimulatedMac(address) (02:00 + the address's 4 bytes). Because the MAC is a function of the
// address, any simulated host knows the MAC of any other simulated host on its subnets without
// sharing state, so connectivity checks between simulated hosts (one process or many) come out
// reachable with matching L2 entries, and hosts reach `known`.

#ifndef ASSISTED_SERVICES_AGENT_SIMULATION_PROFILE_H_
#define ASSISTED_SERVICES_AGENT_SIMULATION_PROFILE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "assisted/types/v1/hardware.pb.h"
#include "lib/net/ip.h"
#include "services/agent/steps/simulation.h"

namespace assisted::agent::simulation {

// One DNS rule: names equal to `suffix` or ending in ".<suffix>" resolve to these addresses.
struct DnsRule {
  std::string suffix;
  std::vector<std::string> ipv4;
  std::vector<std::string> ipv6;
};

// A parsed profile file (see the schema above).
struct Profile {
  std::string name;
  std::string hardware_root;  // absolute after LoadProfile
  std::optional<int64_t> cpu_count;
  std::optional<int64_t> memory_bytes;
  std::map<std::string, std::string> ipv4;  // NIC -> first host's "ip/prefix"
  int64_t disk_size_bytes = int64_t{64} << 20;
  absl::Duration probe_rtt = absl::Microseconds(400);
  std::optional<absl::Duration> disk_sync_latency;
  std::vector<steps::NtpSourceState> ntp;
  std::vector<DnsRule> dns;
  steps::RegistryAnswer registry{.http_status = 200, .time = absl::Milliseconds(40), .bytes = 2048};
  bool reboot_into_discovery = false;
};

// Reads and checks a profile file. INVALID_ARGUMENT naming the file (and the field) for an
// unreadable or bad one; NOT_FOUND when its hardware_root is not a directory.
absl::StatusOr<Profile> LoadProfile(const std::string& path);

// Parses profile text; relative hardware_root paths are resolved against `base_dir`.
absl::StatusOr<Profile> ParseProfile(absl::string_view text, const std::string& base_dir);

// What makes host #index of a profile distinct.
struct HostOverrides {
  int index = 0;
  std::string host_id;   // empty: SimulatedHostId(profile, seed, index)
  std::string hostname;  // empty: "<profile name>-<index>"
  std::string seed;      // distinguishes fleets run from the same profile
};

// The locally administered MAC a simulated NIC with IPv4 `address` has: "02:00:" followed by
// the four address bytes in lower-case hex.
std::string SimulatedMac(const net::IpAddress& address);

// The name-based host id of host #index.
std::string SimulatedHostId(const Profile& profile, absl::string_view seed, int index);

// The IPv4 interface address `address` ("ip/prefix") + offset, prefix kept. INVALID_ARGUMENT for
// bad text; OUT_OF_RANGE when it leaves the subnet or lands on its network or broadcast address.
absl::StatusOr<std::string> OffsetAddress(absl::string_view address, int offset);

// A simulated host: its inventory (the tree's, collected once, with the profile's and the
// host's overrides) and the hooks its executors use. Thread-safe after construction.
class SimulatedHost {
 public:
  // `tree_inventory` is the inventory collected from the profile's hardware_root (share one
  // among the hosts of a fleet). `disk_image` is the file that stands for every block device.
  static absl::StatusOr<SimulatedHost> Create(const Profile& profile,
                                              const types::v1::Inventory& tree_inventory,
                                              const HostOverrides& overrides,
                                              std::string disk_image);

  const std::string& host_id() const { return host_id_; }
  const types::v1::Inventory& inventory() const { return inventory_; }
  const steps::SimulationHooks& hooks() const { return hooks_; }
  const std::string& disk_image() const { return disk_image_; }
  const Profile& profile() const { return profile_; }

 private:
  SimulatedHost() = default;
  void BuildHooks();

  Profile profile_;
  std::string host_id_;
  std::string disk_image_;
  types::v1::Inventory inventory_;
  std::vector<net::Cidr> subnets_;  // where probes are answered
  steps::SimulationHooks hooks_;
};

// Collects the inventory of `profile`'s hardware tree (no overrides applied).
absl::StatusOr<types::v1::Inventory> CollectTreeInventory(const Profile& profile);

// Creates (or resizes) the sparse disk image file `path` of `size_bytes`, creating its folder.
absl::Status PrepareDiskImage(const std::string& path, int64_t size_bytes);

}  // namespace assisted::agent::simulation

#endif  // ASSISTED_SERVICES_AGENT_SIMULATION_PROFILE_H_
