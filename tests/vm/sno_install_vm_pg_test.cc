// One real (virtual) machine installs single-node OpenShift's host side end to end and boots
// into the installed OS, driven through the REST API only: the VM stack of tests/vm/vm_test.h;
// an SNO cluster and infra-env (trusting the test's registry CA); the discovery ISO downloaded
// from the image service; one QEMU machine booted from it, whose agent — started by the
// discovery Ignition the live initramfs took from the ISO's embed area — registers with its
// virtual hardware (the inventory names its NIC's fixed MAC, its SMBIOS serial, its virtio disk
// and its vCPUs) and becomes known; the user names the host, gives it installer arguments
// (--append-karg: the test's own and the lab's, LabInstallerArgs) and starts the installation;
// the
// host's checks while preparing run for real (disk speed on its virtio disk, the release
// image's registry — a TLS stand-in on the host's loopback); the agent writes ./dev os-images'
// disk.raw, served over HTTP through a forward with its sha256 (the orchestrator's
// --os-image-url and --os-image-sha256), onto its disk with the host's Ignition and the
// post-reboot reporter's settings, reports its stages and reboots (QEMU powers off: -no-reboot).
// The machine then boots its disk alone: the initramfs applies the Ignition, assisted-reporter
// reports Joined, Done, the finalizing stages and the completion, and the cluster is installed.
// A third boot shows the Ignition's file (/etc/hostname: the name the user gave, on the login
// prompt) and the appended kernel argument, with no Ignition run and no report; the disk afterwards
// holds the install record and no reporter settings.
//
// Every wait is bounded and stops at once on a failure state (power-off, a kernel panic,
// emergency mode, a host or cluster in error); its failure names the console log and the host's
// status_info. Timings of each phase go to stdout. Needs ASSISTED_TEST_OS_IMAGES (see vm_test.h).
#include <iostream>
#include <string>
#include <string_view>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/process/subprocess.h"
#include "lib/status/status_macros.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/agent/steps/install.h"
#include "services/agent/steps/install_disk.h"
#include "services/agent/steps/reporter_settings.h"
#include "tests/harness/eventually.h"
#include "tests/harness/probes.h"
#include "tests/vm/vm_test.h"

namespace assisted::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kMac[] = "52:54:00:a5:02:01";
constexpr char kSerial[] = "ASSISTED-VM-0201";
constexpr char kHostname[] = "sno-vm-0";
// An installer argument the user gives the host; the installed OS boots with it every time.
constexpr char kKarg[] = "assisted.test.karg=1";
// Its NIC on the fleet's private segment, which has no DHCP server.
constexpr char kPrivateAddress[] = "192.168.126.10";
// Each phase's bound under TCG, for a machine loaded by parallel tests: on a quiet 2-core
// machine each takes a few minutes at most (the test prints each phase's time). The sum stays
// well inside bazel's hour for "enormous".
constexpr absl::Duration kDiscoveryBudget = absl::Minutes(12);
constexpr absl::Duration kReadyBudget = absl::Minutes(5);
constexpr absl::Duration kInstallBudget = absl::Minutes(15);
constexpr absl::Duration kFirstBootBudget = absl::Minutes(10);
constexpr absl::Duration kReporterBudget = absl::Minutes(2);
constexpr absl::Duration kLastBootBudget = absl::Minutes(6);

double Seconds(absl::Duration d) { return absl::ToDoubleSeconds(d); }

class SnoInstallVmTest : public VmTest {
 protected:
  // The OS image's file server and the release image's registry stand-in (vm_lab.h), whose CA
  // the infra-env trusts.
  void StartTestServers() override {
    auto servers = LabInstallServers::Start(images(), ::testing::TempDir());
    ASSERT_THAT(servers, IsOk());
    servers_ = *std::move(servers);
  }

  VmTestOptions VmOptions() const override {
    return {.orchestrator_flags = servers_->OrchestratorFlags(), .forwards = servers_->Forwards()};
  }

  std::unique_ptr<LabInstallServers> servers_;
};

// The last command line the kernel printed on a console ("" when none).
std::string KernelCommandLine(const std::string& console) {
  constexpr std::string_view kPrefix = "Kernel command line: ";
  const size_t at = console.rfind(kPrefix);
  if (at == std::string::npos) return "";
  const size_t start = at + kPrefix.size();
  return console.substr(start, console.find('\n', start) - start);
}

// What discovery saw of the machine: its real (virtual) hardware — the NIC's fixed MAC, the
// SMBIOS serial, the virtio disk, the vCPUs — and the static address the infra-env gave its
// private NIC.
void ExpectTheMachinesHardware(const json& host) {
  const json inventory = json::parse(StringField(host, "inventory"), nullptr, false);
  ASSERT_TRUE(inventory.is_object()) << StringField(host, "inventory");
  const std::string text = inventory.dump();
  EXPECT_THAT(text, HasSubstr(kMac));
  EXPECT_THAT(text, HasSubstr(kSerial));
  EXPECT_THAT(text, HasSubstr("vda"));
  EXPECT_THAT(text, HasSubstr(absl::StrCat(kPrivateAddress, "/24")));
  // Proto JSON writes an int64 as a string.
  const json count = inventory.value("cpu", json::object()).value("count", json());
  EXPECT_TRUE(count == kSnoCpus || count == std::to_string(kSnoCpus)) << inventory["cpu"].dump();
}

