// The agent-based installer on a real (TCG) machine, with no service running on the host
// (issue 17): the test writes SNO's install-config.yaml and agent-config.yaml (rendezvousIP is
// the machine's static address on its private NIC, whose MAC agent-config names), runs
// `aictl agent create image` on ./dev os-images' agent-live.iso, and boots one VM from the
// agent ISO. Node 0 must then do everything by itself: find that it is node 0, start PostgreSQL
// and the four services under systemd, create the cluster and infra-env of the ISO, run its own
// agent, name its host as agent-config says and find it known, start the install, write its
// disk, carry its services onto that disk and reboot into it, where its reporter completes the
// install and `aictl agent wait-for install-complete` returns 0.
//
// The test reaches node 0 as a user would reach rendezvousIP:8080, through a forward from the
// host's loopback (VmFleet's host_forwards), with the token the state file's key signs.
//
// Disconnected, as seed 002: install-config.yaml names a mirror registry (imageContentSources)
// and trusts its CA (additionalTrustBundle), and `--release-image` names the release by digest
// at its source, quay.io. The mirror is the registry stand-in (vm_lab.h: RegistryStandIn,
// reached through a forward; no service of ours runs on the host): the install's preparation
// must find the release there, through the registries.conf the ISO gives the machine.
//
// The lab, as VmTest's stack has it: node 0's orchestrator (a drop-in the test adds to the ISO's
// Ignition) judges the machine against LabHwRequirements (1 vCPU, 3 GiB under TCG) instead of
// SNO's 8 cores and 16 GiB. The journal goes to the serial console too, so a failure's console
// log holds the services' own words.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/ignition/config_builder.h"
#include "lib/iso/cpio.h"
#include "lib/iso/embed.h"
#include "lib/iso/iso9660.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/agent/agent_ignition.h"
#include "services/gateway/cli/agent/asset_dir.h"
#include "services/gateway/cli/commands.h"
#include "services/gateway/cli/rest_client.h"
#include "tests/harness/eventually.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/probes.h"
#include "tests/vm/vm_test.h"

namespace assisted::testing {
namespace {

using json = nlohmann::json;

constexpr char kMac[] = "52:54:00:a5:17:01";
constexpr char kSerial[] = "ASSISTED-VM-1701";
constexpr char kHostname[] = "node-zero";
constexpr char kRendezvousIp[] = "192.168.126.10";
constexpr char kAgentInstaller[] = "agent-installer";
// Boot, PostgreSQL's first start and four services on one emulated vCPU.
constexpr absl::Duration kNodeZeroBudget = absl::Minutes(15);
constexpr absl::Duration kKnownBudget = absl::Minutes(15);
// Preparation, the disk write, the reboot's minute (`shutdown -r +1`) and the carry-over.
constexpr absl::Duration kInstallBudget = absl::Minutes(20);
// The installed OS's first boot (Ignition), PostgreSQL and the services, the reporter.
constexpr absl::Duration kInstalledBudget = absl::Minutes(15);

// The release's source and its mirror, the registry stand-in as the machine reaches it.
constexpr char kReleaseSource[] = "quay.io/openshift-release-dev/ocp-release";
std::string MirrorRegistry() {
  return absl::StrCat(kRegistryGuestAddress, ":", kRegistryGuestPort);
}
std::string ReleaseImage() {
  return absl::StrCat(kReleaseSource, "@sha256:", std::string(64, 'e'));
}

// `registry_ca` (PEM) as additionalTrustBundle: the hosts trust the mirror; its credentials in
// the pull secret, the release's repository mirrored to it.
std::string InstallConfig(const std::string& registry_ca) {
  std::string bundle;
  for (absl::string_view line :
       absl::StrSplit(absl::StripTrailingAsciiWhitespace(registry_ca), '\n')) {
    absl::StrAppend(&bundle, "  ", line, "\n");
  }
  return absl::StrCat(
      "additionalTrustBundle: |\n", bundle, "imageContentSources:\n- source: ", kReleaseSource,
      "\n  mirrors:\n  - ", MirrorRegistry(),
      "/ocp/release\npullSecret: '{\"auths\":{\"quay.io\":{\"auth\":\"ZGVtbzpkZW1v\"},\"",
      MirrorRegistry(), R"(":{"auth":"ZGVtbzpkZW1v"}}}'
apiVersion: v1
baseDomain: example.com
compute:
- name: worker
  replicas: 0
controlPlane:
  name: master
  replicas: 1
metadata:
  name: agentvm
networking:
  machineNetwork:
  - cidr: 192.168.126.0/24
  networkType: OVNKubernetes
platform:
  none: {}
sshKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl vm'
)");
}

