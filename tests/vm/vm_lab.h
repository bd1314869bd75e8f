// File: tests/vm/vm_lab.h
//
// What every program that runs the product on QEMU machines shares: the VM tests (vm_test.h,
// a gtest fixture) and the VM bench (bench/vm.cc, a program, which `./dev demo --vms` runs). The
// stack as machines use it (VmStackOptions), the lab's hardware requirements, the servers an
// installation reaches besides the stack (LabInstallServers: the OS image, the release image's
// registry stand-in), a cluster and its discovery ISO made through the REST API
// (CreateLabCluster: single-node, or several control-plane hosts on the private segment with
// VIPs there), the static address of each machine's private NIC, a host's milestones as the
// REST API shows them (HostProgress), and the loop that drives machines from power-on to an
// installed cluster (RunLabInstall).

#ifndef ASSISTED_TESTS_VM_VM_LAB_H_
#define ASSISTED_TESTS_VM_VM_LAB_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/http/server.h"
#include "lib/process/subprocess.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/rest_client.h"
#include "tests/harness/stack.h"
#include "tests/vm/vm_fleet.h"

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
// host measured 43 ms with one machine, and 580 ms in a 3-machine install while a fourth ran
// (load 18 on 2 cores), against the 10 ms etcd needs on a real one.
inline constexpr int kLabDiskSyncMs = 2000;
// The network between the lab's machines, as LabHwRequirements accepts it for every role: an
// emulated machine on a loaded host answers a ping when the host schedules its one thread, so
// round trips of hundreds of milliseconds and a lost probe are the lab's, not a cable's (real
// control-plane hosts need 100 ms and no loss).
inline constexpr int kLabNetworkLatencyMs = 1000;
inline constexpr int kLabPacketLossPercent = 20;

// The private segment (VmFleet's NIC 2, no DHCP server): the machine network of a lab cluster of
// several hosts, machine i's static address on it (LabPrivateAddress), and the cluster's API and
// ingress VIPs, which no machine holds.
inline constexpr char kLabMachineNetwork[] = "192.168.127.0/24";
inline constexpr char kLabApiVip[] = "192.168.127.100";
inline constexpr char kLabIngressVip[] = "192.168.127.101";
// 192.168.127.(10 + i).
std::string LabPrivateAddress(int machine);

// The kernel arguments every lab boot gets (the discovery ISO through the infra-env's
// kernel_arguments, the installed OS through each host's installer arguments, LabInstallerArgs),
// because an emulated machine on a loaded host runs in bursts, minutes behind a real one:
// - no_timer_check: Linux checks at boot that the IO-APIC delivers timer interrupts within a few
//   ticks; a machine the host does not schedule in time fails it and panics ("IO-APIC + timer
//   doesn't work!"). Linux skips the check by itself under KVM; TCG is not detected as one.
// - systemd.default_timeout_start_sec=600: systemd gives up on a device after the default start
//   timeout (90 s); with three machines on two loaded cores the installed OS's udev coldplug
//   came after it, /boot (by label) was not mounted and the machine fell into emergency mode.
inline constexpr const char* kLabKernelArguments[] = {"no_timer_check",
                                                      "systemd.default_timeout_start_sec=600"};
// kLabKernelArguments as installer arguments: "--append-karg", each.
std::vector<std::string> LabInstallerArgs();

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
  // Set by RunLabInstall: the machine wrote its disk and powered off to reboot.
  absl::Duration rebooted = absl::InfiniteDuration();
  absl::Duration installed = absl::InfiniteDuration();

  // Takes in `host` as the REST API lists it, `since_power_on` after its machine powered on:
  // records each milestone the first time it is seen and returns which ones were new
  // ("registered", "inventory received", "validated", "known", "installed"). Validated: the
  // inventory arrived, the host is known or insufficient, its own hardware validations passed
  // and no check is pending. Known: validated, and known. Installed: the host is installed.
  std::vector<std::string> Note(const nlohmann::json& listed, absl::Duration since_power_on);
  bool done() const { return validated != absl::InfiniteDuration(); }
};

// Serves one file at /<name> over HTTP on the host's loopback (ranges, HEAD: lib/http/content.h).
class FileServer {
 public:
  static absl::StatusOr<std::unique_ptr<FileServer>> Start(const std::string& path,
                                                           const std::string& name);
  ~FileServer();
  int port() const { return server_->port(); }

 private:
  FileServer() = default;
  std::unique_ptr<http::HttpServer> server_;
};

// Where guests reach the release image's registry stand-in (a forward to loopback), and the
// release the stand-in answers for: what a cluster's --release-images names in the lab.
inline constexpr char kRegistryGuestAddress[] = "10.0.2.102";
inline constexpr int kRegistryGuestPort = 5000;
// The orchestrator's --release-images value (a JSON array) naming the stand-in's release.
std::string StandInReleaseImages();

