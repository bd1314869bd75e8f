// File: services/orchestrator/core/majority.cc

#include "services/orchestrator/core/majority.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "nlohmann/json.hpp"

namespace assisted::orchestrator::core {

namespace {

// A square bit matrix with one row of n bits per host.
class BitMatrix {
 public:
  explicit BitMatrix(int n) : words_((n + 63) / 64), bits_(static_cast<std::size_t>(n) * words_) {}
  void Set(int i, int j) { bits_[Index(i, j)] |= Bit(j); }
  uint64_t* Row(int i) { return &bits_[static_cast<std::size_t>(i) * words_]; }
  const uint64_t* Row(int i) const { return &bits_[static_cast<std::size_t>(i) * words_]; }
  int words() const { return words_; }

 private:
  std::size_t Index(int i, int j) const { return static_cast<std::size_t>(i) * words_ + j / 64; }
  static uint64_t Bit(int j) { return uint64_t{1} << (j % 64); }
  int words_;
  std::vector<uint64_t> bits_;
};

// One network's (or family's) directed "a reached b" relation over all hosts.
struct Graph {
  explicit Graph(int n) : out(n), in(n), participant(n, false) {}
  BitMatrix out;
  BitMatrix in;
  std::vector<bool> participant;
};

int PopCount(const uint64_t* row, const std::vector<uint64_t>& mask) {
  int count = 0;
  for (std::size_t w = 0; w < mask.size(); ++w) count += __builtin_popcountll(row[w] & mask[w]);
  return count;
}

// The maximal mutually-linked set found by peeling (see majority.h), as host indices.
std::vector<int> DenseGroup(const Graph& g) {
  const int n = static_cast<int>(g.participant.size());
  const int words = g.out.words();
  BitMatrix mutual(n);
  std::vector<uint64_t> alive(words, 0);
  for (int i = 0; i < n; ++i) {
    if (!g.participant[i]) continue;
    alive[i / 64] |= uint64_t{1} << (i % 64);
    for (int w = 0; w < words; ++w) mutual.Row(i)[w] = g.out.Row(i)[w] & g.in.Row(i)[w];
    mutual.Row(i)[i / 64] &= ~(uint64_t{1} << (i % 64));  // no self-links
  }
  std::vector<int> degree(n, 0);
  int alive_count = 0;
  for (int i = 0; i < n; ++i) {
    if (!g.participant[i]) continue;
    ++alive_count;
    degree[i] = PopCount(mutual.Row(i), alive);
  }
  auto is_alive = [&alive](int i) { return (alive[i / 64] >> (i % 64)) & 1; };
  std::vector<int> removed;
  while (alive_count > 0) {
    int weakest = -1;
    for (int i = 0; i < n; ++i) {
      if (is_alive(i) && (weakest < 0 || degree[i] < degree[weakest])) weakest = i;
    }
    if (degree[weakest] == alive_count - 1) break;  // everyone left links with everyone
    alive[weakest / 64] &= ~(uint64_t{1} << (weakest % 64));
    --alive_count;
    removed.push_back(weakest);
    const uint64_t* row = mutual.Row(weakest);
    for (int w = 0; w < words; ++w) {
      for (uint64_t bits = row[w] & alive[w]; bits != 0; bits &= bits - 1) {
        --degree[w * 64 + __builtin_ctzll(bits)];
      }
    }
  }
  // Make the set maximal: a dropped host linked with every member joins.
  for (auto it = removed.rbegin(); it != removed.rend(); ++it) {
    const uint64_t* row = mutual.Row(*it);
    bool linked_to_all = true;
    for (int w = 0; w < words && linked_to_all; ++w)
      linked_to_all = (row[w] & alive[w]) == alive[w];
    if (linked_to_all) alive[*it / 64] |= uint64_t{1} << (*it % 64);
  }
  std::vector<int> members;
  for (int i = 0; i < n; ++i) {
    if (is_alive(i)) members.push_back(i);
  }
  return members;
}

// Where an address lives: its owner (index into the sorted hosts) and the graphs it is part of.
struct AddressOwner {
  int host;
  std::vector<int> graphs;
};

// Builds the graphs `keys` names: `graphs_of(address)` says which graphs an address belongs to;
// `probes(remote)` yields (remote ip, successful) pairs of the relevant layer.
template <typename GraphsOf, typename ForEachProbe>
MajorityGroups Compute(const std::vector<ConnectivityHost>& input,
                       const std::vector<std::string>& keys, GraphsOf graphs_of,
                       ForEachProbe for_each_probe) {
  // Sort by id so that tie-breaks do not depend on the caller's order.
  std::vector<const ConnectivityHost*> hosts;
  for (const ConnectivityHost& h : input) hosts.push_back(&h);
  std::sort(hosts.begin(), hosts.end(),
            [](const ConnectivityHost* a, const ConnectivityHost* b) { return a->id < b->id; });
  const int n = static_cast<int>(hosts.size());
  std::vector<Graph> graphs(keys.size(), Graph(n));
  absl::flat_hash_map<std::string, AddressOwner> owners;
  for (int h = 0; h < n; ++h) {
    for (const InterfaceAddress& a : hosts[h]->addresses) {
      std::vector<int> member_of = graphs_of(a);
      for (int g : member_of) graphs[g].participant[h] = true;
      owners[a.ip.ToString()] = {h, std::move(member_of)};
    }
  }
  for (int from = 0; from < n; ++from) {
    if (hosts[from]->report == nullptr) continue;
    for (const RemoteHostConnectivity& remote : hosts[from]->report->remote_hosts) {
      for_each_probe(remote, [&](const std::string& ip, bool successful) {
        if (!successful) return;
        auto it = owners.find(ip);
        if (it == owners.end()) {
          absl::StatusOr<net::IpAddress> parsed = net::IpAddress::Parse(ip);
          if (!parsed.ok()) return;
          it = owners.find(parsed->ToString());  // a differently spelled IPv6 address
          if (it == owners.end()) return;
        }
        const int to = it->second.host;
        if (to == from) return;
        for (int g : it->second.graphs) {
          if (!graphs[g].participant[from]) continue;
          graphs[g].out.Set(from, to);
          graphs[g].in.Set(to, from);
        }
      });
    }
  }
  MajorityGroups result;
  for (std::size_t g = 0; g < keys.size(); ++g) {
    MajorityGroup group;
    group.participants = static_cast<int>(
        std::count(graphs[g].participant.begin(), graphs[g].participant.end(), true));
    if (group.participants == 0) continue;
    for (int i : DenseGroup(graphs[g])) group.hosts.push_back(hosts[i]->id);
    result.groups[keys[g]] = std::move(group);
  }
  return result;
}

}  // namespace

bool MajorityGroup::Contains(const std::string& id) const {
  return std::binary_search(hosts.begin(), hosts.end(), id);
}

std::string MajorityGroups::ToJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, group] : groups) j[key] = group.hosts;
  return j.dump();
}

