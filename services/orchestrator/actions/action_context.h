// File: services/orchestrator/actions/action_context.h
//
// What every user action shares (cluster_actions.h, host_actions.h, progress.h): the inventory,
// the one refresher (refresher.h: Apply, one status compare-and-set with the row's effects;
// RefreshCluster, the same re-judgement agents, Watch events and the monitor trigger), the
// rate-limited event sink, and the few steps several actions take: load a cluster with its
// hosts, fire a table event on a cluster or a host and write the decision, refresh.
//
// A lost race (ABORTED) is re-read and re-decided kAttempts times before it is returned to the
// caller: agents keep writing their hosts (step results) while an action runs.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_ACTION_CONTEXT_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_ACTION_CONTEXT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "lib/log/log.h"
#include "lib/random/random.h"
#include "lib/time/clock.h"
#include "services/orchestrator/core/agent_reports.h"
#include "services/orchestrator/core/cluster_facts.h"
#include "services/orchestrator/core/contexts.h"
#include "services/orchestrator/core/fields_update.h"
#include "services/orchestrator/core/timeouts.h"
#include "services/orchestrator/events.h"
#include "services/orchestrator/install/artifacts.h"
#include "services/orchestrator/install/install_step.h"
#include "services/orchestrator/inventory_port.h"
#include "services/orchestrator/refresher.h"

namespace assisted::orchestrator::actions {

using install::ArtifactGenerator;
using install::OsImage;

struct ActionsOptions {
  core::Timeouts timeouts;
  core::DecisionSettings decisions;
  OsImage os_image;
};

// What the actions share with the agent hub; each must outlive the actions.
struct ActionsParts {
  Refresher& refresher;  // the one refresher (its liveness, its event sink)
  EventSink& events;     // the refresher's sink: milestones share its rate limit
  ArtifactGenerator& files;
};

// Compare-and-set retries before a lost race is returned to the caller (ABORTED).
inline constexpr int kAttempts = 5;

namespace internal {
inline const absl::Status& StatusOf(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& result) {
  return result.status();
}
}  // namespace internal

// Runs `attempt` again while it ends ABORTED (a write lost a race and must re-read), kAttempts
// times at most.
template <typename Attempt>
auto RetryWhileAborted(const Attempt& attempt) {
  auto outcome = attempt();
  for (int tried = 1; tried < kAttempts && absl::IsAborted(internal::StatusOf(outcome)); ++tried) {
    outcome = attempt();
  }
  return outcome;
}

// The parts, and the steps several actions take. Members are public: the actions are its only
// users, and each must outlive it.
class ActionContext {
 public:
  // `inventory_port` must outlive the context.
  ActionContext(InventoryPort& inventory_port, ActionsOptions action_options,
                const Clock& action_clock, Random& action_random, log::Logger logger,
                ActionsParts parts);

  // A cluster read with its hosts, and what the core's checks need of them.
  struct Loaded {
    types::v1::Cluster cluster;  // without hosts
    std::vector<types::v1::Host> hosts;
    std::vector<core::HostReports> reports;
    std::vector<const types::v1::Host*> pointers;
    std::vector<core::HostView> views;
    bool kubeconfig_exists = false;
  };
  absl::StatusOr<std::unique_ptr<Loaded>> Load(const std::string& cluster_id) const;

  // The refresher's RefreshCluster; returns the cluster with its hosts as stored after it.
  absl::StatusOr<types::v1::Cluster> Refresh(const std::string& cluster_id);

  // Judges the cluster again after an action stored its change. A judgement that kept losing
  // compare-and-sets is not the action's failure: the refresher that won read the stored change
  // and judged it, so that outcome is OK (and logged); any other error is returned.
  absl::Status JudgeAfterStoredChange(const std::string& cluster_id);
  // Stores a change with `change` (its error is returned as it is), then judges the cluster as
  // JudgeAfterStoredChange does, in one refresh that began before the write
  // (Refresher::RefreshClusterAfter): the agent hub, hearing the write's echo meanwhile, waits
  // for this judgement instead of judging the cluster a second time.
  absl::Status ChangeThenJudge(const std::string& cluster_id,
                               absl::FunctionRef<absl::Status()> change);

  // Fires a user action on the cluster and writes the decision (with `fields`), then carries
  // out its effects on the hosts (cancel, reset) and artifacts (reset deletes the files).
  absl::StatusOr<types::v1::Cluster> FireCluster(const std::string& cluster_id,
                                                 core::ClusterEvent event,
                                                 core::ClusterFieldsUpdate fields = {});
  // Fires `event` on `stored` and writes the decision (with `fields`), re-reading the host
  // after a lost race.
  absl::StatusOr<types::v1::Host> FireHost(const types::v1::Host& stored,
                                           const types::v1::Cluster* cluster, core::HostEvent event,
                                           const core::HostFieldsUpdate& fields = {});

  // A milestone event (best effort: a failed event is logged by the sink, the action stands).
  void Event(const std::string& name, const std::string& cluster_id, const types::v1::Host* host,
             const std::string& message,
             types::v1::EventSeverity severity = types::v1::EVENT_SEVERITY_INFO) const;

  InventoryPort& inventory;
  const ActionsOptions options;
  const Clock& clock;
  Random& random;
  log::Logger log;
  Refresher& refresher;
  EventSink& events;
  ArtifactGenerator& files;

 private:
  void ApplyClusterEffects(const Loaded& loaded, const core::ClusterDecision& decision);
};

}  // namespace assisted::orchestrator::actions

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_ACTION_CONTEXT_H_
