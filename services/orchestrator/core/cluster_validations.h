// File: services/orchestrator/core/cluster_validations.h
//
// The 21 core cluster validations of the reference as named pure checks: networks defined,
// valid, non-overlapping and of the same families, prefixes large enough for the hosts, the
// machine network matching the one derived from VIPs and host NICs, VIPs defined, valid, distinct
// and free, every host ready, the control-plane count for the topology, DNS domain, pull
// secret, host clocks, network type, required manifests, and the selected operators' requirements
// (lib/operators/catalog.h).
//
//   ClusterValidationContext ctx{cluster, views, facts, clock.Now(), manifests_uploaded};
//   ValidationResults results = ValidateCluster(ctx);
//   results.Ignore(cluster.ignored_cluster_validations());

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_CLUSTER_VALIDATIONS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_CLUSTER_VALIDATIONS_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "assisted/types/v1/cluster.pb.h"
#include "services/orchestrator/core/checks.h"
#include "services/orchestrator/core/cluster_facts.h"

namespace assisted::orchestrator::core {

struct ClusterValidationContext {
  const types::v1::Cluster& cluster;
  const std::vector<HostView>& hosts;
  const ClusterFacts& facts;  // built from the same cluster and hosts
  absl::Time now;
  // The cluster has at least one user manifest (install/manifests.h); read only when
  // NeedsCustomManifests says a check looks at it.
  bool custom_manifests_uploaded = false;
};

using ClusterCheck = Check<ClusterValidationContext>;

// Whether a check of `cluster` depends on the user's manifests (a third-party or no network
// plugin, the OCI platform): only then need custom_manifests_uploaded be looked up.
bool NeedsCustomManifests(const types::v1::Cluster& cluster);

// The 21 core checks in reporting order (ids as in validation_ids.h).
const std::vector<ClusterCheck>& CoreClusterChecks();

ValidationResults ValidateCluster(const ClusterValidationContext& ctx,
                                  const absl::flat_hash_set<std::string>& disabled = {},
                                  const std::vector<ClusterCheck>& checks = CoreClusterChecks());

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_CLUSTER_VALIDATIONS_H_
