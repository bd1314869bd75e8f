// File: services/orchestrator/core/host_state_machine.cc
//
// The rows follow the reference's internal/host/statemachine.go and pool_host_statemachine.go
// in order and meaning; where this table differs, the row's doc says so.

#include "services/orchestrator/core/host_state_machine.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/stages.h"
#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator::core {

namespace {

using types::v1::ClusterStatus;
using types::v1::HostStage;
using types::v1::HostStatus;
using G = Guard<HostContext>;
using A = Action<HostContext, HostEffect>;
using Act = Actions<HostContext, HostEffect>;
using E = HostEffect;
using Ev = HostEvent;

using namespace host_status;  // NOLINT: the table reads better unqualified

// ---- guards --------------------------------------------------------------------------------

G Passed(absl::string_view id) {
  return When<HostContext>(std::string(id), [id](const HostContext& c) {
    return c.validations != nullptr && c.validations->Passed(id);
  });
}

G Failed(absl::string_view id) {
  return When<HostContext>(absl::StrCat(id, " failed"), [id](const HostContext& c) {
    return c.validations != nullptr && c.validations->Failed(id);
  });
}

G Unknown(absl::string_view id) {
  return When<HostContext>(absl::StrCat(id, " not measured yet"), [id](const HostContext& c) {
    return c.validations == nullptr || c.validations->Pending(id);
  });
}

G Group(std::string name, const std::vector<absl::string_view>* ids, bool pending_ok = false) {
  return When<HostContext>(std::move(name), [ids, pending_ok](const HostContext& c) {
    return c.validations != nullptr && c.validations->AllPassed(*ids, pending_ok);
  });
}

G ClusterIs(ClusterStatus status) {
  return When<HostContext>(absl::StrCat("cluster ", ClusterStatusName(status)),
                           [status](const HostContext& c) { return c.cluster_status == status; });
}

G StageIs(HostStage stage) {
  return When<HostContext>(absl::StrCat("stage = ", HostStageName(stage)),
                           [stage](const HostContext& c) { return c.stage == stage; });
}

G ReportedStageIs(HostStage stage) {
  return When<HostContext>(absl::StrCat("reported stage = ", HostStageName(stage)),
                           [stage](const HostContext& c) { return c.reported_stage == stage; });
}

// Time in the current status exceeded a limit chosen from the timeouts.
G StatusOlderThan(std::string name, absl::Duration (*limit)(const HostTimeouts&)) {
  return When<HostContext>(std::move(name), [limit](const HostContext& c) {
    return c.now - c.status_updated_at > limit(*c.timeouts);
  });
}

bool StageTimedOut(const HostContext& c) {
  return c.now - c.stage_updated_at > c.timeouts->Stage(c.stage, c.sno);
}

// Stages during which the host legitimately waits on others; their timeouts are ignored while
// the cluster waits for the user to fix another host.
bool WaitingStage(HostStage s) {
  return s == types::v1::HOST_STAGE_WAITING_FOR_CONTROL_PLANE ||
         s == types::v1::HOST_STAGE_WAITING_FOR_CONTROLLER ||
         s == types::v1::HOST_STAGE_WAITING_FOR_BOOTKUBE || s == types::v1::HOST_STAGE_REBOOTING;
}

std::string Minutes(absl::Duration d) { return absl::StrCat(absl::ToInt64Minutes(d), " minutes"); }

std::string BootOrderMessage(const HostContext& c) {
  return absl::StrCat(
      "Expected the host to boot from disk, but it booted the installation image - please reboot "
      "and fix boot order to boot from disk ",
      c.installation_disk.empty() ? "(the installation disk)" : c.installation_disk, ".");
}

std::vector<HostRow> BuildRows() {
  const HostGates& gates = HostValidationGates();  // static: safe to point at from guards
  const G connected = When<HostContext>("connected", HostConnected);
  const G media = When<HostContext>("media-connected",
                                    [](const HostContext& c) { return !c.media_disconnected; });
  const G online = All<HostContext>({connected, media});
  const G offline = Not(online);
  const G bound =
      When<HostContext>("bound to a cluster", [](const HostContext& c) { return c.bound; });
  const G day2 = When<HostContext>("day-2 host", [](const HostContext& c) { return c.day2; });
  const G soft =
      When<HostContext>("soft timeouts", [](const HostContext& c) { return c.soft_timeouts; });
  const G valid_role = When<HostContext>("role chosen", [](const HostContext& c) {
    return c.role != types::v1::HOST_ROLE_AUTO_ASSIGN && c.role != types::v1::HOST_ROLE_UNSPECIFIED;
  });
  const G inventory = All<HostContext>(
      {Passed(host_id::kHasInventory), Passed(host_id::kInventoryNotFullyTruncated)});
  const G min_hw = Group("min-hardware validations pass", &gates.min_hardware);
  const G input = Group("required-input validations pass", &gates.required_input);
  const G sufficient = All<HostContext>(
      {Group("sufficient-for-install validations pass", &gates.sufficient_for_install),
       Group("sufficient-or-unknown validations pass or pend", &gates.sufficient_or_unknown,
             /*pending_ok=*/true)});
  const G unbound_min_hw =
      Group("unbound min-hardware validations pass", &gates.unbound_min_hardware);
  const G disk_ok = Passed(host_id::kSufficientInstallationDiskSpeed);
  const G images_ok = Passed(host_id::kContainerImagesAvailable);
  const G disk_failed = Failed(host_id::kSufficientInstallationDiskSpeed);
  const G images_failed = Failed(host_id::kContainerImagesAvailable);
  const G some_check_unknown =
      All<HostContext>({Any<HostContext>({Unknown(host_id::kSufficientInstallationDiskSpeed),
                                          Unknown(host_id::kContainerImagesAvailable)}),
                        Not(Any<HostContext>({disk_failed, images_failed}))});
  const G preparing = ClusterIs(types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);
  const G cluster_installing = ClusterIs(types::v1::CLUSTER_STATUS_INSTALLING);
  const G cluster_error = ClusterIs(types::v1::CLUSTER_STATUS_ERROR);
  const G cluster_pua = ClusterIs(types::v1::CLUSTER_STATUS_INSTALLING_PENDING_USER_ACTION);
  const G rebooting = StageIs(types::v1::HOST_STAGE_REBOOTING);
  const G done = StageIs(types::v1::HOST_STAGE_DONE);
  const G prepare_timed_out = StatusOlderThan(
      "preparation timed out", [](const HostTimeouts& t) { return t.EffectivePrepare(); });
  const G installing_timed_out =
      StatusOlderThan("no progress within installing_without_progress",
                      [](const HostTimeouts& t) { return t.installing_without_progress; });
  const G pua_timed_out = StatusOlderThan(
      "pending_user_action timed out", [](const HostTimeouts& t) { return t.pending_user_action; });
  const G stage_timed_out = When<HostContext>("stage timed out", StageTimedOut);
  const G stage_flagged = When<HostContext>("stage_timed_out flagged",
                                            [](const HostContext& c) { return c.stage_timed_out; });
  const G connection_flagged = When<HostContext>(
      "connection_timed_out flagged", [](const HostContext& c) { return c.connection_timed_out; });
  const G waits_on_user = All<HostContext>(
      {When<HostContext>("waiting stage",
                         [](const HostContext& c) { return WaitingStage(c.stage); }),
       cluster_pua});
  const G succeeds_without =
      When<HostContext>("cluster succeeds without this host",
                        [](const HostContext& c) { return c.cluster_succeeds_without_host; });
  const G post_install =
      When<HostContext>("cluster finalizing or installed", [](const HostContext& c) {
        return c.cluster_status == types::v1::CLUSTER_STATUS_FINALIZING ||
               c.cluster_status == types::v1::CLUSTER_STATUS_INSTALLED;
      });
  const G logs_timed_out = When<HostContext>("log collection timed out", [](const HostContext& c) {
    return LogCollectionTimedOut(c.logs_info, c.logs_started_at, c.now, c.timeouts->log_pending,
                                 c.timeouts->log_collection);
  });

  const A insufficient_hw =
      Act::Explain("Host does not meet the minimum hardware requirements: <failing validations>",
                   [](const HostContext& c) {
                     return absl::StrCat(
                         "Host does not meet the minimum hardware requirements: ",
                         c.validations ? c.validations->Blocking(HostValidationGates().min_hardware)
                                       : "not validated");
                   });
  const A not_ready = Act::Explain(
      "Host cannot be installed due to following failing validation(s): <failing validations>",
      [](const HostContext& c) {
        std::string blocking =
            c.validations->Blocking(HostValidationGates().sufficient_for_install);
        std::string unknown =
            c.validations->Blocking(HostValidationGates().sufficient_or_unknown, true);
        if (!blocking.empty() && !unknown.empty()) absl::StrAppend(&blocking, " ; ");
        return absl::StrCat(
            "Host cannot be installed due to following failing validation(s): ", blocking, unknown);
      });
  const A stage_timeout = Act::Explain(
      "Host failed to install because its installation stage <stage> took longer than expected "
      "<limit> (Writing image to disk: did not progress in <limit>)",
      [](const HostContext& c) {
        std::string limit = Minutes(c.timeouts->Stage(c.stage, c.sno));
        if (c.stage == types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK) {
          return absl::StrCat(
              "Host failed to install because its installation stage Writing image to disk did "
              "not sufficiently progress in the last ",
              limit);
        }
        return absl::StrCat("Host failed to install because its installation stage ",
                            HostStageName(c.stage), " took longer than expected ", limit);
      });
  const A soft_stage_timeout = Act::Explain(
      "Host installation stage <stage> is taking longer than expected <limit>; the installation "
      "continues",
      [](const HostContext& c) {
        return absl::StrCat(
            "Host installation stage ", HostStageName(c.stage), " is taking longer than expected ",
            Minutes(c.timeouts->Stage(c.stage, c.sno)), "; the installation continues");
      },
      {E::kSetStageTimedOut});
  const A prepare_timeout = Act::Explain(
      "Host failed to prepare for installation: the disk speed and container image checks did not "
      "finish within <limit>",
      [](const HostContext& c) {
        return absl::StrCat(
            "Host failed to prepare for installation: the disk speed and container image checks "
            "did not finish within ",
            Minutes(c.timeouts->EffectivePrepare()));
      });
  const A prepare_failed = Act::Explain(
      "Host failed to prepare for installation due to following failing validation(s): <...>",
      [](const HostContext& c) {
        return absl::StrCat(
            "Host failed to prepare for installation due to following failing validation(s): ",
            c.validations->Blocking({host_id::kContainerImagesAvailable}));
      });
  const A boot_order =
      Act::Explain("Expected the host to boot from disk ... fix boot order", BootOrderMessage);
  const A pua_timeout = Act::Explain(
      "Host was not rebooted from its installation disk within <limit>; the cluster installation "
      "continues without it",
      [](const HostContext& c) {
        return absl::StrCat("Host was not rebooted from its installation disk within ",
                            Minutes(c.timeouts->pending_user_action),
                            "; the cluster installation continues without it");
      });
  const std::string kKnownInfo = "Host is ready to be installed";
  const std::string kUnbindPuaInfo =
      "Host is unbound from its cluster; reboot it into the discovery image to use it again";
  const std::string kDisconnectedInfo =
      "Host has stopped communicating with the installation service (agent silent or discovery "
      "media disconnected)";

  return {
      // ---- registration ----------------------------------------------------------------------
      {Ev::kRegister,
       {kDiscovering, kKnown, kDisconnected, kInsufficient, kResettingPua, kPendingForInput,
        kBinding},
       Always<HostContext>(),
       kDiscovering,
       Act::Say("Waiting for host to send hardware details", {E::kResetForRediscovery}),
       "Re-registration before installation: treated as a new machine whose hardware may differ."},
      {Ev::kRegister,
       {kPreparing, kPreparingSuccessful},
       Always<HostContext>(),
       kKnown,
       Act::Say(kKnownInfo, {E::kResetInstallationPreparation}),
       "The agent restarted while preparing: keep the inventory and bootstrap flag, redo the "
       "preparation checks."},
      {Ev::kRegister,
       {kInProgress, kInstallingPua, kAdded},
       Any<HostContext>({rebooting, All<HostContext>({day2, done})}),
       kInstallingPua,
       boot_order,
       "Wrong boot order: after writing the OS and rebooting, the host booted the discovery image "
       "again (day-1 at Rebooting, day-2 at Done). Tell the user to fix the boot order."},
      {Ev::kRegister,
       {kInstalling, kInProgress},
       Always<HostContext>(),
       kError,
       Act::Say("The host unexpectedly restarted during the installation"),
       "Any other registration during installation is a failure."},
      {Ev::kRegister,
       {kError},
       Always<HostContext>(),
       std::nullopt,
       A{},
       "Accepted without change: refusing would make the agent retry forever, and the user may "
       "have rebooted a failed host on purpose."},
      {Ev::kRegister,
       {kInstalled},
       Always<HostContext>(),
       std::nullopt,
       A{},
       "A host that booted the discovery image after installation: accepted without change (an "
       "installed host has no steps to run)."},
      {Ev::kRegister,
       {kDiscoveringUnbound, kDisconnectedUnbound, kInsufficientUnbound, kKnownUnbound, kUnbinding,
        kUnbindingPua},
       Always<HostContext>(),
       kDiscoveringUnbound,
       Act::Say("Waiting for host to send hardware details", {E::kResetForRediscovery}),
       "An unbound or unbinding host re-registers into its infra-env pool (an unbound host "
       "pending user action was rebooted into the discovery image, as asked)."},

      // ---- installer progress ----------------------------------------------------------------
      {Ev::kProgress,
       {kInstalling, kInProgress, kInstallingPua},
       ReportedStageIs(types::v1::HOST_STAGE_FAILED),
       kError,
       Act::Explain(
           "Installation failed: <progress info>",
           [](const HostContext& c) { return absl::StrCat("Installation failed: ", c.reason); },
           {E::kRecordProgress}),
       "The installer gave up (stage Failed)."},
      {Ev::kProgress,
       {kInstalling, kInProgress, kInstallingPua},
       All<HostContext>({day2, ReportedStageIs(types::v1::HOST_STAGE_DONE)}),
       kAdded,
       Act::Say("Host has joined the existing cluster", {E::kRecordProgress}),
       "A day-2 host reached Done: the end of its flow."},
      {Ev::kProgress,
       {kInstalling, kInProgress},
       ReportedStageIs(types::v1::HOST_STAGE_DONE),
       kInstalled,
       Act::Say("Done", {E::kRecordProgress}),
       "A day-1 host reached Done."},
      {Ev::kProgress,
       {kInstalling, kInProgress, kInstallingPua},
       Always<HostContext>(),
       kInProgress,
       Act::Say("Installation is in progress", {E::kRecordProgress}),
       "Any other stage: the host is installing (from installing-pending-user-action: the user "
       "fixed the boot order). Stage order is checked before firing (CheckStageUpdate)."},
      {Ev::kProgress,
       {kInstalled, kResettingPua},
       Always<HostContext>(),
       std::nullopt,
       A{},
       "Late progress reports after the fact are ignored."},

      // ---- user and cluster actions ----------------------------------------------------------
      {Ev::kCancel,
       {kInstallingPua, kInstalling, kInProgress, kInstalled, kError},
       Always<HostContext>(),
       kCancelled,
       Act::Say("Installation cancelled by user"),
       "Cancelling an installation that started."},
      {Ev::kCancel,
       {kPreparing, kPreparingSuccessful},
       Always<HostContext>(),
       kKnown,
       Act::Say(kKnownInfo, {E::kResetInstallationPreparation}),
       "Cancelling during preparation just returns to known."},
      {Ev::kCancel,
       {kKnown},
       Always<HostContext>(),
       std::nullopt,
       A{},
       "Nothing to cancel on a known host."},
      {Ev::kInstall,
       {kKnown},
       day2,
       kInstalling,
       Act::Say("Installation is in progress"),
       "A known day-2 host is installed on its own."},
      {Ev::kReset,
       {kDiscovering, kKnown, kInstallingPua, kInstalling, kPreparing, kPreparingSuccessful,
        kPreparingFailed, kPendingForInput, kResettingPua, kInProgress, kInstalled, kError,
        kCancelled, kAdded},
       Always<HostContext>(),
       kResettingPua,
       Act::Say("Host requires booting into the discovery image to complete resetting the "
                "installation",
                {E::kClearInstallation}),
       "Reset: the user must reboot the host into the discovery image; it then re-registers."},
      {Ev::kBind,
       {kDiscoveringUnbound, kKnownUnbound, kDisconnectedUnbound},
       Always<HostContext>(),
       kBinding,
       Act::Say("Host is being bound to a cluster", {E::kBindToCluster}),
       "A pool host joins a cluster; its next refresh judges it there."},
      {Ev::kUnbind,
       {kKnown, kDiscovering, kDisconnected, kInsufficient, kPendingForInput, kBinding},
       Always<HostContext>(),
       kUnbinding,
       Act::Say("Host is being unbound from its cluster", {E::kUnbindFromCluster}),
       "Unbinding before installation: its next refresh judges it in the pool."},
      {Ev::kUnbind,
       {kPreparing, kPreparingFailed, kPreparingSuccessful, kInstalling, kInProgress,
        kInstallingPua, kInstalled, kAdded, kError, kCancelled},
       Always<HostContext>(),
       kUnbindingPua,
       Act::Say(kUnbindPuaInfo, {E::kUnbindFromCluster}),
       "Unbinding once installation began (an installed host included: the reference's reclaim, "
       "which would stage the discovery image on its disk, is not supported): the disk was "
       "touched, the user must reboot the host into the discovery image."},

      // ---- refresh: preparation --------------------------------------------------------------
      {Ev::kRefresh,
       {kKnown},
       All<HostContext>({valid_role, online, preparing}),
       kPreparing,
       Act::Say("Host is preparing for installation", {E::kResetInstallationPreparation}),
       "The cluster started preparing: run the disk-speed and image checks."},
      {Ev::kRefresh,
       {kPreparing},
       All<HostContext>({online, disk_ok, images_ok, preparing}),
       kPreparingSuccessful,
       Act::Say("Host finished successfully to prepare for installation"),
       "Both preparation checks passed."},
      {Ev::kRefresh,
       {kPreparingSuccessful},
       All<HostContext>({online, preparing}),
       std::nullopt,
       A{},
       "Wait for the cluster to finish preparing."},
      {Ev::kRefresh,
       {kPreparingSuccessful},
       All<HostContext>({online, cluster_installing}),
       kInstalling,
       Act::Say("Installation is in progress"),
       "The cluster installs: so does the host."},
      {Ev::kRefresh,
       {kPreparing},
       All<HostContext>(
           {online, Not(Any<HostContext>({disk_failed, images_failed})), Not(preparing)}),
       kKnown,
       Act::Say(kKnownInfo),
       "The cluster stopped preparing (cancelled or failed)."},
      {Ev::kRefresh,
       {kPreparing, kPreparingFailed, kKnown},
       All<HostContext>({online, disk_failed}),
       kInsufficient,
       not_ready,
       "The installation disk is too slow."},
      {Ev::kRefresh,
       {kPreparing},
       All<HostContext>({online, prepare_timed_out, some_check_unknown}),
       kPreparingFailed,
       prepare_timeout,
       "A preparation check never reported."},
      {Ev::kRefresh,
       {kPreparing},
       All<HostContext>({online, images_failed}),
       kPreparingFailed,
       prepare_failed,
       "Required container images could not be pulled."},
      {Ev::kRefresh,
       {kPreparing},
       All<HostContext>({online, some_check_unknown, preparing}),
       std::nullopt,
       A{},
       "Checks still running."},
      {Ev::kRefresh,
       {kPreparingFailed},
       All<HostContext>({online, Not(preparing)}),
       kKnown,
       Act::Say(kKnownInfo),
       "The cluster gave up preparing; the host may be retried."},
      {Ev::kRefresh,
       {kPreparingSuccessful},
       All<HostContext>({online, Not(Any<HostContext>({preparing, cluster_installing}))}),
       kKnown,
       Act::Say(kKnownInfo),
       "The cluster stopped preparing before installing."},
      {Ev::kRefresh,
       {kPreparingFailed},
       online,
       std::nullopt,
       A{},
       "Wait for the cluster to notice the failed preparation (not in the reference, which has "
       "no rule here)."},
      {Ev::kRefresh,
       {kDiscovering, kInsufficient, kKnown, kPendingForInput, kDisconnected, kPreparingFailed,
        kBinding},
       offline,
       kDisconnected,
       Act::Say(kDisconnectedInfo),
       "The agent went silent or the discovery media vanished before installation."},
      {Ev::kRefresh,
       {kPreparing, kPreparingSuccessful},
       offline,
       kDisconnected,
       Act::Say("Host has stopped communicating with the installation service while preparing for "
                "installation"),
       "The agent went silent while preparing."},

      // ---- refresh: installation -------------------------------------------------------------
      {Ev::kRefresh,
       {kInstalling, kInProgress, kInstalled, kResettingPua, kInstallingPua},
       All<HostContext>({cluster_error, Not(day2)}),
       kError,
       Act::Say("Host is part of a cluster that failed to install"),
       "The cluster failed: abort every host of it."},
      {Ev::kRefresh,
       {kInstalling},
       installing_timed_out,
       kError,
       Act::Say("Host failed to install due to timeout while starting installation"),
       "The install step never reported a stage."},
      {Ev::kRefresh,
       {kInstalling, kInProgress},
       All<HostContext>({Not(connected), Not(soft)}),
       kError,
       Act::Say("Host failed to install due to timeout while connecting to host"),
       "The agent went silent before Rebooting (hard timeouts)."},
      {Ev::kRefresh,
       {kInstalling, kInProgress},
       All<HostContext>({Not(connected), soft, Not(connection_flagged)}),
       std::nullopt,
       Act::Say("Host stopped communicating with the installation service; the installation "
                "continues",
                {E::kSetConnectionTimedOut}),
       "The agent went silent (soft timeouts): flag it and keep installing."},
      {Ev::kRefresh,
       {kInstalling, kInProgress},
       All<HostContext>({connected, soft, connection_flagged}),
       std::nullopt,
       Act::Say("Installation is in progress", {E::kClearConnectionTimedOut}),
       "The agent came back (soft timeouts)."},
      {Ev::kRefresh,
       {kInProgress},
       waits_on_user,
       std::nullopt,
       Act::Do({E::kRefreshStageUpdatedAt}),
       "The host waits on others while the cluster waits on the user: its stage clock restarts."},
      {Ev::kRefresh,
       {kInProgress},
       All<HostContext>({Not(soft), Not(rebooting), stage_timed_out}),
       kError,
       stage_timeout,
       "A stage took too long (hard timeouts)."},
      {Ev::kRefresh,
       {kInProgress},
       All<HostContext>({soft, Not(stage_flagged), Not(rebooting), stage_timed_out}),
       std::nullopt,
       soft_stage_timeout,
       "A stage took too long (soft timeouts): flag it."},
      {Ev::kRefresh,
       {kInProgress},
       All<HostContext>({rebooting, stage_timed_out}),
       kInstallingPua,
       Act::Explain("Host timed out when pulling ignition: ... verify that it boots from the "
                    "installation disk",
                    [](const HostContext& c) {
                      return absl::StrCat(
                          "Host timed out when pulling ignition. Check the host console and verify "
                          "that it boots from the OpenShift installation disk ",
                          c.installation_disk.empty() ? "" : absl::StrCat(c.installation_disk, " "),
                          "and has network access to the cluster API. The installation will resume "
                          "once the host successfully boots and can access the cluster API");
                    }),
       "Rebooting took too long: most likely a wrong boot order."},
      {Ev::kRefresh,
       {kInstallingPua},
       All<HostContext>({pua_timed_out, succeeds_without, Not(post_install)}),
       kError,
       pua_timeout,
       "Nobody fixed the host in time and the cluster can do without it."},
      {Ev::kRefresh,
       {kInstalling, kInProgress, kInstalled, kInstallingPua, kResettingPua},
       Always<HostContext>(),
       std::nullopt,
       A{},
       "Installing normally."},

      // ---- refresh: discovery (bound) --------------------------------------------------------
      {Ev::kRefresh,
       {kDisconnected, kDiscovering, kBinding},
       Not(inventory),
       kDiscovering,
       Act::Say("Waiting for host to send hardware details"),
       "Connected but no usable inventory yet (none, or fully truncated)."},
      {Ev::kRefresh,
       {kDisconnected, kDiscovering, kInsufficient, kKnown, kPendingForInput, kBinding},
       Not(min_hw),
       kInsufficient,
       insufficient_hw,
       "Fails the minimum hardware of every role. (The reference also requires has-inventory here; "
       "without an inventory the hardware validations pend, so this row covers that case too.)"},
      {Ev::kRefresh,
       {kDisconnected, kDiscovering, kInsufficient, kKnown, kPendingForInput, kBinding},
       Not(input),
       kPendingForInput,
       Act::Explain("Waiting for user input: <failing validations>",
                    [](const HostContext& c) {
                      return absl::StrCat(
                          "Waiting for user input: ",
                          c.validations->Blocking(HostValidationGates().required_input));
                    }),
       "Hardware is fine but the cluster lacks input the user must give (machine CIDR)."},
      {Ev::kRefresh,
       {kDisconnected, kDiscovering, kInsufficient, kKnown, kPendingForInput, kBinding},
       Not(sufficient),
       kInsufficient,
       not_ready,
       "Some validation required to install fails."},
      {Ev::kRefresh,
       {kDisconnected, kDiscovering, kInsufficient, kKnown, kPendingForInput, kBinding},
       Always<HostContext>(),
       kKnown,
       Act::Say(kKnownInfo),
       "Every required validation passes."},

      // ---- refresh: unbound pool ---------------------------------------------------------------
      {Ev::kRefresh,
       {kDiscoveringUnbound, kInsufficientUnbound, kKnownUnbound, kDisconnectedUnbound, kUnbinding},
       Not(connected),
       kDisconnectedUnbound,
       Act::Say(kDisconnectedInfo),
       "A pool host went silent."},
      {Ev::kRefresh,
       {kDisconnectedUnbound, kDiscoveringUnbound, kUnbinding},
       Not(inventory),
       kDiscoveringUnbound,
       Act::Say("Waiting for host to send hardware details"),
       "A pool host without a usable inventory."},
      {Ev::kRefresh,
       {kDiscoveringUnbound, kInsufficientUnbound, kKnownUnbound, kDisconnectedUnbound, kUnbinding},
       Not(unbound_min_hw),
       kInsufficientUnbound,
       Act::Explain("Host does not meet the minimum hardware requirements: <failing validations>",
                    [](const HostContext& c) {
                      return absl::StrCat(
                          "Host does not meet the minimum hardware requirements: ",
                          c.validations
                              ? c.validations->Blocking(HostValidationGates().unbound_min_hardware)
                              : "not validated");
                    }),
       "A pool host below the smallest role's minimum, or with an invalid hostname."},
      {Ev::kRefresh,
       {kDiscoveringUnbound, kInsufficientUnbound, kKnownUnbound, kDisconnectedUnbound, kUnbinding},
       Always<HostContext>(),
       kKnownUnbound,
       Act::Say("Host is ready to be bound to a cluster"),
       "A pool host ready to be bound."},

      // ---- refresh: nothing to do ------------------------------------------------------------
      {Ev::kRefresh,
       {kError, kCancelled},
       logs_timed_out,
       std::nullopt,
       Act::Do({E::kSetLogsTimedOut}),
       "Log collection ran out of time."},
      {Ev::kRefresh,
       {kError, kCancelled, kResetting, kAdded, kReclaiming, kReclaimingRebooting, kUnbindingPua,
        kDisabled, kDisabledUnbound},
       Always<HostContext>(),
       std::nullopt,
       A{},
       "States only an event leaves. Resetting, reclaiming and disabled are never entered here "
       "(the reference's legacy reset and its reclaim flow): listed so that refresh decides for "
       "every state."},
  };
}

}  // namespace

