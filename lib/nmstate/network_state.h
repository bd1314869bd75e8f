// File: lib/nmstate/network_state.h
//
// The subset of NMState (https://nmstate.io) that discovery images support, parsed from YAML and
// checked as a whole: interfaces of type ethernet, bond, vlan and linux-bridge; IPv4/IPv6 with
// DHCP, autoconf or static addresses; MTU; MAC address; DNS servers and search domains; routes.
//
//   ASSIGN_OR_RETURN(NetworkState state, ParseNetworkState(host.network_yaml()));
//
// Anything outside the subset (another interface type, an unknown key, a bad address, a missing
// prefix-length, a vlan without base-iface, a route through an unknown interface ...) is
// INVALID_ARGUMENT naming the YAML path, e.g.
//   nmstate: interfaces[0].ipv4.address[1].prefix-length: missing

#ifndef ASSISTED_LIB_NMSTATE_NETWORK_STATE_H_
#define ASSISTED_LIB_NMSTATE_NETWORK_STATE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/net/ip.h"

namespace assisted::nmstate {

enum class InterfaceType { kEthernet, kBond, kVlan, kLinuxBridge };

enum class InterfaceState {
  kUp,      // configured and brought up (the default)
  kDown,    // configured but not activated automatically
  kAbsent,  // not configured at all
};

struct Address {
  net::IpAddress ip;
  int prefix_length;
};

// One family's settings ("ipv4:" or "ipv6:").
struct IpSettings {
  bool enabled = false;
  bool dhcp = false;
  bool autoconf = false;  // IPv6 router advertisements (SLAAC)
  std::vector<Address> addresses;
  // auto-dns / auto-gateway / auto-routes: whether dynamic configuration may supply them.
  std::optional<bool> auto_dns;
  std::optional<bool> auto_gateway;
  std::optional<bool> auto_routes;

  bool dynamic() const { return dhcp || autoconf; }
};

struct Interface {
  std::string name;
  InterfaceType type = InterfaceType::kEthernet;
  InterfaceState state = InterfaceState::kUp;
  std::optional<int> mtu;
  std::string mac_address;  // upper case "AA:BB:CC:DD:EE:FF"; empty when not given
  IpSettings ipv4;          // disabled when the document has no "ipv4:"
  IpSettings ipv6;
  // Bond ("link-aggregation:").
  std::string bond_mode;
  std::map<std::string, std::string> bond_options;
  // Bond or bridge member interfaces, in document order.
  std::vector<std::string> ports;
  // VLAN ("vlan:").
  std::string vlan_base_iface;
  int vlan_id = 0;
  // Linux bridge ("bridge: options: stp: enabled:").
  std::optional<bool> stp_enabled;
  // Where the interface sits in the document, e.g. "interfaces[2]", for messages.
  std::string yaml_path;
};

struct Route {
  net::Cidr destination;
  std::optional<net::IpAddress> next_hop_address;  // none: a device route
  std::string next_hop_interface;
  std::optional<int64_t> metric;
  std::optional<int64_t> table_id;  // none or 254: the main table
  std::string yaml_path;
};

struct NetworkState {
  std::vector<Interface> interfaces;  // document order, including state: absent ones
  std::vector<net::IpAddress> dns_servers;
  std::vector<std::string> dns_search;
  std::vector<Route> routes;  // state: absent routes are dropped

  // The interface named `name`, or nullptr.
  const Interface* Find(absl::string_view name) const;
};

// Parses and checks an NMState YAML document (see the file comment for what is supported).
// The result is consistent: every port, route interface and VLAN id is valid, ports carry no IP
// settings, and each DNS server's family is enabled on some interface.
absl::StatusOr<NetworkState> ParseNetworkState(absl::string_view yaml);

// Whether `name` is an interface name we accept: 1 to 15 of A-Z a-z 0-9 . _ - (Linux allows
// more, but these need no quoting in keyfiles, shell scripts or sed expressions), not "." or "..".
bool IsInterfaceName(absl::string_view name);

// "aa:bb:cc:dd:ee:ff" in upper case, or nullopt when `text` is not six colon-separated hex pairs.
std::optional<std::string> CanonicalMac(absl::string_view text);

// "ethernet", "bond", "vlan" or "linux-bridge".
absl::string_view InterfaceTypeName(InterfaceType type);

}  // namespace assisted::nmstate

#endif  // ASSISTED_LIB_NMSTATE_NETWORK_STATE_H_
