// File: services/agent/hardware/mounts.h
//
// The mount table (/proc/mounts, else /etc/mtab) and the kernel command line (/proc/cmdline):
// which device holds the booted image, whether the OS runs from RAM, which NIC PXE-booted.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_MOUNTS_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_MOUNTS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "services/agent/hardware/host_root.h"

namespace assisted::agent::hardware {

struct Mount {
  std::string source;  // "/dev/sdg", "/dev/loop0", "tmpfs"
  std::string target;  // "/run/media/iso"
  std::string fs_type;
};

// Parses fstab-format text; the kernel's octal escapes ("\040" for a space) are decoded and
// lines with fewer than three fields are skipped.
std::vector<Mount> ParseMounts(absl::string_view text);

// The host's mounts; empty when neither /proc/mounts nor /etc/mtab can be read.
std::vector<Mount> ReadMounts(const HostRoot& root);

// The value of the last "key=value" argument on the kernel command line, or "" (also for a bare
// "key" without a value).
std::string KernelArgument(absl::string_view cmdline, absl::string_view key);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_MOUNTS_H_
