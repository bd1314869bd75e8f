// File: services/agent/hardware/disks.cc

#include "services/agent/hardware/disks.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/agent/hardware/attributes.h"
#include "services/agent/hardware/disk_eligibility.h"
#include "services/agent/hardware/mounts.h"
#include "services/agent/hardware/udev_db.h"

namespace assisted::agent::hardware {
namespace {

constexpr int64_t kSectorBytes = 512;
constexpr char kById[] = "dev/disk/by-id";
constexpr char kByPath[] = "dev/disk/by-path";
// Where the discovery ISO is mounted when a host boots the full image.
constexpr char kIsoMount[] = "/run/media/iso";

// One entry of sys/block with what the passes over all disks need.
struct BlockDevice {
  std::string name;
  std::string dir;  // "sys/block/<name>"
  std::string dm_uuid;
  UdevRecord udev;
  std::vector<std::string> partitions;
  std::vector<std::string> holders;
  std::vector<std::string> slaves;
  types::v1::Disk disk;
  DiskFacts facts;
};

std::vector<std::string> ListOrEmpty(const HostRoot& root, const std::string& path) {
  absl::StatusOr<std::vector<std::string>> names = root.ListDir(path);
  return names.ok() ? *std::move(names) : std::vector<std::string>{};
}

std::string Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == absl::string_view::npos ? path : path.substr(slash + 1));
}

// The kernel name of the device a /dev path leads to ("/dev/disk/by-label/x" -> "sdg"), or "".
std::string DeviceName(const HostRoot& root, absl::string_view dev_path) {
  if (!absl::StartsWith(dev_path, "/dev/")) return "";
  absl::StatusOr<std::string> resolved = root.Resolve(dev_path);
  return Basename(resolved.ok() ? *resolved : dev_path);
}

bool Reported(const HostRoot& root, const BlockDevice& device) {
  const absl::string_view name = device.name;
  if (absl::StartsWith(name, "loop") || absl::StartsWith(name, "ram") ||
      absl::StartsWith(name, "zram") || ReadFlag(root, device.dir + "/hidden")) {
    return false;
  }
  if (absl::StartsWith(name, "dm-")) {
    return absl::StartsWith(device.dm_uuid, "mpath-") || absl::StartsWith(device.dm_uuid, "LVM-");
  }
  return true;
}

types::v1::DriveType DriveType(const BlockDevice& device, bool rotational) {
  const absl::string_view name = device.name;
  if (absl::StartsWith(device.dm_uuid, "mpath-")) return types::v1::DRIVE_TYPE_MULTIPATH;
  if (absl::StartsWith(device.dm_uuid, "LVM-")) return types::v1::DRIVE_TYPE_LVM;
  if (absl::StartsWith(name, "md")) return types::v1::DRIVE_TYPE_RAID;
  if (absl::StartsWith(name, "sr")) return types::v1::DRIVE_TYPE_ODD;
  if (absl::StartsWith(name, "fd")) return types::v1::DRIVE_TYPE_FDD;
  const std::string bus_path = device.udev.Get("ID_PATH");
  if (absl::StrContains(bus_path, "-iscsi-")) return types::v1::DRIVE_TYPE_ISCSI;
  if (absl::StrContains(bus_path, "-fc-")) return types::v1::DRIVE_TYPE_FC;
  for (absl::string_view prefix : {"sd", "hd", "vd", "xvd"}) {
    if (absl::StartsWith(name, prefix)) {
      return rotational ? types::v1::DRIVE_TYPE_HDD : types::v1::DRIVE_TYPE_SSD;
    }
  }
  if (absl::StartsWith(name, "nvme") || absl::StartsWith(name, "mmcblk")) {
    return types::v1::DRIVE_TYPE_SSD;
  }
  return types::v1::DRIVE_TYPE_UNKNOWN;
}

// Link names of a /dev/disk/by-* directory, by the kernel name of the device they lead to.
std::map<std::string, std::vector<std::string>> LinksByDevice(const HostRoot& root,
                                                              const std::string& dir) {
  std::map<std::string, std::vector<std::string>> links;
  for (const std::string& link : ListOrEmpty(root, dir)) {
    absl::StatusOr<std::string> target = root.Resolve(absl::StrCat(dir, "/", link));
    if (target.ok()) links[Basename(*target)].push_back(link);
  }
  return links;
}

