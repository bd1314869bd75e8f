// File: services/orchestrator/core/majority.cc

#include "services/orchestrator/core/majority.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
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

// Transposes a 64 x 64 bit block in place (bit c of word r moves to bit r of word c) in six
// rounds of swapping ever smaller sub-blocks across the diagonal (Hacker's Delight, 7-3).
void TransposeBlock(uint64_t block[64]) {
  uint64_t low = 0x00000000FFFFFFFFULL;  // the low `width` bits of each `2 * width`
  for (int width = 32; width != 0; width >>= 1, low ^= low << width) {
    for (int k = 0; k < 64; k = ((k | width) + 1) & ~width) {
      const uint64_t swap = ((block[k] >> width) ^ block[k | width]) & low;
      block[k] ^= swap << width;
      block[k | width] ^= swap;
    }
  }
}

// `m` transposed: row j of the result holds bit i when row i of `m` holds bit j.
BitMatrix Transposed(const BitMatrix& m, int n) {
  BitMatrix t(n);
  const int words = m.words();
  uint64_t block[64];
  for (int row_word = 0; row_word < words; ++row_word) {
    for (int col_word = 0; col_word < words; ++col_word) {
      for (int r = 0; r < 64; ++r) {
        const int row = row_word * 64 + r;
        block[r] = row < n ? m.Row(row)[col_word] : 0;
      }
      TransposeBlock(block);
      for (int c = 0; c < 64; ++c) {
        const int row = col_word * 64 + c;
        if (row < n) t.Row(row)[row_word] = block[c];
      }
    }
  }
  return t;
}

