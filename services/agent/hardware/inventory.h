// File: services/agent/hardware/inventory.h
//
// The hardware inventory a host reports: everything the agent reads about the machine, from a
// HostRoot ("/" on a real host, a fixture tree in tests and simulated hosts).
//
//   HostRoot root("/");
//   SystemAddressSource kernel_addresses;
//   CollectOptions options;
//   options.addresses = &kernel_addresses;
//   ASSIGN_OR_RETURN(types::v1::Inventory inventory, CollectInventory(root, options));
//
// Reading never fails on the machine's account: a missing or unreadable source leaves its
// fields empty, so an empty root yields a sparse but valid inventory. Lists and texts are
// bounded and every text is valid UTF-8; what is cut is recorded in `truncation`.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_INVENTORY_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_INVENTORY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "assisted/types/v1/hardware.pb.h"
#include "services/agent/hardware/addresses.h"
#include "services/agent/hardware/host_root.h"

namespace assisted::agent::hardware {

struct CollectOptions {
  // The CPU architecture to report ("x86_64"...); empty: what the root tells.
  std::string architecture;
  // Where interface addresses come from; nullptr: the root's files (RootAddressSource). An agent
  // reading "/" passes a SystemAddressSource.
  const AddressSource* addresses = nullptr;
  // Disks smaller than this (decimal GB) are not eligible for installation.
  int64_t min_disk_size_gb = 20;
  // At most this many disks, interfaces and routes are reported (the first ones by name, or in
  // table order for routes); the inventory's truncation says what was dropped.
  int max_disks = 1000;
  int max_interfaces = 1000;
  int max_routes = 1000;
};

// Collects the inventory under `root`. INVALID_ARGUMENT only for options out of range (a
// negative limit, a minimum disk size beyond 1,000,000 GB).
absl::StatusOr<types::v1::Inventory> CollectInventory(const HostRoot& root,
                                                      const CollectOptions& options);

// The host name: proc/sys/kernel/hostname, else etc/hostname. A localhost name (localhost,
// localhost.localdomain, localhost4/6 and their .localdomain4/6 forms) is replaced, as the
// reference does, by the MAC address (lower case, "-" for ":") of the first interface by name
// that is physical, a bond or a VLAN and has an address.
std::string CollectHostname(const HostRoot& root,
                            const std::vector<types::v1::Interface>& interfaces);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_INVENTORY_H_
