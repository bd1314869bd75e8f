// File: tests/vm/vm_stack.h
//
// The services a VM test's machines talk to, all real processes on the host's loopback:
// PostgreSQL (PostgresTest), inventory, orchestrator, image service (serving the discovery ISO
// built from ./dev os-images' live ISO) and gateway, with a VmFleet whose guests reach the
// orchestrator's agent port at kOrchestratorGuestAddress through a forward. The test drives it
// through the REST API only (aictl in process, or RestClient), as a user would.
//
//   class MyVmTest : public VmStackTest {};
//   TEST_F(MyVmTest, X) {
//     ASSERT_NO_FATAL_FAILURE(StartStack({}));
//     ASSERT_NO_FATAL_FAILURE(CreateSnoCluster());
//     ... fleet().Boot(vm, {.cdrom = iso()}) ...
//     ASSERT_NO_FATAL_FAILURE(WaitUntilKnown(vm, power_on, absl::Minutes(10)));
//   }
//
// Needs ASSISTED_TEST_OS_IMAGES (the folder ./dev os-images prints; ./dev test sets it): a test
// skips without it. On failure, TearDown prints each machine's console and the orchestrator's
// log.

#ifndef ASSISTED_TESTS_VM_VM_STACK_H_
#define ASSISTED_TESTS_VM_VM_STACK_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/rest_client.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/postgres_test.h"
#include "tests/harness/service_launcher.h"
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
// host measured 43 ms, against the 10 ms etcd needs on a real one.
inline constexpr int kLabDiskSyncMs = 500;

struct VmStackOptions {
  std::vector<std::string> orchestrator_args;  // added to the stack's own
  std::vector<GuestForward> forwards;          // added to the orchestrator's
};

// One host as the REST API lists it, and when (since power-on) it got there.
struct HostProgress {
  nlohmann::json host;
  absl::Duration registered = absl::InfiniteDuration();
  absl::Duration inventoried = absl::InfiniteDuration();
  absl::Duration validated = absl::InfiniteDuration();
};

class VmStackTest : public PostgresTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Starts the services and the fleet (fatal failures on error).
  void StartStack(const VmStackOptions& options);
  // Prints "[vm +<seconds since SetUp> s] <stage>" to the test log at once: where a slow run
  // spends its time.
  void Progress(const std::string& stage) const;
  // Through the REST API: an SNO cluster "vm" on the uplink's subnet, its infra-env (with
  // `infra_env_fields` PATCHed onto it, e.g. additional_trust_bundle) and its discovery ISO,
  // downloaded from the image service into iso().
  void CreateSnoCluster(const nlohmann::json& infra_env_fields = nlohmann::json::object());
  // Adds the SNO-sized machine `name` to the fleet.
  int AddSnoMachine(const std::string& name, const std::string& mac, const std::string& serial);
  // Polls the REST API until the cluster's one host registered, sent its inventory, its
  // hardware validated and its checks reported, and it is known or insufficient; asserts it is
  // known. `vm` must keep running and not fall into emergency mode meanwhile. Prints each
  // milestone (Progress).
  void WaitUntilKnown(int vm, absl::Time power_on, absl::Duration timeout, HostProgress& progress);

  AictlOutcome Aictl(std::vector<std::string> args, bool with_token = true);
  cli::RestClient Rest() const;
  // A file in the test's temporary folder with `content`; its path.
  static std::string WriteTempFile(const std::string& name, const std::string& content);

  const std::string& images() const { return images_; }  // ./dev os-images' output folder
  const std::string& cluster_id() const { return cluster_id_; }
  const std::string& infra_env_id() const { return infra_env_id_; }
  const std::string& iso() const { return iso_; }
  VmFleet& fleet() { return *fleet_; }
  LaunchedService& orchestrator() { return *orchestrator_; }

 private:
  absl::Time started_ = absl::Now();
  std::string images_;
  std::unique_ptr<LaunchedService> inventory_, orchestrator_, image_, gateway_;
  std::unique_ptr<VmFleet> fleet_;
  int machines_ = 0;
  std::string server_, token_;
  std::string cluster_id_, infra_env_id_, iso_;
};

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

#endif  // ASSISTED_TESTS_VM_VM_STACK_H_
