#include "lib/nmstate/keyfile.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/nmstate/nmcli_offline.h"
#include "lib/testing/status_matchers.h"

namespace assisted::nmstate {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Pair;

std::string Testdata(absl::string_view name) {
  absl::StatusOr<std::string> text =
      ReadFile(absl::StrCat("lib/nmstate/testdata/", name), "test document");
  EXPECT_THAT(text, IsOk());
  return text.value_or("");
}

struct Case {
  std::string document;  // file under testdata/
  // Keyfile name -> "section.key=value" entries it must contain.
  std::map<std::string, std::vector<std::string>> expected;
  // Keyfile name -> "section.key" entries it must not contain.
  std::map<std::string, std::vector<std::string>> absent = {};
};

class KeyfilesFor : public ::testing::TestWithParam<Case> {};

TEST_P(KeyfilesFor, HaveTheKeyFieldsAndNetworkManagerReadsThemUnchanged) {
  absl::StatusOr<std::vector<Keyfile>> keyfiles = NmStateToKeyfiles(Testdata(GetParam().document));
  ASSERT_THAT(keyfiles, IsOk());

  std::set<std::string> names;
  for (const Keyfile& keyfile : *keyfiles) {
    names.insert(keyfile.file_name);
    EXPECT_EQ(keyfile.file_name, keyfile.interface_name + ".nmconnection");
  }
  std::set<std::string> expected_names;
  for (const auto& [name, entries] : GetParam().expected) expected_names.insert(name);
  EXPECT_EQ(names, expected_names);

  for (const Keyfile& keyfile : *keyfiles) {
    SCOPED_TRACE(keyfile.file_name + ":\n" + keyfile.contents);
    const KeyfileValues ours = ParseKeyfileValues(keyfile.contents);
    EXPECT_EQ(ours.at("connection.id"), keyfile.interface_name);
    EXPECT_EQ(ours.at("connection.interface-name"), keyfile.interface_name);
    EXPECT_EQ(ours.at("connection.uuid"), ConnectionUuid(keyfile.interface_name));
    EXPECT_EQ(ours.at("connection.autoconnect-priority"), "1");
    auto expected = GetParam().expected.find(keyfile.file_name);
    if (expected != GetParam().expected.end()) {
      for (const std::string& entry : expected->second) {
        const size_t eq = entry.find('=');
        EXPECT_THAT(ours, Contains(Pair(entry.substr(0, eq), entry.substr(eq + 1))));
      }
    }
    auto absent = GetParam().absent.find(keyfile.file_name);
    if (absent != GetParam().absent.end()) {
      for (const std::string& key : absent->second) EXPECT_EQ(ours.count(key), 0u) << key;
    }

    // Every key we wrote survives NetworkManager's parser with the same value (its parser drops
    // unknown keys and clamps bad values silently, so exit 0 alone proves little).
    absl::StatusOr<KeyfileValues> normalised = NmcliNormalise(keyfile.contents);
    ASSERT_THAT(normalised, IsOk());
    for (const auto& [key, value] : ours) {
      if (key == "connection.autoconnect") continue;  // the command itself sets it
      EXPECT_THAT(*normalised, Contains(Pair(key, value))) << "nmcli changed or dropped it";
    }
  }
}

Case SeedHost(const std::string& document, const std::string& mac, const std::string& ip) {
  return Case{document,
              {{"enp2s0.nmconnection",
                {"connection.type=ethernet", "connection.autoconnect=true",
                 "ethernet.cloned-mac-address=" + mac, "ipv4.method=manual",
                 "ipv4.address1=" + ip + "/23,192.168.0.1", "ipv4.dns=192.168.0.10;",
                 "ipv6.method=disabled"}}},
              {{"enp2s0.nmconnection", {"ipv4.route1", "ipv4.dns-search", "ethernet.mtu"}}}};
}

INSTANTIATE_TEST_SUITE_P(
    Documents, KeyfilesFor,
    ::testing::Values(
        SeedHost("seed002_asus3-vm1.yaml", "52:54:00:E7:05:72", "192.168.0.116"),
        SeedHost("seed002_asus3-vm2.yaml", "52:54:00:95:FD:F3", "192.168.0.117"),
        SeedHost("seed002_asus3-vm3.yaml", "52:54:00:E8:B9:18", "192.168.0.118"),
        Case{"seed003_nmstateconfig_master-0.yaml",
             {{"eno1.nmconnection",
               {"ipv4.method=manual", "ipv4.address1=192.168.1.100/24,192.168.1.1",
                "ipv4.dns=192.168.1.1;", "ipv6.method=disabled"}}}},
        Case{"bond_vlan.yaml",
             {{"bond0.nmconnection",
               {"connection.type=bond", "ethernet.mtu=9000",
                "ethernet.cloned-mac-address=00:EF:44:21:E6:A5", "bond.mode=active-backup",
                "bond.miimon=140", "bond.primary=eno1", "ipv4.method=disabled", "ipv6.method=auto",
                "ipv6.dns=fd00::53;", "ipv6.ignore-auto-dns=true"}},
              {"bond0.300.nmconnection",
               {"connection.type=vlan", "vlan.id=300", "vlan.parent=bond0", "ipv4.method=manual",
                "ipv4.address1=10.10.10.14/24,10.10.10.10", "ipv4.dns=10.10.10.11;10.10.10.12;",
                "ipv4.dns-search=example.com;lab.example.com;",
                "ipv4.route1=172.16.0.0/16,10.10.10.1,150", "ipv4.route1_options=table=200",
                "ipv6.method=disabled"}},
              {"eno1.nmconnection",
               {"connection.type=ethernet", "connection.master=bond0", "connection.slave-type=bond",
                "ethernet.mtu=9000"}},
              {"eno2.nmconnection",
               {"connection.type=ethernet", "connection.master=bond0",
                "connection.slave-type=bond"}}},
             {{"eno1.nmconnection", {"ipv4.method", "ipv6.method"}},
              {"eno2.nmconnection", {"ipv4.method", "ipv6.method"}},
              {"bond0.300.nmconnection", {"ipv4.route2", "ethernet.mtu"}}}},
        Case{"bridge_dual_stack.yaml",
             {{"br-ex.nmconnection",
               {"connection.type=bridge", "bridge.stp=false", "ethernet.mtu=1500",
                "ipv4.method=manual", "ipv4.address1=192.0.2.10/24,192.0.2.1",
                "ipv4.address2=192.0.2.11/24", "ipv4.dns=192.0.2.53;", "ipv6.method=manual",
                "ipv6.address1=2001:db8:0:1::10/64,2001:db8:0:1::1", "ipv6.dns=2001:db8:0:1::53;"}},
              {"ens3.nmconnection", {"connection.master=br-ex", "connection.slave-type=bridge"}},
              {"ens4.nmconnection",
               {"ipv4.method=auto", "ipv4.never-default=true",
                "ipv4.route1=198.51.100.0/24,0.0.0.0,50", "ipv4.route2=203.0.113.0/24",
                "ipv6.method=dhcp", "ipv6.ignore-auto-dns=true"}}},
             {{"br-ex.nmconnection", {"ipv4.route1", "ipv6.route1", "ipv4.dns-search"}},
              {"ens4.nmconnection", {"ipv4.dns", "ipv4.ignore-auto-dns", "ipv6.dns"}}}}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = info.param.document.substr(0, info.param.document.find('.'));
      for (char& c : name) {
        if (!absl::ascii_isalnum(c)) c = '_';
      }
      return name;
    });

TEST(Keyfiles, SeedHostKeyfileIsExactlyThis) {
  absl::StatusOr<std::vector<Keyfile>> keyfiles =
      NmStateToKeyfiles(Testdata("seed002_asus3-vm1.yaml"));
  ASSERT_THAT(keyfiles, IsOk());
  ASSERT_EQ(keyfiles->size(), 1u);
  EXPECT_EQ((*keyfiles)[0].contents, absl::StrCat(R"([connection]
id=enp2s0
uuid=)",
                                                  ConnectionUuid("enp2s0"), R"(
type=ethernet
interface-name=enp2s0
autoconnect=true
autoconnect-priority=1

[ethernet]
cloned-mac-address=52:54:00:E7:05:72

[ipv4]
method=manual
address1=192.168.0.116/23,192.168.0.1
dns=192.168.0.10;

[ipv6]
method=disabled
)"));
}

TEST(Keyfiles, DownInterfaceDoesNotAutoconnect) {
  absl::StatusOr<std::vector<Keyfile>> keyfiles =
      NmStateToKeyfiles("interfaces:\n- {name: eth1, type: ethernet, state: down}\n");
  ASSERT_THAT(keyfiles, IsOk());
  EXPECT_EQ(ParseKeyfileValues((*keyfiles)[0].contents).at("connection.autoconnect"), "false");
}

TEST(Keyfiles, UuidsAreStablePerInterfaceName) {
  EXPECT_EQ(ConnectionUuid("eth0"), ConnectionUuid("eth0"));
  EXPECT_NE(ConnectionUuid("eth0"), ConnectionUuid("eth1"));
  EXPECT_EQ(ConnectionUuid("eth0").size(), 36u);
  EXPECT_EQ(ConnectionUuid("eth0")[14], '5');
}

TEST(Keyfiles, InvalidDocumentIsInvalidArgument) {
  EXPECT_THAT(NmStateToKeyfiles("interfaces:\n- {name: tun0, type: tun}\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("interfaces[0].type: \"tun\" is not supported")));
}

}  // namespace
}  // namespace assisted::nmstate
