#include "lib/nmstate/network_state.h"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/status/status_macros.h"
#include "yaml-cpp/yaml.h"

namespace assisted::nmstate {
namespace {

constexpr int64_t kUint32Max = std::numeric_limits<uint32_t>::max();

absl::Status Invalid(absl::string_view path, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("nmstate: ", path, ": ", problem));
}

std::string Quoted(absl::string_view text) { return absl::StrCat("\"", text, "\""); }

std::string Child(absl::string_view path, absl::string_view key) {
  return path.empty() ? std::string(key) : absl::StrCat(path, ".", key);
}

// A YAML node and its path in the document. It only uses yaml-cpp calls that do not throw (type
// tests, Scalar(), iteration), so values are read without exceptions; only YAML::Load throws.
class Node {
 public:
  Node(YAML::Node node, std::string path) : node_(std::move(node)), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  bool IsNull() const { return !node_.IsDefined() || node_.IsNull(); }
  absl::Status Error(absl::string_view problem) const { return Invalid(path_, problem); }

  // Checks that this is a mapping with string keys, each in `allowed` and given once.
  absl::Status ExpectMap(const std::vector<absl::string_view>& allowed) const {
    if (!node_.IsMap()) return Error("must be a mapping");
    std::set<std::string> seen;
    for (const auto& entry : node_) {
      if (!entry.first.IsScalar()) return Error("has a key that is not a string");
      const std::string& key = entry.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        return Invalid(
            Child(path_, key),
            absl::StrCat("is not supported (supported here: ", absl::StrJoin(allowed, ", "), ")"));
      }
      if (!seen.insert(key).second) return Invalid(Child(path_, key), "is given twice");
    }
    return absl::OkStatus();
  }

  // The value at `key` of a mapping (after ExpectMap); nullopt when absent or null.
  std::optional<Node> Field(absl::string_view key) const {
    for (const auto& entry : node_) {
      if (entry.first.IsScalar() && entry.first.Scalar() == key) {
        Node value(entry.second, Child(path_, key));
        if (value.IsNull()) return std::nullopt;
        return value;
      }
    }
    return std::nullopt;
  }

  absl::StatusOr<Node> Required(absl::string_view key, absl::string_view hint = "") const {
    std::optional<Node> value = Field(key);
    if (!value.has_value()) {
      return Invalid(Child(path_, key),
                     hint.empty() ? "missing" : absl::StrCat("missing (", hint, ")"));
    }
    return *std::move(value);
  }

  absl::StatusOr<std::vector<Node>> Items() const {
    if (!node_.IsSequence()) return Error("must be a list");
    std::vector<Node> items;
    for (const auto& item : node_) {
      items.emplace_back(item, absl::StrCat(path_, "[", items.size(), "]"));
    }
    return items;
  }

  absl::StatusOr<std::string> String() const {
    if (!node_.IsScalar()) return Error("must be a single value");
    return node_.Scalar();
  }

  absl::StatusOr<int64_t> Int(int64_t min, int64_t max) const {
    ASSIGN_OR_RETURN(std::string text, String());
    int64_t value = 0;
    if (!absl::SimpleAtoi(text, &value) || value < min || value > max) {
      return Error(absl::StrCat(Quoted(text), " is not an integer from ", min, " to ", max));
    }
    return value;
  }

  absl::StatusOr<bool> Bool() const {
    ASSIGN_OR_RETURN(std::string text, String());
    const std::string lower = absl::AsciiStrToLower(text);
    if (lower == "true") return true;
    if (lower == "false") return false;
    return Error(absl::StrCat(Quoted(text), " is not true or false"));
  }

  // Typed optional fields: nullopt when absent or null.
  absl::StatusOr<std::optional<std::string>> OptionalString(absl::string_view key) const {
    std::optional<Node> value = Field(key);
    if (!value.has_value()) return std::optional<std::string>();
    return value->String();
  }
  absl::StatusOr<std::optional<int64_t>> OptionalInt(absl::string_view key, int64_t min,
                                                     int64_t max) const {
    std::optional<Node> value = Field(key);
    if (!value.has_value()) return std::optional<int64_t>();
    return value->Int(min, max);
  }
  absl::StatusOr<std::optional<bool>> OptionalBool(absl::string_view key) const {
    std::optional<Node> value = Field(key);
    if (!value.has_value()) return std::optional<bool>();
    return value->Bool();
  }

