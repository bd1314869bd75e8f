#include "lib/nmstate/keyfile.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/nmstate/uuid5.h"
#include "lib/status/status_macros.h"

namespace assisted::nmstate {
namespace {

// UUIDv5(URL namespace, "assisted:nmstate:connection"): the namespace of our connection UUIDs.
constexpr absl::string_view kConnectionNamespace = "6ec9d64a-d298-5ee3-85df-47b990c22861";

// Keyfile text (GLib key-file syntax). Values come from checked input (interface names, numbers,
// addresses, domain names, bond option words), none of which needs escaping.
class KeyfileText {
 public:
  void Section(absl::string_view name) {
    if (!text_.empty()) text_ += "\n";
    absl::StrAppend(&text_, "[", name, "]\n");
  }
  void Set(absl::string_view key, absl::string_view value) {
    absl::StrAppend(&text_, key, "=", value, "\n");
  }
  std::string Take() { return std::move(text_); }

 private:
  std::string text_;
};

struct Controller {
  std::string name;
  absl::string_view slave_type;  // "bond" or "bridge"
};

absl::string_view ConnectionType(InterfaceType type) {
  switch (type) {
    case InterfaceType::kEthernet:
      return "ethernet";
    case InterfaceType::kBond:
      return "bond";
    case InterfaceType::kVlan:
      return "vlan";
    case InterfaceType::kLinuxBridge:
      return "bridge";
  }
  return "ethernet";
}

const IpSettings& Settings(const Interface& iface, net::Family family) {
  return family == net::Family::kIpv4 ? iface.ipv4 : iface.ipv6;
}

bool InMainTable(const Route& route) {
  return !route.table_id.has_value() || *route.table_id == 0 || *route.table_id == 254;
}

bool IsDefaultRoute(const Route& route) { return route.destination.prefix_length() == 0; }

std::string ListValue(const std::vector<std::string>& items) {
  std::string value;
  for (const std::string& item : items) absl::StrAppend(&value, item, ";");
  return value;
}

// Where the document's global settings land, decided once for all profiles.
class Plan {
 public:
  explicit Plan(const NetworkState& state) : state_(state) {
    for (const Interface& iface : state.interfaces) {
      if (iface.state == InterfaceState::kAbsent) continue;
      for (const std::string& port : iface.ports) {
        controllers_[port] = {iface.name, iface.type == InterfaceType::kBond ? "bond" : "bridge"};
      }
    }
    dns_v4_ = DnsHolder(net::Family::kIpv4);
    dns_v6_ = DnsHolder(net::Family::kIpv6);
    // Search domains follow the IPv4 servers, else the IPv6 ones, else any interface with IP.
    const bool use_v6 = HasServers(net::Family::kIpv4)   ? false
                        : HasServers(net::Family::kIpv6) ? true
                                                         : dns_v4_ == nullptr;
    search_ = use_v6 ? std::make_pair(dns_v6_, net::Family::kIpv6)
                     : std::make_pair(dns_v4_, net::Family::kIpv4);
  }

  const Controller* ControllerOf(const std::string& name) const {
    auto it = controllers_.find(name);
    return it == controllers_.end() ? nullptr : &it->second;
  }

  // Interfaces named as ports but not described by the document.
  std::vector<std::string> UndescribedPorts() const {
    std::vector<std::string> names;
    for (const auto& [port, controller] : controllers_) {
      if (state_.Find(port) == nullptr) names.push_back(port);
    }
    return names;
  }

  // Whether `iface` can hold settings of `family`.
  bool Carries(const Interface& iface, net::Family family) const {
    return iface.state != InterfaceState::kAbsent && ControllerOf(iface.name) == nullptr &&
           Settings(iface, family).enabled;
  }

  std::vector<std::string> ServersFor(const Interface& iface, net::Family family) const {
    std::vector<std::string> servers;
    if (&iface != (family == net::Family::kIpv4 ? dns_v4_ : dns_v6_)) return servers;
    for (const net::IpAddress& server : state_.dns_servers) {
      if (server.family() == family) servers.push_back(server.ToString());
    }
    return servers;
  }