// The machine's private NIC (eth1 is a logical name: node 0's pre-network script puts the real
// name of the NIC with this MAC in its place) with rendezvousIP, no DHCP.
std::string AgentConfig() {
  const std::string mac = VmFleet::PrivateMac(kMac);
  return absl::StrCat(R"(apiVersion: v1beta1
kind: AgentConfig
metadata:
  name: agentvm
rendezvousIP: )",
                      kRendezvousIp, R"(
hosts:
- hostname: )",
                      kHostname, R"(
  role: master
  interfaces:
  - name: eth1
    macAddress: )",
                      mac, R"(
  rootDeviceHints:
    deviceName: /dev/vda
  networkConfig:
    interfaces:
    - name: eth1
      type: ethernet
      state: up
      mac-address: )",
                      mac, R"(
      ipv4:
        enabled: true
        dhcp: false
        address:
        - ip: )",
                      kRendezvousIp, R"(
          prefix-length: 24
      ipv6:
        enabled: false
)");
}

class AgentNodeZeroVmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* images = std::getenv("ASSISTED_TEST_OS_IMAGES");
    if (images == nullptr || *images == '\0') {
      GTEST_SKIP() << "ASSISTED_TEST_OS_IMAGES is not set: build the images with ./dev "
                      "os-images (./dev test does both)";
    }
    base_iso_ = absl::StrCat(images, "/agent-live.iso");
    ASSERT_TRUE(std::filesystem::exists(base_iso_))
        << base_iso_ << " is missing: run ./dev os-images";
    dir_ = ::testing::TempDir() + "/assets";
    std::filesystem::create_directories(dir_);
    auto registry = RegistryStandIn::Start(::testing::TempDir());
    ASSERT_THAT(registry, IsOk());
    registry_ = *std::move(registry);
    std::ofstream(dir_ + "/install-config.yaml") << InstallConfig(registry_->ca_pem());
    std::ofstream(dir_ + "/agent-config.yaml") << AgentConfig();
    absl::StatusOr<int> port = FreePort();
    ASSERT_THAT(port, IsOk());
    gateway_port_ = *port;
    auto fleet =
        VmFleet::Create({.dir = ::testing::TempDir() + "/vms", .forwards = {registry_->Forward()}});
    ASSERT_THAT(fleet, IsOk());
    fleet_ = *std::move(fleet);
  }

  void TearDown() override {
    if (HasFailure() && fleet_ != nullptr && vm_ >= 0) {
      std::cerr << "--- console of " << fleet_->spec(vm_).name << " (" << fleet_->ConsolePath(vm_)
                << ")\n"
                << fleet_->ConsoleTail(vm_, 60000) << "\n";
    }
    fleet_.reset();
  }

  // `aictl agent create image`, as a user runs it; then the state file's gateway_url points
  // where the test forwards rendezvousIP:8080, and the token for node 0's gateway.
  void CreateAgentImage() {
    std::ostringstream out, err;
    const int code = cli::Run({"agent", "create", "image", "--dir=" + dir_,
                               "--base-iso=" + base_iso_, "--release-image=" + ReleaseImage()},
                              {}, {out, err});
    ASSERT_EQ(code, 0) << err.str();
    const std::string state_path = absl::StrCat(dir_, "/", cli::agent::kStateFileName);
    absl::StatusOr<std::string> state_text = ReadFile(state_path, "state");
    ASSERT_THAT(state_text, IsOk());
    state_ = json::parse(*state_text);
    state_["gateway_url"] = absl::StrCat("http://127.0.0.1:", gateway_port_);
    std::ofstream(state_path, std::ios::trunc) << state_.dump();
    const std::string secret_file = ::testing::TempDir() + "/node-zero-jwt.key";
    std::ofstream(secret_file) << state_["gateway_jwt_secret"].get<std::string>();
    AictlOutcome token = RunAictl(
        "", "",
        {"token", "issue", "--secret-file=" + secret_file, absl::StrCat("--user=", kAgentInstaller),
         absl::StrCat("--org=", kAgentInstaller)});
    ASSERT_EQ(token.code, 0) << token.err;
    token_ = token.Trimmed();
  }

  // The lab adaptation (see the banner), written into the ISO's Ignition embed area.
  void AdaptIgnitionToTheLab() {
    const std::string iso_path = dir_ + "/agent.x86_64.iso";
    const int fd = open(iso_path.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0) << iso_path;
    absl::StatusOr<iso::IsoReader> reader = iso::IsoReader::Open(fd, iso_path);
    ASSERT_THAT(reader, IsOk());
    absl::StatusOr<std::string> embedded = iso::ReadEmbeddedIgnition(*reader);
    ASSERT_THAT(embedded, IsOk());
    json ignition = json::parse(*embedded);
    absl::StatusOr<std::string> requirements = LabHwRequirements();
    ASSERT_THAT(requirements, IsOk());
    constexpr char kRequirementsPath[] = "/etc/assisted/lab-hw-requirements.json";
    constexpr char kLabEnvPath[] = "/etc/assisted/lab.env";
    ignition["storage"]["files"].push_back(
        {{"path", kRequirementsPath},
         {"mode", 0644},
         {"contents", {{"source", ignition::DataUrl(*requirements)}}}});
    ignition["storage"]["files"].push_back(
        {{"path", kLabEnvPath},
         {"mode", 0644},
         {"contents",
          {{"source", ignition::DataUrl(absl::StrCat(
                          "ASSISTED_HW_REQUIREMENTS_FILE=", kRequirementsPath, "\n"))}}}});
    ignition["storage"]["files"].push_back(
        {{"path", "/etc/systemd/journald.conf.d/assisted-lab-console.conf"},
         {"mode", 0644},
         {"contents",
          {{"source", ignition::DataUrl("[Journal]\nForwardToConsole=yes\nTTYPath=/dev/ttyS0\n"
                                        "MaxLevelConsole=info\n")}}}});
    bool found = false;
    for (json& unit : ignition["systemd"]["units"]) {
      if (unit.value("name", "") != "assisted-orchestrator.service") continue;
      unit["dropins"].push_back(
          {{"name", "lab.conf"},
           {"contents", absl::StrCat("[Service]\nEnvironmentFile=", kLabEnvPath, "\n")}});
      found = true;
    }
    ASSERT_TRUE(found) << "no assisted-orchestrator.service in the ISO's Ignition";
    absl::StatusOr<iso::EmbedAreas> areas = iso::FindEmbedAreas(*reader);
    ASSERT_THAT(areas, IsOk());
    absl::StatusOr<std::string> archive = iso::IgnitionArchive(ignition.dump());
    ASSERT_THAT(archive, IsOk());
    absl::StatusOr<iso::Patch> patch = iso::IgnitionPatch(areas->ignition, *archive);
    ASSERT_THAT(patch, IsOk());
    ASSERT_EQ(
        pwrite(fd, patch->bytes.data(), patch->bytes.size(), static_cast<off_t>(patch->offset)),
        static_cast<ssize_t>(patch->bytes.size()));
    close(fd);
  }

  cli::RestClient Rest() const {
    return cli::RestClient({.server = state_["gateway_url"].get<std::string>(), .token = token_});
  }

  // The cluster of the ISO and its one host, as node 0's gateway shows them.
  std::pair<std::string, json> Look() const {
    return LookAt(Rest(), state_["cluster_id"].get<std::string>());
  }

  std::string Stopped() { return MachineStopped(*fleet_, vm_, /*failed_units=*/true); }

  std::string dir_, base_iso_, token_;
  int gateway_port_ = 0;
  json state_;
  std::unique_ptr<RegistryStandIn> registry_;
  std::unique_ptr<VmFleet> fleet_;
  int vm_ = -1;
  StageLog log_;
};