bool HostConnected(const HostContext& ctx) {
  if (IsAfterReboot(ctx.stage)) return true;
  absl::Duration limit = ctx.timeouts->disconnection;
  if (ctx.bootstrap) limit += ctx.timeouts->bootstrap_extra_disconnection;
  return ctx.now - ctx.checked_in_at <= limit;
}

HostFieldsUpdate HostEffectFields(const types::v1::Host& host, const HostDecision& decision,
                                  absl::Time now) {
  HostFieldsUpdate update;
  types::v1::Host& fields = update.fields;
  // The checks of an earlier preparation (or discovery) must not pass this one.
  auto forget_checks = [&] {
    fields.clear_images_status_report();
    fields.clear_disks_info_report();
    update.Mark("images_status_report");
    update.Mark("disks_info_report");
  };
  auto forget_installation = [&] {
    fields.clear_progress();
    fields.clear_progress_stages();
    fields.set_bootstrap(false);
    update.Mark("progress");
    update.Mark("progress_stages");
    update.Mark("bootstrap");
  };
  // Both stage effects edit the stored progress; the second one sees the first one's edit.
  auto progress = [&]() -> types::v1::HostProgress& {
    if (!update.Has("progress")) *fields.mutable_progress() = host.progress();
    update.Mark("progress");
    return *fields.mutable_progress();
  };
  for (HostEffect effect : decision.effects) {
    switch (effect) {
      case HostEffect::kResetForRediscovery:
        forget_installation();
        forget_checks();
        break;
      case HostEffect::kResetInstallationPreparation:
        forget_checks();
        break;
      case HostEffect::kClearInstallation:
        forget_installation();
        break;
      case HostEffect::kSetConnectionTimedOut:
      case HostEffect::kClearConnectionTimedOut:
        fields.set_connection_timed_out(effect == HostEffect::kSetConnectionTimedOut);
        update.Mark("connection_timed_out");
        break;
      case HostEffect::kSetStageTimedOut:
        progress().set_stage_timed_out(true);
        break;
      case HostEffect::kRefreshStageUpdatedAt:
        *progress().mutable_stage_updated_at() =
            google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(now));
        break;
      case HostEffect::kSetLogsTimedOut:
        fields.set_logs_info(types::v1::LOGS_STATE_TIMEOUT);
        update.Mark("logs_info");
        break;
      case HostEffect::kBindToCluster:
        forget_checks();
        break;
      case HostEffect::kUnbindFromCluster:
        forget_installation();
        forget_checks();
        fields.clear_cluster_id();
        fields.set_role(types::v1::HOST_ROLE_AUTO_ASSIGN);
        update.Mark("cluster_id");
        update.Mark("role");
        break;
      case HostEffect::kRecordProgress:
        break;
    }
  }
  return update;
}