  bool HoldsSearch(const Interface& iface, net::Family family) const {
    return search_.first == &iface && search_.second == family && !state_.dns_search.empty();
  }

  std::vector<const Route*> RoutesFor(const Interface& iface, net::Family family) const {
    std::vector<const Route*> routes;
    for (const Route& route : state_.routes) {
      if (route.next_hop_interface == iface.name && route.destination.family() == family) {
        routes.push_back(&route);
      }
    }
    return routes;
  }

  const std::vector<std::string>& search() const { return state_.dns_search; }

 private:
  bool HasServers(net::Family family) const {
    return std::any_of(state_.dns_servers.begin(), state_.dns_servers.end(),
                       [&](const net::IpAddress& server) { return server.family() == family; });
  }

  // The interface of the family's first default route, else the first one with it enabled.
  const Interface* DnsHolder(net::Family family) const {
    for (const Route& route : state_.routes) {
      const Interface* iface = state_.Find(route.next_hop_interface);
      if (route.destination.family() == family && IsDefaultRoute(route) && iface != nullptr &&
          Carries(*iface, family)) {
        return iface;
      }
    }
    for (const Interface& iface : state_.interfaces) {
      if (Carries(iface, family)) return &iface;
    }
    return nullptr;
  }

  const NetworkState& state_;
  std::map<std::string, Controller> controllers_;
  const Interface* dns_v4_ = nullptr;
  const Interface* dns_v6_ = nullptr;
  std::pair<const Interface*, net::Family> search_ = {nullptr, net::Family::kIpv4};
};

absl::string_view Method(const IpSettings& ip, net::Family family) {
  if (!ip.enabled) return "disabled";
  if (family == net::Family::kIpv4) return ip.dhcp ? "auto" : "manual";
  if (ip.autoconf) return "auto";
  return ip.dhcp ? "dhcp" : "manual";
}

std::string RouteValue(const Route& route) {
  std::string value = route.destination.ToString();
  if (route.next_hop_address.has_value() || route.metric.has_value()) {
    // A device route with a metric still needs the (unspecified) next-hop field.
    const bool v4 = route.destination.family() == net::Family::kIpv4;
    absl::StrAppend(&value, ",",
                    route.next_hop_address.has_value() ? route.next_hop_address->ToString()
                                                       : (v4 ? "0.0.0.0" : "::"));
  }
  if (route.metric.has_value()) absl::StrAppend(&value, ",", *route.metric);
  return value;
}

void WriteIp(const Plan& plan, const Interface& iface, net::Family family, KeyfileText& out) {
  const IpSettings& ip = Settings(iface, family);
  out.Section(family == net::Family::kIpv4 ? "ipv4" : "ipv6");
  out.Set("method", Method(ip, family));
  if (!ip.enabled) return;

  std::vector<const Route*> routes = plan.RoutesFor(iface, family);
  auto gateway = routes.end();
  if (!ip.addresses.empty()) {
    gateway = std::find_if(routes.begin(), routes.end(), [](const Route* route) {
      return IsDefaultRoute(*route) && InMainTable(*route) && route->next_hop_address.has_value() &&
             !route->metric.has_value();
    });
  }
  for (size_t i = 0; i < ip.addresses.size(); ++i) {
    std::string value =
        absl::StrCat(ip.addresses[i].ip.ToString(), "/", ip.addresses[i].prefix_length);
    if (i == 0 && gateway != routes.end()) {
      absl::StrAppend(&value, ",", (*gateway)->next_hop_address->ToString());
    }
    out.Set(absl::StrCat("address", i + 1), value);
  }
  if (gateway != routes.end()) routes.erase(gateway);

  const std::vector<std::string> servers = plan.ServersFor(iface, family);
  if (!servers.empty()) out.Set("dns", ListValue(servers));
  if (plan.HoldsSearch(iface, family)) out.Set("dns-search", ListValue(plan.search()));
  if (ip.dynamic()) {
    if (ip.auto_dns == false || (!ip.auto_dns.has_value() && !servers.empty())) {
      out.Set("ignore-auto-dns", "true");
    }
    if (ip.auto_gateway == false) out.Set("never-default", "true");
    if (ip.auto_routes == false) out.Set("ignore-auto-routes", "true");
  }
  for (size_t i = 0; i < routes.size(); ++i) {
    const std::string key = absl::StrCat("route", i + 1);
    out.Set(key, RouteValue(*routes[i]));
    if (!InMainTable(*routes[i])) {
      out.Set(absl::StrCat(key, "_options"), absl::StrCat("table=", *routes[i]->table_id));
    }
  }
}

Keyfile Profile(const Plan& plan, const Interface& iface) {
  KeyfileText out;
  out.Section("connection");
  out.Set("id", iface.name);
  out.Set("uuid", ConnectionUuid(iface.name));
  out.Set("type", ConnectionType(iface.type));
  out.Set("interface-name", iface.name);
  out.Set("autoconnect", iface.state == InterfaceState::kDown ? "false" : "true");
  out.Set("autoconnect-priority", "1");
  const Controller* controller = plan.ControllerOf(iface.name);
  if (controller != nullptr) {
    out.Set("master", controller->name);
    out.Set("slave-type", controller->slave_type);
  }

  if (iface.type == InterfaceType::kEthernet || iface.mtu.has_value() ||
      !iface.mac_address.empty()) {
    out.Section("ethernet");
    if (iface.mtu.has_value()) out.Set("mtu", absl::StrCat(*iface.mtu));
    if (!iface.mac_address.empty()) out.Set("cloned-mac-address", iface.mac_address);
  }
  switch (iface.type) {
    case InterfaceType::kBond:
      out.Section("bond");
      out.Set("mode", iface.bond_mode);
      for (const auto& [key, value] : iface.bond_options) out.Set(key, value);
      break;
    case InterfaceType::kVlan:
      out.Section("vlan");
      out.Set("id", absl::StrCat(iface.vlan_id));
      out.Set("parent", iface.vlan_base_iface);
      break;
    case InterfaceType::kLinuxBridge:
      out.Section("bridge");
      if (iface.stp_enabled.has_value()) out.Set("stp", *iface.stp_enabled ? "true" : "false");
      break;
    case InterfaceType::kEthernet:
      break;
  }
  // A port's addressing belongs to its controller; NetworkManager drops IP settings on ports.
  if (controller == nullptr) {
    WriteIp(plan, iface, net::Family::kIpv4, out);
    WriteIp(plan, iface, net::Family::kIpv6, out);
  }
  return Keyfile{iface.name, absl::StrCat(iface.name, ".nmconnection"), out.Take()};
}

}  // namespace

std::string ConnectionUuid(absl::string_view interface_name) {
  return Uuid5(kConnectionNamespace, interface_name);
}

std::vector<Keyfile> ToKeyfiles(const NetworkState& state) {
  const Plan plan(state);
  std::vector<Keyfile> keyfiles;
  for (const Interface& iface : state.interfaces) {
    if (iface.state != InterfaceState::kAbsent) keyfiles.push_back(Profile(plan, iface));
  }
  for (const std::string& port : plan.UndescribedPorts()) {
    Interface ethernet;
    ethernet.name = port;
    keyfiles.push_back(Profile(plan, ethernet));
  }
  std::sort(keyfiles.begin(), keyfiles.end(),
            [](const Keyfile& a, const Keyfile& b) { return a.file_name < b.file_name; });
  return keyfiles;
}

absl::StatusOr<std::vector<Keyfile>> NmStateToKeyfiles(absl::string_view yaml) {
  ASSIGN_OR_RETURN(NetworkState state, ParseNetworkState(yaml));
  return ToKeyfiles(state);
}

}  // namespace assisted::nmstate