TEST_F(AgentNodeZeroVmTest, NodeZeroInstallsItselfUntilWaitForInstallCompleteReturnsZero) {
  ASSERT_NO_FATAL_FAILURE(CreateAgentImage());
  ASSERT_NO_FATAL_FAILURE(AdaptIgnitionToTheLab());
  log_("agent ISO written (aictl agent create image)");

  absl::StatusOr<int> vm =
      fleet_->Add({.name = "node-zero",
                   .mac = kMac,
                   .serial = kSerial,
                   .disk_bytes = kSnoDiskBytes,
                   .memory_mib = kSnoMemoryMib,
                   .cpus = kSnoCpus,
                   .host_forwards = {{gateway_port_, kRendezvousIp, cli::agent::kGatewayPort}}});
  ASSERT_THAT(vm, IsOk());
  vm_ = *vm;
  const absl::Time power_on = absl::Now();
  ASSERT_THAT(fleet_->Boot(vm_, {.cdrom = dir_ + "/agent.x86_64.iso"}), IsOk());
  log_("node 0: booting the agent ISO");

  // Node 0's gateway answers on rendezvousIP once its units are up, and the registration unit
  // has created the ISO's cluster.
  std::string stopped;
  const LookAtCluster look = [this] { return Look(); };
  const ::testing::AssertionResult cluster_created = Eventually(
      [&]() -> Observed {
        stopped = Stopped();
        if (!stopped.empty()) return {true, stopped};
        const auto [status, host] = Look();
        return {!status.empty(), status.empty() ? "no cluster yet" : status};
      },
      kNodeZeroBudget, "node 0's gateway to show the ISO's cluster");
  ASSERT_TRUE(stopped.empty()) << stopped;
  ASSERT_TRUE(cluster_created) << WhereStuck(*fleet_, vm_, look);
  log_(absl::StrCat("node 0: services up, cluster created; console: ",
                    BootTimeline(fleet_->ConsoleTail(vm_, 1 << 20))));

  HostProgress progress;
  ASSERT_NO_FATAL_FAILURE(WaitUntilHostKnown(
      *fleet_, vm_, look, [this] { return Stopped(); }, log_, power_on, kKnownBudget, progress));
  EXPECT_EQ(StringField(progress.host, "requested_hostname"), kHostname) << progress.host.dump();

  // Node 0 starts the install by itself, writes the OS image to its disk and reboots (the
  // machine powers off: VmFleet runs QEMU with -no-reboot).
  std::string failed, last_stage;
  const ::testing::AssertionResult rebooted = Eventually(
      [&]() -> Observed {
        if (!fleet_->Running(vm_)) return {true, "powered off"};
        const auto [status, host] = Look();
        const std::string stage =
            StringField(host.value("progress", json::object()), "current_stage");
        if (!stage.empty() && stage != last_stage) {
          log_(absl::StrCat("installation: cluster ", status, ", host stage ", stage));
          last_stage = stage;
        }
        failed = InstallationFailed(status, host);
        if (!failed.empty()) return {true, failed};
        return {false, absl::StrCat("cluster ", status, ", host ", StringField(host, "status"),
                                    ", stage ", stage)};
      },
      kInstallBudget, "node 0 to install its disk and reboot");
  ASSERT_TRUE(failed.empty()) << failed << "\n" << WhereStuck(*fleet_, vm_, look);
  ASSERT_TRUE(rebooted) << WhereStuck(*fleet_, vm_, look);
  log_(absl::StrCat("installation: node 0 rebooted; console: ",
                    BootTimeline(fleet_->ConsoleTail(vm_, 1 << 20))));
  // The preparation's image check found the release on the mirror (the agent's journal on the
  // console), not at its source.
  EXPECT_THAT(fleet_->ConsoleTail(vm_, 64 << 20),
              ::testing::AllOf(::testing::HasSubstr("image available through a mirror"),
                               ::testing::HasSubstr(MirrorRegistry() + "/ocp/release@sha256:")));

  // The installed OS: node 0's services, carried onto the disk as it shut down, start again;
  // its reporter completes the install.
  ASSERT_THAT(fleet_->Boot(vm_, {}), IsOk());
  const absl::Time installed_boot = absl::Now();
  std::string cluster_status;
  const ::testing::AssertionResult installed = Eventually(
      [&]() -> Observed {
        stopped = MachineStopped(*fleet_, vm_);
        if (!stopped.empty()) return {true, stopped};
        cluster_status = Look().first;
        return {cluster_status == "installed" || cluster_status == "error",
                cluster_status.empty() ? "node 0 does not answer" : cluster_status};
      },
      kInstalledBudget, "the installed node 0 to report the cluster installed");
  ASSERT_TRUE(stopped.empty()) << stopped;
  ASSERT_TRUE(installed) << WhereStuck(*fleet_, vm_, look);
  log_(absl::StrCat("installed OS: cluster ", cluster_status, " after ",
                    absl::FormatDuration(absl::Now() - installed_boot),
                    "; console: ", BootTimeline(fleet_->ConsoleTail(vm_, 1 << 20))));

  // The user's side: wait-for with the state file, as after any agent-based install.
  std::ostringstream out, err;
  const int code = cli::Run(
      {"agent", "wait-for", "install-complete", "--dir=" + dir_, "--interval=1s", "--timeout=2m"},
      {}, {out, err});
  EXPECT_EQ(code, 0) << out.str() << err.str();
  log_("wait-for install-complete returned");
}

}  // namespace
}  // namespace assisted::testing
