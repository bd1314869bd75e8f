// File: services/orchestrator/core/roles.h
//
// Role auto-assignment and the bootstrap choice at installation time.
//
// Roles follow the reference's weighted sort: auto-assign hosts are ordered GPU-less first,
// then by weight (cores - 4) + 0.1 * (RAM GiB - 16) + 0.004 * (largest eligible disk GiB - 100)
// ascending (ties by id), so the least powerful capable hosts run the control plane and the
// strong ones (and GPUs) stay workers. In that order a host becomes a master while the
// control plane is short and it meets the master requirements, then (two-node control planes)
// the arbiter, else a worker.
//
// The bootstrap host is the rendezvous host when one is given (it must be a master), the
// single node on single-node OpenShift, else the last master by id among the ready ones. A
// host already flagged bootstrap keeps the flag.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_ROLES_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_ROLES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "assisted/types/v1/host.pb.h"
#include "services/orchestrator/core/cluster_facts.h"

namespace assisted::orchestrator::core {

struct RoleAssignment {
  std::string host_id;
  types::v1::HostRole role;
};

// The reference's weight of a host (smaller = preferred for the control plane).
double RoleWeight(const types::v1::Host& host, const ClusterFacts& facts);

// The roles auto-assign hosts get, in assignment order; hosts with a role keep it and count
// toward the control plane. Hosts without an inventory are left alone.
std::vector<RoleAssignment> AssignRoles(const std::vector<const types::v1::Host*>& hosts,
                                        const ClusterFacts& facts);

// The host that runs the bootstrap control plane. `rendezvous_ip` (agent-based installs) picks
// the master owning that address. FAILED_PRECONDITION, saying what to fix, when the rendezvous
// address belongs to no master or when no master is ready.
absl::StatusOr<std::string> ChooseBootstrap(const std::vector<const types::v1::Host*>& hosts,
                                            const ClusterFacts& facts,
                                            std::optional<std::string> rendezvous_ip = {});

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_ROLES_H_
