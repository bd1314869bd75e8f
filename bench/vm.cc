// bench/vm: how long real (QEMU, TCG) machines take through discovery. Starts a throwaway
// PostgreSQL and the stack as the VM tests run it (tests/vm/vm_lab.h: the image service serving
// ./dev os-images' live ISO, agents' tokens checked, the lab's hardware requirements), creates a
// cluster of N control-plane hosts through the REST API, downloads its discovery ISO, powers N
// machines on from it at once (1 vCPU each, a static address on the private segment) and polls
// the REST API until every host is known (or the timeout, which names why hosts are not). It
// prints each machine's console log path and every milestone as it happens.
//
//   ./dev os-images && ./dev bench vm [--vms=1|2|3] [--timeout=30m] [--images=DIR]
// Last line: {"bench":"vm","vms":N,"registered_max_s":…,"inventoried_max_s":…,
//             "validated_max_s":…,"known_max_s":…,"cores":2}
// (the slowest machine's time from power-on to each milestone; validated: first judged, known
// or insufficient, with its checks reported).
//
// Not measured yet: power-on → installed (the installation, the reboot from disk and the
// post-reboot reporter, which tests/vm/sno_install_vm_pg_test drives for one machine). Not in
// bench/last_line_test: a TCG boot takes minutes.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
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
  absl::Duration timeout = absl::Minutes(30);
  std::string images;  // ./dev os-images' folder
};

struct Figures {
  absl::Duration registered, inventoried, validated, known;
};

double Seconds(absl::Duration d) {
  return d == absl::InfiniteDuration() ? -1 : absl::ToDoubleSeconds(d);
}

void Say(absl::Time started, const std::string& what) {
  std::cout << absl::StrFormat("[+%4.0f s] ", absl::ToDoubleSeconds(absl::Now() - started)) << what
            << std::endl;
}

