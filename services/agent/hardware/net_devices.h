// File: services/agent/hardware/net_devices.h
//
// The host's network devices as /sys/class/net shows them, classified the way the inventory
// and the host id need: physical NICs (whose sysfs node lives under a bus device, not under
// /devices/virtual/), the virtual kinds a cluster network may be built on (bond, vlan, bridge),
// and everything else (loopback, tunnels, veths), which the inventory leaves out.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_NET_DEVICES_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_NET_DEVICES_H_

#include <string>
#include <vector>

#include "services/agent/hardware/host_root.h"

namespace assisted::agent::hardware {

struct NetDevice {
  std::string name;
  // "physical", "bond", "vlan", "bridge", "loopback", or the kernel's DEVTYPE of another
  // virtual device ("wireguard", "vxlan"...), else "virtual".
  std::string type;
  // Lower case. For a bond member, its permanent address (the bond rewrites the live one).
  std::string mac;
  // Whether the inventory reports it: physical, bond, vlan and bridge devices.
  bool reported = false;
};

// Every device under sys/class/net, sorted by name; empty when the directory is missing.
std::vector<NetDevice> ListNetDevices(const HostRoot& root);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_NET_DEVICES_H_
