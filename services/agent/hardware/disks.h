// File: services/agent/hardware/disks.h
//
// The host's disks as the inventory reports them, from /sys/block, the udev database
// (/run/udev/data/b<major>:<minor>), the /dev/disk/by-id and by-path links, the mount table and
// the kernel command line, with the agent's installation eligibility of each.
//
// Reported: whole disks (sd*, nvme*, vd*, mmcblk*, sr*, md*, ...) and device-mapper devices
// that are multipath (dm/uuid "mpath-...") or LVM ("LVM-..."). Skipped: loop*, ram*, zram*,
// other dm-* and hidden devices (the per-path nodes of NVMe multipath).

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_DISKS_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_DISKS_H_

#include <cstdint>
#include <vector>

#include "assisted/types/v1/hardware.pb.h"
#include "services/agent/hardware/host_root.h"

namespace assisted::agent::hardware {

struct DiskOptions {
  // Smaller disks are not eligible, in decimal GB (10^9 bytes).
  int64_t min_size_gb = 20;
};

// Sorted by kernel name. Per disk: path "/dev/<name>"; by_id (the wwn-* or nvme-eui.* link,
// else "") and by_path (named after udev's ID_PATH, else the first by-path link to the disk;
// cleared when two disks claim the same); id = by_id, else by_path, else path; drive_type from the
// name, rotation and bus (HDD/SSD, ODD, FDD, RAID, Multipath, LVM, iSCSI, FC, else Unknown); size
// from `size` × 512; model, vendor, serial and WWN from udev, else sysfs (a multipath device takes
// them from its first path); hctl; bootable (an MBR signature in the first sector); removable;
// rotational; is_installation_media (holds the mount of /run/media/iso or of a path ending in
// "iso", is named by the coreos.liveiso= label, or is an optical drive); has_uuid (a WWN is
// known); partition_types (the partition table type); holders; installation_eligibility.
std::vector<types::v1::Disk> CollectDisks(const HostRoot& root, const DiskOptions& options);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_DISKS_H_
