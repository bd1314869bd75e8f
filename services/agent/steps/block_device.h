// File: services/agent/steps/block_device.h
//
// The installation disk as the disk steps (installation-disk-speed-check, install) see it: on a
// real host the block device itself, on a simulated host the disk image file its simulation
// hook names for the device.

#ifndef ASSISTED_SERVICES_AGENT_STEPS_BLOCK_DEVICE_H_
#define ASSISTED_SERVICES_AGENT_STEPS_BLOCK_DEVICE_H_

#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

// The file to open for `device`. FAILED_PRECONDITION with a user-facing reason ("no disk X on
// this host", "cannot find X: ...", "X is not a block device") otherwise. Checks the kind of
// file before anything opens it: opening some devices has side effects. Fills *st when given.
absl::StatusOr<std::string> ResolveDisk(const std::string& device, const StepContext& context,
                                        struct stat* st = nullptr);

// Size in bytes of the regular file or block device open at `fd` (`st` is its fstat).
absl::StatusOr<int64_t> SizeOf(int fd, const struct stat& st);

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_BLOCK_DEVICE_H_
