// File: services/orchestrator/core/host_state_machine.h
//
// The host state machine: all 28 host states and the transitions this product carries out
// (register, installer progress, cancel, day-2 install, reset, bind, unbind, refresh by the
// monitor) as one table read top to bottom (see engine.h). Bound and unbound ("-unbound", the
// infra-env pool) hosts share the table.
//
// Late binding: bind moves a pool host to `binding` and unbind a bound one to `unbinding` (or
// `unbinding-pending-user-action` once its disk was touched), writing the new cluster_id with
// the status. Unlike the reference, whose agent must exit and register again, our agent keeps
// its one stream and the service re-reads the host's cluster on every push: the next refresh
// judges a binding host as a discovering one of its new cluster, and an unbinding one as a
// pool host. A host left pending user action re-registers into the pool once rebooted.
//
// Not supported, so no row stands for them: the reference's reclaim events (reclaiming,
// reclaiming-rebooting: staging discovery boot artifacts on an installed disk), its media-
// disconnect event (a lost discovery medium is judged by refresh through media_status) and its
// install-step failure event (an install failure arrives as the Failed stage); the states only
// they enter are never entered, nor are the legacy `resetting` and `disabled`. Refresh still
// decides for them.
//
//   HostContext ctx = ...;                       // facts about the host, its cluster, the time
//   absl::StatusOr<HostDecision> d = HostStateMachine().Fire(HostEvent::kRefresh, status, ctx);
//
// HOST_STATUS_UNSPECIFIED stands for "no host yet": no row leaves it. The inventory creates a host
// in discovering (its infra-env has a cluster) or discovering-unbound, and the first refresh
// judges it from there.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_HOST_STATE_MACHINE_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_HOST_STATE_MACHINE_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/common.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "services/orchestrator/core/engine.h"
#include "services/orchestrator/core/fields_update.h"
#include "services/orchestrator/core/timeouts.h"
#include "services/orchestrator/core/validation_results.h"

namespace assisted::orchestrator::core {

// Short names for the states, for tables and tests. kNew is "no host yet".
namespace host_status {
inline constexpr types::v1::HostStatus kNew = types::v1::HOST_STATUS_UNSPECIFIED;
inline constexpr types::v1::HostStatus kDiscovering = types::v1::HOST_STATUS_DISCOVERING;
inline constexpr types::v1::HostStatus kKnown = types::v1::HOST_STATUS_KNOWN;
inline constexpr types::v1::HostStatus kDisconnected = types::v1::HOST_STATUS_DISCONNECTED;
inline constexpr types::v1::HostStatus kInsufficient = types::v1::HOST_STATUS_INSUFFICIENT;
inline constexpr types::v1::HostStatus kDisabled = types::v1::HOST_STATUS_DISABLED;
inline constexpr types::v1::HostStatus kPreparing =
    types::v1::HOST_STATUS_PREPARING_FOR_INSTALLATION;
inline constexpr types::v1::HostStatus kPreparingFailed = types::v1::HOST_STATUS_PREPARING_FAILED;
inline constexpr types::v1::HostStatus kPreparingSuccessful =
    types::v1::HOST_STATUS_PREPARING_SUCCESSFUL;
inline constexpr types::v1::HostStatus kPendingForInput = types::v1::HOST_STATUS_PENDING_FOR_INPUT;
inline constexpr types::v1::HostStatus kInstalling = types::v1::HOST_STATUS_INSTALLING;
inline constexpr types::v1::HostStatus kInProgress = types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS;
inline constexpr types::v1::HostStatus kInstallingPua =
    types::v1::HOST_STATUS_INSTALLING_PENDING_USER_ACTION;
inline constexpr types::v1::HostStatus kResettingPua =
    types::v1::HOST_STATUS_RESETTING_PENDING_USER_ACTION;
inline constexpr types::v1::HostStatus kInstalled = types::v1::HOST_STATUS_INSTALLED;
inline constexpr types::v1::HostStatus kError = types::v1::HOST_STATUS_ERROR;
inline constexpr types::v1::HostStatus kResetting = types::v1::HOST_STATUS_RESETTING;
inline constexpr types::v1::HostStatus kAdded = types::v1::HOST_STATUS_ADDED_TO_EXISTING_CLUSTER;
inline constexpr types::v1::HostStatus kCancelled = types::v1::HOST_STATUS_CANCELLED;
inline constexpr types::v1::HostStatus kBinding = types::v1::HOST_STATUS_BINDING;
inline constexpr types::v1::HostStatus kUnbinding = types::v1::HOST_STATUS_UNBINDING;
inline constexpr types::v1::HostStatus kUnbindingPua =
    types::v1::HOST_STATUS_UNBINDING_PENDING_USER_ACTION;
inline constexpr types::v1::HostStatus kKnownUnbound = types::v1::HOST_STATUS_KNOWN_UNBOUND;
inline constexpr types::v1::HostStatus kDisconnectedUnbound =
    types::v1::HOST_STATUS_DISCONNECTED_UNBOUND;
inline constexpr types::v1::HostStatus kInsufficientUnbound =
    types::v1::HOST_STATUS_INSUFFICIENT_UNBOUND;
inline constexpr types::v1::HostStatus kDisabledUnbound = types::v1::HOST_STATUS_DISABLED_UNBOUND;
inline constexpr types::v1::HostStatus kDiscoveringUnbound =
    types::v1::HOST_STATUS_DISCOVERING_UNBOUND;
inline constexpr types::v1::HostStatus kReclaiming = types::v1::HOST_STATUS_RECLAIMING;
inline constexpr types::v1::HostStatus kReclaimingRebooting =
    types::v1::HOST_STATUS_RECLAIMING_REBOOTING;
}  // namespace host_status

enum class HostEvent {
  kRegister,  // the agent registered (first time or again)
  kCancel,    // the user cancelled the cluster installation
  kInstall,   // the user installs a day-2 host
  kReset,     // the cluster installation was reset
  kRefresh,   // the monitor re-evaluates validations and timeouts
  kProgress,  // the installer reported a stage
  kBind,      // the user binds a pool host to a cluster (the caller writes its cluster_id)
  kUnbind,    // the user releases a host from its cluster back to its infra-env's pool
};

// What the caller must do besides storing the new status and status_info.
enum class HostEffect {
  kResetForRediscovery,           // re-registration: forget progress, bootstrap flag, results
  kResetInstallationPreparation,  // clear the disk-speed and image checks of a preparation
  kRecordProgress,                // store the reported stage, info, percentage and stage times
  kSetConnectionTimedOut,         // soft timeouts: flag the lost agent, keep installing
  kClearConnectionTimedOut,       // soft timeouts: the agent came back
  kSetStageTimedOut,              // soft timeouts: flag the late stage, keep installing
  kRefreshStageUpdatedAt,         // restart the stage clock (cluster waits for the user)
  kSetLogsTimedOut,               // logs_info = timeout
  kClearInstallation,             // reset: clear progress, bootstrap flag and install results
  kBindToCluster,      // forget the pool's checks; the action's own fields carry the cluster_id
  kUnbindFromCluster,  // clear cluster_id, role, bootstrap flag, progress and checks
};

// Everything the host rows look at. Plain data: the caller fills it from the stored host, its
// cluster, fresh validation results and the clock (MakeHostContext in contexts.h).
struct HostContext {
  // Environment.
  absl::Time now;
  const HostTimeouts* timeouts = nullptr;  // required
  bool soft_timeouts = false;  // ENABLE_SOFT_TIMEOUTS and the cluster's org_soft_timeouts_enabled

