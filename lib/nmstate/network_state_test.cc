#include "lib/nmstate/network_state.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::nmstate {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

// The networkConfig of host asus3-vm1 in seeds/002.
constexpr char kSeedHost[] = R"(
interfaces:
  - name: enp2s0
    type: ethernet
    state: up
    mac-address: 52:54:00:e7:05:72
    ipv4:
      enabled: true
      address:
        - ip: 192.168.0.116
          prefix-length: 23
      dhcp: false
dns-resolver:
  config:
    server:
      - 192.168.0.10
routes:
  config:
    - destination: 0.0.0.0/0
      next-hop-address: 192.168.0.1
      next-hop-interface: enp2s0
      table-id: 254
)";

TEST(ParseNetworkState, ReadsTheSeedAgentConfigHost) {
  absl::StatusOr<NetworkState> state = ParseNetworkState(kSeedHost);
  ASSERT_THAT(state, IsOk());
  ASSERT_EQ(state->interfaces.size(), 1u);
  const Interface& iface = state->interfaces[0];
  EXPECT_EQ(iface.name, "enp2s0");
  EXPECT_EQ(iface.type, InterfaceType::kEthernet);
  EXPECT_EQ(iface.state, InterfaceState::kUp);
  EXPECT_EQ(iface.mac_address, "52:54:00:E7:05:72");
  EXPECT_TRUE(iface.ipv4.enabled);
  EXPECT_FALSE(iface.ipv4.dhcp);
  ASSERT_EQ(iface.ipv4.addresses.size(), 1u);
  EXPECT_EQ(iface.ipv4.addresses[0].ip.ToString(), "192.168.0.116");
  EXPECT_EQ(iface.ipv4.addresses[0].prefix_length, 23);
  EXPECT_FALSE(iface.ipv6.enabled);
  ASSERT_EQ(state->dns_servers.size(), 1u);
  EXPECT_EQ(state->dns_servers[0].ToString(), "192.168.0.10");
  ASSERT_EQ(state->routes.size(), 1u);
  EXPECT_EQ(state->routes[0].destination.ToString(), "0.0.0.0/0");
  EXPECT_EQ(state->routes[0].next_hop_address->ToString(), "192.168.0.1");
  EXPECT_EQ(state->routes[0].table_id, 254);
  EXPECT_EQ(state->routes[0].yaml_path, "routes.config[0]");
}

TEST(ParseNetworkState, ReadsBondVlanAndBridgeSections) {
  absl::StatusOr<NetworkState> state = ParseNetworkState(R"(
interfaces:
  - name: bond0
    type: bond
    link-aggregation:
      mode: 802.3ad
      options: {miimon: "100", lacp_rate: fast}
      slaves: [eno1, eno2]
  - name: bond0.12
    type: vlan
    vlan: {base-iface: bond0, id: 12}
    ipv6: {enabled: true, autoconf: true}
  - name: br0
    type: linux-bridge
    state: down
    bridge:
      options: {stp: {enabled: false}}
      port: [{name: eno3}]
    ipv4: {dhcp: true}
)");
  ASSERT_THAT(state, IsOk());
  const Interface* bond = state->Find("bond0");
  ASSERT_NE(bond, nullptr);
  EXPECT_EQ(bond->bond_mode, "802.3ad");
  EXPECT_EQ(bond->ports, (std::vector<std::string>{"eno1", "eno2"}));
  EXPECT_EQ(bond->bond_options.at("miimon"), "100");
  EXPECT_EQ(bond->bond_options.at("lacp_rate"), "fast");
  const Interface* vlan = state->Find("bond0.12");
  EXPECT_EQ(vlan->vlan_base_iface, "bond0");
  EXPECT_EQ(vlan->vlan_id, 12);
  EXPECT_TRUE(vlan->ipv6.enabled && vlan->ipv6.autoconf);
  const Interface* bridge = state->Find("br0");
  EXPECT_EQ(bridge->state, InterfaceState::kDown);
  EXPECT_EQ(bridge->stp_enabled, false);
  EXPECT_EQ(bridge->ports, (std::vector<std::string>{"eno3"}));
  // "enabled" may be left out when dhcp or an address says so.
  EXPECT_TRUE(bridge->ipv4.enabled);
}

struct InvalidCase {
  std::string name;
  std::string yaml;
  std::string message;
};

