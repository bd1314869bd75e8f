// File: services/orchestrator/core/inventory_util.h
//
// Small facts derived from a host's inventory that several validations and the connectivity
// groups need: its addresses with their networks, its effective hostname, its default routes.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_INVENTORY_UTIL_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_INVENTORY_UTIL_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "assisted/types/v1/hardware.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "lib/net/ip.h"

namespace assisted::orchestrator::core {

// One address of one interface, "10.0.0.5/24" on eth0 -> {eth0, mac, 10.0.0.5, 10.0.0.0/24}.
struct InterfaceAddress {
  std::string nic;
  std::string mac;
  net::IpAddress ip;
  net::Cidr network;
};

// Every parseable IPv4 and IPv6 address of the inventory's interfaces (unparseable ones are
// skipped: the agent reports what the kernel has).
std::vector<InterfaceAddress> Addresses(const types::v1::Inventory& inventory);

// The user's requested_hostname, else the inventory's hostname.
std::string EffectiveHostname(const types::v1::Host& host);

// Whether the inventory has a default route (destination 0.0.0.0 or ::, any prefix form).
bool HasDefaultRoute(const types::v1::Inventory& inventory);

// The installation disk: by installation_disk_id, else by installation_disk_path; nullptr.
const types::v1::Disk* InstallationDisk(const types::v1::Host& host);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_INVENTORY_UTIL_H_
