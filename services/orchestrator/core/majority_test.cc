#include "services/orchestrator/core/majority.h"

#include <algorithm>
#include <deque>
#include <random>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace assisted::orchestrator::core {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A little cluster: host i has id "h<i>" and address 10.0.<i/250>.<i%250+1>/16 (and an IPv6
// address when asked); links[i][j] says whether i reaches j.
struct Net {
  std::deque<ConnectivityReport> reports;  // stable addresses
  std::vector<ConnectivityHost> hosts;

  static std::string Ip(int i) { return absl::StrCat("10.0.", i / 250, ".", i % 250 + 1); }
  static std::string Ip6(int i) { return absl::StrCat("fd00::", i + 1); }

  Net(int n, const std::function<bool(int, int)>& link, bool ipv6 = false) {
    for (int i = 0; i < n; ++i) {
      types::v1::Inventory inv;
      types::v1::Interface* nic = inv.add_interfaces();
      nic->set_name("eth0");
      nic->add_ipv4_addresses(Ip(i) + "/16");
      if (ipv6) nic->add_ipv6_addresses(Ip6(i) + "/64");
      ConnectivityReport& r = reports.emplace_back();
      for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        RemoteHostConnectivity remote;
        remote.host_id = absl::StrCat("h", j);
        bool ok = link(i, j);
        remote.l2.push_back({Ip(j), "eth0", ok});
        remote.l3.push_back({Ip(j), ok, 1.0, 0});
        if (ipv6) remote.l3.push_back({Ip6(j), ok, 1.0, 0});
        r.remote_hosts.push_back(std::move(remote));
      }
      hosts.push_back({absl::StrCat("h", i), Addresses(inv), &r});
    }
  }
};

std::vector<net::Cidr> Machine(const char* cidr = "10.0.0.0/16") {
  return {*net::Cidr::Parse(cidr)};
}

const MajorityGroup& L2(const MajorityGroups& g) { return g.groups.at("10.0.0.0/16"); }

TEST(Majority, FullMeshIsOneGroup) {
  Net net(5, [](int, int) { return true; });
  MajorityGroups g = ComputeL2Groups(net.hosts, Machine());
  EXPECT_THAT(L2(g).hosts, ElementsAre("h0", "h1", "h2", "h3", "h4"));
  EXPECT_TRUE(L2(g).IsMajority());
}

TEST(Majority, UnreachableHostIsLeftOut) {
  Net net(5, [](int i, int j) { return i != 3 && j != 3; });
  MajorityGroup g = L2(ComputeL2Groups(net.hosts, Machine()));
  EXPECT_THAT(g.hosts, ElementsAre("h0", "h1", "h2", "h4"));
  EXPECT_FALSE(g.Contains("h3"));
  EXPECT_EQ(g.participants, 5);
  EXPECT_TRUE(g.IsMajority());
}

TEST(Majority, OneWayLinksDoNotCount) {
  // h2 reaches everyone but nobody answers it.
  Net net(4, [](int, int j) { return j != 2; });
  MajorityGroup g = L2(ComputeL2Groups(net.hosts, Machine()));
  EXPECT_FALSE(g.Contains("h2"));
  EXPECT_EQ(g.hosts.size(), 3u);
}

TEST(Majority, SplitClusterHasNoMajority) {
  Net net(6, [](int i, int j) { return (i < 3) == (j < 3); });
  MajorityGroup g = L2(ComputeL2Groups(net.hosts, Machine()));
  EXPECT_EQ(g.hosts.size(), 3u);
  EXPECT_FALSE(g.IsMajority());
}

TEST(Majority, OnlyHostsInTheNetworkTakePart) {
  Net net(3, [](int, int) { return true; });
  MajorityGroups g = ComputeL2Groups(net.hosts, Machine("192.168.0.0/24"));
  EXPECT_THAT(g.groups, IsEmpty());
}

TEST(Majority, L3GroupsPerFamily) {
  Net net(
      4, [](int i, int j) { return i != 1 && j != 1; }, /*ipv6=*/true);
  MajorityGroups g = ComputeL3Groups(net.hosts);
  EXPECT_THAT(g.groups.at("IPv4").hosts, ElementsAre("h0", "h2", "h3"));
  EXPECT_THAT(g.groups.at("IPv6").hosts, ElementsAre("h0", "h2", "h3"));
  EXPECT_EQ(g.ToJson(), R"({"IPv4":["h0","h2","h3"],"IPv6":["h0","h2","h3"]})");
}

TEST(Majority, InputOrderDoesNotMatter) {
  Net net(7, [](int i, int j) { return (i + j) % 5 != 0; });
  MajorityGroups a = ComputeL2Groups(net.hosts, Machine());
  std::reverse(net.hosts.begin(), net.hosts.end());
  MajorityGroups b = ComputeL2Groups(net.hosts, Machine());
  EXPECT_EQ(L2(a).hosts, L2(b).hosts);
}

// The shape that made the exact search explode: many hosts, many missing links at random.
// The result must still be a group (everyone linked both ways with everyone) that no other
// host could join.
TEST(Majority, RandomPartialConnectivityGivesAMaximalGroup) {
  for (double p : {0.5, 0.9, 0.99}) {
    std::mt19937 rng(42);
    std::bernoulli_distribution coin(p);
    const int n = 300;
    std::vector<std::vector<bool>> link(n, std::vector<bool>(n));
    for (auto& row : link) {
      for (std::size_t j = 0; j < row.size(); ++j) row[j] = coin(rng);
    }
    Net net(n, [&link](int i, int j) { return link[i][j]; });
    MajorityGroup g = L2(ComputeL2Groups(net.hosts, Machine()));
    std::vector<int> members;
    for (const std::string& id : g.hosts) members.push_back(std::stoi(id.substr(1)));
    for (int a : members) {
      for (int b : members) {
        if (a != b) {
          ASSERT_TRUE(link[a][b] && link[b][a]) << "p=" << p;
        }
      }
    }
    std::set<int> in(members.begin(), members.end());
    for (int v = 0; v < n; ++v) {
      if (in.count(v)) continue;
      bool joins = std::all_of(members.begin(), members.end(),
                               [&](int m) { return link[v][m] && link[m][v]; });
      EXPECT_FALSE(joins) << "h" << v << " could join, p=" << p;
    }
    if (p >= 0.99) {
      EXPECT_GE(members.size(), 3u);
    }
  }
}

}  // namespace
}  // namespace assisted::orchestrator::core