// The release image's registry as an installing host probes it (GET /v2/ over TLS): `openssl
// s_server -www` on the host's loopback answers any GET with 200, with a certificate for
// kRegistryGuestAddress signed by a CA of the lab (ca_pem()), which the hosts must trust.
class RegistryStandIn {
 public:
  // Keeps its CA and log under `dir`. Fails when openssl cannot start.
  static absl::StatusOr<std::unique_ptr<RegistryStandIn>> Start(const std::string& dir);
  int port() const { return port_; }  // on 127.0.0.1
  const std::string& ca_pem() const { return ca_pem_; }
  // The forward guests reach it through.
  GuestForward Forward() const { return {kRegistryGuestAddress, kRegistryGuestPort, port_}; }

 private:
  RegistryStandIn() = default;
  int port_ = 0;
  std::string ca_pem_;
  std::unique_ptr<process::Subprocess> server_;
};

// Where guests reach the OS image (a forward to loopback).
inline constexpr char kImagesGuestAddress[] = "10.0.2.101";
inline constexpr int kImagesGuestPort = 8080;

// What an installation in the lab reaches besides the stack: ./dev os-images' disk.raw over HTTP
// (the orchestrator's --os-image-url, with its sha256 from the images' manifest) and the release
// image's registry stand-in, each through a forward; the infra-env must trust registry_ca_pem().
class LabInstallServers {
 public:
  // `images`: ./dev os-images' folder; the stand-in keeps its files under `dir`.
  // FAILED_PRECONDITION when the images' manifest has no disk image sha256.
  static absl::StatusOr<std::unique_ptr<LabInstallServers>> Start(const std::string& images,
                                                                  const std::string& dir);
  // --os-image-url, --os-image-sha256 and --release-images for the stack's orchestrator.
  std::vector<std::string> OrchestratorFlags() const;
  std::vector<GuestForward> Forwards() const;
  const std::string& registry_ca_pem() const { return registry_->ca_pem(); }
  const std::string& disk_sha256() const { return disk_sha256_; }

 private:
  LabInstallServers() = default;
  std::string disk_sha256_;
  std::unique_ptr<FileServer> disk_;
  std::unique_ptr<RegistryStandIn> registry_;
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
// `control_plane_count` control-plane hosts, its infra-env (booting with kLabKernelArguments, and
// with `infra_env_fields` PATCHed onto it, e.g. static_network_config), and its discovery ISO
// downloaded to `dir`/discovery.iso. One host: single-node with user-managed networking on the
// uplink's subnet. Several: the platform's managed networking (baremetal) with kLabApiVip and
// kLabIngressVip on kLabMachineNetwork, the private segment, where the hosts reach each other
// (their uplinks are separate user-mode networks); the cluster's DNS names are then served by
// the cluster itself, so the hosts need no DNS records for api, api-int and *.apps, as
// upstream's checks say for managed networking. Writes the pull secret and SSH key it uses into
// `dir`. INTERNAL naming the command and its output when one fails.
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
// runfile of the VM tests) with every role's CPU cores, memory, installation disk sync time,
// network latency and packet loss relaxed to kSnoCpus, kLabRamMib, kLabDiskSyncMs,
// kLabNetworkLatencyMs and kLabPacketLossPercent, and no version overrides; INTERNAL when the
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

// Whether machine `vm` can no longer get anywhere: "" while it runs a boot that has not failed,
// otherwise why (powered off, a kernel panic, emergency mode anywhere in this boot's console, and
// with `failed_units` a unit systemd reports failed on the console), naming its console log.
std::string MachineStopped(VmFleet& fleet, int vm, bool failed_units = false);

// A failure state of an installation: the host or the cluster in error, or the host back to
// insufficient with a failed preparation (disk speed, registry) while the cluster waits for
// the user again; "" otherwise.
std::string InstallationFailed(const std::string& cluster_status, const nlohmann::json& host);

struct LabInstallOptions {
  // From power-on until every host is known and the cluster ready.
  absl::Duration discovery_timeout = absl::Minutes(30);
  // From `clusters install` until the cluster is installed.
  absl::Duration install_timeout = absl::Minutes(60);
  // Stop once every host is known (no installation).
  bool discovery_only = false;
};

// Drives machines `machines` of `fleet`, powered on at `power_on` from the discovery ISO of
// cluster `cluster_id`, through the REST API (`rest`), as a user would: waits until a host per
// machine registered and every one is known and the cluster ready; gives each host the installer
// arguments LabInstallerArgs(); installs the cluster (POST …/actions/install); boots each machine
// from its disk once it wrote it and powered off to reboot (host stage Rebooting); and waits
// until the cluster is installed. `say` gets each milestone as it happens (hosts named by their
// machine's name), the console log of every boot, and the cluster's status changes. Returns
// each machine's milestones, by machine index. DEADLINE_EXCEEDED after a timeout and ABORTED
// when a machine stops (MachineStopped) or the installation fails (InstallationFailed), each
// naming the hosts' statuses and the console logs.
absl::StatusOr<std::vector<HostProgress>> RunLabInstall(
    VmFleet& fleet, const std::vector<int>& machines, cli::RestClient& rest,
    const std::string& cluster_id, const std::string& infra_env_id, absl::Time power_on,
    const LabInstallOptions& options, const std::function<void(const std::string&)>& say);

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_VM_VM_LAB_H_
