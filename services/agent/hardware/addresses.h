// File: services/agent/hardware/addresses.h
//
// Where interface addresses come from. The kernel shows IPv6 addresses in /proc/net/if_inet6
// but IPv4 ones only over netlink, so a fixture tree (or a simulated host) cannot hold them as
// the kernel does: RootAddressSource reads IPv6 from proc/net/if_inet6 and IPv4 from
// assisted/addresses.json in the root; SystemAddressSource asks the running kernel
// (getifaddrs). Both report "ip/prefix" text in canonical form, without loopback and link-local
// addresses (127/8, 169.254/16, ::1, fe80::/10), like the reference.

#ifndef ASSISTED_SERVICES_AGENT_HARDWARE_ADDRESSES_H_
#define ASSISTED_SERVICES_AGENT_HARDWARE_ADDRESSES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "services/agent/hardware/host_root.h"

namespace assisted::agent::hardware {

struct NicAddresses {
  std::vector<std::string> ipv4;  // "192.168.111.23/24"
  std::vector<std::string> ipv6;  // "fd00:1101::23/64"
};

// Addresses by interface name.
using AddressMap = std::map<std::string, NicAddresses>;

class AddressSource {
 public:
  virtual ~AddressSource() = default;
  // Every interface's addresses; an interface without any may be absent. Never fails: what
  // cannot be read is missing.
  virtual AddressMap Addresses() const = 0;
};

// proc/net/if_inet6 and assisted/addresses.json ({"ipv4": {"eth0": ["10.0.0.5/24"]}}) of a
// root. Keeps a reference to `root`, which must outlive it.
class RootAddressSource final : public AddressSource {
 public:
  explicit RootAddressSource(const HostRoot& root) : root_(root) {}
  AddressMap Addresses() const override;

 private:
  const HostRoot& root_;
};

// The running kernel's addresses (getifaddrs), for an agent reading "/".
class SystemAddressSource final : public AddressSource {
 public:
  AddressMap Addresses() const override;
};

// Adds "ip/prefix" to `nic`'s list of its family in canonical text, unless it is malformed,
// loopback or link-local. Shared by the sources; public for tests.
void AddAddress(absl::string_view ip, int prefix_length, NicAddresses* nic);

}  // namespace assisted::agent::hardware

#endif  // ASSISTED_SERVICES_AGENT_HARDWARE_ADDRESSES_H_
