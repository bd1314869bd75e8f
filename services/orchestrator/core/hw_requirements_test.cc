#include "services/orchestrator/core/hw_requirements.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"

namespace assisted::orchestrator::core {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using types::v1::DRIVE_TYPE_FC;
using types::v1::DRIVE_TYPE_ISCSI;
using types::v1::DRIVE_TYPE_RAID;
using types::v1::DRIVE_TYPE_SSD;

HwRequirements For(absl::string_view version) {
  absl::StatusOr<HwRequirements> r = DefaultHwRequirements().ForVersion(version);
  EXPECT_THAT(r, IsOk());
  return *r;
}

TEST(HwRequirements, EmbeddedFileMatchesTheReferenceTable) {
  HwRequirements r = For("4.16");
  const RoleRequirements& master = r.Role(RequirementRole::kMaster);
  EXPECT_EQ(master.cpu_cores, 4);
  EXPECT_EQ(master.ram_mib, 16384);
  EXPECT_EQ(master.disk_size_gb, 100);
  EXPECT_EQ(master.installation_disk_speed_threshold_ms, 10);
  EXPECT_EQ(master.network_latency_threshold_ms, 100);
  EXPECT_EQ(master.packet_loss_percentage, 0);
  EXPECT_EQ(r.Role(RequirementRole::kArbiter).disk_size_gb, 50);
  EXPECT_EQ(r.Role(RequirementRole::kWorker).packet_loss_percentage, 10);
  EXPECT_EQ(r.Role(RequirementRole::kSno).cpu_cores, 8);
  EXPECT_FALSE(r.Role(RequirementRole::kSno).network_latency_threshold_ms.has_value());
  EXPECT_EQ(r.Role(RequirementRole::kEdgeWorker).disk_size_gb, 15);
  EXPECT_EQ(r.limits.memory_tolerance_mib, 100);
  EXPECT_EQ(r.limits.service_ahead_of_host_max, absl::Minutes(20));
  EXPECT_EQ(r.limits.majority_group_min_hosts, 3);
}

TEST(HwRequirements, OverridesApplyFromTheirVersionOn) {
  EXPECT_EQ(For("4.21.9").Role(RequirementRole::kSno).cpu_cores, 8);
  EXPECT_EQ(For("4.22.0").Role(RequirementRole::kSno).cpu_cores, 4);
  EXPECT_EQ(For("4.22.0").Role(RequirementRole::kSno).ram_mib, 16384);  // inherited
}

TEST(HwRequirements, DriveTypesDependOnVersionAndArchitecture) {
  version::OcpVersion v413 = *version::OcpVersion::Parse("4.13");
  version::OcpVersion v415 = *version::OcpVersion::Parse("4.15");
  HwRequirements r = For("4.15");
  EXPECT_TRUE(r.DriveTypeAllowed(DRIVE_TYPE_SSD, v413, "x86_64"));
  EXPECT_FALSE(r.DriveTypeAllowed(DRIVE_TYPE_RAID, v413, "x86_64"));
  EXPECT_TRUE(r.DriveTypeAllowed(DRIVE_TYPE_RAID, v415, "x86_64"));
  EXPECT_TRUE(r.DriveTypeAllowed(DRIVE_TYPE_ISCSI, v415, "aarch64"));
  EXPECT_FALSE(r.DriveTypeAllowed(DRIVE_TYPE_FC, v415, "aarch64"));
  EXPECT_TRUE(r.DriveTypeAllowed(DRIVE_TYPE_FC, v415, "x86_64"));
  EXPECT_THAT(r.AllowedDriveTypeNames(v413, "x86_64"),
              ElementsAre("HDD", "SSD", "Multipath", "FC"));
}

TEST(HwRequirements, ExactVersionAndMaxVersionOverrides) {
  absl::StatusOr<HwRequirementsCatalog> c = HwRequirementsCatalog::Parse(R"({
    "schema_version": 1,
    "default": {
      "roles": {
        "master": {"cpu_cores": 4, "ram_mib": 1, "disk_size_gb": 1, "installation_disk_speed_threshold_ms": 1},
        "arbiter": {"cpu_cores": 2, "ram_mib": 1, "disk_size_gb": 1, "installation_disk_speed_threshold_ms": 1},
        "worker": {"cpu_cores": 2, "ram_mib": 1, "disk_size_gb": 1, "installation_disk_speed_threshold_ms": 1},
        "sno": {"cpu_cores": 8, "ram_mib": 1, "disk_size_gb": 1, "installation_disk_speed_threshold_ms": 1},
        "edge-worker": {"cpu_cores": 2, "ram_mib": 1, "disk_size_gb": 1, "installation_disk_speed_threshold_ms": 1}
      },
      "installation_drive_types": [{"type": "SSD"}],
      "limits": {"memory_tolerance_mib": 100, "meminfo_tolerance_percent": 2,
                 "service_ahead_of_host_max_minutes": 20, "host_ahead_of_service_max_minutes": 60,
                 "cluster_clock_skew_max_minutes": 4, "min_image_download_rate_mbps": 0.001,
                 "majority_group_min_hosts": 3, "max_host_prefix_ipv4": 30, "max_host_prefix_ipv6": 128}
    },
    "overrides": [
      {"version": "4.14", "roles": {"master": {"cpu_cores": 6}}},
      {"max_version": "4.12", "roles": {"master": {"cpu_cores": 3}}}
    ]
  })");
  ASSERT_THAT(c, IsOk());
  EXPECT_EQ(c->ForVersion("4.14.7")->Role(RequirementRole::kMaster).cpu_cores, 6);
  EXPECT_EQ(c->ForVersion("4.15")->Role(RequirementRole::kMaster).cpu_cores, 4);
  EXPECT_EQ(c->ForVersion("4.11.3")->Role(RequirementRole::kMaster).cpu_cores, 3);
  EXPECT_EQ(c->ForVersion("4.12")->Role(RequirementRole::kMaster).cpu_cores, 4);
  EXPECT_THAT(c->ForVersion("latest"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(HwRequirements, MalformedDocumentsNameTheProblem) {
  EXPECT_THAT(HwRequirementsCatalog::Parse("{"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a JSON object")));
  EXPECT_THAT(HwRequirementsCatalog::Parse(R"({"schema_version": 2})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("2 is not supported")));
  EXPECT_THAT(HwRequirementsCatalog::Parse(R"({"schema_version": 1, "default": {"roles": {}}})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("default.roles: \"master\" is missing")));
}

constexpr char kFile[] = "services/orchestrator/core/data/hw_requirements.json";

TEST(HwRequirements, LoadsADeploymentFileByPath) {
  absl::StatusOr<HwRequirementsCatalog> c = LoadHwRequirements(kFile);
  ASSERT_THAT(c, IsOk());
  EXPECT_EQ(c->schema_version(), 1);
  EXPECT_THAT(LoadHwRequirements("/nonexistent.json"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("/nonexistent.json")));
}

TEST(HwRequirements, ABrokenOverrideIsRejectedEvenIfNoVersionSelectsIt) {
  absl::StatusOr<std::string> text = ReadFile(kFile, "test");
  ASSERT_THAT(text, IsOk());
  nlohmann::json doc = nlohmann::json::parse(*text, nullptr, false);
  doc["overrides"].push_back(
      {{"version", "9.99"}, {"roles", {{"worker", {{"cpu_cores", "many"}}}}}});
  EXPECT_THAT(HwRequirementsCatalog::Parse(doc.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("overrides[1].roles.worker: \"cpu_cores\" must be a number")));
  doc["overrides"][1] = {{"roles", {}}};
  EXPECT_THAT(HwRequirementsCatalog::Parse(doc.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs \"version\"")));
}

}  // namespace
}  // namespace assisted::orchestrator::core
