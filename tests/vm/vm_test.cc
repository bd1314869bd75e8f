// File: tests/vm/vm_test.cc

#include "tests/vm/vm_test.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "lib/status/status_macros.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/certificates.h"
#include "tests/harness/eventually.h"
#include "tests/harness/probes.h"

namespace assisted::testing {
namespace {

using nlohmann::json;

constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}})";
constexpr char kSshKey[] =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl vm";

}  // namespace

std::string VmTest::WriteTempFile(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

void VmTest::SetUp() {
  const char* images = std::getenv("ASSISTED_TEST_OS_IMAGES");
  if (images == nullptr || *images == '\0') {
    GTEST_SKIP() << "ASSISTED_TEST_OS_IMAGES is not set: build the images with ./dev os-images "
                    "(./dev test does both)";
  }
  images_ = images;
  ASSERT_TRUE(std::filesystem::exists(images_ + "/live.iso"))
      << images_ << "/live.iso is missing: run ./dev os-images";
  absl::StatusOr<std::string> requirements = LabHwRequirements();
  ASSERT_THAT(requirements, IsOk());
  hw_requirements_file_ = WriteTempFile("hw-requirements.json", *requirements);
  ASSERT_NO_FATAL_FAILURE(StartTestServers());
  ASSERT_NO_FATAL_FAILURE(StackTest::SetUp());

  AictlOutcome token = Aictl(
      {"token", "issue", "--secret-file=" + stack().jwt_secret_file(), "--user=vm", "--org=vm"},
      /*with_token=*/false);
  ASSERT_EQ(token.code, 0) << token.err;
  token_ = token.Trimmed();

  // The orchestrator listens on loopback only; guests reach it through the forward.
  const int agent_port = orchestrator().grpc_port();
  std::vector<GuestForward> forwards = {{kOrchestratorGuestAddress, agent_port, agent_port}};
  for (const GuestForward& forward : VmOptions().forwards) forwards.push_back(forward);
  auto fleet = VmFleet::Create({.dir = ::testing::TempDir() + "/vms", .forwards = forwards});
  ASSERT_THAT(fleet, IsOk());
  fleet_ = *std::move(fleet);
}

StackOptions VmTest::Options() const {
  StackOptions options = {
      .orchestrator_flags = {"--monitor-interval=500ms",
                             "--hw-requirements-file=" + hw_requirements_file_},
      .authenticate_agents = true,
      .image = true,
      .image_base_iso = images_ + "/live.iso",
      .agents_dial_host = kOrchestratorGuestAddress,
      .gateway = true,
  };
  for (const std::string& flag : VmOptions().orchestrator_flags) {
    options.orchestrator_flags.push_back(flag);
  }
  return options;
}

void VmTest::TearDown() {
  if (HasFailure() && fleet_ != nullptr) {
    for (int vm = 0; vm < machines_; ++vm) {
      std::cerr << "--- console of " << fleet_->spec(vm).name << " (" << fleet_->ConsolePath(vm)
                << ")\n"
                << fleet_->ConsoleTail(vm, 30000) << "\n";
    }
  }
  fleet_.reset();
  StackTest::TearDown();
}

AictlOutcome VmTest::Aictl(std::vector<std::string> args, bool with_token) const {
  return RunAictl(stack().gateway_http(), with_token ? token_ : "", args);
}

cli::RestClient VmTest::Rest() const {
  return cli::RestClient({.server = stack().gateway_http(), .token = token_});
}

void VmTest::CreateSnoCluster(const json& infra_env_fields) {
  const std::string pull_secret = WriteTempFile("pull-secret.json", kPullSecret);
  const std::string ssh_key = WriteTempFile("id.pub", kSshKey);
  AictlOutcome cluster =
      Aictl({"clusters", "create", "--name=vm", "--base-domain=example.com",
             "--openshift-version=4.16", "--control-plane-count=1", "--user-managed-networking",
             // The uplink's subnet (QEMU user-mode networking), as a user would pick the host's.
             "--machine-networks=10.0.2.0/24", "--pull-secret-file=" + pull_secret,
             "--ssh-key-file=" + ssh_key});
  ASSERT_EQ(cluster.code, 0) << cluster.err;
  cluster_id_ = cluster.Trimmed();
  AictlOutcome infra_env =
      Aictl({"infra-envs", "create", "--cluster=" + cluster_id_,
             "--pull-secret-file=" + pull_secret, "--ssh-key-file=" + ssh_key});
  ASSERT_EQ(infra_env.code, 0) << infra_env.err;
  infra_env_id_ = infra_env.Trimmed();
  if (!infra_env_fields.empty()) {
    absl::StatusOr<json> patched =
        Rest().Call("PATCH", "/infra-envs/" + infra_env_id_, infra_env_fields);
    ASSERT_THAT(patched, IsOk());
  }
  iso_ = ::testing::TempDir() + "/discovery.iso";
  AictlOutcome download = Aictl({"iso", "download", infra_env_id_, "--output-file=" + iso_});
  ASSERT_EQ(download.code, 0) << download.err;
}

int VmTest::AddSnoMachine(const std::string& name, const std::string& mac,
                          const std::string& serial) {
  auto vm = fleet_->Add({.name = name,
                         .mac = mac,
                         .serial = serial,
                         .disk_bytes = kSnoDiskBytes,
                         .memory_mib = kSnoMemoryMib,
                         .cpus = kSnoCpus});
  EXPECT_THAT(vm, IsOk());
  machines_ = std::max(machines_, vm.ok() ? *vm + 1 : machines_);
  return vm.value_or(-1);
}

void StageLog::operator()(const std::string& stage) const {
  std::cout << "[vm +" << static_cast<int>(absl::ToDoubleSeconds(absl::Now() - started_)) << " s] "
            << stage << std::endl;
}

std::pair<std::string, json> VmTest::Look() const { return LookAt(Rest(), cluster_id_); }

std::pair<std::string, json> LookAt(cli::RestClient rest, const std::string& cluster_id) {
  absl::StatusOr<json> cluster = rest.Call("GET", "/clusters/" + cluster_id);
  absl::StatusOr<json> hosts = rest.Call("GET", "/clusters/" + cluster_id + "/hosts");
  const std::string status = cluster.ok() ? StringField(*cluster, "status") : "";
  if (!hosts.ok() || !hosts->is_array() || hosts->empty() || !(*hosts)[0].is_object()) {
    return {status, json::object()};
  }
  return {status, (*hosts)[0]};
}

std::string VmTest::Stopped(int vm) { return MachineStopped(*fleet_, vm); }

std::string VmTest::Where(int vm) const {
  return WhereStuck(*fleet_, vm, [this] { return Look(); });
}

void VmTest::WaitUntilKnown(int vm, absl::Time power_on, absl::Duration timeout,
                            HostProgress& progress) {
  WaitUntilHostKnown(
      *fleet_, vm, [this] { return Look(); }, [this, vm] { return Stopped(vm); }, progress_,
      power_on, timeout, progress);
}

std::string MachineStopped(VmFleet& fleet, int vm, bool failed_units) {
  if (!fleet.Running(vm)) {
    return absl::StrCat("the machine powered off; console: ", fleet.ConsolePath(vm));
  }
  const std::string tail = fleet.ConsoleTail(vm, 2000);
  if (absl::StrContains(tail, "Entering emergency mode")) {
    return absl::StrCat("the machine's boot failed (emergency mode); console: ",
                        fleet.ConsolePath(vm));
  }
  if (!failed_units) return "";
  // systemd's console line for a unit that failed: "[FAILED] Failed to start x.service - …".
  const std::string console = fleet.ConsoleTail(vm, 1 << 20);
  if (const size_t failed = console.find("[FAILED] "); failed != std::string::npos) {
    const size_t end = console.find('\n', failed);
    return absl::StrCat("a unit failed (", console.substr(failed, end - failed),
                        "); console: ", fleet.ConsolePath(vm));
  }
  return "";
}

std::string WhereStuck(VmFleet& fleet, int vm, const LookAtCluster& look) {
  const auto [cluster_status, host] = look();
  return absl::StrCat("console: ", fleet.ConsolePath(vm), "; cluster ", cluster_status, "; host ",
                      StringField(host, "status"), ": ", StringField(host, "status_info"),
                      "; stage ",
                      StringField(host.value("progress", json::object()), "current_stage"));
}

void WaitUntilHostKnown(VmFleet& fleet, int vm, const LookAtCluster& look,
                        const std::function<std::string()>& stopped_now, const StageLog& log,
                        absl::Time power_on, absl::Duration timeout, HostProgress& progress) {
  // The host appears once its agent registered; its inventory follows with the first step, and
  // its validations once the orchestrator evaluated that inventory and the checks' results.
  // The REST API has no watch: the wait polls it, as aictl wait does.
  std::string stopped;  // why the machine can no longer get there
  const ::testing::AssertionResult settled = Eventually(
      [&]() -> Observed {
        stopped = stopped_now();
        if (!stopped.empty()) return {true, stopped};
        const auto [cluster_status, host] = look();
        if (host.empty()) return {false, "no host registered"};
        if (progress.registered == absl::InfiniteDuration()) {
          progress.registered = absl::Now() - power_on;
          log("discovery: host registered");
        }
        progress.host = host;
        if (progress.inventoried == absl::InfiniteDuration() &&
            !StringField(progress.host, "inventory").empty()) {
          progress.inventoried = absl::Now() - power_on;
          log("discovery: inventory received");
        }
        const std::string status = StringField(progress.host, "status");
        const std::string validations = StringField(progress.host, "validations_info");
        return {progress.inventoried != absl::InfiniteDuration() &&
                    (status == "known" || status == "insufficient") &&
                    HardwareValidated(validations) && PendingChecks(validations).empty(),
                absl::StrCat("host ", status, ": ", StringField(progress.host, "status_info"))};
      },
      power_on + timeout - absl::Now(), "the host to be validated (known or insufficient)");
  progress.validated = absl::Now() - power_on;
  log(absl::StrCat("discovery: host ", StringField(progress.host, "status"),
                   "; console: ", BootTimeline(fleet.ConsoleTail(vm, 1 << 20))));
  ASSERT_TRUE(stopped.empty()) << stopped;
  ASSERT_TRUE(settled) << WhereStuck(fleet, vm, look);
  ASSERT_NE(progress.inventoried, absl::InfiniteDuration()) << progress.host.dump();
  // ntp-synced fails: no NTP server is within reach of a loopback-only uplink; that validation
  // is informative, as upstream.
  ASSERT_EQ(StringField(progress.host, "status"), "known")
      << StringField(progress.host, "status_info") << "\n"
      << StringField(progress.host, "validations_info");
  const std::string validations = StringField(progress.host, "validations_info");
  EXPECT_TRUE(HardwareValidated(validations)) << validations;
  EXPECT_THAT(PendingChecks(validations), ::testing::IsEmpty()) << validations;
}

json PrivateNicStaticNetwork(const std::string& mac, const std::string& address) {
  // "eth1" is a logical name: the discovery image's pre-network script and the host Ignition
  // put the real name of the NIC with this MAC in its place.
  const std::string yaml = absl::StrCat(
      "interfaces:\n"
      "- name: eth1\n"
      "  type: ethernet\n"
      "  state: up\n"
      "  ipv4:\n"
      "    enabled: true\n"
      "    dhcp: false\n"
      "    address:\n"
      "    - ip: ",
      address,
      "\n"
      "      prefix-length: 24\n"
      "  ipv6:\n"
      "    enabled: false\n");
  return {
      {"network_yaml", yaml},
      {"mac_interface_map",
       json::array({{{"mac_address", VmFleet::PrivateMac(mac)}, {"logical_nic_name", "eth1"}}})}};
}

std::string StandInReleaseImages() {
  const std::string release = absl::StrCat(kRegistryGuestAddress, ":", kRegistryGuestPort,
                                           "/openshift-release-dev/ocp-release:4.16.3-x86_64");
  return json::array({{{"openshift_version", "4.16"},
                       {"cpu_architecture", "x86_64"},
                       {"url", release},
                       {"version", "4.16.3"}}})
      .dump();
}

absl::StatusOr<std::unique_ptr<RegistryStandIn>> RegistryStandIn::Start(const std::string& dir) {
  ASSIGN_OR_RETURN(TestCa ca, TestCa::Create(dir + "/registry-pki", "registry"));
  std::unique_ptr<RegistryStandIn> registry(new RegistryStandIn());
  std::ifstream in(ca.ca_file(), std::ios::binary);
  registry->ca_pem_.assign(std::istreambuf_iterator<char>(in), {});
  ASSIGN_OR_RETURN(auto cert, ca.Issue("registry", {kRegistryGuestAddress}));
  ASSIGN_OR_RETURN(registry->port_, FreePort());
  ASSIGN_OR_RETURN(registry->server_,
                   process::Subprocess::Start({"openssl", "s_server", "-quiet", "-www", "-accept",
                                               absl::StrCat("127.0.0.1:", registry->port_), "-cert",
                                               cert.cert, "-key", cert.key},
                                              {}, dir + "/registry.log"));
  return registry;
}

std::string InstallationFailed(const std::string& cluster_status, const json& host) {
  const std::string host_status = StringField(host, "status");
  const std::string info = StringField(host, "status_info");
  if (host_status == "error" || host_status == "insufficient" || cluster_status == "error" ||
      cluster_status == "insufficient" || absl::StrContains(info, "failed to prepare")) {
    return absl::StrCat("cluster ", cluster_status, ", host ", host_status, ": ", info);
  }
  return "";
}

absl::StatusOr<std::string> LabHwRequirements() {
  constexpr char kBuiltIn[] = "services/orchestrator/core/data/hw_requirements.json";
  std::ifstream in(kBuiltIn);
  json requirements = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!requirements.is_object() || !requirements["default"]["roles"].is_object()) {
    return absl::InternalError(absl::StrCat("cannot read the requirements in ", kBuiltIn));
  }
  for (auto& [role, needs] : requirements["default"]["roles"].items()) {
    needs["cpu_cores"] = kSnoCpus;
    needs["ram_mib"] = kLabRamMib;
    needs["installation_disk_speed_threshold_ms"] = kLabDiskSyncMs;
  }
  requirements["overrides"] = json::array();
  return requirements.dump(2);
}

