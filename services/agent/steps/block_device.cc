#include "services/agent/steps/block_device.h"

#include <errno.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "services/agent/steps/simulation.h"

namespace assisted::agent::steps {

absl::StatusOr<std::string> ResolveDisk(const std::string& device, const StepContext& context,
                                        struct stat* st) {
  std::string target = device;
  const bool simulated = context.simulation != nullptr;
  if (simulated) {
    const auto& hook = context.simulation->disk_image;
    target = hook ? hook(device) : "";
    if (target.empty()) {
      return absl::FailedPreconditionError(absl::StrCat("no disk ", device, " on this host"));
    }
  }
  struct stat local {};
  if (st == nullptr) st = &local;
  if (stat(target.c_str(), st) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot find ", target, ": ", std::strerror(errno)));
  }
  if (!S_ISBLK(st->st_mode) && !(simulated && S_ISREG(st->st_mode))) {
    return absl::FailedPreconditionError(absl::StrCat(device, " is not a block device"));
  }
  return target;
}

absl::StatusOr<int64_t> SizeOf(int fd, const struct stat& st) {
  if (S_ISREG(st.st_mode)) return static_cast<int64_t>(st.st_size);
  uint64_t bytes = 0;
  if (ioctl(fd, BLKGETSIZE64, &bytes) != 0) {
    return absl::InternalError(absl::StrCat("cannot get the device size: ", std::strerror(errno)));
  }
  return static_cast<int64_t>(bytes);
}

}  // namespace assisted::agent::steps
