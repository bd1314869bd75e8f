// File: services/agent/steps/install_disk.h
//
// What `coreos-installer install` does to a disk once the OS image is on it, for the install
// step (install.h): the image is a GPT disk image (./dev os-images' disk.raw, an RHCOS metal
// image) written at offset 0 of a larger disk, so
//   1. its backup GPT is moved to the end of the disk and the usable area grown to match
//      (RelocateBackupGpt; what `sgdisk -e` does), and
//   2. files are put into the ext4 file system of the partition named "boot" without mounting
//      it (BootPartition, through e2fsprogs' debugfs on the disk at the partition's offset):
//      ignition/config.ign, the kernel arguments (kargs.cfg) and NetworkManager keyfiles
//      (coreos-firstboot-network/), where the installed OS's initramfs reads them at first boot.
//
// Sectors are 512 bytes (the logical sector size of the images and of virtio/SATA disks).
// Every function works the same on a block device and on a disk image file.
//
//   ASSIGN_OR_RETURN(std::vector<GptPartition> parts, ReadGpt(fd));
//   RETURN_IF_ERROR(RelocateBackupGpt(fd));
//   ASSIGN_OR_RETURN(BootPartition boot, BootPartition::Find(path, processes));
//   RETURN_IF_ERROR(boot.WriteFile("ignition/config.ign", ignition));

#ifndef ASSISTED_SERVICES_AGENT_STEPS_INSTALL_DISK_H_
#define ASSISTED_SERVICES_AGENT_STEPS_INSTALL_DISK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/process/subprocess.h"

namespace assisted::agent::steps {

inline constexpr int64_t kSectorBytes = 512;

struct GptPartition {
  int number = 0;  // 1-based, as in /dev/vda<N>
  std::string name;
  uint64_t first_lba = 0;
  uint64_t last_lba = 0;  // inclusive
  int64_t offset() const { return static_cast<int64_t>(first_lba) * kSectorBytes; }
  int64_t bytes() const { return static_cast<int64_t>(last_lba - first_lba + 1) * kSectorBytes; }
};

// The partitions of the primary GPT of the disk open at `fd` (header and entry array checked
// against their CRC32). NOT_FOUND when the disk has no GPT; DATA_LOSS when it is damaged.
absl::StatusOr<std::vector<GptPartition>> ReadGpt(int fd);

// Moves the backup GPT (header and entry array) to the last sectors of the disk open at `fd`,
// updates the primary header's pointers and usable area and the protective MBR's size, and zeroes
// the old backup header. Nothing to do when the backup is already at the end.
// FAILED_PRECONDITION when a partition reaches past the new usable area (a disk smaller than
// the image).
absl::Status RelocateBackupGpt(int fd);

// Whether the GPT of the disk open at `fd` is consistent: primary and backup headers valid,
// each pointing at the other, the backup on the last sector, the same entries.
absl::Status CheckGpt(int fd);

// The ext4 file system of the partition named "boot" on a disk or disk image, edited in place
// with debugfs (e2fsprogs). Paths are relative to the file system's root.
class BootPartition {
 public:
  // NOT_FOUND when the disk has no GPT or no partition named "boot".
  static absl::StatusOr<BootPartition> Find(const std::string& disk,
                                            process::ProcessRunner& processes);

  // Creates or replaces `path` (its folders are created) with `content`, owned by root with
  // `mode` (0600 for what holds secrets: the Ignition, the reporter's settings); reads it back.
  // INTERNAL with debugfs' words when it cannot.
  absl::Status WriteFile(const std::string& path, absl::string_view content, int mode = 0644);
  // The content of `path`; NOT_FOUND when it does not exist.
  absl::StatusOr<std::string> ReadFile(const std::string& path);

  const GptPartition& partition() const { return partition_; }

 private:
  BootPartition(std::string disk, GptPartition partition, process::ProcessRunner& processes)
      : disk_(std::move(disk)), partition_(std::move(partition)), processes_(&processes) {}
  // Whether `path` (a file or folder) exists.
  absl::StatusOr<bool> Exists(const std::string& path);
  // Runs debugfs on the partition with `commands` on its standard input.
  absl::StatusOr<process::CommandResult> Debugfs(bool write, const std::string& commands);

  std::string disk_;
  GptPartition partition_;
  process::ProcessRunner* processes_;
};

// The kernel arguments line of kargs.cfg (`set kargs="..."`) with `append` added at the end and
// every argument equal to one of `remove` dropped, as --append-karg/--delete-karg do.
// INVALID_ARGUMENT when the file has no kargs line or an argument would break the line (quotes,
// newlines).
absl::StatusOr<std::string> EditKargs(absl::string_view kargs_cfg,
                                      const std::vector<std::string>& append,
                                      const std::vector<std::string>& remove);

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_INSTALL_DISK_H_