class ParseNetworkStateRejects : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(ParseNetworkStateRejects, WithThePathOfTheProblem) {
  EXPECT_THAT(ParseNetworkState(GetParam().yaml),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(
    Documents, ParseNetworkStateRejects,
    ::testing::Values(
        InvalidCase{"SyntaxError", "interfaces: [\n", "nmstate: YAML syntax error at line"},
        InvalidCase{"Empty", "", "(document): is empty"},
        InvalidCase{"NotAMapping", "- a\n- b\n", "(document): must be a mapping"},
        InvalidCase{"NoInterfaces", "routes: {config: []}\n", "nmstate: interfaces: missing"},
        InvalidCase{"InterfacesNotAList", "interfaces: {name: eth0}\n",
                    "interfaces: must be a list"},
        InvalidCase{"UnknownTopLevelKey", "interfaces: []\novs-db: {}\n",
                    "ovs-db: is not supported (supported here: interfaces, dns-resolver, routes)"},
        InvalidCase{"UnknownInterfaceType", "interfaces:\n- {name: team0, type: team}\n",
                    "interfaces[0].type: \"team\" is not supported (ethernet, bond, vlan, "
                    "linux-bridge)"},
        InvalidCase{"MissingType", "interfaces:\n- {name: eth0}\n",
                    "interfaces[0].type: missing (ethernet, bond, vlan or linux-bridge)"},
        InvalidCase{"UnknownInterfaceKey",
                    "interfaces:\n- {name: eth0, type: ethernet, ethtool: {}}\n",
                    "interfaces[0].ethtool: is not supported"},
        InvalidCase{"BadInterfaceName",
                    "interfaces:\n- {name: averyverylongname0, type: ethernet}\n",
                    "interfaces[0].name: \"averyverylongname0\" is not an interface name"},
        InvalidCase{"BadAddress",
                    "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n    enabled: true\n"
                    "    address: [{ip: 192.168.0.300, prefix-length: 24}]\n",
                    "interfaces[0].ipv4.address[0].ip: "},
        InvalidCase{"MissingPrefixLength",
                    "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n    enabled: true\n"
                    "    address: [{ip: 10.0.0.1}, {ip: 10.0.0.2}]\n",
                    "interfaces[0].ipv4.address[0].prefix-length: missing"},
        InvalidCase{"PrefixTooLong",
                    "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n"
                    "    address: [{ip: 10.0.0.1, prefix-length: 33}]\n",
                    "interfaces[0].ipv4.address[0].prefix-length: \"33\" is not an integer from 0 "
                    "to 32"},
        InvalidCase{"WrongFamily",
                    "interfaces:\n- name: eth0\n  type: ethernet\n  ipv4:\n"
                    "    address: [{ip: 'fd00::1', prefix-length: 64}]\n",
                    "interfaces[0].ipv4.address[0].ip: \"fd00::1\" is not an IPv4 address"},
        InvalidCase{"EnabledWithoutAddressOrDhcp",
                    "interfaces:\n- {name: eth0, type: ethernet, ipv4: {enabled: true}}\n",
                    "interfaces[0].ipv4: enabled with neither dhcp needs at least one address"},
        InvalidCase{"DisabledWithAddress",
                    "interfaces:\n- name: eth0\n  type: ethernet\n  ipv6:\n    enabled: false\n"
                    "    address: [{ip: 'fd00::1', prefix-length: 64}]\n",
                    "interfaces[0].ipv6.enabled: is false, yet dhcp, autoconf or an address"},
        InvalidCase{
            "YesIsNotABoolean",
            "interfaces:\n- {name: eth0, type: ethernet, ipv4: {enabled: yes, dhcp: yes}}\n",
            "interfaces[0].ipv4.enabled: \"yes\" is not true or false"},
        InvalidCase{"BadMac",
                    "interfaces:\n- {name: eth0, type: ethernet, mac-address: '52:54:00:e7:05'}\n",
                    "interfaces[0].mac-address: \"52:54:00:e7:05\" is not a MAC address"},
        InvalidCase{"MtuOutOfRange", "interfaces:\n- {name: eth0, type: ethernet, mtu: 70000}\n",
                    "interfaces[0].mtu: \"70000\" is not an integer from 68 to 65535"},
        InvalidCase{"BadState", "interfaces:\n- {name: eth0, type: ethernet, state: ignore}\n",
                    "interfaces[0].state: \"ignore\" is not up, down or absent"},
        InvalidCase{"VlanWithoutBaseIface",
                    "interfaces:\n- {name: eth0.5, type: vlan, vlan: {id: 5}}\n",
                    "interfaces[0].vlan.base-iface: missing"},
        InvalidCase{"VlanWithoutVlanSection", "interfaces:\n- {name: eth0.5, type: vlan}\n",
                    "interfaces[0].vlan: missing (a vlan interface needs it)"},
        InvalidCase{
            "VlanIdOutOfRange",
            "interfaces:\n- {name: eth0.5, type: vlan, vlan: {base-iface: eth0, id: 4095}}\n",
            "interfaces[0].vlan.id: \"4095\" is not an integer from 0 to 4094"},
        InvalidCase{"VlanOnItself",
                    "interfaces:\n- {name: v5, type: vlan, vlan: {base-iface: v5, id: 5}}\n",
                    "interfaces[0].vlan.base-iface: \"v5\" cannot carry this VLAN"},
        InvalidCase{"SectionOfAnotherType",
                    "interfaces:\n- {name: eth0, type: ethernet, link-aggregation: {mode: "
                    "active-backup}}\n",
                    "interfaces[0].link-aggregation: belongs to type bond, not ethernet"},
        InvalidCase{"BadBondMode",
                    "interfaces:\n- {name: bond0, type: bond, link-aggregation: {mode: fastest}}\n",
                    "interfaces[0].link-aggregation.mode: \"fastest\" is not a bond mode"},
        InvalidCase{"UnknownBondOption",
                    "interfaces:\n- name: bond0\n  type: bond\n  link-aggregation:\n"
                    "    mode: active-backup\n    options: {turbo: 1}\n",
                    "interfaces[0].link-aggregation.options.turbo: is not supported"},
        InvalidCase{"PortWithIp",
                    "interfaces:\n- {name: bond0, type: bond, link-aggregation: {mode: "
                    "active-backup, port: [eth0]}}\n- {name: eth0, type: ethernet, ipv4: {dhcp: "
                    "true}}\n",
                    "interfaces[1]: a port of \"bond0\" cannot have IP settings"},
        InvalidCase{"PortOfTwoControllers",
                    "interfaces:\n- {name: bond0, type: bond, link-aggregation: {mode: "
                    "active-backup, port: [eth0]}}\n- {name: br0, type: linux-bridge, bridge: "
                    "{port: [{name: eth0}]}}\n",
                    "interfaces[1]: port \"eth0\" is already a port of \"bond0\""},
        InvalidCase{"DuplicateInterface",
                    "interfaces:\n- {name: eth0, type: ethernet}\n- {name: eth0, type: ethernet}\n",
                    "interfaces[1].name: \"eth0\" is already defined at interfaces[0]"},
        InvalidCase{"AllAbsent", "interfaces:\n- {name: eth0, type: ethernet, state: absent}\n",
                    "interfaces: no interface to configure"},
        InvalidCase{"RouteWithoutInterface",
                    "interfaces:\n- {name: eth0, type: ethernet, ipv4: {dhcp: true}}\nroutes:\n"
                    "  config:\n  - {destination: 10.0.0.0/8, next-hop-address: 10.1.1.1}\n",
                    "routes.config[0].next-hop-interface: missing"},
        InvalidCase{"RouteThroughUnknownInterface",
                    "interfaces:\n- {name: eth0, type: ethernet, ipv4: {dhcp: true}}\nroutes:\n"
                    "  config:\n  - {destination: 10.0.0.0/8, next-hop-interface: eth9}\n",
                    "routes.config[0].next-hop-interface: \"eth9\" is not an interface this "
                    "document configures"},
        InvalidCase{"RouteFamilyDisabled",
                    "interfaces:\n- {name: eth0, type: ethernet, ipv4: {dhcp: true}}\nroutes:\n"
                    "  config:\n  - {destination: '::/0', next-hop-interface: eth0}\n",
                    "routes.config[0].next-hop-interface: IPv6 is not enabled on \"eth0\""},
        InvalidCase{"RouteHostBits",
                    "interfaces:\n- {name: eth0, type: ethernet, ipv4: {dhcp: true}}\nroutes:\n"
                    "  config:\n  - {destination: 10.1.2.3/8, next-hop-interface: eth0}\n",
                    "routes.config[0].destination: \"10.1.2.3/8\" has host bits set (did you mean "
                    "10.0.0.0/8?)"},
        InvalidCase{"RouteNextHopFamily",
                    "interfaces:\n- {name: eth0, type: ethernet, ipv4: {dhcp: true}}\nroutes:\n"
                    "  config:\n  - {destination: 10.0.0.0/8, next-hop-interface: eth0, "
                    "next-hop-address: 'fd00::1'}\n",
                    "routes.config[0].next-hop-address: \"fd00::1\" is not an IPv4 address"},
        InvalidCase{"DnsWithoutFamily",
                    "interfaces:\n- {name: eth0, type: ethernet, ipv4: {dhcp: true}}\n"
                    "dns-resolver: {config: {server: [10.0.0.53, 'fd00::53']}}\n",
                    "dns-resolver.config.server[1]: no interface has IPv6 enabled for fd00::53"},
        InvalidCase{"BadDnsServer",
                    "interfaces:\n- {name: eth0, type: ethernet, ipv4: {dhcp: true}}\n"
                    "dns-resolver: {config: {server: [dns.example.com]}}\n",
                    "dns-resolver.config.server[0]: "},
        InvalidCase{"BadSearchDomain",
                    "interfaces:\n- {name: eth0, type: ethernet, ipv4: {dhcp: true}}\n"
                    "dns-resolver: {config: {search: ['a b']}}\n",
                    "dns-resolver.config.search[0]: \"a b\" is not a domain name"}),
    [](const ::testing::TestParamInfo<InvalidCase>& info) { return info.param.name; });

}  // namespace
}  // namespace assisted::nmstate