// The first sector carries the MBR signature 55 AA (also the protective MBR of a GPT disk):
// what `file -s` reports as "DOS/MBR boot sector".
bool Bootable(const HostRoot& root, const std::string& name) {
  absl::StatusOr<std::string> sector = root.ReadPrefix(absl::StrCat("dev/", name), 512);
  return sector.ok() && sector->size() == 512 &&
         static_cast<unsigned char>((*sector)[510]) == 0x55 &&
         static_cast<unsigned char>((*sector)[511]) == 0xAA;
}

std::string FirstAttribute(const HostRoot& root, const std::string& dir,
                           std::initializer_list<absl::string_view> names) {
  for (absl::string_view name : names) {
    if (std::string value = ReadAttribute(root, absl::StrCat(dir, "/", name)); !value.empty()) {
      return value;
    }
  }
  return "";
}

BlockDevice ScanDevice(const HostRoot& root, const std::string& name) {
  BlockDevice device;
  device.name = name;
  device.dir = absl::StrCat("sys/block/", name);
  device.dm_uuid = ReadAttribute(root, device.dir + "/dm/uuid");
  device.udev = ReadBlockUdevRecord(root, ReadAttribute(root, device.dir + "/dev"));
  for (const std::string& entry : ListOrEmpty(root, device.dir)) {
    if (absl::StartsWith(entry, name) &&
        root.Exists(absl::StrCat(device.dir, "/", entry, "/partition"))) {
      device.partitions.push_back(entry);
    }
  }
  device.holders = ListOrEmpty(root, device.dir + "/holders");
  device.slaves = ListOrEmpty(root, device.dir + "/slaves");
  return device;
}

void Describe(const HostRoot& root, BlockDevice* device) {
  const std::string& dir = device->dir;
  const UdevRecord& udev = device->udev;
  types::v1::Disk& disk = device->disk;
  const bool rotational = ReadFlag(root, dir + "/queue/rotational");
  disk.set_name(device->name);
  disk.set_path(absl::StrCat("/dev/", device->name));
  disk.set_drive_type(DriveType(*device, rotational));
  std::optional<int64_t> sectors = ReadDecimal(root, dir + "/size");
  std::optional<int64_t> bytes = sectors ? CheckedMultiply(*sectors, kSectorBytes) : std::nullopt;
  disk.set_size_bytes(bytes.value_or(0));
  disk.set_rotational(rotational);
  disk.set_removable(ReadFlag(root, dir + "/removable"));
  disk.set_model(udev.Get("ID_MODEL"));
  if (disk.model().empty()) disk.set_model(ReadAttribute(root, dir + "/device/model"));
  disk.set_vendor(udev.Get("ID_VENDOR"));
  if (disk.vendor().empty()) disk.set_vendor(ReadAttribute(root, dir + "/device/vendor"));
  disk.set_serial(udev.First({"ID_SERIAL_SHORT", "ID_SERIAL", "ID_SCSI_SERIAL"}));
  if (disk.serial().empty())
    disk.set_serial(FirstAttribute(root, dir, {"device/serial", "serial"}));
  disk.set_wwn(udev.First({"ID_WWN_WITH_EXTENSION", "ID_WWN"}));
  if (disk.wwn().empty()) disk.set_wwn(FirstAttribute(root, dir, {"wwid", "device/wwid"}));
  disk.set_has_uuid(!disk.wwn().empty());
  std::vector<std::string> hctl = ListOrEmpty(root, dir + "/device/scsi_device");
  if (!hctl.empty()) disk.set_hctl(hctl.front());
  disk.set_bootable(Bootable(root, device->name));
  disk.set_partition_types(udev.Get("ID_PART_TABLE_TYPE"));
  disk.set_holders(absl::StrJoin(device->holders, ","));
  device->facts.read_only = ReadFlag(root, dir + "/ro");
}