 private:
  YAML::Node node_;
  std::string path_;
};

absl::StatusOr<std::string> InterfaceName(const Node& node) {
  ASSIGN_OR_RETURN(std::string name, node.String());
  if (!IsInterfaceName(name)) {
    return node.Error(
        absl::StrCat(Quoted(name), " is not an interface name (1 to 15 of A-Z a-z 0-9 . _ -)"));
  }
  return name;
}

absl::StatusOr<std::string> MacAddress(const Node& node) {
  ASSIGN_OR_RETURN(std::string text, node.String());
  std::optional<std::string> mac = CanonicalMac(text);
  if (!mac.has_value()) {
    return node.Error(absl::StrCat(Quoted(text), " is not a MAC address (AA:BB:CC:DD:EE:FF)"));
  }
  return *mac;
}

absl::StatusOr<net::IpAddress> Ip(const Node& node, std::optional<net::Family> family) {
  ASSIGN_OR_RETURN(std::string text, node.String());
  absl::StatusOr<net::IpAddress> ip = net::IpAddress::Parse(text);
  if (!ip.ok()) return node.Error(ip.status().message());
  if (family.has_value() && ip->family() != *family) {
    return node.Error(
        absl::StrCat(Quoted(text), " is not an ", net::FamilyName(*family), " address"));
  }
  return *ip;
}

int Bits(net::Family family) { return family == net::Family::kIpv4 ? 32 : 128; }

absl::StatusOr<IpSettings> ParseIp(const Node& node, net::Family family) {
  const bool v6 = family == net::Family::kIpv6;
  std::vector<absl::string_view> keys = {"enabled",  "dhcp",         "address",
                                         "auto-dns", "auto-gateway", "auto-routes"};
  if (v6) keys.push_back("autoconf");
  RETURN_IF_ERROR(node.ExpectMap(keys));
  IpSettings ip;
  ASSIGN_OR_RETURN(std::optional<bool> enabled, node.OptionalBool("enabled"));
  ASSIGN_OR_RETURN(std::optional<bool> dhcp, node.OptionalBool("dhcp"));
  ASSIGN_OR_RETURN(std::optional<bool> autoconf, node.OptionalBool("autoconf"));
  ASSIGN_OR_RETURN(ip.auto_dns, node.OptionalBool("auto-dns"));
  ASSIGN_OR_RETURN(ip.auto_gateway, node.OptionalBool("auto-gateway"));
  ASSIGN_OR_RETURN(ip.auto_routes, node.OptionalBool("auto-routes"));
  ip.dhcp = dhcp.value_or(false);
  ip.autoconf = autoconf.value_or(false);
  if (std::optional<Node> addresses = node.Field("address")) {
    ASSIGN_OR_RETURN(std::vector<Node> items, addresses->Items());
    for (const Node& item : items) {
      RETURN_IF_ERROR(item.ExpectMap({"ip", "prefix-length"}));
      ASSIGN_OR_RETURN(Node ip_node, item.Required("ip"));
      ASSIGN_OR_RETURN(net::IpAddress address, Ip(ip_node, family));
      ASSIGN_OR_RETURN(Node prefix_node, item.Required("prefix-length"));
      ASSIGN_OR_RETURN(int64_t prefix, prefix_node.Int(0, Bits(family)));
      ip.addresses.push_back({address, static_cast<int>(prefix)});
    }
  }
  const bool configured = ip.dynamic() || !ip.addresses.empty();
  ip.enabled = enabled.value_or(configured);
  if (!ip.enabled && configured) {
    return Invalid(Child(node.path(), "enabled"),
                   "is false, yet dhcp, autoconf or an address is given");
  }
  if (ip.enabled && !configured) {
    return node.Error(absl::StrCat("enabled with neither dhcp", v6 ? " nor autoconf" : "",
                                   " needs at least one address"));
  }
  return ip;
}

constexpr absl::string_view kBondModes[] = {"balance-rr", "active-backup", "balance-xor",
                                            "broadcast",  "802.3ad",       "balance-tlb",
                                            "balance-alb"};

