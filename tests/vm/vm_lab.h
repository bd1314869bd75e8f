// File: tests/vm/vm_lab.h
//
// What every program that runs the product on QEMU machines shares: the VM tests (vm_test.h,
// a gtest fixture) and the VM bench (bench/vm.cc, a program). The stack as machines use it
// (VmStackOptions), the lab's hardware requirements, a cluster and its discovery ISO made through
// the REST API (CreateLabCluster), the static address of each machine's private NIC, and the
// discovery milestones of a host as the REST API shows them (HostProgress).

#ifndef ASSISTED_TESTS_VM_VM_LAB_H_
#define ASSISTED_TESTS_VM_VM_LAB_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "tests/harness/stack.h"

namespace assisted::testing {

// Where guests reach the orchestrator: user-mode networking forwards it to the host's loopback.
inline constexpr char kOrchestratorGuestAddress[] = "10.0.2.100";

// A single-node machine sized for TCG: one vCPU (VmFleet runs all of a machine's vCPUs on one
// host thread, so the 8 a real SNO host needs only multiply the emulation work: with them a
// loaded machine took 7.5 minutes to leave the initramfs), 3 GiB, a sparse 120 GB disk (the
// 100 GB requirement stands). The stack's orchestrator validates hosts against requirements
// lowered to this machine (LabHwRequirements, passed with --hw-requirements-file as a lab
// deployment would), not against the built-in 8 cores and 16 GiB.
inline constexpr int kSnoCpus = 1;
inline constexpr int kSnoMemoryMib = 3 * 1024;
inline constexpr uint64_t kSnoDiskBytes = uint64_t{120} << 30;
// The memory every role requires in LabHwRequirements: below kSnoMemoryMib by what the
// firmware and kernel keep.
inline constexpr int kLabRamMib = 2048;
// The slowest installation disk sync LabHwRequirements accepts: an emulated disk on a loaded
// host measured 43 ms, against the 10 ms etcd needs on a real one.
inline constexpr int kLabDiskSyncMs = 500;

// The stack a VM lab runs: the image service serving ./dev os-images' live ISO from `images`,
// discovery images that tell agents to dial kOrchestratorGuestAddress, agents' tokens checked,
// the orchestrator judging hosts against `hw_requirements_file` (LabHwRequirements), the gateway
// with JWT auth; `orchestrator_flags` are added.
StackOptions VmStackOptions(const std::string& images, const std::string& hw_requirements_file,
                            const std::vector<std::string>& orchestrator_flags = {});

// One host as the REST API lists it, and when (since power-on) it got there.
struct HostProgress {
  nlohmann::json host;
  absl::Duration registered = absl::InfiniteDuration();
  absl::Duration inventoried = absl::InfiniteDuration();
  absl::Duration validated = absl::InfiniteDuration();
  absl::Duration known = absl::InfiniteDuration();

  // Takes in `host` as the REST API lists it, `since_power_on` after its machine powered on:
  // records each milestone the first time it is seen and returns which ones were new
  // ("registered", "inventory received", "validated", "known"). Validated: the inventory
  // arrived, the host is known or insufficient, its own hardware validations passed and no check
  // is pending. Known: validated, and known.
  std::vector<std::string> Note(const nlohmann::json& listed, absl::Duration since_power_on);
  bool done() const { return validated != absl::InfiniteDuration(); }
};

// `contents` written to `dir`/`name`; its path.
std::string WriteLabFile(const std::string& dir, const std::string& name,
                         const std::string& contents);

// A cluster made through the REST API (aictl) for a lab, and its discovery ISO.
struct LabCluster {
  std::string cluster_id;
  std::string infra_env_id;
  std::string iso;  // the discovery ISO, downloaded from the image service
};

// Through aictl against `gateway` (http://host:port) as `token`: cluster "vm" with
// `control_plane_count` control-plane hosts and user-managed networking on the uplink's subnet,
// its infra-env (with `infra_env_fields` PATCHed onto it, e.g. static_network_config), and its
// discovery ISO downloaded to `dir`/discovery.iso. Writes the pull secret and SSH key it uses
// into `dir`. INTERNAL naming the command and its output when one fails.
absl::StatusOr<LabCluster> CreateLabCluster(const std::string& gateway, const std::string& token,
                                            const std::string& dir, int control_plane_count,
                                            const nlohmann::json& infra_env_fields);

// One entry of an infra-env's static_network_config: the machine whose uplink has MAC `mac`
// gets `address`/24 on its NIC on the private segment (VmFleet::PrivateMac), without DHCP or
// IPv6, as a user configures hosts on a network without a DHCP server. Left to NetworkManager's
// automatic DHCP profile, that NIC holds network-online.target — which the agent and the
// post-reboot reporter wait for — until the DHCP request times out, on every boot.
nlohmann::json PrivateNicStaticNetwork(const std::string& mac, const std::string& address);

// The built-in hardware requirements (services/orchestrator/core/data/hw_requirements.json, a
// runfile of the VM tests) with every role's CPU cores, memory and installation disk sync time
// relaxed to kSnoCpus, kLabRamMib and kLabDiskSyncMs, and no version overrides; INTERNAL when the
// file cannot be read or parsed.
absl::StatusOr<std::string> LabHwRequirements();

// Where a boot's time went, from the kernel's timestamps on its serial console (`console`, one
// boot's log; under TCG the guest's clock follows the host's): "kernel until 6.9 s, initramfs
// until 60.7 s, last kernel message at 175.3 s" (the initramfs ends when the root file system's
// systemd starts); the parts not seen are left out.
std::string BootTimeline(const std::string& console);

// The string `name` of `object`, or "" when missing or not a string.
std::string StringField(const nlohmann::json& object, const std::string& name);

// Whether the validations of the host's own hardware (inventory, CPU, memory, disks for its
// role) passed: what the machine's real inventory decides. The network checks are not among
// them.
bool HardwareValidated(const std::string& validations_info);

// Validations still waiting for a result of the host's checks. Those the orchestrator only runs
// while preparing an installation (installation disk speed, container images) and the MTU check,
// which waits for a connectivity check between hosts, are not counted.
std::vector<std::string> PendingChecks(const std::string& validations_info);

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_VM_VM_LAB_H_
