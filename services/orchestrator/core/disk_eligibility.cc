// File: services/orchestrator/core/disk_eligibility.cc

#include "services/orchestrator/core/disk_eligibility.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace assisted::orchestrator::core {

namespace {

constexpr int64_t kBytesPerGb = 1'000'000'000;

// The multipath device `disk` is a member of, or "".
std::string MultipathHolder(const types::v1::Disk& disk, const types::v1::Inventory& inventory) {
  for (absl::string_view holder : absl::StrSplit(disk.holders(), ',', absl::SkipWhitespace())) {
    holder = absl::StripAsciiWhitespace(holder);
    for (const types::v1::Disk& other : inventory.disks()) {
      if (other.name() == holder && other.drive_type() == types::v1::DRIVE_TYPE_MULTIPATH) {
        return other.name();
      }
    }
  }
  return "";
}

}  // namespace

std::vector<std::string> ServiceIneligibility(const types::v1::Disk& disk,
                                              const types::v1::Inventory& inventory,
                                              const DiskPolicy& policy) {
  std::vector<std::string> reasons;
  if (disk.size_bytes() < policy.min_size_gb * kBytesPerGb) {
    reasons.push_back(absl::StrCat("Disk is too small (disk only has ",
                                   disk.size_bytes() / kBytesPerGb, " GB, but ", policy.min_size_gb,
                                   " GB are required)"));
  }
  if (!policy.requirements->DriveTypeAllowed(disk.drive_type(), policy.version,
                                             policy.architecture)) {
    reasons.push_back(absl::StrCat(
        "Drive type is ", DriveTypeName(disk.drive_type()), ", it must be one of ",
        absl::StrJoin(
            policy.requirements->AllowedDriveTypeNames(policy.version, policy.architecture), ", "),
        "."));
  }
  if (std::string holder = MultipathHolder(disk, inventory); !holder.empty()) {
    reasons.push_back(absl::StrCat("Disk is a path of multipath device ", holder,
                                   "; choose the multipath device instead"));
  }
  if (disk.drive_type() == types::v1::DRIVE_TYPE_ISCSI && disk.iscsi().host_ip_address().empty()) {
    reasons.push_back(
        "iSCSI disk has no host IP address: the agent could not tell which network interface "
        "reaches it");
  }
  return reasons;
}

bool DiskEligible(const types::v1::Disk& disk, const types::v1::Inventory& inventory,
                  const DiskPolicy& policy) {
  return disk.installation_eligibility().eligible() &&
         ServiceIneligibility(disk, inventory, policy).empty();
}

}  // namespace assisted::orchestrator::core
