// File: services/agent/steps/disk_speed.h
//
// installation-disk-speed-check: how long synchronous writes take on the installation disk
// (etcd needs fast fsync).
//   args:   [{"path": "/dev/sda"}] or [{"path": ...}, "<timeout seconds>"]
//   output: {"io_sync_duration": <p99 latency in ms, rounded up>, "path": <path as given>};
//           on failure exit code 1, the reason in error and {"path"} as output.
// The device is opened with O_DIRECT|O_DSYNC and `writes` 4 KiB blocks are written one at a
// time with pwrite, each timed; the 99th percentile is reported.
//
// Data safety: only the scratch region [scratch_offset, scratch_offset + scratch_bytes) is
// written (moved to the start of the device when the device is smaller), and every block in it
// is first read and then written back with the bytes it already held, so the disk's content
// does not change. Nothing outside the region is written. The one risk: a concurrent writer
// changing the region between that read and write would see its change undone; nothing should
// be using a disk that is about to be installed to.
//
// On a real host the path must be a block device. In simulation SimulationHooks::disk_image
// maps the device to a disk image file, measured the same way (O_DIRECT is dropped when the
// file system refuses it, e.g. tmpfs).

#ifndef ASSISTED_SERVICES_AGENT_STEPS_DISK_SPEED_H_
#define ASSISTED_SERVICES_AGENT_STEPS_DISK_SPEED_H_

#include <cstdint>

#include "absl/time/time.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

struct DiskSpeedOptions {
  int64_t scratch_offset = 1 << 20;  // 1 MiB: after the partition table
  int64_t scratch_bytes = 1 << 20;
  int writes = 256;  // 4 KiB synchronous writes, cycling through the region
};

class DiskSpeedCheck final : public StepExecutor {
 public:
  explicit DiskSpeedCheck(DiskSpeedOptions options) : options_(options) {}

  StepType type() const override { return types::v1::STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK; }
  absl::Duration default_timeout() const override { return absl::Minutes(8); }
  StepResult Run(const Step& step, StepContext& context) override;

 private:
  const DiskSpeedOptions options_;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_DISK_SPEED_H_
