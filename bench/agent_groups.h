// File: bench/agent_groups.h
//
// The simulated fleets the agent benches run in their own process: agents in groups, each group
// one infra-env (of a cluster, or unbound) and one Fleet, every agent its own gRPC connection
// and stream, as separate machines have.
//
//   std::vector<AgentGroup> groups = UnboundGroups(/*first=*/0, /*agents=*/1000, 100, replicas);
//   RETURN_IF_ERROR(CreateInfraEnvs(stub, groups));
//   ASSIGN_OR_RETURN(auto fleets, StartFleets(groups, target, dir, on_event));

#ifndef ASSISTED_BENCH_AGENT_GROUPS_H_
#define ASSISTED_BENCH_AGENT_GROUPS_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "services/agent/fleet.h"

namespace assisted::bench {

struct AgentGroup {
  std::string infra_env_id;  // set by CreateInfraEnvs
  std::string cluster_id;    // empty: unbound
  int first = 0;             // first agent (and host index) of the group
  int count = 0;
  int replica = 0;  // the orchestrator replica its agents dial first
};

// Unbound groups of at most `per_infra_env` agents for agents [first, first + agents), their
// replicas taken in turn from `replicas` on, starting after `groups_before` groups.
std::vector<AgentGroup> UnboundGroups(int first, int agents, int per_infra_env, int replicas,
                                      int groups_before = 0);

// Creates each group's infra-env (named "<prefix>-<index>", bound to its cluster if it has one)
// through the inventory and records its id.
absl::Status CreateInfraEnvs(inventory::v1::InventoryService::Stub& stub,
                             std::vector<AgentGroup>& groups, const std::string& prefix = "bench");

// Raises this process's open-file limit as far as allowed: every agent holds a connection, two
// ends on this machine, and the services started after inherit the limit.
void RaiseOpenFileLimit();

// The orchestrator flags that let `agents` simulated agents in, all from this one address.
std::vector<std::string> OrchestratorArgsForAgents(int agents);

// Every agent's events, numbered across groups (group.first + the agent's index in its fleet).
using AgentEvents = std::function<void(int agent, const agent::FleetEvent& event)>;

// Starts one Fleet per group (the "fleet" simulation profile, one step thread each), whose
// agents dial `target(group)` and keep their state under `dir`/g<first>.
absl::StatusOr<std::vector<std::unique_ptr<agent::Fleet>>> StartFleets(
    const std::vector<AgentGroup>& groups,
    const std::function<std::string(const AgentGroup&)>& target, const std::string& dir,
    AgentEvents events);

}  // namespace assisted::bench

#endif  // ASSISTED_BENCH_AGENT_GROUPS_H_
