// bench/vm: how long real (QEMU, TCG) machines take from power-on to an installed cluster.
// Starts a throwaway PostgreSQL and the stack as the VM tests run it (tests/vm/vm_lab.h: the
// image service serving ./dev os-images' live ISO, agents' tokens checked, the lab's hardware
// requirements, the OS image and the release registry stand-in an installation reaches), creates
// a cluster of N control-plane hosts through the REST API (1: single-node; 2-3: VIPs and the
// machine network on the machines' private segment), downloads its discovery ISO, powers N
// machines on from it at once (1 vCPU and 3 GiB each, a static address on the private segment)
// and drives them through the REST API (RunLabInstall): every host known, the cluster installed,
// each machine writing its disk, rebooting into the installed OS, whose reporter reports until
// the cluster is installed. It prints each console log's path (one per boot) and every
// milestone as it happens; a timeout or a failure names each host's failing validations.
//
//   ./dev os-images && ./dev bench vm [--vms=1|2|3] [--timeout=60m] [--images=DIR]
//                                     [--discovery-only]
// Last line: {"bench":"vm","vms":N,"registered_max_s":…,"inventoried_max_s":…,
//             "validated_max_s":…,"known_max_s":…,"rebooted_max_s":…,"installed_max_s":…,
//             "cores":2}
// (the slowest machine's time from power-on to each milestone; validated: first judged, known
// or insufficient, with its checks reported; rebooted: its disk written and the machine off to
// reboot; installed: the host installed; -1 for what --discovery-only leaves out). Not in
// bench/last_line_test: a TCG boot takes minutes.

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "lib/config/config.h"
#include "lib/service/runner.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/rest_client.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/postgres_server.h"
#include "tests/harness/probes.h"
#include "tests/harness/stack.h"
#include "tests/vm/vm_fleet.h"
#include "tests/vm/vm_lab.h"

