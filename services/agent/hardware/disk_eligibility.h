// File: services/agent/hardware/disk_eligibility.h
//
// The agent's side of "may this disk hold the OS": what it can see on the machine itself (size
// against a minimum, removable or read-only media, the installation media, drive kinds that
// cannot hold an OS, multipath paths, LVM volumes, mounted file systems). The service adds what
// depends on the cluster (services/orchestrator/core/disk_eligibility.h); the sentences match
// its wording so a merged list reads as one.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_DISK_ELIGIBILITY_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_DISK_ELIGIBILITY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "assisted/types/v1/hardware.pb.h"

namespace assisted::agent::hardware {

// What the agent knows about a disk beyond its Disk message.
struct DiskFacts {
  // The kernel refuses writes (sys/block/<d>/ro).
  bool read_only = false;
  // The multipath device this disk is a path of ("dm-0"), or "".
  std::string multipath_holder;
  // Mounted file systems on the disk or its partitions, as "sda2 on /var".
  std::vector<std::string> mounts;
};

// eligible, or the reasons the disk cannot be the installation disk, in a fixed order.
// `min_size_gb` is in decimal gigabytes (10^9 bytes), as the requirements files count them.
types::v1::InstallationEligibility JudgeDisk(const types::v1::Disk& disk, const DiskFacts& facts,
                                             int64_t min_size_gb);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_DISK_ELIGIBILITY_H_
