#include "services/orchestrator/core/majority.h"

#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <utility>

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

// The algorithm of majority.h written the plain way (boolean matrices, degrees recounted each
// round, every lookup through a std::map), to hold the fast one to the same answers.
class ReferenceGroups {
 public:
  // `in_graph(address)`: the graphs (indices into `keys`) an address belongs to; `probes(remote)`:
  // (remote ip, successful) pairs of the layer.
  ReferenceGroups(
      const std::vector<ConnectivityHost>& input, const std::vector<std::string>& keys,
      const std::function<std::vector<int>(const InterfaceAddress&)>& in_graph,
      const std::function<std::vector<std::pair<std::string, bool>>(const RemoteHostConnectivity&)>&
          probes) {
    std::vector<const ConnectivityHost*> hosts;
    for (const ConnectivityHost& h : input) hosts.push_back(&h);
    std::sort(hosts.begin(), hosts.end(),
              [](const ConnectivityHost* a, const ConnectivityHost* b) { return a->id < b->id; });
    const int n = static_cast<int>(hosts.size());
    // Address text -> (owner, graphs); a later host's claim wins.
    std::map<std::string, std::pair<int, std::vector<int>>> owner;
    std::vector<std::vector<bool>> participant(keys.size(), std::vector<bool>(n));
    for (int h = 0; h < n; ++h) {
      for (const InterfaceAddress& a : hosts[h]->addresses) {
        for (int g : in_graph(a)) participant[g][h] = true;
        owner[a.ip.ToString()] = {h, in_graph(a)};
      }
    }
    for (std::size_t g = 0; g < keys.size(); ++g) {
      std::vector<std::vector<bool>> reached(n, std::vector<bool>(n));
      for (int from = 0; from < n; ++from) {
        if (hosts[from]->report == nullptr || !participant[g][from]) continue;
        for (const RemoteHostConnectivity& remote : hosts[from]->report->remote_hosts) {
          for (const auto& [ip, ok] : probes(remote)) {
            absl::StatusOr<net::IpAddress> parsed = net::IpAddress::Parse(ip);
            if (!ok || !parsed.ok() || owner.count(parsed->ToString()) == 0) continue;
            const auto& [to, graphs] = owner.at(parsed->ToString());
            if (to != from && std::count(graphs.begin(), graphs.end(), static_cast<int>(g)))
              reached[from][to] = true;
          }
        }
      }
      std::set<int> alive;
      for (int h = 0; h < n; ++h) {
        if (participant[g][h]) alive.insert(h);
      }
      if (alive.empty()) continue;
      auto linked = [&](int a, int b) { return a != b && reached[a][b] && reached[b][a]; };
      auto links_in = [&](int h, const std::set<int>& set) {
        return static_cast<int>(
            std::count_if(set.begin(), set.end(), [&](int o) { return linked(h, o); }));
      };
      MajorityGroup& group = groups.groups[keys[g]];
      group.participants = static_cast<int>(alive.size());
      std::vector<int> removed;
      while (true) {
        std::map<int, int> degree;
        for (int h : alive) degree[h] = links_in(h, alive);
        int weakest = *alive.begin();
        for (int h : alive) {
          if (degree[h] < degree[weakest]) weakest = h;
        }
        if (degree[weakest] == static_cast<int>(alive.size()) - 1) break;
        alive.erase(weakest);
        removed.push_back(weakest);
      }
      for (auto it = removed.rbegin(); it != removed.rend(); ++it) {
        if (links_in(*it, alive) == static_cast<int>(alive.size())) alive.insert(*it);
      }
      for (int h : alive) group.hosts.push_back(hosts[h]->id);
    }
  }

  MajorityGroups groups;
};