void AssignIds(const std::map<std::string, std::vector<std::string>>& by_id,
               const std::map<std::string, std::vector<std::string>>& by_path,
               std::vector<BlockDevice>* devices) {
  std::map<std::string, int> path_users;
  for (BlockDevice& device : *devices) {
    types::v1::Disk& disk = device.disk;
    if (auto it = by_id.find(device.name); it != by_id.end()) {
      for (absl::string_view prefix : {"wwn-", "nvme-eui."}) {
        for (const std::string& link : it->second) {
          if (disk.by_id().empty() && absl::StartsWith(link, prefix)) {
            disk.set_by_id(absl::StrCat("/", kById, "/", link));
          }
        }
      }
    }
    // udev names the by-path link after ID_PATH; two devices can claim the same one.
    std::string path = device.udev.Get("ID_PATH");
    if (auto it = by_path.find(device.name); path.empty() && it != by_path.end()) {
      path = it->second.front();
    }
    if (!path.empty()) {
      disk.set_by_path(absl::StrCat("/", kByPath, "/", path));
      ++path_users[disk.by_path()];
    }
  }
  for (BlockDevice& device : *devices) {
    types::v1::Disk& disk = device.disk;
    if (path_users[disk.by_path()] > 1) disk.clear_by_path();
    disk.set_id(!disk.by_id().empty()     ? disk.by_id()
                : !disk.by_path().empty() ? disk.by_path()
                                          : disk.path());
  }
}

// Marks installation media and mounted disks from the mount table and the kernel command line.
void ApplyMounts(const HostRoot& root, std::vector<BlockDevice>* devices) {
  std::map<std::string, BlockDevice*> owner;  // disk or partition name -> its disk
  for (BlockDevice& device : *devices) {
    owner[device.name] = &device;
    for (const std::string& partition : device.partitions) owner[partition] = &device;
  }
  auto find = [&](const std::string& name) -> BlockDevice* {
    auto it = owner.find(name);
    return it == owner.end() ? nullptr : it->second;
  };
  for (const Mount& mount : ReadMounts(root)) {
    const std::string name = DeviceName(root, mount.source);
    BlockDevice* device = find(name);
    if (device == nullptr) continue;
    if (mount.target == kIsoMount || absl::EndsWith(mount.target, "iso")) {
      device->disk.set_is_installation_media(true);
    } else {
      device->facts.mounts.push_back(absl::StrCat(name, " on ", mount.target));
    }
  }
  const std::string label = KernelArgument(ReadAttribute(root, "proc/cmdline"), "coreos.liveiso");
  if (!label.empty() && label.find('/') == std::string::npos) {
    if (BlockDevice* device = find(DeviceName(root, absl::StrCat("/dev/disk/by-label/", label)))) {
      device->disk.set_is_installation_media(true);
    }
  }
}

void ApplyMultipath(const HostRoot& root, std::vector<BlockDevice>* devices) {
  std::map<std::string, const BlockDevice*> by_name;
  for (const BlockDevice& device : *devices) by_name[device.name] = &device;
  for (BlockDevice& device : *devices) {
    for (const std::string& holder : device.holders) {
      if (absl::StartsWith(ReadAttribute(root, absl::StrCat("sys/block/", holder, "/dm/uuid")),
                           "mpath-")) {
        device.facts.multipath_holder = holder;
        break;
      }
    }
    if (device.disk.drive_type() != types::v1::DRIVE_TYPE_MULTIPATH || device.slaves.empty()) {
      continue;
    }
    auto path = by_name.find(device.slaves.front());
    if (path == by_name.end()) continue;
    types::v1::Disk& disk = device.disk;
    if (disk.model().empty()) disk.set_model(path->second->disk.model());
    if (disk.vendor().empty()) disk.set_vendor(path->second->disk.vendor());
  }
}

}  // namespace

std::vector<types::v1::Disk> CollectDisks(const HostRoot& root, const DiskOptions& options) {
  std::vector<BlockDevice> devices;
  for (const std::string& name : ListOrEmpty(root, "sys/block")) {
    BlockDevice device = ScanDevice(root, name);
    if (!Reported(root, device)) continue;
    Describe(root, &device);
    devices.push_back(std::move(device));
  }
  AssignIds(LinksByDevice(root, kById), LinksByDevice(root, kByPath), &devices);
  ApplyMounts(root, &devices);
  ApplyMultipath(root, &devices);
  std::vector<types::v1::Disk> disks;
  disks.reserve(devices.size());
  for (BlockDevice& device : devices) {
    types::v1::Disk& disk = device.disk;
    if (disk.drive_type() == types::v1::DRIVE_TYPE_ODD) disk.set_is_installation_media(true);
    *disk.mutable_installation_eligibility() = JudgeDisk(disk, device.facts, options.min_size_gb);
    disks.push_back(std::move(disk));
  }
  return disks;
}

}  // namespace assisted::agent::hardware
