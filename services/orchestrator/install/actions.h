// File: services/orchestrator/install/actions.h
//
// The OrchestratorService's logic, over the inventory: every user action and installer report
// is decided by the core state-machine tables (services/orchestrator/core) and written by the
// one refresher (refresher.h: Apply, one status compare-and-set with the row's effects, events
// through the shared rate-limited sink); every re-judgement is that refresher's RefreshCluster,
// the same one agents, Watch events and the monitor trigger. A lost race (ABORTED) is re-read
// and re-decided a few times before it is returned to the caller.
//
// - InstallCluster: refresh, require `ready` (FAILED_PRECONDITION naming the current status),
//   auto-assign roles (core/roles.h), choose the bootstrap host, move the cluster to
//   preparing-for-installation (PrepareForInstallation row). The refresh that follows generates
//   the installation files once (artifacts.h, through the refresher) and walks hosts through
//   preparing to installing as the tables say; a preparing cluster whose files are not all
//   stored yet (a restart midway) generates them again on its next refresh.
// - Host progress, from UpdateHostProgress and from agents' streams, goes through
//   ApplyHostProgress only: stage order (core/stages.h), the Progress rows, the percentage.
// - Cancel, reset, day-2 install, host reset and edits, finalizing progress, completion.
//
// Milestones are recorded as events (best effort: a failed event is logged, the action stands).

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_ACTIONS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_ACTIONS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "assisted/agent/v1/agent_service.pb.h"
#include "assisted/orchestrator/v1/orchestrator_service.pb.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/step.pb.h"
#include "lib/log/log.h"
#include "lib/random/random.h"
#include "lib/time/clock.h"
#include "services/orchestrator/core/contexts.h"
#include "services/orchestrator/core/fields_update.h"
#include "services/orchestrator/core/timeouts.h"
#include "services/orchestrator/events.h"
#include "services/orchestrator/install/artifacts.h"
#include "services/orchestrator/install/install_step.h"
#include "services/orchestrator/inventory_port.h"
#include "services/orchestrator/refresher.h"

namespace assisted::orchestrator::install {

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

class InstallActions {
 public:
  // `inventory` must outlive the actions.
  InstallActions(InventoryPort& inventory, ActionsOptions options, const Clock& clock,
                 Random& random, log::Logger log, ActionsParts parts);

  absl::StatusOr<types::v1::Cluster> InstallCluster(const std::string& cluster_id);
  absl::StatusOr<types::v1::Cluster> CancelInstallation(const std::string& cluster_id);
  absl::StatusOr<types::v1::Cluster> ResetCluster(const std::string& cluster_id);
  absl::StatusOr<types::v1::Cluster> AllowAddWorkers(const std::string& cluster_id);
  // Re-evaluates every host and the cluster until nothing changes (bounded), generating missing
  // installation files of a preparing cluster first. Returns the cluster with its hosts.
  absl::StatusOr<types::v1::Cluster> RefreshCluster(const std::string& cluster_id);
  absl::StatusOr<v1::GetClusterValidationsResponse> GetClusterValidations(
      const std::string& cluster_id);

  absl::StatusOr<types::v1::Host> InstallHost(const std::string& infra_env_id,
                                              const std::string& host_id);
  absl::StatusOr<types::v1::Host> ResetHost(const std::string& infra_env_id,
                                            const std::string& host_id);
  absl::StatusOr<types::v1::Host> UpdateHost(const v1::UpdateHostRequest& request);

  // THE host progress function (UpdateHostProgress and agent streams). FAILED_PRECONDITION when
  // the stage goes backwards or the host is not installing; INVALID_ARGUMENT for a stage the
  // host's role never reaches.
  absl::StatusOr<types::v1::Host> ApplyHostProgress(const std::string& infra_env_id,
                                                    const std::string& host_id,
                                                    types::v1::HostStage stage,
                                                    const std::string& info);

  absl::StatusOr<types::v1::Cluster> UpdateFinalizingProgress(const std::string& cluster_id,
                                                              types::v1::FinalizingStage stage);
  // Records a monitored operator's state (NOT_FOUND naming an operator the cluster does not
  // monitor), then refreshes: finalizing completes once every operator is available.
  absl::StatusOr<types::v1::Cluster> ReportOperatorStatus(const v1::ReportOperatorStatusRequest&);
  // Stores the ingress CA and derives `kubeconfig` from `kubeconfig-noingress` with it.
  absl::StatusOr<types::v1::Cluster> UploadIngressCert(const std::string& cluster_id,
                                                       const std::string& ca_certificate);
  absl::StatusOr<types::v1::Cluster> CompleteInstallation(const std::string& cluster_id,
                                                          bool success,
                                                          const std::string& error_info);

  // An agent's progress report (AgentMessage.progress) for `host`, through ApplyHostProgress.
  // OK once applied, and also for reports that can never apply (a stage going backwards, a
  // host no longer installing: logged), so the agent stops re-sending them; transient errors
  // (inventory unavailable, a lost race) are returned for the agent to send again.
  absl::Status ApplyAgentProgress(const types::v1::Host& host, const agent::v1::Progress& progress);

  // A new agent process registered for `host` (it booted the discovery image again): fires the
  // host state machine's register event and writes its decision. A state with no register row
  // keeps its status (OK, host unchanged).
  absl::StatusOr<types::v1::Host> RegisterAgain(const types::v1::Host& host);

  // The instructions of a host in `installing` of `cluster`: one STEP_TYPE_INSTALL step
  // (install_step.h) carrying host-<id>.ign. Empty for hosts in any other status.
  absl::StatusOr<std::vector<types::v1::Step>> InstallInstructions(
      const types::v1::Host& host, const types::v1::Cluster& cluster);

 private:
  absl::StatusOr<types::v1::Host> InstallHostOnce(const std::string& infra_env_id,
                                                  const std::string& host_id);
  struct Loaded;

  absl::StatusOr<std::unique_ptr<Loaded>> Load(const std::string& cluster_id) const;
  // The refresher's RefreshCluster; returns the cluster with its hosts as stored after it.
  absl::StatusOr<types::v1::Cluster> Refresh(const std::string& cluster_id);
  // InstallCluster's first half: requires `ready`, writes auto-assigned roles and picks the
  // bootstrap host. ABORTED when a host changed meanwhile (the caller retries).
  absl::Status AssignRolesAndBootstrap(const std::string& cluster_id);
  // Fires a user action on the cluster and writes the decision (with `fields`), then carries
  // out its effects on the hosts and artifacts.
  absl::StatusOr<types::v1::Cluster> FireCluster(const std::string& cluster_id,
                                                 core::ClusterEvent event,
                                                 core::ClusterFieldsUpdate fields = {});
  absl::StatusOr<types::v1::Host> FireHost(const types::v1::Host& host,
                                           const types::v1::Cluster* cluster,
                                           core::HostEvent event);
  void ApplyClusterEffects(const Loaded& loaded, const core::ClusterDecision& decision);
  void Event(const std::string& name, const std::string& cluster_id, const types::v1::Host* host,
             const std::string& message,
             types::v1::EventSeverity severity = types::v1::EVENT_SEVERITY_INFO) const;

  InventoryPort& inventory_;
  const ActionsOptions options_;
  const Clock& clock_;
  Random& random_;
  log::Logger log_;
  Refresher& refresher_;
  EventSink& events_;
  ArtifactGenerator& generator_;
  InstallStepBuilder steps_;
};

}  // namespace assisted::orchestrator::install

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_ACTIONS_H_
