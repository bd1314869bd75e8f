// The install step's disk boots: the agent's install step (services/agent/steps/install.h) writes
// ./dev os-images' OS disk image onto a QEMU machine's virtual disk, with a host Ignition and an
// --append-karg, exactly as on a real host; the machine then boots from that disk alone and its
// first boot applies the Ignition from the boot partition (the file it names appears, the unit it
// enables runs and prints to the serial console) with the appended kernel argument; the boot
// after it is an ordinary one (no Ignition run) that still has the Ignition's file and unit.
//
// Needs ASSISTED_TEST_OS_IMAGES (the folder ./dev os-images prints; ./dev test passes it when
// built).
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "lib/time/clock.h"
#include "nlohmann/json.hpp"
#include "services/agent/steps/install.h"
#include "services/agent/steps/simulation.h"
#include "tests/vm/vm_fleet.h"

namespace assisted::testing {
namespace {

using agent::steps::InstallStep;
using agent::steps::StepContext;
using nlohmann::json;

constexpr char kProof[] = "assisted-installed-disk-first-boot-ok";
constexpr char kKarg[] = "assisted.test.karg=1";

// A host Ignition (spec 3.2, as the orchestrator renders it) whose effects show on the console.
std::string HostIgnition() {
  // Prints the proof on every boot; on the first boot (ignition.firstboot on the command line)
  // it then reboots, after the first-boot stamp was removed.
  const std::string unit = absl::StrCat(
      "[Unit]\nDescription=Proof of the first boot's Ignition\n"
      "After=assisted-firstboot-complete.service\n"
      "[Service]\nType=oneshot\nStandardOutput=tty\nTTYPath=/dev/ttyS0\n"
      "ExecStart=/bin/sh -c 'echo ",
      kProof,
      " $(cat /etc/assisted-proof) $(cat /proc/cmdline)'\n"
      "ExecStartPost=/bin/sh -c 'if grep -qw ignition.firstboot /proc/cmdline; then systemctl "
      "--no-block reboot; fi'\n"
      "[Install]\nWantedBy=multi-user.target\n");
  return json{
      {"ignition", {{"version", "3.2.0"}}},
      {"storage",
       {{"files",
         {{{"path", "/etc/assisted-proof"},
           {"mode", 420},
           {"contents", {{"source", "data:,written-by-ignition"}}}}}}}},
      {"systemd",
       {{"units", {{{"name", "assisted-proof.service"}, {"enabled", true}, {"contents", unit}}}}}}}
      .dump();
}

class DiscardSink final : public agent::steps::LogChunkSink {
 public:
  absl::Status Send(const agent::v1::LogChunk&) override { return absl::OkStatus(); }
};

TEST(InstalledDiskVmTest, InstallStepDiskBootsAndAppliesTheIgnitionFromTheBootPartition) {
  const char* images = std::getenv("ASSISTED_TEST_OS_IMAGES");
  if (images == nullptr || *images == '\0') {
    GTEST_SKIP() << "ASSISTED_TEST_OS_IMAGES is not set: build the images with ./dev os-images";
  }
  const std::string disk_image = absl::StrCat(images, "/disk.raw");
  ASSERT_TRUE(std::filesystem::exists(disk_image)) << disk_image << " is missing";
  auto fleet = VmFleet::Create({.dir = ::testing::TempDir() + "/vms"});
  ASSERT_THAT(fleet, IsOk());
  auto vm = (*fleet)->Add({.name = "installed-0",
                           .mac = "52:54:00:a5:01:01",
                           .serial = "ASSISTED-VM-0101",
                           .disk_bytes = uint64_t{4} << 30});
  ASSERT_THAT(vm, IsOk());

  // The install step, as the agent runs it; /dev/vda is the machine's disk file.
  const absl::Time started = absl::Now();
  agent::steps::SimulationHooks hooks;
  hooks.disk_image = [&](const std::string& device) {
    return device == "/dev/vda" ? (*fleet)->DiskPath(*vm) : std::string();
  };
  process::LocalProcessRunner processes;
  RealClock clock;
  agent::steps::Cancellation cancellation;
  DiscardSink sink;
  StepContext context{processes,
                      clock,
                      cancellation,
                      sink,
                      &hooks,
                      log::Logger::Discard(),
                      absl::Now() + absl::Minutes(10)};
  const json request = {{"cluster_id", "11111111-1111-1111-1111-111111111111"},
                        {"host_id", "22222222-2222-2222-2222-222222222222"},
                        {"role", "master"},
                        {"boot_device", "/dev/vda"},
                        {"installer_args", {"--append-karg", kKarg}},
                        {"os_image", {{"url", "file://" + disk_image}}},
                        {"ignition", HostIgnition()},
                        {"high_availability_mode", "None"}};
  agent::steps::Step step;
  step.set_step_id("install-1");
  step.set_step_type(types::v1::STEP_TYPE_INSTALL);
  step.add_args(request.dump());
  InstallStep install({});
  const agent::steps::StepResult result = install.Run(step, context);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  const absl::Duration written = absl::Now() - started;

  // First boot from the disk alone.
  ASSERT_THAT((*fleet)->Boot(*vm, {}), IsOk());
  const absl::Time power_on = absl::Now();
  ASSERT_THAT(
      (*fleet)->WaitForConsole(*vm, absl::StrCat(kProof, " written-by-ignition"), absl::Minutes(8)),
      IsOk());
  const std::string console = (*fleet)->ConsoleTail(*vm, 1 << 20);
  EXPECT_THAT(console, ::testing::HasSubstr(kKarg));
  const absl::Duration first_boot = absl::Now() - power_on;

  // The machine reboots (QEMU powers off: -no-reboot); the next boot is an ordinary one: no
  // ignition.firstboot, the Ignition's file and unit still there.
  ASSERT_THAT((*fleet)->WaitForPowerOff(*vm, absl::Minutes(3)), IsOk());
  ASSERT_THAT((*fleet)->Boot(*vm, {}), IsOk());
  const absl::Time second_power_on = absl::Now();
  ASSERT_THAT(
      (*fleet)->WaitForConsole(*vm, absl::StrCat(kProof, " written-by-ignition"), absl::Minutes(8)),
      IsOk());
  const std::string second = (*fleet)->ConsoleTail(*vm, 1 << 20);
  const size_t proof = second.find(kProof);
  const std::string proof_line = second.substr(proof, second.find('\n', proof) - proof);
  EXPECT_THAT(proof_line, ::testing::HasSubstr(kKarg));
  EXPECT_THAT(proof_line, ::testing::Not(::testing::HasSubstr("ignition.firstboot")));
  EXPECT_THAT(second, ::testing::Not(::testing::HasSubstr("Ignition (files)")));
  std::cout << "timings: install step " << absl::ToDoubleSeconds(written)
            << " s, power-on -> Ignition applied " << absl::ToDoubleSeconds(first_boot)
            << " s, second boot " << absl::ToDoubleSeconds(absl::Now() - second_power_on)
            << " s; consoles: " << (*fleet)->ConsolePath(*vm) << " (and boot1)\n";
}

}  // namespace
}  // namespace assisted::testing
