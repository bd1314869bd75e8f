// File: services/agent/hardware/interfaces.h
//
// The network interfaces the inventory reports: physical NICs and the bonds, VLANs and bridges
// a cluster network may be built on (loopback, tunnels and other virtual devices are left out),
// with what /sys/class/net/<name> shows and the addresses of an AddressSource.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_INTERFACES_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_INTERFACES_H_

#include <vector>

#include "assisted/types/v1/hardware.pb.h"
#include "services/agent/hardware/addresses.h"
#include "services/agent/hardware/host_root.h"

namespace assisted::agent::hardware {

// Sorted by name. mac_address (permanent for bond members), mtu, speed_mbps (-1 when the kernel
// has none, e.g. a link that is down), has_carrier, flags ("up", "broadcast", "loopback",
// "pointtopoint", "multicast", "running"), vendor/product (the PCI ids of device/vendor and
// device/device, e.g. "0x8086"), type ("physical", "bond", "vlan", "bridge") and addresses.
std::vector<types::v1::Interface> CollectInterfaces(const HostRoot& root,
                                                    const AddressSource& addresses);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_INTERFACES_H_