// The bond options NetworkManager knows (besides mode, which has its own key).
constexpr absl::string_view kBondOptions[] = {
    "ad_actor_sys_prio", "ad_actor_system",   "ad_select",
    "ad_user_port_key",  "all_slaves_active", "arp_all_targets",
    "arp_interval",      "arp_ip_target",     "arp_missed_max",
    "arp_validate",      "downdelay",         "fail_over_mac",
    "lacp_rate",         "lp_interval",       "miimon",
    "min_links",         "num_grat_arp",      "num_unsol_na",
    "packets_per_slave", "peer_notif_delay",  "primary",
    "primary_reselect",  "resend_igmp",       "tlb_dynamic_lb",
    "updelay",           "use_carrier",       "xmit_hash_policy"};

absl::StatusOr<std::vector<std::string>> InterfaceNames(const Node& list) {
  ASSIGN_OR_RETURN(std::vector<Node> items, list.Items());
  std::vector<std::string> names;
  for (const Node& item : items) {
    ASSIGN_OR_RETURN(std::string name, InterfaceName(item));
    names.push_back(std::move(name));
  }
  return names;
}

absl::Status ParseBond(const Node& node, Interface* iface) {
  RETURN_IF_ERROR(node.ExpectMap({"mode", "port", "slaves", "options"}));
  ASSIGN_OR_RETURN(Node mode, node.Required("mode"));
  ASSIGN_OR_RETURN(iface->bond_mode, mode.String());
  if (std::find(std::begin(kBondModes), std::end(kBondModes), iface->bond_mode) ==
      std::end(kBondModes)) {
    return mode.Error(absl::StrCat(Quoted(iface->bond_mode), " is not a bond mode (",
                                   absl::StrJoin(kBondModes, ", "), ")"));
  }
  std::optional<Node> port = node.Field("port");
  std::optional<Node> slaves = node.Field("slaves");
  if (port.has_value() && slaves.has_value()) {
    return node.Error("give the ports once, as \"port\" (\"slaves\" is its old name)");
  }
  if (std::optional<Node> ports = port.has_value() ? port : slaves) {
    ASSIGN_OR_RETURN(iface->ports, InterfaceNames(*ports));
  }
  if (std::optional<Node> options = node.Field("options")) {
    std::vector<absl::string_view> allowed(std::begin(kBondOptions), std::end(kBondOptions));
    RETURN_IF_ERROR(options->ExpectMap(allowed));
    for (absl::string_view key : allowed) {
      std::optional<Node> value = options->Field(key);
      if (!value.has_value()) continue;
      ASSIGN_OR_RETURN(std::string text, value->String());
      const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return absl::ascii_isalnum(c) || absl::StrContains("._:,+-", c);
      });
      if (!plain) return value->Error(absl::StrCat(Quoted(text), " is not a plain option value"));
      iface->bond_options.emplace(std::string(key), std::move(text));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseBridge(const Node& node, Interface* iface) {
  RETURN_IF_ERROR(node.ExpectMap({"options", "port"}));
  if (std::optional<Node> options = node.Field("options")) {
    RETURN_IF_ERROR(options->ExpectMap({"stp"}));
    if (std::optional<Node> stp = options->Field("stp")) {
      RETURN_IF_ERROR(stp->ExpectMap({"enabled"}));
      ASSIGN_OR_RETURN(iface->stp_enabled, stp->OptionalBool("enabled"));
    }
  }
  if (std::optional<Node> ports = node.Field("port")) {
    ASSIGN_OR_RETURN(std::vector<Node> items, ports->Items());
    for (const Node& item : items) {
      RETURN_IF_ERROR(item.ExpectMap({"name"}));
      ASSIGN_OR_RETURN(Node name, item.Required("name"));
      ASSIGN_OR_RETURN(std::string port, InterfaceName(name));
      iface->ports.push_back(std::move(port));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseVlan(const Node& node, Interface* iface) {
  RETURN_IF_ERROR(node.ExpectMap({"base-iface", "id"}));
  ASSIGN_OR_RETURN(Node base, node.Required("base-iface", "the interface the VLAN runs on"));
  ASSIGN_OR_RETURN(iface->vlan_base_iface, InterfaceName(base));
  ASSIGN_OR_RETURN(Node id, node.Required("id"));
  ASSIGN_OR_RETURN(int64_t vlan_id, id.Int(0, 4094));
  iface->vlan_id = static_cast<int>(vlan_id);
  return absl::OkStatus();
}

struct TypeSection {
  InterfaceType type;
  absl::string_view name;     // the "type:" value
  absl::string_view section;  // its own mapping, empty for none
  bool section_required;
  absl::Status (*parse)(const Node&, Interface*);
};

constexpr TypeSection kTypes[] = {
    {InterfaceType::kEthernet, "ethernet", "", false, nullptr},
    {InterfaceType::kBond, "bond", "link-aggregation", true, ParseBond},
    {InterfaceType::kVlan, "vlan", "vlan", true, ParseVlan},
    {InterfaceType::kLinuxBridge, "linux-bridge", "bridge", false, ParseBridge},
};

absl::StatusOr<Interface> ParseInterface(const Node& node) {
  RETURN_IF_ERROR(node.ExpectMap({"name", "type", "state", "mtu", "mac-address", "ipv4", "ipv6",
                                  "link-aggregation", "vlan", "bridge"}));
  Interface iface;
  iface.yaml_path = node.path();
  ASSIGN_OR_RETURN(Node name, node.Required("name"));
  ASSIGN_OR_RETURN(iface.name, InterfaceName(name));

  ASSIGN_OR_RETURN(Node type_node, node.Required("type", "ethernet, bond, vlan or linux-bridge"));
  ASSIGN_OR_RETURN(std::string type_name, type_node.String());
  const TypeSection* type = nullptr;
  for (const TypeSection& candidate : kTypes) {
    if (candidate.name == type_name) type = &candidate;
  }
  if (type == nullptr) {
    return type_node.Error(
        absl::StrCat(Quoted(type_name), " is not supported (ethernet, bond, vlan, linux-bridge)"));
  }
  iface.type = type->type;
  for (const TypeSection& other : kTypes) {
    if (other.section.empty() || other.type == type->type) continue;
    if (node.Field(other.section).has_value()) {
      return Invalid(Child(node.path(), other.section),
                     absl::StrCat("belongs to type ", other.name, ", not ", type->name));
    }
  }
  if (!type->section.empty()) {
    std::optional<Node> section = node.Field(type->section);
    if (section.has_value()) {
      RETURN_IF_ERROR(type->parse(*section, &iface));
    } else if (type->section_required) {
      return Invalid(Child(node.path(), type->section),
                     absl::StrCat("missing (a ", type->name, " interface needs it)"));
    }
  }

  ASSIGN_OR_RETURN(std::optional<std::string> state, node.OptionalString("state"));
  if (state.has_value()) {
    if (*state == "up") {
      iface.state = InterfaceState::kUp;
    } else if (*state == "down") {
      iface.state = InterfaceState::kDown;
    } else if (*state == "absent") {
      iface.state = InterfaceState::kAbsent;
    } else {
      return Invalid(Child(node.path(), "state"),
                     absl::StrCat(Quoted(*state), " is not up, down or absent"));
    }
  }
  ASSIGN_OR_RETURN(std::optional<int64_t> mtu, node.OptionalInt("mtu", 68, 65535));
  if (mtu.has_value()) iface.mtu = static_cast<int>(*mtu);
  if (std::optional<Node> mac = node.Field("mac-address")) {
    ASSIGN_OR_RETURN(iface.mac_address, MacAddress(*mac));
  }
  if (std::optional<Node> ipv4 = node.Field("ipv4")) {
    ASSIGN_OR_RETURN(iface.ipv4, ParseIp(*ipv4, net::Family::kIpv4));
  }
  if (std::optional<Node> ipv6 = node.Field("ipv6")) {
    ASSIGN_OR_RETURN(iface.ipv6, ParseIp(*ipv6, net::Family::kIpv6));
  }
  return iface;
}

absl::Status ParseDns(const Node& node, NetworkState* state) {
  RETURN_IF_ERROR(node.ExpectMap({"config"}));
  std::optional<Node> config = node.Field("config");
  if (!config.has_value()) return absl::OkStatus();
  RETURN_IF_ERROR(config->ExpectMap({"server", "search"}));
  if (std::optional<Node> servers = config->Field("server")) {
    ASSIGN_OR_RETURN(std::vector<Node> items, servers->Items());
    for (const Node& item : items) {
      ASSIGN_OR_RETURN(net::IpAddress server, Ip(item, std::nullopt));
      state->dns_servers.push_back(server);
    }
  }
  if (std::optional<Node> search = config->Field("search")) {
    ASSIGN_OR_RETURN(std::vector<Node> items, search->Items());
    for (const Node& item : items) {
      ASSIGN_OR_RETURN(std::string domain, item.String());
      const bool valid = !domain.empty() && std::all_of(domain.begin(), domain.end(), [](char c) {
        return absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_';
      });
      if (!valid) return item.Error(absl::StrCat(Quoted(domain), " is not a domain name"));
      state->dns_search.push_back(std::move(domain));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseRoutes(const Node& node, NetworkState* state) {
  RETURN_IF_ERROR(node.ExpectMap({"config"}));
  std::optional<Node> config = node.Field("config");
  if (!config.has_value()) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::vector<Node> items, config->Items());
  for (const Node& item : items) {
    RETURN_IF_ERROR(item.ExpectMap(
        {"destination", "next-hop-address", "next-hop-interface", "metric", "table-id", "state"}));
    ASSIGN_OR_RETURN(std::optional<std::string> route_state, item.OptionalString("state"));
    if (route_state.has_value() && *route_state != "absent") {
      return Invalid(Child(item.path(), "state"),
                     absl::StrCat(Quoted(*route_state), " is not absent (or left out)"));
    }
    ASSIGN_OR_RETURN(Node destination_node, item.Required("destination"));
    ASSIGN_OR_RETURN(std::string destination_text, destination_node.String());
    absl::StatusOr<net::Cidr> destination = net::Cidr::Parse(destination_text);
    if (!destination.ok()) return destination_node.Error(destination.status().message());
    ASSIGN_OR_RETURN(Node interface_node,
                     item.Required("next-hop-interface", "the interface whose profile holds it"));
    ASSIGN_OR_RETURN(std::string next_hop_interface, InterfaceName(interface_node));
    std::optional<net::IpAddress> next_hop;
    if (std::optional<Node> hop = item.Field("next-hop-address")) {
      ASSIGN_OR_RETURN(next_hop, Ip(*hop, destination->family()));
    }
    ASSIGN_OR_RETURN(std::optional<int64_t> metric, item.OptionalInt("metric", 0, kUint32Max));
    ASSIGN_OR_RETURN(std::optional<int64_t> table, item.OptionalInt("table-id", 0, kUint32Max));
    if (route_state.has_value()) continue;  // "absent": a removal, nothing to configure
    state->routes.push_back(
        Route{*destination, next_hop, std::move(next_hop_interface), metric, table, item.path()});
  }
  return absl::OkStatus();
}

// Cross-references: names, ports, VLAN parents, route interfaces, DNS families.
absl::Status CheckConsistency(const NetworkState& state) {
  std::map<std::string, const Interface*> by_name;
  bool any_configured = false;
  for (const Interface& iface : state.interfaces) {
    auto [it, inserted] = by_name.emplace(iface.name, &iface);
    if (!inserted) {
      return Invalid(
          Child(iface.yaml_path, "name"),
          absl::StrCat(Quoted(iface.name), " is already defined at ", it->second->yaml_path));
    }
    any_configured = any_configured || iface.state != InterfaceState::kAbsent;
  }
  if (!any_configured) return Invalid("interfaces", "no interface to configure");

  std::map<std::string, std::string> controller_of;
  for (const Interface& iface : state.interfaces) {
    if (iface.state == InterfaceState::kAbsent) continue;
    for (const std::string& port : iface.ports) {
      auto port_error = [&](absl::string_view problem) {
        return Invalid(iface.yaml_path, absl::StrCat("port ", Quoted(port), " ", problem));
      };
      if (port == iface.name) return port_error("is the interface itself");
      auto [it, inserted] = controller_of.emplace(port, iface.name);
      if (!inserted) return port_error(absl::StrCat("is already a port of ", Quoted(it->second)));
      const Interface* member = state.Find(port);
      if (member == nullptr) continue;  // a NIC the document does not describe
      if (member->state == InterfaceState::kAbsent) return port_error("is absent");
      if (member->ipv4.enabled || member->ipv6.enabled) {
        return Invalid(member->yaml_path, absl::StrCat("a port of ", Quoted(iface.name),
                                                       " cannot have IP settings (give them to ",
                                                       Quoted(iface.name), ")"));
      }
    }
    if (iface.type == InterfaceType::kVlan) {
      const Interface* base = state.Find(iface.vlan_base_iface);
      if (iface.vlan_base_iface == iface.name ||
          (base != nullptr && base->state == InterfaceState::kAbsent)) {
        return Invalid(Child(iface.yaml_path, "vlan.base-iface"),
                       absl::StrCat(Quoted(iface.vlan_base_iface), " cannot carry this VLAN"));
      }
    }
  }

  // Interfaces that can hold IP settings of `family`.
  auto carries = [&](const Interface& iface, net::Family family) {
    const IpSettings& ip = family == net::Family::kIpv4 ? iface.ipv4 : iface.ipv6;
    return iface.state != InterfaceState::kAbsent && controller_of.count(iface.name) == 0 &&
           ip.enabled;
  };
  for (const Route& route : state.routes) {
    const Interface* iface = state.Find(route.next_hop_interface);
    if (iface == nullptr || iface->state == InterfaceState::kAbsent) {
      return Invalid(Child(route.yaml_path, "next-hop-interface"),
                     absl::StrCat(Quoted(route.next_hop_interface),
                                  " is not an interface this document configures"));
    }
    if (!carries(*iface, route.destination.family())) {
      return Invalid(Child(route.yaml_path, "next-hop-interface"),
                     absl::StrCat(net::FamilyName(route.destination.family()),
                                  " is not enabled on ", Quoted(iface->name)));
    }
  }
  for (size_t i = 0; i < state.dns_servers.size(); ++i) {
    const net::Family family = state.dns_servers[i].family();
    if (std::none_of(state.interfaces.begin(), state.interfaces.end(),
                     [&](const Interface& iface) { return carries(iface, family); })) {
      return Invalid(absl::StrCat("dns-resolver.config.server[", i, "]"),
                     absl::StrCat("no interface has ", net::FamilyName(family), " enabled for ",
                                  state.dns_servers[i].ToString()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<NetworkState> ParseDocument(const YAML::Node& root) {
  const Node document(root, "");
  if (document.IsNull()) return Invalid("(document)", "is empty");
  if (!root.IsMap()) return Invalid("(document)", "must be a mapping with \"interfaces\"");
  RETURN_IF_ERROR(document.ExpectMap({"interfaces", "dns-resolver", "routes"}));
  NetworkState state;
  ASSIGN_OR_RETURN(Node interfaces, document.Required("interfaces"));
  ASSIGN_OR_RETURN(std::vector<Node> items, interfaces.Items());
  for (const Node& item : items) {
    ASSIGN_OR_RETURN(Interface iface, ParseInterface(item));
    state.interfaces.push_back(std::move(iface));
  }
  if (std::optional<Node> dns = document.Field("dns-resolver")) {
    RETURN_IF_ERROR(ParseDns(*dns, &state));
  }
  if (std::optional<Node> routes = document.Field("routes")) {
    RETURN_IF_ERROR(ParseRoutes(*routes, &state));
  }
  RETURN_IF_ERROR(CheckConsistency(state));
  return state;
}

}  // namespace

const Interface* NetworkState::Find(absl::string_view name) const {
  for (const Interface& iface : interfaces) {
    if (iface.name == name) return &iface;
  }
  return nullptr;
}

bool IsInterfaceName(absl::string_view name) {
  const bool charset_ok = std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.';
  });
  return !name.empty() && name.size() <= 15 && charset_ok && name != "." && name != "..";
}

std::optional<std::string> CanonicalMac(absl::string_view text) {
  const std::vector<absl::string_view> octets = absl::StrSplit(text, ':');
  const bool valid =
      octets.size() == 6 && std::all_of(octets.begin(), octets.end(), [](auto o) {
        return o.size() == 2 && absl::ascii_isxdigit(o[0]) && absl::ascii_isxdigit(o[1]);
      });
  if (!valid) return std::nullopt;
  return absl::AsciiStrToUpper(text);
}

absl::string_view InterfaceTypeName(InterfaceType type) {
  for (const TypeSection& candidate : kTypes) {
    if (candidate.type == type) return candidate.name;
  }
  return "ethernet";
}

absl::StatusOr<NetworkState> ParseNetworkState(absl::string_view yaml) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("nmstate: YAML syntax error at line ",
                                                   e.mark.line + 1, " column ", e.mark.column + 1,
                                                   ": ", e.msg));
  }
  // Node only uses non-throwing accessors; this guard keeps the promise should yaml-cpp differ.
  try {
    return ParseDocument(root);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("nmstate: ", e.what()));
  }
}

}  // namespace assisted::nmstate
