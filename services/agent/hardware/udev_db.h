// File: services/agent/hardware/udev_db.h
//
// systemd-udevd's database of block devices, /run/udev/data/b<major>:<minor>: "E:KEY=value"
// property lines (ID_SERIAL, ID_WWN, ID_PATH, ID_BUS, ...) and "S:" lines naming the device's
// links under /dev. Read without udevadm, so a fixture tree needs no daemon.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_UDEV_DB_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_UDEV_DB_H_

#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "services/agent/hardware/host_root.h"

namespace assisted::agent::hardware {

struct UdevRecord {
  // E: lines.
  std::map<std::string, std::string, std::less<>> properties;
  // S: lines, relative to /dev ("disk/by-id/wwn-0x5000c500a1b2c3d4").
  std::vector<std::string> links;

  // The property's value, or "" when absent.
  std::string Get(absl::string_view key) const;
  // The first of `keys` that has a non-empty value, or "".
  std::string First(std::initializer_list<absl::string_view> keys) const;
};

// Parses the text of one database file; unknown and malformed lines are ignored.
UdevRecord ParseUdevRecord(absl::string_view text);

// The record of block device `major_minor` ("8:0"); empty when udev has none.
UdevRecord ReadBlockUdevRecord(const HostRoot& root, absl::string_view major_minor);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_UDEV_DB_H_
