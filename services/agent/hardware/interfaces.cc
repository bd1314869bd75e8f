// File: services/agent/hardware/interfaces.cc

#include "services/agent/hardware/interfaces.h"

#include <array>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/agent/hardware/attributes.h"
#include "services/agent/hardware/net_devices.h"

namespace assisted::agent::hardware {
namespace {

// <linux/if.h> flags with the names Go's net.Flags prints, which the reference reports.
constexpr std::array<std::pair<uint64_t, absl::string_view>, 5> kFlagNames = {{
    {0x1, "up"},
    {0x2, "broadcast"},
    {0x8, "loopback"},
    {0x10, "pointtopoint"},
    {0x1000, "multicast"},
}};

void AddFlags(const HostRoot& root, const std::string& dir, types::v1::Interface* nic) {
  const std::optional<uint64_t> flags = ParseHex(ReadAttribute(root, dir + "/flags"));
  if (flags) {
    for (const auto& [bit, name] : kFlagNames) {
      if ((*flags & bit) != 0) nic->add_flags(std::string(name));
    }
  }
  // sysfs "flags" lacks IFF_RUNNING; the kernel derives it from the operational state.
  if (ReadAttribute(root, dir + "/operstate") == "up") nic->add_flags("running");
}

}  // namespace

std::vector<types::v1::Interface> CollectInterfaces(const HostRoot& root,
                                                    const AddressSource& addresses) {
  std::vector<types::v1::Interface> interfaces;
  const AddressMap by_name = addresses.Addresses();
  for (NetDevice& device : ListNetDevices(root)) {
    if (!device.reported) continue;
    const std::string dir = absl::StrCat("sys/class/net/", device.name);
    types::v1::Interface nic;
    nic.set_name(device.name);
    nic.set_mac_address(std::move(device.mac));
    nic.set_type(std::move(device.type));
    nic.set_mtu(ReadDecimal(root, dir + "/mtu").value_or(0));
    nic.set_speed_mbps(ReadDecimal(root, dir + "/speed").value_or(-1));
    nic.set_has_carrier(ReadFlag(root, dir + "/carrier"));
    AddFlags(root, dir, &nic);
    nic.set_vendor(ReadAttribute(root, dir + "/device/vendor"));
    nic.set_product(ReadAttribute(root, dir + "/device/device"));
    if (auto it = by_name.find(device.name); it != by_name.end()) {
      for (const std::string& ip : it->second.ipv4) nic.add_ipv4_addresses(ip);
      for (const std::string& ip : it->second.ipv6) nic.add_ipv6_addresses(ip);
    }
    interfaces.push_back(std::move(nic));
  }
  return interfaces;
}

}  // namespace assisted::agent::hardware