// One network's (or family's) directed "a reached b" relation over all hosts.
struct Graph {
  explicit Graph(int n) : out(n), participant(n, false) {}
  BitMatrix out;
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
  // Two-way links: i reached j (row i of out) and j reached i (row i of out transposed).
  BitMatrix mutual = Transposed(g.out, n);
  std::vector<uint64_t> alive(words, 0);
  for (int i = 0; i < n; ++i) {
    uint64_t* row = mutual.Row(i);
    if (!g.participant[i]) {
      std::fill(row, row + words, 0);
      continue;
    }
    alive[i / 64] |= uint64_t{1} << (i % 64);
    for (int w = 0; w < words; ++w) row[w] &= g.out.Row(i)[w];
    row[i / 64] &= ~(uint64_t{1} << (i % 64));  // no self-links
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

// Every host address the probes may name: its owner (index into the sorted hosts) and the
// graphs it is part of. Reading the probes is most of the work (a 2,000-host cluster reports
// 4 million), so a probe is matched against the address after the last one found before any
// hash lookup: agents probe their peers in the order the step listed them, which is the
// hosts' order, so nearly every probe costs one short string comparison.
class AddressBook {
 public:
  struct Entry {
    std::string ip;  // canonical text (net::IpAddress::ToString)
    int host = 0;
    absl::InlinedVector<int, 2> graphs;
  };

  // An address two hosts claim belongs to the one added last.
  void Add(std::string ip, int host, absl::InlinedVector<int, 2> graphs) {
    auto [it, added] = index_.try_emplace(ip, entries_.size());
    if (added) {
      entries_.push_back({std::move(ip), host, std::move(graphs)});
    } else {
      entries_[it->second].host = host;
      entries_[it->second].graphs = std::move(graphs);
    }
  }

  // The entry of `ip` (any spelling of it), or nullptr. `*next` and the entry after it are
  // tried first (the one after: a peer whose probe failed, or the prober itself, sits between);
  // `*next` is left after the entry found.
  const Entry* Find(const std::string& ip, std::size_t* next) const {
    for (std::size_t guess = *next; guess < std::min(*next + 2, entries_.size()); ++guess) {
      if (entries_[guess].ip == ip) {
        *next = guess + 1;
        return &entries_[guess];
      }
    }
    auto it = index_.find(ip);
    if (it == index_.end()) {
      absl::StatusOr<net::IpAddress> parsed = net::IpAddress::Parse(ip);
      if (!parsed.ok()) return nullptr;
      it = index_.find(parsed->ToString());  // a differently spelled IPv6 address
      if (it == index_.end()) return nullptr;
    }
    *next = it->second + 1;
    return &entries_[it->second];
  }

 private:
  std::vector<Entry> entries_;  // in the order added
  absl::flat_hash_map<std::string, std::size_t> index_;
};

// How many peers ahead the probe loop fetches: enough to cover a memory access.
constexpr std::size_t kPrefetchAhead = 16;

// Builds the graphs `keys` names: `graphs_of(address)` says which graphs an address belongs to;
// `probes_of(remote)` is the probes of the relevant layer (L2Probe or L3Probe: remote_ip,
// successful).
template <typename GraphsOf, typename ProbesOf>
MajorityGroups Compute(const std::vector<ConnectivityHost>& input,
                       const std::vector<std::string>& keys, GraphsOf graphs_of,
                       ProbesOf probes_of) {
  // Sort by id so that tie-breaks do not depend on the caller's order.
  std::vector<const ConnectivityHost*> hosts;
  for (const ConnectivityHost& h : input) hosts.push_back(&h);
  std::sort(hosts.begin(), hosts.end(),
            [](const ConnectivityHost* a, const ConnectivityHost* b) { return a->id < b->id; });
  const int n = static_cast<int>(hosts.size());
  std::vector<Graph> graphs(keys.size(), Graph(n));
  AddressBook addresses;
  for (int h = 0; h < n; ++h) {
    for (const InterfaceAddress& a : hosts[h]->addresses) {
      absl::InlinedVector<int, 2> member_of = graphs_of(a);
      for (int g : member_of) graphs[g].participant[h] = true;
      addresses.Add(a.ip.ToString(), h, std::move(member_of));
    }
  }
  for (int from = 0; from < n; ++from) {
    if (hosts[from]->report == nullptr) continue;
    const std::vector<RemoteHostConnectivity>& remotes = hosts[from]->report->remote_hosts;
    std::size_t next = 0;
    for (std::size_t r = 0; r < remotes.size(); ++r) {
      // Each peer's probes live in a heap block of their own; waiting for them one by one
      // was most of the time at 2,000 hosts, so they are fetched ahead.
      if (r + kPrefetchAhead < remotes.size()) {
        const auto& ahead = probes_of(remotes[r + kPrefetchAhead]);
        if (!ahead.empty()) {
          __builtin_prefetch(&ahead.front().remote_ip);
          __builtin_prefetch(&ahead.front().successful);
        }
      }
      for (const auto& probe : probes_of(remotes[r])) {
        if (!probe.successful) continue;
        const AddressBook::Entry* to = addresses.Find(probe.remote_ip, &next);
        if (to == nullptr || to->host == from) continue;
        for (int g : to->graphs) {
          if (graphs[g].participant[from]) graphs[g].out.Set(from, to->host);
        }
      }
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
        absl::InlinedVector<int, 2> in;
        for (std::size_t i = 0; i < machine_networks.size(); ++i) {
          if (machine_networks[i].Contains(a.ip)) in.push_back(static_cast<int>(i));
        }
        return in;
      },
      [](const RemoteHostConnectivity& remote) -> const std::vector<L2Probe>& {
        return remote.l2;
      });
}

MajorityGroups ComputeL3Groups(const std::vector<ConnectivityHost>& hosts) {
  return Compute(
      hosts, {"IPv4", "IPv6"},
      [](const InterfaceAddress& a) {
        return absl::InlinedVector<int, 2>{a.ip.family() == net::Family::kIpv4 ? 0 : 1};
      },
      [](const RemoteHostConnectivity& remote) -> const std::vector<L3Probe>& {
        return remote.l3;
      });
}

}  // namespace assisted::orchestrator::core
