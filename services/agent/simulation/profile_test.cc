#include "services/agent/simulation/profile.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/simulation/profile_paths.h"

namespace assisted::agent::simulation {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

net::IpAddress Ip(absl::string_view text) { return *net::IpAddress::Parse(text); }

struct Loaded {
  Profile profile;
  types::v1::Inventory tree;
};

Loaded Load(absl::string_view name) {
  absl::StatusOr<Profile> profile = LoadProfile(testing::ProfilePath(name));
  EXPECT_THAT(profile, IsOk());
  absl::StatusOr<types::v1::Inventory> tree = CollectTreeInventory(*profile);
  EXPECT_THAT(tree, IsOk());
  return {*profile, *tree};
}

TEST(Profile, ShippedProfilesLoad) {
  for (const char* name : {"master", "worker", "small", "fleet"}) {
    Loaded loaded = Load(name);
    EXPECT_EQ(loaded.profile.name, name);
    EXPECT_FALSE(loaded.tree.interfaces().empty()) << name;
    EXPECT_FALSE(loaded.tree.disks().empty()) << name;
  }
}

TEST(Profile, HostsOfOneProfileAreDistinctAndOnOneSubnet) {
  Loaded loaded = Load("master");
  auto first = SimulatedHost::Create(loaded.profile, loaded.tree, {.index = 0}, "/tmp/a.img");
  auto second = SimulatedHost::Create(loaded.profile, loaded.tree, {.index = 3}, "/tmp/b.img");
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  EXPECT_NE(first->host_id(), second->host_id());
  EXPECT_EQ(first->inventory().hostname(), "master-0");
  EXPECT_EQ(second->inventory().hostname(), "master-3");
  EXPECT_EQ(second->inventory().cpu().count(), 8);
  EXPECT_EQ(second->inventory().memory().usable_bytes(), int64_t{32} << 30);
  const types::v1::Interface& nic = second->inventory().interfaces(0);
  EXPECT_EQ(nic.name(), "enp1s0");
  EXPECT_THAT(nic.ipv4_addresses(), ElementsAre("192.168.122.13/24"));
  EXPECT_TRUE(nic.ipv6_addresses().empty());
  EXPECT_EQ(nic.mac_address(), "02:00:c0:a8:7a:0d");
  EXPECT_EQ(first->inventory().interfaces(0).mac_address(), "02:00:c0:a8:7a:0a");
  // The same index and seed give the same id (a restarted fleet is the same hosts).
  auto again = SimulatedHost::Create(loaded.profile, loaded.tree, {.index = 3}, "/tmp/b.img");
  EXPECT_EQ(again->host_id(), second->host_id());
  auto other_fleet =
      SimulatedHost::Create(loaded.profile, loaded.tree, {.index = 3, .seed = "x"}, "/tmp/b.img");
  EXPECT_NE(other_fleet->host_id(), second->host_id());
}

TEST(Profile, HooksAnswerForTheSubnetAndDeriveNeighbourMacs) {
  Loaded loaded = Load("master");
  auto host = SimulatedHost::Create(loaded.profile, loaded.tree, {.index = 1}, "/tmp/disk.img");
  ASSERT_THAT(host, IsOk());
  const steps::SimulationHooks& hooks = host->hooks();
  EXPECT_TRUE(hooks.probe(Ip("192.168.122.101")).has_value());
  EXPECT_FALSE(hooks.probe(Ip("10.1.2.3")).has_value());
  // What another simulated host at .101 calls its MAC.
  EXPECT_EQ(hooks.neighbour_mac(Ip("192.168.122.101")),
            std::optional<std::string>("02:00:c0:a8:7a:65"));
  EXPECT_FALSE(hooks.neighbour_mac(Ip("10.1.2.3")).has_value());
  EXPECT_THAT(hooks.resolve("api.demo.example.com").ipv4, ElementsAre("192.168.122.5"));
  EXPECT_TRUE(hooks.resolve("nothing.example.org").ipv4.empty());
  std::vector<steps::NtpSourceState> ntp = hooks.ntp({"pool.ntp.org"});
  ASSERT_EQ(ntp.size(), 2u);
  EXPECT_EQ(ntp[0].state, "synced");
  EXPECT_EQ(hooks.registry("quay.io/x:1").http_status, 200);
  EXPECT_EQ(hooks.disk_image("/dev/vda"), "/tmp/disk.img");
  EXPECT_EQ(hooks.disk_image("vda"), "");
}

TEST(Profile, ScriptedDiskLatencyReachesTheHooks) {
  auto parsed = ParseProfile(R"({"name": "a", "hardware_root": "x", "disk_sync_ms": 2.5})", "/");
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(parsed->disk_sync_latency, absl::Microseconds(2500));
  Loaded loaded = Load("master");
  auto host = SimulatedHost::Create(loaded.profile, loaded.tree, {.index = 0}, "disk.img");
  ASSERT_THAT(host, IsOk());
  ASSERT_TRUE(host->hooks().disk_sync_latency);
  EXPECT_EQ(host->hooks().disk_sync_latency(), absl::Milliseconds(2));
}

TEST(Profile, SmallProfileIsSmall) {
  Loaded loaded = Load("small");
  auto host = SimulatedHost::Create(loaded.profile, loaded.tree, {}, "/tmp/disk.img");
  ASSERT_THAT(host, IsOk());
  EXPECT_EQ(host->inventory().cpu().count(), 1);
  EXPECT_EQ(host->inventory().memory().physical_bytes(), int64_t{2} << 30);
}

TEST(Profile, OffsetsStayInsideTheSubnet) {
  EXPECT_THAT(OffsetAddress("10.0.0.10/24", 5), IsOkAndHolds(std::string("10.0.0.15/24")));
  EXPECT_THAT(OffsetAddress("10.0.0.250/24", 5), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(OffsetAddress("10.0.0.10/16", 300), IsOkAndHolds(std::string("10.0.1.54/16")));
  EXPECT_THAT(OffsetAddress("nonsense", 1), StatusIs(absl::StatusCode::kInvalidArgument));
  Loaded loaded = Load("small");
  EXPECT_THAT(SimulatedHost::Create(loaded.profile, loaded.tree, {.index = 60}, "x").status(),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("larger subnet")));
}

TEST(Profile, BadProfilesNameTheField) {
  EXPECT_THAT(ParseProfile("[]", "/"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseProfile(R"({"hardware_root": "x"})", "/"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("name")));
  EXPECT_THAT(ParseProfile(R"({"name": "a", "hardware_root": "x", "cpus": 3})", "/"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"cpus\"")));
  EXPECT_THAT(ParseProfile(R"({"name": "a", "hardware_root": "x", "cpu_count": -3})", "/"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cpu_count")));
  EXPECT_THAT(ParseProfile(R"({"name": "a", "hardware_root": "x", "ipv4": {"e": "1.2.3"}})", "/"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ipv4.e")));
  EXPECT_THAT(
      ParseProfile(R"({"name": "a", "hardware_root": "x", "ntp": [{"name": "n", "state": "?"}]})",
                   "/"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ntp state")));
  EXPECT_THAT(ParseProfile(R"({"name": "a", "hardware_root": "x", "disk_sync_ms": -1})", "/"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("disk_sync_ms")));
  auto relative = ParseProfile(R"({"name": "a", "hardware_root": "../t"})", "/p/q");
  ASSERT_THAT(relative, IsOk());
  EXPECT_EQ(relative->hardware_root, "/p/t");
  EXPECT_THAT(LoadProfile("/nonexistent.json"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cannot read")));
}

}  // namespace
}  // namespace assisted::agent::simulation
