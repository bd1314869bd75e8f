// File: services/orchestrator/core/cluster_state_machine.h
//
// The cluster state machine: all 12 cluster states, the user actions (prepare/install, cancel,
// reset, open to day-2 hosts), the monitor's refresh with the success criteria, finalizing and
// its timeouts, as one table read top to bottom (see engine.h). No row enters `unmonitored`: a
// disconnected cluster (a configuration holder for an offline installation) is registered in it
// and stays there; no row leaves it either.
//
//   ClusterContext ctx = ...;
//   absl::StatusOr<ClusterDecision> d =
//       ClusterStateMachine().Fire(ClusterEvent::kRefresh, cluster.status(), ctx);

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_CLUSTER_STATE_MACHINE_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_CLUSTER_STATE_MACHINE_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/common.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "services/orchestrator/core/engine.h"
#include "services/orchestrator/core/fields_update.h"
#include "services/orchestrator/core/success.h"
#include "services/orchestrator/core/timeouts.h"
#include "services/orchestrator/core/validation_results.h"

namespace assisted::orchestrator::core {

// Short names for the states, for tables and tests.
namespace cluster_status {
inline constexpr types::v1::ClusterStatus kPendingForInput =
    types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT;
inline constexpr types::v1::ClusterStatus kInsufficient = types::v1::CLUSTER_STATUS_INSUFFICIENT;
inline constexpr types::v1::ClusterStatus kReady = types::v1::CLUSTER_STATUS_READY;
inline constexpr types::v1::ClusterStatus kPreparing =
    types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION;
inline constexpr types::v1::ClusterStatus kInstalling = types::v1::CLUSTER_STATUS_INSTALLING;
inline constexpr types::v1::ClusterStatus kPua =
    types::v1::CLUSTER_STATUS_INSTALLING_PENDING_USER_ACTION;
inline constexpr types::v1::ClusterStatus kFinalizing = types::v1::CLUSTER_STATUS_FINALIZING;
inline constexpr types::v1::ClusterStatus kInstalled = types::v1::CLUSTER_STATUS_INSTALLED;
inline constexpr types::v1::ClusterStatus kError = types::v1::CLUSTER_STATUS_ERROR;
inline constexpr types::v1::ClusterStatus kCancelled = types::v1::CLUSTER_STATUS_CANCELLED;
inline constexpr types::v1::ClusterStatus kAddingHosts = types::v1::CLUSTER_STATUS_ADDING_HOSTS;
inline constexpr types::v1::ClusterStatus kUnmonitored = types::v1::CLUSTER_STATUS_UNMONITORED;
}  // namespace cluster_status

enum class ClusterEvent {
  kPrepareForInstallation,  // the user asked to install
  kCancel,                  // the user cancelled
  kReset,                   // the user reset the installation
  kRefresh,                 // the monitor re-evaluates validations, hosts and timeouts
  kAllowAddHosts,           // the user opened an installed cluster to day-2 hosts
};

enum class ClusterEffect {
  kStartPreparation,            // generate install-config, manifests and ignitions
  kStartInstallation,           // install_started_at = now, DNS records, metrics
  kCancelHosts,                 // fire kCancel on every host
  kResetHosts,                  // fire kReset on every host, delete generated files and DNS records
  kCompleteInstallation,        // install_completed_at = now, success metrics
  kFailInstallation,            // install_completed_at = now, failure event and metrics
  kSetFinalizingStageTimedOut,  // soft: flag the finalizing stage
  kSetLogsTimedOut,             // logs_info = timeout
};

struct ClusterContext {
  // Environment.
  absl::Time now;
  const ClusterTimeouts* timeouts = nullptr;  // required
  bool soft_timeouts = false;

  // The cluster.
  bool vip_dhcp_allocation = false;
  // Fresh validation results (kRefresh). nullptr means "none evaluated": nothing passes.
  const ValidationResults* validations = nullptr;
  // Role and status of every host bound to the cluster, and what success requires.
  std::vector<HostRoleStatus> hosts;
  Topology topology;
  types::v1::InstallationPreparationStatus preparation =
      types::v1::INSTALLATION_PREPARATION_STATUS_UNSPECIFIED;
  absl::Time status_updated_at;
  absl::Time install_started_at;
  types::v1::FinalizingStage finalizing_stage = types::v1::FINALIZING_STAGE_UNSPECIFIED;
  absl::Time finalizing_stage_started_at;
  bool finalizing_stage_timed_out = false;
  // The longest timeout_seconds of the monitored operators (raises the OLM stage limits).
  absl::Duration max_operator_timeout = absl::ZeroDuration();
  // `<cluster_id>/kubeconfig` is stored (the controller uploaded the ingress CA).
  bool kubeconfig_exists = false;
  // Every monitored operator reports available (true when there are none).
  bool operators_available = false;
  types::v1::LogsState logs_info = types::v1::LOGS_STATE_UNSPECIFIED;
  absl::Time logs_started_at;
};

using ClusterMachine =
    StateMachine<types::v1::ClusterStatus, ClusterEvent, ClusterContext, ClusterEffect>;
using ClusterDecision = ClusterMachine::DecisionType;
using ClusterRow = ClusterMachine::RowType;

const ClusterMachine& ClusterStateMachine();

// The stored fields `decision`'s effects change on `cluster` (as stored) at `now`, written with
// the decision's own compare-and-set. kCancelHosts and kResetHosts also act on the hosts and
// the stored files: the caller carries that out after the write (the fields here are only the
// cluster's part of a reset).
ClusterFieldsUpdate ClusterEffectFields(const types::v1::Cluster& cluster,
                                        const ClusterDecision& decision, absl::Time now);

absl::string_view ClusterEventName(ClusterEvent event);
absl::string_view ClusterEffectName(ClusterEffect effect);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_CLUSTER_STATE_MACHINE_H_