// Random clusters of every shape the fast path cares about: sizes around the 64-bit row words,
// two overlapping machine networks, IPv6 addresses spelled otherwise in probes, peers probed in
// any order, probes of unknown or unparseable addresses, an address two hosts claim, hosts that
// have not reported, and the hosts given in any order.
TEST(Majority, AnswersAsThePlainAlgorithmOnRandomClusters) {
  std::mt19937 rng(7);
  const std::vector<net::Cidr> networks = {*net::Cidr::Parse("10.0.0.0/16"),
                                           *net::Cidr::Parse("10.0.0.0/24")};
  for (int round = 0; round < 25; ++round) {
    const int n = std::uniform_int_distribution<int>(1, 130)(rng);
    const double up = std::uniform_real_distribution<double>(0.3, 1.0)(rng);
    std::bernoulli_distribution link(up), rare(0.03), often(0.5);
    std::deque<ConnectivityReport> reports;
    std::vector<ConnectivityHost> hosts;
    std::vector<std::string> ip4(n), ip6(n);
    for (int i = 0; i < n; ++i) {
      // Some hosts sit outside the /24; now and then one claims its neighbour's address.
      const int octet = rare(rng) && i > 0 ? i - 1 : i;
      ip4[i] = absl::StrCat("10.0.", octet % 3 == 0 ? 1 : 0, ".", octet + 1);
      ip6[i] = absl::StrCat("fd00::", absl::Hex(i + 1));
    }
    for (int i = 0; i < n; ++i) {
      types::v1::Inventory inv;
      types::v1::Interface* nic = inv.add_interfaces();
      nic->set_name("eth0");
      nic->add_ipv4_addresses(ip4[i] + "/16");
      if (often(rng)) nic->add_ipv6_addresses(ip6[i] + "/64");
      ConnectivityReport& r = reports.emplace_back();
      for (int j = 0; j < n; ++j) {
        if (j == i && !rare(rng)) continue;
        RemoteHostConnectivity remote;
        remote.host_id = absl::StrCat("h", j);
        const bool ok = link(rng);
        remote.l2.push_back({ip4[j], "eth0", ok});
        remote.l3.push_back({ip4[j], ok, 1.0, 0});
        remote.l3.push_back(
            {rare(rng) ? absl::StrCat("fd00:0:0::", absl::Hex(j + 1)) : ip6[j], link(rng), 1.0, 0});
        if (rare(rng))
          remote.l2.push_back({rare(rng) ? "not an address" : "10.0.9.9", "eth0", true});
        r.remote_hosts.push_back(std::move(remote));
      }
      if (rare(rng)) std::shuffle(r.remote_hosts.begin(), r.remote_hosts.end(), rng);
      hosts.push_back({absl::StrCat("h", i), Addresses(inv), rare(rng) ? nullptr : &r});
    }
    std::shuffle(hosts.begin(), hosts.end(), rng);

    const ReferenceGroups l2(
        hosts, {networks[0].ToString(), networks[1].ToString()},
        [&](const InterfaceAddress& a) {
          std::vector<int> in;
          for (int k = 0; k < 2; ++k) {
            if (networks[k].Contains(a.ip)) in.push_back(k);
          }
          return in;
        },
        [](const RemoteHostConnectivity& r) {
          std::vector<std::pair<std::string, bool>> probes;
          for (const L2Probe& p : r.l2) probes.emplace_back(p.remote_ip, p.successful);
          return probes;
        });
    const ReferenceGroups l3(
        hosts, {"IPv4", "IPv6"},
        [](const InterfaceAddress& a) {
          return std::vector<int>{a.ip.family() == net::Family::kIpv4 ? 0 : 1};
        },
        [](const RemoteHostConnectivity& r) {
          std::vector<std::pair<std::string, bool>> probes;
          for (const L3Probe& p : r.l3) probes.emplace_back(p.remote_ip, p.successful);
          return probes;
        });
    auto same = [&](const MajorityGroups& fast, const MajorityGroups& plain) {
      ASSERT_EQ(fast.ToJson(), plain.ToJson()) << "round " << round << ", " << n << " hosts";
      for (const auto& [key, group] : plain.groups) {
        EXPECT_EQ(fast.groups.at(key).participants, group.participants) << key;
      }
    };
    same(ComputeL2Groups(hosts, networks), l2.groups);
    same(ComputeL3Groups(hosts), l3.groups);
  }
}

}  // namespace
}  // namespace assisted::orchestrator::core