TEST_F(SnoInstallVmTest, VirtualMachineInstallsFromTheDiscoveryIsoAndBootsTheInstalledOs) {
  ASSERT_NO_FATAL_FAILURE(CreateSnoCluster(
      {{"additional_trust_bundle", servers_->registry_ca_pem()},
       {"static_network_config", json::array({PrivateNicStaticNetwork(kMac, kPrivateAddress)})}}));
  const int vm = AddSnoMachine("sno-0", kMac, kSerial);
  ASSERT_GE(vm, 0);

  // 1. Discovery: the machine boots the ISO, registers its hardware and becomes known.
  Progress("discovery: booting the discovery ISO");
  const absl::Time power_on = absl::Now();
  ASSERT_THAT(fleet().Boot(vm, {.cdrom = iso()}), IsOk());
  HostProgress progress;
  ASSERT_NO_FATAL_FAILURE(WaitUntilKnown(vm, power_on, kDiscoveryBudget, progress));
  ASSERT_NO_FATAL_FAILURE(ExpectTheMachinesHardware(progress.host));
  const std::string host_id = StringField(progress.host, "id");
  ASSERT_THAT(Rest().Call("PATCH", "/infra-envs/" + infra_env_id() + "/hosts/" + host_id,
                          json{{"host_name", kHostname}}),
              IsOk());
  std::vector<std::string> installer_args = {"--append-karg", kKarg};
  for (const std::string& arg : LabInstallerArgs()) installer_args.push_back(arg);
  ASSERT_THAT(Rest().Call("PATCH",
                          "/infra-envs/" + infra_env_id() + "/hosts/" + host_id + "/installer-args",
                          json{{"args", installer_args}}),
              IsOk());
  std::string stopped;
  const ::testing::AssertionResult cluster_ready = Eventually(
      [&]() -> Observed {
        stopped = Stopped(vm);
        if (!stopped.empty()) return {true, stopped};
        const auto [cluster_status, host] = Look();
        return {cluster_status == "ready",
                absl::StrCat("cluster ", cluster_status, ", host ", StringField(host, "status"),
                             ": ", StringField(host, "status_info"))};
      },
      kReadyBudget, "the cluster to be ready");
  ASSERT_TRUE(stopped.empty()) << stopped;
  ASSERT_TRUE(cluster_ready) << Where(vm);

  // 2. Installation: preparing (disk speed, registry), the install step writes the disk, the
  // agent reboots the machine.
  Progress("installation: starting");
  const absl::Time install_started = absl::Now();
  AictlOutcome install = Aictl({"clusters", "install", cluster_id()});
  ASSERT_EQ(install.code, 0) << install.out << install.err;
  absl::Duration installing = absl::InfiniteDuration();
  std::string last_stage, failed;
  const ::testing::AssertionResult powered_off = Eventually(
      [&]() -> Observed {
        if (!fleet().Running(vm)) return {true, "powered off"};
        const auto [cluster_status, host] = Look();
        failed = InstallationFailed(cluster_status, host);
        if (!failed.empty()) return {true, failed};
        if (installing == absl::InfiniteDuration() && cluster_status == "installing") {
          installing = absl::Now() - install_started;
          Progress("installation: cluster installing");
        }
        const json host_progress = host.value("progress", json::object());
        const std::string stage = StringField(host_progress, "current_stage");
        if (stage != last_stage) {
          Progress(absl::StrCat("installation: host ", StringField(host, "status"), ", stage ",
                                stage, " ", StringField(host_progress, "progress_info")));
          last_stage = stage;
        }
        return {false, absl::StrCat("cluster ", cluster_status, ", host ",
                                    StringField(host, "status"), ", stage ", stage)};
      },
      kInstallBudget, "the machine to write its disk and reboot");
  ASSERT_TRUE(failed.empty()) << failed << "\n" << Where(vm);
  ASSERT_TRUE(powered_off) << Where(vm);
  const absl::Duration rebooted = absl::Now() - install_started;
  Progress(absl::StrCat("installation: the machine rebooted; console: ",
                        BootTimeline(fleet().ConsoleTail(vm, 1 << 20))));
  {
    const auto [cluster_status, host] = Look();
    EXPECT_EQ(StringField(host.value("progress", json::object()), "current_stage"), "Rebooting")
        << host.dump();
  }
  auto written = agent::steps::ReadInstalledDisk(fleet().DiskPath(vm));
  ASSERT_THAT(written, IsOk());
  EXPECT_EQ(written->host_id, host_id);
  EXPECT_EQ(written->os_image_sha256, servers_->disk_sha256());
  // Next to the install record: what the reporter needs, from the agent that installed.
  process::LocalProcessRunner processes;
  auto boot = agent::steps::BootPartition::Find(fleet().DiskPath(vm), processes);
  ASSERT_THAT(boot, IsOk());
  auto settings_text = boot->ReadFile("assisted/reporter.json");
  ASSERT_THAT(settings_text, IsOk());
  auto settings = agent::steps::ParseReporterSettings(*settings_text);
  ASSERT_THAT(settings, IsOk());
  EXPECT_EQ(settings->access.orchestrator_address,
            absl::StrCat(kOrchestratorGuestAddress, ":", orchestrator().grpc_port()));
  EXPECT_FALSE(settings->access.controller_token.empty());
  EXPECT_EQ(settings->host_id, host_id);
  EXPECT_TRUE(settings->sno);
  EXPECT_TRUE(settings->bootstrap);

  // 3. The installed OS's first boot: Ignition, then the reporter; the cluster is installed.
  Progress("first boot of the installed OS");
  const absl::Time first_boot = absl::Now();
  ASSERT_THAT(fleet().Boot(vm, {}), IsOk());
  const ::testing::AssertionResult cluster_installed = Eventually(
      [&]() -> Observed {
        stopped = Stopped(vm);
        if (!stopped.empty()) return {true, stopped};
        const auto [cluster_status, host] = Look();
        if (cluster_status == "error" || StringField(host, "status") == "error") {
          stopped = absl::StrCat("cluster ", cluster_status, ", host ", StringField(host, "status"),
                                 ": ", StringField(host, "status_info"));
          return {true, stopped};
        }
        return {cluster_status == "installed",
                absl::StrCat("cluster ", cluster_status, ", host ", StringField(host, "status"),
                             ", stage ",
                             StringField(host.value("progress", json::object()), "current_stage"))};
      },
      kFirstBootBudget, "the cluster to be installed");
  ASSERT_TRUE(stopped.empty()) << stopped << "\n" << Where(vm);
  ASSERT_TRUE(cluster_installed) << Where(vm);
  const absl::Duration installed = absl::Now() - first_boot;
  Progress("first boot: cluster installed");
  // Its settings (and token) are gone once it said so, durably (it syncs first).
  ASSERT_THAT(fleet().WaitForConsole(vm, "settings removed", kReporterBudget), IsOk()) << Where(vm);
  const absl::Duration reported = absl::Now() - first_boot;
  EXPECT_THAT(fleet().ConsoleTail(vm, 1 << 20), HasSubstr("no Machine Config Server"));
  Progress(absl::StrCat("first boot: reporter done; console: ",
                        BootTimeline(fleet().ConsoleTail(vm, 1 << 20))));
  fleet().PowerOff(vm);

  // 4. Another boot: an ordinary one with the Ignition's file, and nothing left to report.
  Progress("third boot");
  const absl::Time third_boot = absl::Now();
  ASSERT_THAT(fleet().Boot(vm, {}), IsOk());
  ASSERT_THAT(fleet().WaitForConsole(vm, absl::StrCat(kHostname, " login:"), kLastBootBudget),
              IsOk())
      << Where(vm);
  const absl::Duration login = absl::Now() - third_boot;
  const std::string console = fleet().ConsoleTail(vm, 1 << 20);
  Progress(absl::StrCat("third boot: login prompt; console: ", BootTimeline(console)));
  EXPECT_THAT(console, Not(HasSubstr("Ignition (files)")));
  EXPECT_THAT(KernelCommandLine(console), HasSubstr(kKarg)) << Where(vm);
  EXPECT_THAT(console, Not(HasSubstr("reporter: reporting")));
  fleet().PowerOff(vm);
  auto after = agent::steps::ReadInstalledDisk(fleet().DiskPath(vm));
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->host_id, host_id);
  EXPECT_THAT(boot->ReadFile("assisted/reporter.json"), StatusIs(absl::StatusCode::kNotFound));

  std::cout << "timings: power-on -> registered " << Seconds(progress.registered)
            << " s, -> inventory " << Seconds(progress.inventoried) << " s, -> known "
            << Seconds(progress.validated) << " s; install -> installing " << Seconds(installing)
            << " s, -> disk written and rebooted " << Seconds(rebooted)
            << " s; installed OS power-on -> cluster installed " << Seconds(installed)
            << " s, -> reporter done " << Seconds(reported) << " s; next boot -> login prompt "
            << Seconds(login) << " s; consoles in " << fleet().ConsolePath(vm)
            << " (boot1, boot2 before it)\n";
  RecordProperty("power_on_to_registered_seconds", static_cast<int>(Seconds(progress.registered)));
  RecordProperty("power_on_to_known_seconds", static_cast<int>(Seconds(progress.validated)));
  RecordProperty("install_to_rebooted_seconds", static_cast<int>(Seconds(rebooted)));
  RecordProperty("first_boot_to_installed_seconds", static_cast<int>(Seconds(installed)));
}

}  // namespace
}  // namespace assisted::testing
