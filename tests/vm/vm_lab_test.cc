// The lab's pure parts, without a machine: the requirements it judges emulated machines by, the
// addresses it gives them, a host's milestones and the failure states its loops stop at.
#include "tests/vm/vm_lab.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "tests/vm/vm_fleet.h"

namespace assisted::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(LabHwRequirements, RelaxesEveryRoleToTheEmulatedMachinesAndTheirNetwork) {
  absl::StatusOr<std::string> text = LabHwRequirements();
  ASSERT_THAT(text, IsOk());
  const json requirements = json::parse(*text);
  const json& roles = requirements["default"]["roles"];
  ASSERT_TRUE(roles.contains("master"));
  for (const auto& [role, needs] : roles.items()) {
    EXPECT_EQ(needs["cpu_cores"], kSnoCpus) << role;
    EXPECT_EQ(needs["ram_mib"], kLabRamMib) << role;
    EXPECT_EQ(needs["installation_disk_speed_threshold_ms"], kLabDiskSyncMs) << role;
  }
  // Roles judged on the network between hosts get the lab's network; the others none.
  EXPECT_EQ(roles["master"]["network_latency_threshold_ms"], kLabNetworkLatencyMs);
  EXPECT_EQ(roles["master"]["packet_loss_percentage"], kLabPacketLossPercent);
  EXPECT_EQ(roles["worker"]["network_latency_threshold_ms"], kLabNetworkLatencyMs);
  EXPECT_FALSE(roles["sno"].contains("network_latency_threshold_ms"));
  EXPECT_THAT(requirements["overrides"], IsEmpty());
}

TEST(LabAddresses, EveryMachineHasItsOwnUplinkAndPrivateAddressAndTheVipsAreNone) {
  EXPECT_EQ(VmFleet::UplinkAddress(0), "10.0.2.15");
  EXPECT_EQ(VmFleet::UplinkAddress(2), "10.0.2.17");
  // The forwards' addresses (10.0.2.100-102) stay out of the uplinks' range.
  EXPECT_LT(15 + VmFleet::kMaxMachines, 100);
  EXPECT_EQ(LabPrivateAddress(0), "192.168.127.10");
  EXPECT_EQ(LabPrivateAddress(2), "192.168.127.12");
  for (int machine = 0; machine < 3; ++machine) {
    EXPECT_NE(LabPrivateAddress(machine), kLabApiVip);
    EXPECT_NE(LabPrivateAddress(machine), kLabIngressVip);
  }
}

TEST(LabInstallerArgs, AppendEveryLabKernelArgumentToTheInstalledOs) {
  EXPECT_EQ(LabInstallerArgs(),
            (std::vector<std::string>{"--append-karg", "no_timer_check", "--append-karg",
                                      "systemd.default_timeout_start_sec=600"}));
}

TEST(HostProgress, NotesEachMilestoneOnceAndInstalledLast) {
  HostProgress progress;
  EXPECT_EQ(progress.Note({{"id", "h"}, {"status", "discovering"}}, absl::Seconds(10)),
            std::vector<std::string>{"registered"});
  EXPECT_THAT(progress.Note({{"id", "h"}, {"status", "discovering"}}, absl::Seconds(11)),
              IsEmpty());
  EXPECT_EQ(progress.Note({{"id", "h"}, {"status", "installed"}}, absl::Seconds(300)),
            std::vector<std::string>{"installed"});
  EXPECT_EQ(progress.registered, absl::Seconds(10));
  EXPECT_EQ(progress.installed, absl::Seconds(300));
}

TEST(InstallationFailed, NamesErrorStatesAndFailedPreparationOnly) {
  EXPECT_EQ(InstallationFailed("installing", {{"status", "installing-in-progress"}}), "");
  EXPECT_THAT(InstallationFailed("error", {{"status", "installing"}}), HasSubstr("cluster error"));
  EXPECT_THAT(InstallationFailed(
                  "ready", {{"status", "known"}, {"status_info", "Host failed to prepare: disk"}}),
              HasSubstr("failed to prepare"));
}

}  // namespace
}  // namespace assisted::testing
