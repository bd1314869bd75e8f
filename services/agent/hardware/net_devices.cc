// File: services/agent/hardware/net_devices.cc

#include "services/agent/hardware/net_devices.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "services/agent/hardware/attributes.h"

namespace assisted::agent::hardware {
namespace {

constexpr int kArphrdLoopback = 772;

std::string Classify(const HostRoot& root, absl::string_view name, absl::string_view dir) {
  if (ReadDecimal(root, absl::StrCat(dir, "/type")) == kArphrdLoopback) return "loopback";
  absl::StatusOr<std::string> resolved = root.Resolve(dir);
  const bool virtual_node = resolved.ok() && absl::StrContains(*resolved, "/virtual/");
  if (!virtual_node && root.Exists(absl::StrCat(dir, "/device"))) return "physical";
  if (root.Exists(absl::StrCat(dir, "/bonding"))) return "bond";
  if (root.Exists(absl::StrCat(dir, "/bridge"))) return "bridge";
  if (root.Exists(absl::StrCat("proc/net/vlan/", name))) return "vlan";
  // The uevent file has the same KEY=value lines as udev's E: properties.
  absl::StatusOr<std::string> uevent = root.ReadFile(absl::StrCat(dir, "/uevent"));
  std::string devtype;
  if (uevent.ok()) {
    for (absl::string_view line : absl::StrSplit(*uevent, '\n')) {
      if (absl::ConsumePrefix(&line, "DEVTYPE=")) devtype = absl::AsciiStrToLower(line);
    }
  }
  return devtype.empty() ? "virtual" : devtype;
}

}  // namespace

std::vector<NetDevice> ListNetDevices(const HostRoot& root) {
  std::vector<NetDevice> devices;
  absl::StatusOr<std::vector<std::string>> names = root.ListDir("sys/class/net");
  if (!names.ok()) return devices;
  for (const std::string& name : *names) {
    const std::string dir = absl::StrCat("sys/class/net/", name);
    NetDevice device;
    device.name = name;
    device.type = Classify(root, name, dir);
    device.reported = device.type == "physical" || device.type == "bond" || device.type == "vlan" ||
                      device.type == "bridge";
    device.mac = ReadAttribute(root, absl::StrCat(dir, "/bonding_slave/perm_hwaddr"));
    if (device.mac.empty()) device.mac = ReadAttribute(root, absl::StrCat(dir, "/address"));
    absl::AsciiStrToLower(&device.mac);
    devices.push_back(std::move(device));
  }
  return devices;
}

}  // namespace assisted::agent::hardware