MajorityGroups ComputeL2Groups(const std::vector<ConnectivityHost>& hosts,
                               const std::vector<net::Cidr>& machine_networks) {
  std::vector<std::string> keys;
  for (const net::Cidr& c : machine_networks) keys.push_back(c.ToString());
  return Compute(
      hosts, keys,
      [&machine_networks](const InterfaceAddress& a) {
        std::vector<int> in;
        for (std::size_t i = 0; i < machine_networks.size(); ++i) {
          if (machine_networks[i].Contains(a.ip)) in.push_back(static_cast<int>(i));
        }
        return in;
      },
      [](const RemoteHostConnectivity& remote, const auto& visit) {
        for (const L2Probe& p : remote.l2) visit(p.remote_ip, p.successful);
      });
}

MajorityGroups ComputeL3Groups(const std::vector<ConnectivityHost>& hosts) {
  return Compute(
      hosts, {"IPv4", "IPv6"},
      [](const InterfaceAddress& a) {
        return std::vector<int>{a.ip.family() == net::Family::kIpv4 ? 0 : 1};
      },
      [](const RemoteHostConnectivity& remote, const auto& visit) {
        for (const L3Probe& p : remote.l3) visit(p.remote_ip, p.successful);
      });
}

}  // namespace assisted::orchestrator::core
