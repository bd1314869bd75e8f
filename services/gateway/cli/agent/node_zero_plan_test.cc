#include "services/gateway/cli/agent/node_zero_plan.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace assisted::cli::agent {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const json kDisks = json::array({
    {{"id", "/dev/disk/by-id/wwn-a"},
     {"path", "/dev/sda"},
     {"by_path", "/dev/disk/by-path/pci-0:0"},
     {"hctl", "0:0:0:0"},
     {"serial", "S-A"},
     {"wwn", "0x5000a"},
     {"model", "SAMSUNG MZ7LH"},
     {"vendor", "ATA"},
     {"size_bytes", int64_t{480} * 1000 * 1000 * 1000},
     {"drive_type", "SSD"}},
    {{"id", "/dev/disk/by-id/wwn-b"},
     {"path", "/dev/sdb"},
     {"hctl", "1:0:0:0"},
     {"serial", "S-B"},
     {"wwn", "0x5000b"},
     {"model", "ST4000NM"},
     {"vendor", "SEAGATE"},
     {"size_bytes", int64_t{4000} * 1000 * 1000 * 1000},
     {"drive_type", "HDD"}},
    {{"id", "/dev/disk/by-id/usb"},
     {"path", "/dev/sdc"},
     {"model", "SAMSUNG USB"},
     {"size_bytes", int64_t{64} * 1000 * 1000 * 1000},
     {"drive_type", "SSD"},
     {"installation_eligibility", {{"eligible", false}}}},
});

json Definition() {
  return {{"expected_hosts", 2},
          {"hosts",
           {{{"macs", {"52:54:00:e7:05:72"}},
             {"hostname", "vm1"},
             {"role", "master"},
             {"root_device_hints", {{"device_name", "/dev/sdb"}}}},
            {{"macs", {"52:54:00:95:fd:f3"}}, {"hostname", "vm2"}}}}};
}

json Host(const std::string& id, const std::string& mac, const std::string& status) {
  const json inventory = {{"interfaces", {{{"name", "enp2s0"}, {"mac_address", mac}}}},
                          {"disks", kDisks}};
  return {{"id", id},
          {"infra_env_id", "ie"},
          {"status", status},
          {"role", "auto-assign"},
          {"inventory", inventory.dump()}};
}

// The hosts of Definition() with everything applied.
json AppliedHosts(const std::string& status) {
  json vm1 = Host("h1", "52:54:00:E7:05:72", status);
  vm1["requested_hostname"] = "vm1";
  vm1["role"] = "master";
  vm1["installation_disk_id"] = "/dev/disk/by-id/wwn-b";
  json vm2 = Host("h2", "52:54:00:95:fd:f3", status);
  vm2["requested_hostname"] = "vm2";
  return json::array({vm1, vm2});
}

TEST(NodeZeroPlan, GivesTheHostWithADefinedMacItsNameRoleAndHintedDisk) {
  const NodeZeroPlan plan = PlanNodeZero(Definition(), {{"status", "insufficient"}},
                                         json::array({Host("h1", "52:54:00:E7:05:72", "known")}));
  ASSERT_EQ(plan.host_updates.size(), 1u);
  EXPECT_EQ(plan.host_updates[0].infra_env_id, "ie");
  EXPECT_EQ(plan.host_updates[0].host_id, "h1");
  EXPECT_EQ(
      plan.host_updates[0].patch,
      json({{"host_name", "vm1"},
            {"host_role", "master"},
            {"disks_selected_config", {{{"id", "/dev/disk/by-id/wwn-b"}, {"role", "install"}}}}}));
  EXPECT_FALSE(plan.start_install);
  EXPECT_EQ(plan.waiting_for, "host names, roles and disks being applied");
}

TEST(NodeZeroPlan, ChangesNothingOnceApplied) {
  const NodeZeroPlan plan = PlanNodeZero(
      Definition(), {{"status", "insufficient"}, {"status_info", "x"}}, AppliedHosts("known"));
  EXPECT_TRUE(plan.host_updates.empty());
  EXPECT_EQ(plan.waiting_for, "the cluster is insufficient: x");
}

TEST(NodeZeroPlan, StartsTheInstallWhenReadyWithTheExpectedHostsKnown) {
  const NodeZeroPlan plan =
      PlanNodeZero(Definition(), {{"status", "ready"}}, AppliedHosts("known"));
  EXPECT_TRUE(plan.start_install);
  EXPECT_EQ(plan.waiting_for, "");
}

