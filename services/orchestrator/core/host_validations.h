// File: services/orchestrator/core/host_validations.h
//
// The 41 core host validations of the reference, each a named pure check over a
// HostValidationContext. Thresholds come from the hardware-requirements file (via ClusterFacts),
// time limits from HostTimeouts, and what the selected operators add (CPU, memory, a spare disk)
// from their table, lib/operators/catalog.h (via ClusterFacts); nothing is read from anywhere
// else.
//
//   ASSIGN_OR_RETURN(ClusterFacts facts, BuildClusterFacts(&cluster, views, catalog, settings));
//   HostValidationContext ctx{host, reports, facts, clock.Now(), timeouts};
//   ValidationResults results = ValidateHost(ctx);
//   results.Ignore(cluster.ignored_host_validations());
//
// Most checks report "pending" while their input (inventory, an agent report, a cluster
// setting) is missing; media-connected, has-inventory, compatible-with-cluster-platform... are
// decided from what is always there.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_HOST_VALIDATIONS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_HOST_VALIDATIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "assisted/types/v1/host.pb.h"
#include "services/orchestrator/core/agent_reports.h"
#include "services/orchestrator/core/checks.h"
#include "services/orchestrator/core/cluster_facts.h"
#include "services/orchestrator/core/hw_requirements.h"
#include "services/orchestrator/core/timeouts.h"

namespace assisted::orchestrator::core {

struct HostValidationContext {
  const types::v1::Host& host;
  const HostReports& reports;
  const ClusterFacts& cluster;
  absl::Time now;
  const HostTimeouts& timeouts;
};

using HostCheck = Check<HostValidationContext>;

// The 41 core checks in reporting order (ids as in validation_ids.h).
const std::vector<HostCheck>& CoreHostChecks();

// Runs `checks` (the core ones by default).
ValidationResults ValidateHost(const HostValidationContext& ctx,
                               const absl::flat_hash_set<std::string>& disabled = {},
                               const std::vector<HostCheck>& checks = CoreHostChecks());

// The requirement row a host is held to: the single-node row on single-node clusters, else its
// role's (bootstrap = master); nullopt while the role is not chosen (auto-assign).
std::optional<RequirementRole> RequirementRoleOf(const types::v1::Host& host,
                                                 const ClusterFacts& cluster);

// The smallest requirement over the roles a host could still take (has-min-* checks and role
// assignment use it): single-node: sno; unbound: master, arbiter, worker; otherwise master and
// worker (and arbiter for two control-plane nodes).
RoleRequirements MinimalRequirements(const ClusterFacts& cluster);

// What the validations hold a host of each role to in `cluster` (upstream's preflight
// requirements): RequirementRoleOf's row for a host of that role, so single-node clusters
// answer the sno row for both. No arbiter row on single-node clusters.
struct PreflightRequirements {
  RoleRequirements master;
  RoleRequirements worker;
  std::optional<RoleRequirements> arbiter;
};
PreflightRequirements PreflightRequirementsOf(const ClusterFacts& cluster);

// Whether a host may join a cluster on `platform` (compatible-with-cluster-platform): vsphere
// needs a VMware machine, nutanix a Nutanix one; the others take any host. `inventory` may be
// null (not reported yet): only platforms that take any host.
bool HostSupportsPlatform(const types::v1::Inventory* inventory, types::v1::PlatformType platform);

// The platforms every one of `hosts` supports, in a fixed order (baremetal, none, vsphere,
// nutanix, external). Empty without hosts, as upstream's GetClusterSupportedPlatforms.
std::vector<types::v1::PlatformType> SupportedPlatforms(
    const std::vector<const types::v1::Host*>& hosts);

// Whether `inventory`'s memory meets `ram_mib`, with the file's tolerance.
bool MemoryMeets(const types::v1::Inventory& inventory, int64_t ram_mib,
                 const ValidationLimits& limits);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_HOST_VALIDATIONS_H_