absl::StatusOr<Figures> Run(const Options& options) {
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
  ASSIGN_OR_RETURN(
      std::unique_ptr<testing::Stack> stack,
      testing::Stack::Start(dsn, testing::VmStackOptions(options.images, requirements_file)));
  const testing::AictlOutcome token =
      testing::RunAictl(stack->gateway_http(), "",
                        {"token", "issue", "--secret-file=" + stack->jwt_secret_file(),
                         "--user=bench", "--org=bench"});
  if (token.code != 0) return absl::InternalError("aictl token issue: " + token.err);
  Say(started, "services up; gateway " + stack->gateway_http());

  const int agent_port = stack->orchestrator().grpc_port();
  ASSIGN_OR_RETURN(std::unique_ptr<testing::VmFleet> fleet,
                   testing::VmFleet::Create(
                       {.dir = dir + "/vms",
                        .forwards = {{testing::kOrchestratorGuestAddress, agent_port, agent_port}},
                        .relay = testing::RunfilePath("tests/vm/guest_forward_relay")}));
  json static_network = json::array();
  std::vector<std::string> macs;
  for (int i = 0; i < options.vms; ++i) {
    macs.push_back(absl::StrFormat("52:54:00:be:00:%02x", i + 1));
    static_network.push_back(
        testing::PrivateNicStaticNetwork(macs.back(), absl::StrCat("192.168.127.", 10 + i)));
  }
  ASSIGN_OR_RETURN(
      testing::LabCluster lab,
      testing::CreateLabCluster(stack->gateway_http(), token.Trimmed(), dir, options.vms,
                                {{"static_network_config", static_network}}));
  Say(started, "cluster " + lab.cluster_id + ", discovery ISO " + lab.iso);
  for (int i = 0; i < options.vms; ++i) {
    RETURN_IF_ERROR(fleet
                        ->Add({.name = absl::StrCat("vm-", i),
                               .mac = macs[i],
                               .serial = absl::StrCat("BENCH-VM-", i),
                               .disk_bytes = testing::kSnoDiskBytes,
                               .memory_mib = testing::kSnoMemoryMib,
                               .cpus = testing::kSnoCpus})
                        .status());
  }
  const absl::Time power_on = absl::Now();
  for (int i = 0; i < options.vms; ++i) {
    RETURN_IF_ERROR(fleet->Boot(i, {.cdrom = lab.iso}));
    Say(started, absl::StrCat("vm-", i, " powered on; console ", fleet->ConsolePath(i)));
  }

  // Every host the REST API lists, by id, with its milestones since the common power-on.
  std::map<std::string, testing::HostProgress> hosts;
  assisted::cli::RestClient rest({.server = stack->gateway_http(), .token = token.Trimmed()});
  auto all_done = [&] {
    if (static_cast<int>(hosts.size()) < options.vms) return false;
    for (const auto& [id, progress] : hosts) {
      if (progress.known == absl::InfiniteDuration()) return false;
    }
    return true;
  };
  // Why hosts are not known yet, for a timeout's message.
  auto not_known = [&] {
    std::string why;
    for (const auto& [id, progress] : hosts) {
      if (progress.known != absl::InfiniteDuration()) continue;
      absl::StrAppend(&why, "\n  host ", id, " ", testing::StringField(progress.host, "status"),
                      ": ", testing::StringField(progress.host, "status_info"), " ",
                      testing::StringField(progress.host, "validations_info"));
    }
    return why;
  };
  while (!all_done()) {
    if (absl::Now() - power_on > options.timeout) {
      return absl::DeadlineExceededError(absl::StrCat(
          hosts.size(), " of ", options.vms, " hosts registered, not every one known within ",
          absl::FormatDuration(options.timeout), "; consoles in ", dir, "/vms", not_known()));
    }
    for (int i = 0; i < options.vms; ++i) {
      if (!fleet->Running(i)) {
        return absl::AbortedError(
            absl::StrCat("vm-", i, " powered off; console ", fleet->ConsolePath(i)));
      }
    }
    absl::StatusOr<json> listed = rest.Call("GET", "/clusters/" + lab.cluster_id + "/hosts");
    if (listed.ok() && listed->is_array()) {
      for (const json& host : *listed) {
        const std::string id = testing::StringField(host, "id");
        for (const std::string& milestone : hosts[id].Note(host, absl::Now() - power_on)) {
          Say(started,
              absl::StrCat("host ", id, ": ", milestone, " after ",
                           absl::StrFormat("%.0f", Seconds(absl::Now() - power_on)), " s",
                           milestone == "validated"
                               ? absl::StrCat(", ", testing::StringField(host, "status"), ": ",
                                              testing::StringField(host, "status_info"))
                               : ""));
        }
      }
    }
    absl::SleepFor(absl::Seconds(1));
  }
  Figures figures{absl::ZeroDuration(), absl::ZeroDuration(), absl::ZeroDuration(),
                  absl::ZeroDuration()};
  for (const auto& [id, progress] : hosts) {
    figures.registered = std::max(figures.registered, progress.registered);
    figures.inventoried = std::max(figures.inventoried, progress.inventoried);
    figures.validated = std::max(figures.validated, progress.validated);
    figures.known = std::max(figures.known, progress.known);
  }
  for (int i = 0; i < options.vms; ++i) fleet->PowerOff(i);
  return figures;
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
      "vm", "Power-on -> registered -> known of N QEMU machines booting the discovery ISO.");
  parser.Int("vms", &options.vms, "machines, one cluster of that many control-plane hosts")
      .Range(1, 3);
  parser.Duration("timeout", &options.timeout, "how long the machines get to be known")
      .Range(absl::Minutes(1), absl::Hours(3));
  parser.String("images", &options.images, "./dev os-images' folder (live.iso)");
  if (std::optional<int> exit_code = assisted::service::ParseCommandLine(parser, argc, argv)) {
    return *exit_code;
  }
  if (!std::filesystem::exists(options.images + "/live.iso")) {
    std::cerr << "bench/vm: " << options.images << "/live.iso is missing: run ./dev os-images\n";
    return 1;
  }
  absl::StatusOr<Figures> figures = Run(options);
  if (!figures.ok()) {
    std::cerr << "bench/vm: " << figures.status() << "\n";
    return 1;
  }
  std::cout << json{{"bench", "vm"},
                    {"vms", options.vms},
                    {"registered_max_s", Seconds(figures->registered)},
                    {"inventoried_max_s", Seconds(figures->inventoried)},
                    {"validated_max_s", Seconds(figures->validated)},
                    {"known_max_s", Seconds(figures->known)},
                    {"load_note", "TCG, 1 vCPU per machine; figures depend on the host's load"},
                    {"cores", static_cast<int>(std::thread::hardware_concurrency())}}
                   .dump()
            << std::endl;
  return 0;
}
