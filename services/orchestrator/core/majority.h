// File: services/orchestrator/core/majority.h
//
// Connectivity majority groups: for each machine network (L2: hosts reach each other's
// addresses in that network on the link layer) or for each address family (L3: routed, used
// with user-managed networking or a user-managed load balancer), the largest set of hosts found
// that can all reach each other both ways. belongs-to-majority-group passes for the members of
// a group that holds a strict majority of the hosts of its network.
//
// The reference searched for the exact largest such set (a maximum clique), which is
// exponential and hung its monitor on large clusters with partial connectivity. This finds a
// maximal one in O(n^2) time with n-bit rows: repeatedly drop the host with the fewest
// two-way links until everyone left is linked with everyone, then re-add dropped hosts that link
// with every member. Ties go to the smaller host id, so the result is deterministic. On a fully
// or majority-connected cluster it finds the same group as the exact search; on pathological
// graphs it may find a smaller one, which can only make the validation stricter.
//
// The peeling itself is cheap (the two-way links are a bit matrix: a host's row ANDed with its
// column, the column read from the transposed matrix). Reading the probes is the cost: a
// cluster of n hosts reports n^2 of them, 4 million at 2,000 hosts, so each must cost a few
// nanoseconds: no hash lookup when the peers come in the hosts' order, and no waiting on memory.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_MAJORITY_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_MAJORITY_H_

#include <map>
#include <string>
#include <vector>

#include "lib/net/ip.h"
#include "services/orchestrator/core/agent_reports.h"
#include "services/orchestrator/core/inventory_util.h"

namespace assisted::orchestrator::core {

// One host as the groups see it.
struct ConnectivityHost {
  std::string id;
  std::vector<InterfaceAddress> addresses;
  const ConnectivityReport* report = nullptr;  // nullptr: nothing reported yet
};

struct MajorityGroup {
  std::vector<std::string> hosts;  // sorted ids
  int participants = 0;            // hosts with an address in the network (or family)

  // More than half of the participants are in the group.
  bool IsMajority() const { return 2 * static_cast<int>(hosts.size()) > participants; }
  bool Contains(const std::string& id) const;
};

struct MajorityGroups {
  // Key: a machine network's canonical CIDR ("192.168.111.0/24") or "IPv4" / "IPv6".
  std::map<std::string, MajorityGroup> groups;

  // The reference's connectivity_majority_groups JSON: {"<key>": ["<host id>", ...], ...}.
  std::string ToJson() const;
};

// L2 groups, one per machine network.
MajorityGroups ComputeL2Groups(const std::vector<ConnectivityHost>& hosts,
                               const std::vector<net::Cidr>& machine_networks);

// L3 groups, one per address family present.
MajorityGroups ComputeL3Groups(const std::vector<ConnectivityHost>& hosts);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_MAJORITY_H_
