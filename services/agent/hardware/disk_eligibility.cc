// File: services/agent/hardware/disk_eligibility.cc

#include "services/agent/hardware/disk_eligibility.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace assisted::agent::hardware {
namespace {

constexpr int64_t kBytesPerGb = 1'000'000'000;

}  // namespace

types::v1::InstallationEligibility JudgeDisk(const types::v1::Disk& disk, const DiskFacts& facts,
                                             int64_t min_size_gb) {
  std::vector<std::string> reasons;
  if (disk.size_bytes() < min_size_gb * kBytesPerGb) {
    reasons.push_back(absl::StrCat("Disk is too small (disk only has ",
                                   disk.size_bytes() / kBytesPerGb, " GB, but ", min_size_gb,
                                   " GB are required)"));
  }
  switch (disk.drive_type()) {
    case types::v1::DRIVE_TYPE_ODD:
      reasons.push_back("Disk is an optical drive");
      break;
    case types::v1::DRIVE_TYPE_FDD:
      reasons.push_back("Disk is a floppy drive");
      break;
    case types::v1::DRIVE_TYPE_LVM:
      reasons.push_back("Disk is an LVM logical volume");
      break;
    case types::v1::DRIVE_TYPE_UNKNOWN:
    case types::v1::DRIVE_TYPE_UNSPECIFIED:
      reasons.push_back("Disk has unknown storage controller");
      break;
    default:
      break;
  }
  if (disk.is_installation_media()) {
    reasons.push_back("Disk holds the installation media (the discovery image was booted from it)");
  }
  if (disk.removable()) reasons.push_back("Disk is removable");
  if (facts.read_only) reasons.push_back("Disk is read-only");
  if (!facts.multipath_holder.empty()) {
    reasons.push_back(absl::StrCat("Disk is a path of multipath device ", facts.multipath_holder,
                                   "; choose the multipath device instead"));
  }
  if (!facts.mounts.empty()) {
    reasons.push_back(absl::StrCat("Disk is in use: ", absl::StrJoin(facts.mounts, ", ")));
  }
  types::v1::InstallationEligibility eligibility;
  eligibility.set_eligible(reasons.empty());
  for (std::string& reason : reasons) eligibility.add_not_eligible_reasons(std::move(reason));
  return eligibility;
}

}  // namespace assisted::agent::hardware