namespace {

namespace testing = assisted::testing;
using nlohmann::json;

struct Options {
  int vms = 1;
  absl::Duration timeout = absl::Minutes(60);
  std::string images;  // ./dev os-images' folder
  bool discovery_only = false;
};

double Seconds(absl::Duration d) {
  return d == absl::InfiniteDuration() ? -1 : absl::ToDoubleSeconds(d);
}

void Say(absl::Time started, const std::string& what) {
  std::cout << absl::StrFormat("[+%4.0f s] ", absl::ToDoubleSeconds(absl::Now() - started)) << what
            << std::endl;
}

absl::StatusOr<std::vector<testing::HostProgress>> Run(const Options& options) {
  const absl::Time started = absl::Now();
  char dir_template[] = "/tmp/assisted-bench-vm.XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return absl::InternalError("mkdtemp failed");
  const std::string dir = dir_template;
  // The stack's helpers keep their files under the test temporary folder.
  setenv("TEST_TMPDIR", dir.c_str(), 1);
  Say(started, "working in " + dir + " (machines' consoles in " + dir + "/vms)");

  ASSIGN_OR_RETURN(std::unique_ptr<testing::PostgresServer> postgres,
                   testing::PostgresServer::Start());
  ASSIGN_OR_RETURN(std::string dsn, postgres->CreateDatabase());
  ASSIGN_OR_RETURN(std::string requirements, testing::LabHwRequirements());
  const std::string requirements_file =
      testing::WriteLabFile(dir, "hw-requirements.json", requirements);
  ASSIGN_OR_RETURN(std::unique_ptr<testing::LabInstallServers> servers,
                   testing::LabInstallServers::Start(options.images, dir));
  ASSIGN_OR_RETURN(
      std::unique_ptr<testing::Stack> stack,
      testing::Stack::Start(dsn, testing::VmStackOptions(options.images, requirements_file,
                                                         servers->OrchestratorFlags())));
  const testing::AictlOutcome token =
      testing::RunAictl(stack->gateway_http(), "",
                        {"token", "issue", "--secret-file=" + stack->jwt_secret_file(),
                         "--user=bench", "--org=bench"});
  if (token.code != 0) return absl::InternalError("aictl token issue: " + token.err);
  Say(started, "services up; gateway " + stack->gateway_http());

  const int agent_port = stack->orchestrator().grpc_port();
  std::vector<testing::GuestForward> forwards = {
      {testing::kOrchestratorGuestAddress, agent_port, agent_port}};
  for (const testing::GuestForward& forward : servers->Forwards()) forwards.push_back(forward);
  ASSIGN_OR_RETURN(
      std::unique_ptr<testing::VmFleet> fleet,
      testing::VmFleet::Create({.dir = dir + "/vms",
                                .forwards = forwards,
                                .relay = testing::RunfilePath("tests/vm/guest_forward_relay")}));
  json static_network = json::array();
  std::vector<std::string> macs;
  for (int i = 0; i < options.vms; ++i) {
    macs.push_back(absl::StrFormat("52:54:00:be:00:%02x", i + 1));
    static_network.push_back(
        testing::PrivateNicStaticNetwork(macs.back(), testing::LabPrivateAddress(i)));
  }
  ASSIGN_OR_RETURN(
      testing::LabCluster lab,
      testing::CreateLabCluster(stack->gateway_http(), token.Trimmed(), dir, options.vms,
                                {{"static_network_config", static_network},
                                 {"additional_trust_bundle", servers->registry_ca_pem()}}));
  Say(started, "cluster " + lab.cluster_id + ", discovery ISO " + lab.iso);
  std::vector<int> machines;
  for (int i = 0; i < options.vms; ++i) {
    ASSIGN_OR_RETURN(int vm, fleet->Add({.name = absl::StrCat("vm-", i),
                                         .mac = macs[i],
                                         .serial = absl::StrCat("BENCH-VM-", i),
                                         .disk_bytes = testing::kSnoDiskBytes,
                                         .memory_mib = testing::kSnoMemoryMib,
                                         .cpus = testing::kSnoCpus}));
    machines.push_back(vm);
  }
  const absl::Time power_on = absl::Now();
  for (int vm : machines) {
    RETURN_IF_ERROR(fleet->Boot(vm, {.cdrom = lab.iso}));
    Say(started,
        absl::StrCat(fleet->spec(vm).name, " powered on; console ", fleet->ConsolePath(vm)));
  }
  assisted::cli::RestClient rest({.server = stack->gateway_http(), .token = token.Trimmed()});
  absl::StatusOr<std::vector<testing::HostProgress>> progress =
      testing::RunLabInstall(*fleet, machines, rest, lab.cluster_id, lab.infra_env_id, power_on,
                             {.discovery_timeout = options.timeout,
                              .install_timeout = options.timeout,
                              .discovery_only = options.discovery_only},
                             [&](const std::string& what) { Say(started, what); });
  // What explains a run (consoles, service logs) stays; the disks (sparse, yet gigabytes once
  // installed), the discovery ISO and the image service's cache of spliced images (a third of a
  // GB; the stack keeps it in <TEST_TMPDIR>/stack-image) go.
  std::error_code ignored;
  for (int vm : machines) {
    fleet->PowerOff(vm);
    std::filesystem::remove(fleet->DiskPath(vm), ignored);
  }
  std::filesystem::remove(lab.iso, ignored);
  std::filesystem::remove_all(dir + "/stack-image/cache", ignored);
  Say(started,
      absl::StrCat(progress.ok() ? "done" : "failed", "; consoles and service logs stay in ", dir,
                   " (the machines' disks, the ISO and the image cache are removed)"));
  return progress;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (const char* images = std::getenv("ASSISTED_TEST_OS_IMAGES"); images != nullptr) {
    options.images = images;
  } else if (const char* home = std::getenv("HOME"); home != nullptr) {
    options.images = std::string(home) + "/.cache/assisted-os-images/current";
  }
  assisted::config::Parser parser(
      "vm",
      "Power-on -> registered -> known -> installed of N QEMU machines booting the discovery ISO.");
  parser.Int("vms", &options.vms, "machines, one cluster of that many control-plane hosts")
      .Range(1, 3);
  parser
      .Duration("timeout", &options.timeout,
                "how long the machines get to be known, and then the cluster to install")
      .Range(absl::Minutes(1), absl::Hours(3));
  parser.String("images", &options.images, "./dev os-images' folder (live.iso, disk.raw)");
  parser.Bool("discovery-only", &options.discovery_only,
              "stop once every host is known (no installation)");
  if (std::optional<int> exit_code = assisted::service::ParseCommandLine(parser, argc, argv)) {
    return *exit_code;
  }
  if (!std::filesystem::exists(options.images + "/live.iso")) {
    std::cerr << "bench/vm: " << options.images << "/live.iso is missing: run ./dev os-images\n";
    return 1;
  }
  absl::StatusOr<std::vector<assisted::testing::HostProgress>> progress = Run(options);
  if (!progress.ok()) {
    std::cerr << "bench/vm: " << progress.status() << "\n";
    return 1;
  }
  // The slowest machine's time to each milestone (-1: not reached, as with --discovery-only).
  auto slowest = [&](absl::Duration assisted::testing::HostProgress::*milestone) {
    absl::Duration max = absl::ZeroDuration();
    for (const assisted::testing::HostProgress& machine : *progress) {
      max = std::max(max, machine.*milestone);
    }
    return Seconds(max);
  };
  using assisted::testing::HostProgress;
  std::cout << json{{"bench", "vm"},
                    {"vms", options.vms},
                    {"registered_max_s", slowest(&HostProgress::registered)},
                    {"inventoried_max_s", slowest(&HostProgress::inventoried)},
                    {"validated_max_s", slowest(&HostProgress::validated)},
                    {"known_max_s", slowest(&HostProgress::known)},
                    {"rebooted_max_s", slowest(&HostProgress::rebooted)},
                    {"installed_max_s", slowest(&HostProgress::installed)},
                    {"load_note", "TCG, 1 vCPU per machine; figures depend on the host's load"},
                    {"cores", static_cast<int>(std::thread::hardware_concurrency())}}
                   .dump()
            << std::endl;
  return 0;
}
