// File: services/agent/hardware/disk_eligibility_test.cc

#include "services/agent/hardware/disk_eligibility.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace assisted::agent::hardware {
namespace {

using ::testing::ElementsAreArray;

constexpr int64_t kGb = 1'000'000'000;

struct Case {
  std::string name;
  types::v1::Disk disk;
  DiskFacts facts;
  std::vector<std::string> reasons;
};

types::v1::Disk MakeDisk(types::v1::DriveType type, int64_t size_bytes) {
  types::v1::Disk disk;
  disk.set_drive_type(type);
  disk.set_size_bytes(size_bytes);
  return disk;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  cases.push_back({"BigSsdIsEligible", MakeDisk(types::v1::DRIVE_TYPE_SSD, 480 * kGb), {}, {}});
  cases.push_back(
      {"ExactlyTheMinimumIsEnough", MakeDisk(types::v1::DRIVE_TYPE_HDD, 20 * kGb), {}, {}});
  cases.push_back({"OneByteShortIsTooSmall",
                   MakeDisk(types::v1::DRIVE_TYPE_HDD, 20 * kGb - 1),
                   {},
                   {"Disk is too small (disk only has 19 GB, but 20 GB are required)"}});
  cases.push_back(
      {"Optical", MakeDisk(types::v1::DRIVE_TYPE_ODD, 30 * kGb), {}, {"Disk is an optical drive"}});
  cases.push_back(
      {"Floppy", MakeDisk(types::v1::DRIVE_TYPE_FDD, 30 * kGb), {}, {"Disk is a floppy drive"}});
  cases.push_back({"Lvm",
                   MakeDisk(types::v1::DRIVE_TYPE_LVM, 30 * kGb),
                   {},
                   {"Disk is an LVM logical volume"}});
  cases.push_back({"UnknownController",
                   MakeDisk(types::v1::DRIVE_TYPE_UNKNOWN, 30 * kGb),
                   {},
                   {"Disk has unknown storage controller"}});
  cases.push_back(
      {"MultipathDeviceIsEligible", MakeDisk(types::v1::DRIVE_TYPE_MULTIPATH, 30 * kGb), {}, {}});
  Case media{"InstallationMedia",
             MakeDisk(types::v1::DRIVE_TYPE_HDD, 30 * kGb),
             {},
             {"Disk holds the installation media (the discovery image was booted from it)"}};
  media.disk.set_is_installation_media(true);
  cases.push_back(media);
  Case removable{
      "Removable", MakeDisk(types::v1::DRIVE_TYPE_HDD, 30 * kGb), {}, {"Disk is removable"}};
  removable.disk.set_removable(true);
  cases.push_back(removable);
  Case read_only{
      "ReadOnly", MakeDisk(types::v1::DRIVE_TYPE_SSD, 30 * kGb), {}, {"Disk is read-only"}};
  read_only.facts.read_only = true;
  cases.push_back(read_only);
  Case path{"MultipathPath",
            MakeDisk(types::v1::DRIVE_TYPE_HDD, 30 * kGb),
            {},
            {"Disk is a path of multipath device dm-0; choose the multipath device instead"}};
  path.facts.multipath_holder = "dm-0";
  cases.push_back(path);
  Case mounted{"Mounted",
               MakeDisk(types::v1::DRIVE_TYPE_SSD, 30 * kGb),
               {},
               {"Disk is in use: sda2 on /var, sda3 on /home"}};
  mounted.facts.mounts = {"sda2 on /var", "sda3 on /home"};
  cases.push_back(mounted);
  Case all{"EveryReasonInOrder", MakeDisk(types::v1::DRIVE_TYPE_ODD, 0), {}, {}};
  all.disk.set_is_installation_media(true);
  all.disk.set_removable(true);
  all.facts.read_only = true;
  all.reasons = {"Disk is too small (disk only has 0 GB, but 20 GB are required)",
                 "Disk is an optical drive",
                 "Disk holds the installation media (the discovery image was booted from it)",
                 "Disk is removable", "Disk is read-only"};
  cases.push_back(all);
  return cases;
}

class JudgeDiskTable : public ::testing::TestWithParam<Case> {};

TEST_P(JudgeDiskTable, GivesTheReasons) {
  const Case& c = GetParam();
  const types::v1::InstallationEligibility eligibility = JudgeDisk(c.disk, c.facts, 20);
  EXPECT_THAT(eligibility.not_eligible_reasons(), ElementsAreArray(c.reasons));
  EXPECT_EQ(eligibility.eligible(), c.reasons.empty());
}

INSTANTIATE_TEST_SUITE_P(Disks, JudgeDiskTable, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace assisted::agent::hardware