absl::string_view HostEventName(HostEvent event) {
  switch (event) {
    case HostEvent::kRegister:
      return "RegisterHost";
    case HostEvent::kCancel:
      return "CancelInstallation";
    case HostEvent::kInstall:
      return "InstallHost";
    case HostEvent::kReset:
      return "ResettingPendingUserAction";
    case HostEvent::kRefresh:
      return "RefreshHost";
    case HostEvent::kProgress:
      return "HostProgressChanged";
    case HostEvent::kBind:
      return "BindHost";
    case HostEvent::kUnbind:
      return "UnbindHost";
  }
  return "unknown";
}

absl::string_view HostEffectName(HostEffect effect) {
  switch (effect) {
    case HostEffect::kResetForRediscovery:
      return "reset-for-rediscovery";
    case HostEffect::kResetInstallationPreparation:
      return "reset-installation-preparation";
    case HostEffect::kRecordProgress:
      return "record-progress";
    case HostEffect::kSetConnectionTimedOut:
      return "set-connection-timed-out";
    case HostEffect::kClearConnectionTimedOut:
      return "clear-connection-timed-out";
    case HostEffect::kSetStageTimedOut:
      return "set-stage-timed-out";
    case HostEffect::kRefreshStageUpdatedAt:
      return "refresh-stage-updated-at";
    case HostEffect::kSetLogsTimedOut:
      return "set-logs-timed-out";
    case HostEffect::kClearInstallation:
      return "clear-installation";
    case HostEffect::kBindToCluster:
      return "bind-to-cluster";
    case HostEffect::kUnbindFromCluster:
      return "unbind-from-cluster";
  }
  return "unknown";
}

const HostMachine& HostStateMachine() {
  static const auto* const kMachine = [] {
    std::vector<HostStatus> states;
    for (int s = types::v1::HostStatus_MIN; s <= types::v1::HostStatus_MAX; ++s) {
      if (types::v1::HostStatus_IsValid(s)) states.push_back(static_cast<HostStatus>(s));
    }
    std::vector<HostEvent> events;
    for (int e = 0; e <= static_cast<int>(HostEvent::kUnbind); ++e) {
      events.push_back(static_cast<HostEvent>(e));
    }
    return new HostMachine("host", std::move(states), std::move(events), BuildRows(),
                           {HostStatusName, HostEventName, HostEffectName});
  }();
  return *kMachine;
}

}  // namespace assisted::orchestrator::core
