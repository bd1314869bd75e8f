#include "services/orchestrator/core/disk_eligibility.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace assisted::orchestrator::core {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

struct Fixture {
  HwRequirements req = *DefaultHwRequirements().ForVersion("4.13");
  types::v1::Inventory inventory;
  DiskPolicy policy{100, &req, *version::OcpVersion::Parse("4.13"), "x86_64"};

  types::v1::Disk* Disk(const char* name, types::v1::DriveType type, int64_t gb) {
    types::v1::Disk* d = inventory.add_disks();
    d->set_name(name);
    d->set_path(absl::StrCat("/dev/", name));
    d->set_drive_type(type);
    d->set_size_bytes(gb * 1'000'000'000);
    d->mutable_installation_eligibility()->set_eligible(true);
    return d;
  }
};

TEST(DiskEligibility, LargeSsdIsEligible) {
  Fixture f;
  types::v1::Disk* d = f.Disk("sda", types::v1::DRIVE_TYPE_SSD, 120);
  EXPECT_THAT(ServiceIneligibility(*d, f.inventory, f.policy), IsEmpty());
  EXPECT_TRUE(DiskEligible(*d, f.inventory, f.policy));
}

TEST(DiskEligibility, TooSmall) {
  Fixture f;
  types::v1::Disk* d = f.Disk("sda", types::v1::DRIVE_TYPE_SSD, 50);
  EXPECT_THAT(ServiceIneligibility(*d, f.inventory, f.policy),
              ElementsAre("Disk is too small (disk only has 50 GB, but 100 GB are required)"));
}

TEST(DiskEligibility, RaidOnlyFrom414) {
  Fixture f;
  types::v1::Disk* d = f.Disk("md0", types::v1::DRIVE_TYPE_RAID, 500);
  EXPECT_THAT(ServiceIneligibility(*d, f.inventory, f.policy),
              ElementsAre("Drive type is RAID, it must be one of HDD, SSD, Multipath, FC."));
  f.policy.version = *version::OcpVersion::Parse("4.14");
  EXPECT_THAT(ServiceIneligibility(*d, f.inventory, f.policy), IsEmpty());
}

TEST(DiskEligibility, MultipathMembersAndIscsiWithoutAddress) {
  Fixture f;
  types::v1::Disk* member = f.Disk("sdb", types::v1::DRIVE_TYPE_SSD, 500);
  member->set_holders("dm-0");
  f.Disk("dm-0", types::v1::DRIVE_TYPE_MULTIPATH, 500);
  EXPECT_THAT(ServiceIneligibility(*member, f.inventory, f.policy),
              ElementsAre(HasSubstr("path of multipath device dm-0")));
  f.policy.version = *version::OcpVersion::Parse("4.15");
  types::v1::Disk* iscsi = f.Disk("sdc", types::v1::DRIVE_TYPE_ISCSI, 500);
  EXPECT_THAT(ServiceIneligibility(*iscsi, f.inventory, f.policy),
              ElementsAre(HasSubstr("iSCSI disk has no host IP address")));
}

TEST(DiskEligibility, AgentVerdictCounts) {
  Fixture f;
  types::v1::Disk* d = f.Disk("sda", types::v1::DRIVE_TYPE_SSD, 500);
  d->mutable_installation_eligibility()->set_eligible(false);
  EXPECT_FALSE(DiskEligible(*d, f.inventory, f.policy));
}

}  // namespace
}  // namespace assisted::orchestrator::core