TEST(NodeZeroPlan, WaitsForTheExpectedNumberOfHosts) {
  json hosts = AppliedHosts("known");
  hosts[1]["status"] = "discovering";
  const NodeZeroPlan plan = PlanNodeZero(Definition(), {{"status", "ready"}}, hosts);
  EXPECT_FALSE(plan.start_install);
  EXPECT_EQ(plan.waiting_for, "1 of 2 hosts are known");
}

TEST(NodeZeroPlan, LeavesAnInstallationInProgressAlone) {
  for (const char* status : {"preparing-for-installation", "installing", "finalizing", "installed",
                             "error", "cancelled"}) {
    const NodeZeroPlan plan = PlanNodeZero(Definition(), {{"status", status}},
                                           json::array({Host("h1", "52:54:00:e7:05:72", "known")}));
    EXPECT_TRUE(plan.host_updates.empty()) << status;
    EXPECT_FALSE(plan.start_install) << status;
    EXPECT_EQ(plan.waiting_for, "") << status;
  }
}

TEST(NodeZeroPlan, LeavesHostsOfOtherMacsAndMalformedHostsAlone) {
  json garbled = Host("h3", "52:54:00:e7:05:72", "known");
  garbled["inventory"] = "{not json";
  json no_inventory = {{"id", "h4"}, {"status", "known"}};
  const NodeZeroPlan plan = PlanNodeZero(Definition(), {{"status", "insufficient"}},
                                         json::array({Host("h9", "aa:bb:cc:dd:ee:ff", "known"),
                                                      garbled, no_inventory, json("not a host")}));
  EXPECT_TRUE(plan.host_updates.empty());
}

TEST(NodeZeroPlan, HoldsTheInstallWhenNoDiskMatchesTheHints) {
  json definition = Definition();
  definition["hosts"][0]["root_device_hints"] = {{"device_name", "/dev/nvme0n1"}};
  json hosts = AppliedHosts("known");
  const NodeZeroPlan plan = PlanNodeZero(definition, {{"status", "ready"}}, hosts);
  EXPECT_FALSE(plan.start_install);
  EXPECT_EQ(plan.waiting_for, "no disk of host vm1 matches its rootDeviceHints");
}

TEST(DiskMatchingHints, FollowsMetal3Rules) {
  const struct {
    json hints;
    std::optional<std::string> disk;
  } kCases[] = {
      {json::object(), "/dev/disk/by-id/wwn-a"},  // smallest eligible (the USB stick is not)
      {{{"device_name", "/dev/sdb"}}, "/dev/disk/by-id/wwn-b"},
      {{{"device_name", "/dev/disk/by-path/pci-0:0"}}, "/dev/disk/by-id/wwn-a"},
      {{{"hctl", "1:0:0:0"}}, "/dev/disk/by-id/wwn-b"},
      {{{"serial_number", "S-B"}}, "/dev/disk/by-id/wwn-b"},
      {{{"wwn", "0x5000a"}}, "/dev/disk/by-id/wwn-a"},
      {{{"model", "ST4000"}}, "/dev/disk/by-id/wwn-b"},
      {{{"vendor", "SEAG"}}, "/dev/disk/by-id/wwn-b"},
      {{{"min_size_gigabytes", 500}}, "/dev/disk/by-id/wwn-b"},
      {{{"rotational", true}}, "/dev/disk/by-id/wwn-b"},
      {{{"rotational", false}}, "/dev/disk/by-id/wwn-a"},
      {{{"model", "SAMSUNG"}, {"min_size_gigabytes", 100}}, "/dev/disk/by-id/wwn-a"},
      {{{"model", "SAMSUNG USB"}}, std::nullopt},  // only the ineligible disk
      {{{"min_size_gigabytes", 5000}}, std::nullopt},
      {{{"device_name", "/dev/sda"}, {"rotational", true}}, std::nullopt},
  };
  for (const auto& test : kCases) {
    EXPECT_EQ(DiskMatchingHints(test.hints, kDisks), test.disk) << test.hints.dump();
  }
  EXPECT_EQ(DiskMatchingHints(json::object(), json("no disks")), std::nullopt);
}

}  // namespace
}  // namespace assisted::cli::agent
