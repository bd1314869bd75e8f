// File: tests/vm/vm_test.h
//
// The fixture of a VM test: the shared stack (tests/harness/stack.h) as real machines use it —
// the image service serving ./dev os-images' live ISO, discovery images that tell agents to dial
// the orchestrator at kOrchestratorGuestAddress, agents' tokens checked, hardware requirements
// lowered to the lab's machines — and a VmFleet whose guests reach the orchestrator's agent port
// there through a forward. The test drives it through the REST API only (aictl in process, or
// RestClient), as a user would.
//
//   class MyVmTest : public VmTest {};
//   TEST_F(MyVmTest, X) {
//     ASSERT_NO_FATAL_FAILURE(CreateSnoCluster());
//     ... fleet().Boot(vm, {.cdrom = iso()}) ...
//     ASSERT_NO_FATAL_FAILURE(WaitUntilKnown(vm, power_on, absl::Minutes(10), progress));
//   }
//
// Needs ASSISTED_TEST_OS_IMAGES (the folder ./dev os-images prints; ./dev test sets it): a test
// skips without it. On failure, TearDown prints each machine's console (and StackTest every
// service's log).

#ifndef ASSISTED_TESTS_VM_VM_TEST_H_
#define ASSISTED_TESTS_VM_VM_TEST_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/process/subprocess.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/rest_client.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/stack.h"
#include "tests/vm/vm_fleet.h"
#include "tests/vm/vm_lab.h"

namespace assisted::testing {

// What a test adds to the VM stack.
struct VmTestOptions {
  std::vector<std::string> orchestrator_flags;  // added to the stack's own
  std::vector<GuestForward> forwards;           // added to the orchestrator's
};

// Prints "[vm +<seconds since it was made> s] <stage>" to the test log at once: where a slow
// run spends its time.
class StageLog {
 public:
  void operator()(const std::string& stage) const;

 private:
  absl::Time started_ = absl::Now();
};

// A cluster's status and its one host (an empty object when none), as some REST API shows them.
using LookAtCluster = std::function<std::pair<std::string, nlohmann::json>()>;
// That, for cluster `cluster_id` through `rest` (an empty status when it does not answer).
std::pair<std::string, nlohmann::json> LookAt(cli::RestClient rest, const std::string& cluster_id);

// Where a wait on `vm` got stuck, for a failure message: its console log and the host's status,
// status_info and stage (`look`).
std::string WhereStuck(VmFleet& fleet, int vm, const LookAtCluster& look);

// Polls `look` until the cluster's one host registered, sent its inventory, its hardware
// validated and its checks reported, and it is known or insufficient; asserts it is known.
// Stops at once when `stopped` says the machine can no longer get there (MachineStopped).
// Logs each milestone.
void WaitUntilHostKnown(VmFleet& fleet, int vm, const LookAtCluster& look,
                        const std::function<std::string()>& stopped, const StageLog& log,
                        absl::Time power_on, absl::Duration timeout, HostProgress& progress);

class VmTest : public StackTest {
 protected:
  // Skips without the OS images; otherwise starts the test's own servers (StartTestServers),
  // the stack (Options) and the fleet.
  void SetUp() override;
  void TearDown() override;
  // Servers of the test whose ports its VmOptions name (e.g. what a forward leads to); they
  // start before the stack. Fatal failures stop the test.
  virtual void StartTestServers() {}
  virtual VmTestOptions VmOptions() const { return {}; }
  StackOptions Options() const final;

  // StageLog's line, counting from SetUp.
  void Progress(const std::string& stage) const { progress_(stage); }
  // Through the REST API: an SNO cluster "vm" on the uplink's subnet, its infra-env (with
  // `infra_env_fields` PATCHed onto it, e.g. additional_trust_bundle) and its discovery ISO,
  // downloaded from the image service into iso().
  void CreateSnoCluster(const nlohmann::json& infra_env_fields = nlohmann::json::object());
  // Adds the SNO-sized machine `name` to the fleet.
  int AddSnoMachine(const std::string& name, const std::string& mac, const std::string& serial);
  // Polls the REST API until the cluster's one host registered, sent its inventory, its
  // hardware validated and its checks reported, and it is known or insufficient; asserts it is
  // known. Stops at once when `vm` powers off or falls into emergency mode. Prints each
  // milestone (Progress).
  void WaitUntilKnown(int vm, absl::Time power_on, absl::Duration timeout, HostProgress& progress);
  // The cluster's status and its one host (an empty object when none), through the REST API.
  std::pair<std::string, nlohmann::json> Look() const;
  // Whether `vm` can no longer get anywhere: "" while it runs a boot that has not failed,
  // otherwise why (powered off, emergency mode), naming its console log.
  std::string Stopped(int vm);
  // Where a wait on `vm` got stuck, for a failure message: its console log and the host's
  // status and status_info.
  std::string Where(int vm) const;

  AictlOutcome Aictl(std::vector<std::string> args, bool with_token = true) const;
  cli::RestClient Rest() const;
  // A file in the test's temporary folder with `content`; its path.
  static std::string WriteTempFile(const std::string& name, const std::string& content);

  const std::string& images() const { return images_; }  // ./dev os-images' output folder
  const std::string& cluster_id() const { return cluster_id_; }
  const std::string& infra_env_id() const { return infra_env_id_; }
  const std::string& iso() const { return iso_; }
  VmFleet& fleet() { return *fleet_; }

 private:
  StageLog progress_;
  std::string images_, hw_requirements_file_;
  std::unique_ptr<VmFleet> fleet_;
  int machines_ = 0;
  std::string token_;
  std::string cluster_id_, infra_env_id_, iso_;
};

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_VM_VM_TEST_H_