std::string BootTimeline(const std::string& console) {
  std::optional<double> init, root, last;
  int systemd_starts = 0;  // systemd announces itself in the initramfs, then from the root
  for (absl::string_view line : absl::StrSplit(console, '\n')) {
    // "[   12.629286] Run /init as init process": a kernel message and its timestamp.
    const size_t close = line.find(']');
    double seconds = 0;
    if (!absl::StartsWith(line, "[") || close == absl::string_view::npos ||
        !absl::SimpleAtod(absl::StripAsciiWhitespace(line.substr(1, close - 1)), &seconds)) {
      continue;
    }
    last = seconds;
    if (!init && absl::StrContains(line, "Run /init")) init = seconds;
    if (absl::StrContains(line, "running in system mode") && ++systemd_starts == 2) root = seconds;
  }
  std::vector<std::string> parts;
  if (init) parts.push_back(absl::StrFormat("kernel until %.1f s", *init));
  if (root) parts.push_back(absl::StrFormat("initramfs until %.1f s", *root));
  if (last) parts.push_back(absl::StrFormat("last kernel message at %.1f s", *last));
  return parts.empty() ? "no kernel timestamps" : absl::StrJoin(parts, ", ");
}

std::string StringField(const json& object, const std::string& name) {
  if (!object.is_object() || !object.contains(name) || !object[name].is_string()) return "";
  return object[name].get<std::string>();
}

bool HardwareValidated(const std::string& validations_info) {
  const json info = json::parse(validations_info, nullptr, false);
  if (!info.is_object()) return false;
  int passed = 0;
  for (const auto& [category, results] : info.items()) {
    for (const json& v : results) {
      const std::string id = v.value("id", "");
      if (id == "has-inventory" || id == "has-min-cpu-cores" || id == "has-min-memory" ||
          id == "has-min-valid-disks" || id == "has-cpu-cores-for-role" ||
          id == "has-memory-for-role") {
        if (v.value("status", "") != "success") return false;
        ++passed;
      }
    }
  }
  return passed == 6;
}

std::vector<std::string> PendingChecks(const std::string& validations_info) {
  const json info = json::parse(validations_info, nullptr, false);
  std::vector<std::string> pending;
  if (!info.is_object()) return {"(no validations)"};
  for (const auto& [category, results] : info.items()) {
    for (const json& v : results) {
      const std::string id = v.value("id", "");
      if (v.value("status", "") == "pending" && id != "sufficient-installation-disk-speed" &&
          id != "container-images-available" && id != "mtu-valid") {
        pending.push_back(id);
      }
    }
  }
  return pending;
}

}  // namespace assisted::testing