  // The host.
  bool bound = true;  // has a cluster
  bool day2 = false;  // joins an installed cluster
  bool bootstrap = false;
  types::v1::HostRole role = types::v1::HOST_ROLE_AUTO_ASSIGN;
  types::v1::HostStage stage = types::v1::HOST_STAGE_UNSPECIFIED;  // last reported stage
  absl::Time status_updated_at;
  absl::Time stage_updated_at;
  absl::Time checked_in_at;
  bool media_disconnected = false;
  bool connection_timed_out = false;
  bool stage_timed_out = false;
  types::v1::LogsState logs_info = types::v1::LOGS_STATE_UNSPECIFIED;
  absl::Time logs_started_at;
  std::string installation_disk;  // for boot-order messages
  // Fresh validation results (kRefresh). nullptr means "none evaluated": nothing passes.
  const ValidationResults* validations = nullptr;

  // The cluster.
  types::v1::ClusterStatus cluster_status = types::v1::CLUSTER_STATUS_UNSPECIFIED;
  bool sno = false;
  // Would the cluster still succeed if this host failed (enough other masters and workers)?
  bool cluster_succeeds_without_host = false;

  // Event payload: kProgress stage and text.
  types::v1::HostStage reported_stage = types::v1::HOST_STAGE_UNSPECIFIED;
  std::string reason;
};

// Whether the agent counts as connected: heard from within the disconnection limit (plus the
// bootstrap tolerance), or past the Rebooting stage where the agent is gone by design.
bool HostConnected(const HostContext& ctx);

using HostMachine = StateMachine<types::v1::HostStatus, HostEvent, HostContext, HostEffect>;
using HostDecision = HostMachine::DecisionType;
using HostRow = HostMachine::RowType;

// The machine (built once, immutable, safe to share across threads).
const HostMachine& HostStateMachine();

// The stored fields `decision`'s effects change on `host` (as stored) at `now`: the part of a
// row's action written with the decision's own compare-and-set, whatever fired it. Effects
// carried out apart from the host's record add nothing: kRecordProgress (the progress function
// writes the reported stage). Stopping the installer of a failed or cancelled host is no
// effect: the step plan of the error and cancelled states sends stop-installation.
HostFieldsUpdate HostEffectFields(const types::v1::Host& host, const HostDecision& decision,
                                  absl::Time now);

absl::string_view HostEventName(HostEvent event);
absl::string_view HostEffectName(HostEffect effect);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_HOST_STATE_MACHINE_H_
