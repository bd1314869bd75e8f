// File: services/orchestrator/core/contexts.h
//
// Builds the state machines' contexts from the stored records, so callers do not repeat the
// mapping: which host is day-2, whether soft timeouts apply, what the success criteria look at.
//
//   HostContext ctx = MakeHostContext(host, &cluster, cluster_hosts, &results, now, timeouts,
//                                     settings);
//   ASSIGN_OR_RETURN(HostDecision d, HostStateMachine().Fire(HostEvent::kRefresh,
//                                                            host.status(), ctx));
//
// The contexts point into `timeouts` and `validations`; keep them alive while deciding. Unset
// timestamps read as the Unix epoch, so a record without status_updated_at has timed out:
// inventory sets them on every write.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_CONTEXTS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_CONTEXTS_H_

#include <vector>

#include "absl/time/time.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "services/orchestrator/core/cluster_state_machine.h"
#include "services/orchestrator/core/host_state_machine.h"
#include "services/orchestrator/core/hw_requirements.h"
#include "services/orchestrator/core/timeouts.h"
#include "services/orchestrator/core/validation_results.h"

namespace assisted::orchestrator::core {

// Deployment switches the contexts need.
struct DecisionSettings {
  bool enable_soft_timeouts = false;  // ENABLE_SOFT_TIMEOUTS (the cluster must opt in too)
  // The hardware requirements hosts are validated against (HW_VALIDATOR_REQUIREMENTS): the
  // embedded data/hw_requirements.json unless the deployment gives its own
  // (--hw-requirements-file).
  HwRequirementsCatalog hw_requirements = DefaultHwRequirements();
};

// Soft timeouts apply when the deployment enables them and the cluster's organisation opted in.
bool SoftTimeouts(const types::v1::Cluster& cluster, const DecisionSettings& settings);

// The host's context. `cluster` is null for unbound hosts; `cluster_hosts` are all hosts of the
// cluster (this one included), for "would the cluster succeed without this host".
HostContext MakeHostContext(const types::v1::Host& host, const types::v1::Cluster* cluster,
                            const std::vector<const types::v1::Host*>& cluster_hosts,
                            const ValidationResults* validations, absl::Time now,
                            const Timeouts& timeouts, const DecisionSettings& settings);

// The cluster's context. `kubeconfig_exists` comes from the artifact store.
ClusterContext MakeClusterContext(const types::v1::Cluster& cluster,
                                  const std::vector<const types::v1::Host*>& hosts,
                                  const ValidationResults* validations, absl::Time now,
                                  const Timeouts& timeouts, const DecisionSettings& settings,
                                  bool kubeconfig_exists);

// The cluster's installation progress (progress.h) once it is in `to`, from its hosts as judged
// and its monitored operators. The finalizing stage, its start and its timed-out flag are kept
// as stored: UpdateFinalizingProgress and the row effects write those.
types::v1::ClusterProgress ClusterProgressIn(const types::v1::Cluster& cluster,
                                             const std::vector<const types::v1::Host*>& hosts,
                                             types::v1::ClusterStatus to);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_CONTEXTS_H_
