// File: services/orchestrator/core/cluster_state_machine.cc
//
// The rows follow the reference's internal/cluster/statemachine.go in order and meaning; where
// this table differs, the row's doc says so.

#include "services/orchestrator/core/cluster_state_machine.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator::core {

namespace {

using types::v1::ClusterStatus;
using types::v1::HostStatus;
using G = Guard<ClusterContext>;
using A = Action<ClusterContext, ClusterEffect>;
using Act = Actions<ClusterContext, ClusterEffect>;
using E = ClusterEffect;
using Ev = ClusterEvent;

using namespace cluster_status;  // NOLINT: the table reads better unqualified

G Group(std::string name, const std::vector<absl::string_view>* ids) {
  return When<ClusterContext>(std::move(name), [ids](const ClusterContext& c) {
    return c.validations != nullptr && c.validations->AllPassed(*ids);
  });
}

bool AnyHost(const ClusterContext& c, HostStatus status) {
  return std::any_of(c.hosts.begin(), c.hosts.end(),
                     [status](const HostRoleStatus& h) { return h.status == status; });
}

// Hosts still on their way to (or done with) installing: the reference's IsInstalling.
bool InstallingEnough(const ClusterContext& c) {
  return EnoughHosts(
      c.hosts, c.topology,
      {types::v1::HOST_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS,
       types::v1::HOST_STATUS_INSTALLED, types::v1::HOST_STATUS_INSTALLING_PENDING_USER_ACTION,
       types::v1::HOST_STATUS_PREPARING_SUCCESSFUL});
}

bool FinalizingEnough(const ClusterContext& c) {
  return EnoughHosts(c.hosts, c.topology, {types::v1::HOST_STATUS_INSTALLED});
}

bool NonFailingFinalizingStage(types::v1::FinalizingStage s) {
  return s == types::v1::FINALIZING_STAGE_APPLYING_OLM_MANIFESTS ||
         s == types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV_INITIALIZATION ||
         s == types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV;
}

absl::Duration FinalizingStageLimit(const ClusterContext& c) {
  return c.timeouts->FinalizingStage(c.finalizing_stage, c.soft_timeouts, c.max_operator_timeout);
}

std::string Hours(absl::Duration d) {
  return absl::ToInt64Minutes(d) % 60 == 0 ? absl::StrCat(absl::ToInt64Hours(d), " hours")
                                           : absl::StrCat(absl::ToInt64Minutes(d), " minutes");
}

std::vector<ClusterRow> BuildRows() {
  const ClusterGates& gates = ClusterValidationGates();  // static: safe to point at
  const G dhcp = When<ClusterContext>(
      "vip_dhcp_allocation", [](const ClusterContext& c) { return c.vip_dhcp_allocation; });
  const G input = Group("required-input validations pass", &gates.required_input);
  const G vips = Group("vips-defined validations pass", &gates.vips_defined);
  const G all_input = All<ClusterContext>({input, Any<ClusterContext>({dhcp, vips})});
  const G sufficient = All<ClusterContext>(
      {Group("required-for-install validations pass", &gates.required_for_install), vips});
  const G soft = When<ClusterContext>("soft timeouts",
                                      [](const ClusterContext& c) { return c.soft_timeouts; });
  const G installing = When<ClusterContext>("enough hosts installing", InstallingEnough);
  const G finalizing = When<ClusterContext>("enough hosts installed", FinalizingEnough);
  const G pua = When<ClusterContext>("a host pending user action", [](const ClusterContext& c) {
    return AnyHost(c, types::v1::HOST_STATUS_INSTALLING_PENDING_USER_ACTION);
  });
  const G all_prepared =
      When<ClusterContext>("all hosts preparing-successful", [](const ClusterContext& c) {
        return !c.hosts.empty() &&
               std::all_of(c.hosts.begin(), c.hosts.end(), [](const HostRoleStatus& h) {
                 return h.status == types::v1::HOST_STATUS_PREPARING_SUCCESSFUL;
               });
      });
  const G unpreparing =
      When<ClusterContext>("a host left preparation", [](const ClusterContext& c) {
        return std::any_of(c.hosts.begin(), c.hosts.end(), [](const HostRoleStatus& h) {
          return h.status != types::v1::HOST_STATUS_PREPARING_FOR_INSTALLATION &&
                 h.status != types::v1::HOST_STATUS_PREPARING_SUCCESSFUL &&
                 h.status != types::v1::HOST_STATUS_PREPARING_FAILED;
        });
      });
  const G failed_preparing = When<ClusterContext>(
      "a host preparing-failed",
      [](const ClusterContext& c) { return AnyHost(c, types::v1::HOST_STATUS_PREPARING_FAILED); });
  const G prepared = When<ClusterContext>("preparation succeeded", [](const ClusterContext& c) {
    return c.preparation == types::v1::INSTALLATION_PREPARATION_STATUS_SUCCESS;
  });
  const G preparation_failed =
      When<ClusterContext>("preparation failed", [](const ClusterContext& c) {
        return c.preparation == types::v1::INSTALLATION_PREPARATION_STATUS_FAILED;
      });
  const G prepare_timed_out = When<ClusterContext>(
      "preparation timed out",
      [](const ClusterContext& c) { return c.now - c.status_updated_at > c.timeouts->prepare; });
  const G install_timed_out =
      When<ClusterContext>("installation timed out", [](const ClusterContext& c) {
        return c.now - c.install_started_at > c.timeouts->installation;
      });
  const G finalizing_timed_out = When<ClusterContext>(
      "finalizing timed out",
      [](const ClusterContext& c) { return c.now - c.status_updated_at > c.timeouts->finalizing; });
  const G stage_timed_out =
      When<ClusterContext>("finalizing stage timed out", [](const ClusterContext& c) {
        return c.finalizing_stage != types::v1::FINALIZING_STAGE_UNSPECIFIED &&
               c.now - c.finalizing_stage_started_at > FinalizingStageLimit(c);
      });
  const G stage_flagged =
      When<ClusterContext>("finalizing_stage_timed_out flagged",
                           [](const ClusterContext& c) { return c.finalizing_stage_timed_out; });
  const G non_failing_stage = When<ClusterContext>(
      "non-failing finalizing stage",
      [](const ClusterContext& c) { return NonFailingFinalizingStage(c.finalizing_stage); });
  const G all_hosts_done =
      When<ClusterContext>("all hosts installed or error", [](const ClusterContext& c) {
        return std::all_of(c.hosts.begin(), c.hosts.end(), [](const HostRoleStatus& h) {
          return h.status == types::v1::HOST_STATUS_INSTALLED ||
                 h.status == types::v1::HOST_STATUS_ERROR;
        });
      });
  const G complete = When<ClusterContext>(
      "kubeconfig stored and operators available",
      [](const ClusterContext& c) { return c.kubeconfig_exists && c.operators_available; });
  const G logs_timed_out =
      When<ClusterContext>("log collection timed out", [](const ClusterContext& c) {
        return LogCollectionTimedOut(c.logs_info, c.logs_started_at, c.now, c.timeouts->log_pending,
                                     c.timeouts->log_collection);
      });

  const A hosts_failed =
      Act::Say("Cluster has hosts in error: not enough hosts can complete the installation",
               {E::kFailInstallation});
  const std::string kInstallingInfo = "Installation in progress";
  const std::string kFinalizingInfo = "Finalizing cluster installation";

  return {
      // ---- user actions ----------------------------------------------------------------------
      {Ev::kCancel,
       {kInstalling, kPua, kError, kFinalizing},
       Always<ClusterContext>(),
       kCancelled,
       Act::Say("Installation was cancelled by user", {E::kCancelHosts}),
       "Cancel an installation in progress (or failed)."},
      {Ev::kCancel,
       {kPreparing},
       Always<ClusterContext>(),
       kReady,
       Act::Say("Cluster ready to be installed", {E::kCancelHosts}),
       "Cancelling during preparation only stops the preparation."},
      {Ev::kReset,
       {kPreparing, kInstalling, kPua, kError, kCancelled, kFinalizing},
       Always<ClusterContext>(),
       kInsufficient,
       Act::Say("Cluster installation was reset; reboot the hosts into the discovery image",
                {E::kResetHosts}),
       "Reset so the cluster can be installed again."},
      {Ev::kPrepareForInstallation,
       {kReady},
       Always<ClusterContext>(),
       kPreparing,
       Act::Say("Preparing cluster for installation", {E::kStartPreparation}),
       "The user starts the installation."},
      {Ev::kAllowAddHosts,
       {kInstalled},
       Always<ClusterContext>(),
       kAddingHosts,
       Act::Say("Cluster is ready to add hosts"),
       "Open an installed cluster to day-2 hosts (the reference does this outside its table)."},

      // ---- refresh before installation -------------------------------------------------------
      {Ev::kRefresh,
       {kPendingForInput, kReady, kInsufficient},
       Not(all_input),
       kPendingForInput,
       Act::Explain("User input required: <missing inputs>",
                    [](const ClusterContext& c) {
                      const ClusterGates& g = ClusterValidationGates();
                      std::string missing = c.validations
                                                ? c.validations->Blocking(g.required_input)
                                                : "not validated";
                      if (c.validations && !c.vip_dhcp_allocation) {
                        std::string vips = c.validations->Blocking(g.vips_defined);
                        if (!missing.empty() && !vips.empty()) absl::StrAppend(&missing, " ; ");
                        absl::StrAppend(&missing, vips);
                      }
                      return absl::StrCat("User input required: ", missing);
                    }),
       "Required inputs are missing: CIDRs, base domain, pull secret, and the VIPs unless DHCP "
       "allocates them."},
      {Ev::kRefresh,
       {kPendingForInput, kReady, kInsufficient},
       Not(sufficient),
       kInsufficient,
       Act::Explain("Cluster is not ready for install: <failing validations>",
                    [](const ClusterContext& c) {
                      const ClusterGates& g = ClusterValidationGates();
                      std::string failing = c.validations->Blocking(g.required_for_install);
                      std::string vips = c.validations->Blocking(g.vips_defined);
                      if (!failing.empty() && !vips.empty()) absl::StrAppend(&failing, " ; ");
                      return absl::StrCat("Cluster is not ready for install: ", failing, vips);
                    }),
       "Inputs are there but some validation fails."},
      {Ev::kRefresh,
       {kPendingForInput, kReady, kInsufficient},
       Always<ClusterContext>(),
       kReady,
       Act::Say("Cluster ready to be installed"),
       "Every validation passes."},

      // ---- refresh while preparing -----------------------------------------------------------
      {Ev::kRefresh,
       {kPreparing},
       All<ClusterContext>({prepare_timed_out, Not(failed_preparing)}),
       kReady,
       Act::Explain("Preparing for installation timed out after <limit>",
                    [](const ClusterContext& c) {
                      return absl::StrCat("Preparing for installation timed out after ",
                                          Hours(c.timeouts->prepare), "; retry the installation");
                    }),
       "Preparation took too long."},
      {Ev::kRefresh,
       {kPreparing},
       All<ClusterContext>({all_prepared, prepared}),
       kInstalling,
       Act::Say(kInstallingInfo, {E::kStartInstallation}),
       "Artifacts generated and every host prepared: install."},
      {Ev::kRefresh,
       {kPreparing},
       unpreparing,
       kInsufficient,
       Act::Say("Cluster is not ready for install: a host left the preparation (disconnected or "
                "insufficient)"),
       "A host dropped out of preparation."},
      {Ev::kRefresh,
       {kPreparing},
       Any<ClusterContext>(
           {failed_preparing, All<ClusterContext>({Not(unpreparing), preparation_failed})}),
       kReady,
       Act::Explain("Cluster failed to prepare for installation: <reason>",
                    [](const ClusterContext& c) {
                      return AnyHost(c, types::v1::HOST_STATUS_PREPARING_FAILED)
                                 ? std::string(
                                       "Cluster failed to prepare for installation: a host "
                                       "failed its preparation checks")
                                 : std::string(
                                       "Cluster failed to prepare for installation: "
                                       "generating the installation manifests failed");
                    }),
       "A host or the artifact generation failed."},

      // ---- refresh while installing ----------------------------------------------------------
      {Ev::kRefresh,
       {kPua},
       Not(Any<ClusterContext>({installing, finalizing})),
       kError,
       hosts_failed,
       "Too few hosts can still complete the installation."},
      {Ev::kRefresh,
       {kPua},
       install_timed_out,
       kError,
       Act::Explain("Timeout while waiting for the user to fix the hosts (<limit>)",
                    [](const ClusterContext& c) {
                      return absl::StrCat("Installation timed out after ",
                                          Hours(c.timeouts->installation),
                                          " while waiting for the user to fix the hosts");
                    },
                    {E::kFailInstallation}),
       "The user did not act in time."},
      {Ev::kRefresh,
       {kInstalling, kFinalizing},
       All<ClusterContext>({install_timed_out, soft}),
       kError,
       Act::Explain("Installation timed out after <limit>",
                    [](const ClusterContext& c) {
                      return absl::StrCat("Installation timed out after ",
                                          Hours(c.timeouts->installation));
                    },
                    {E::kFailInstallation}),
       "The whole installation took too long (soft-timeout mode only)."},
      {Ev::kRefresh,
       {kFinalizing},
       All<ClusterContext>({finalizing_timed_out, Not(soft)}),
       kError,
       Act::Explain("Finalizing timed out after <limit>",
                    [](const ClusterContext& c) {
                      return absl::StrCat("Cluster finalization timed out after ",
                                          Hours(c.timeouts->finalizing));
                    },
                    {E::kFailInstallation}),
       "Finalizing took too long (hard-timeout mode)."},
      {Ev::kRefresh,
       {kFinalizing},
       All<ClusterContext>({Not(soft), stage_timed_out, Not(non_failing_stage)}),
       kError,
       Act::Explain("Finalizing stage <stage> timed out after <limit>",
                    [](const ClusterContext& c) {
                      return absl::StrCat("Finalizing stage ",
                                          FinalizingStageName(c.finalizing_stage),
                                          " timed out after ", Hours(FinalizingStageLimit(c)));
                    },
                    {E::kFailInstallation}),
       "A finalizing stage took too long (hard mode, failing stage)."},
      {Ev::kRefresh,
       {kFinalizing},
       All<ClusterContext>(
           {Not(stage_flagged), Any<ClusterContext>({soft, non_failing_stage}), stage_timed_out}),
       std::nullopt,
       Act::Explain("Finalizing stage <stage> is taking longer than expected <limit>",
                    [](const ClusterContext& c) {
                      return absl::StrCat(
                          "Finalizing stage ", FinalizingStageName(c.finalizing_stage),
                          " is taking longer than expected ", Hours(FinalizingStageLimit(c)));
                    },
                    {E::kSetFinalizingStageTimedOut}),
       "A finalizing stage is late but may not fail the cluster: flag it."},
      {Ev::kRefresh,
       {kPua},
       All<ClusterContext>({pua, Any<ClusterContext>({installing, finalizing})}),
       std::nullopt,
       A{},
       "Still waiting for the user."},
      {Ev::kRefresh,
       {kPua},
       All<ClusterContext>({Not(pua), installing, Not(finalizing)}),
       kInstalling,
       Act::Say(kInstallingInfo),
       "The user fixed the hosts."},
      {Ev::kRefresh,
       {kPua},
       All<ClusterContext>({Not(pua), finalizing}),
       kFinalizing,
       Act::Say(kFinalizingInfo),
       "The user fixed the hosts and enough are installed."},
      {Ev::kRefresh,
       {kInstalling, kFinalizing},
       All<ClusterContext>({Any<ClusterContext>({installing, finalizing}), pua}),
       kPua,
       Act::Say(
           "Installation in progress, some hosts require user action: check the hosts' status"),
       "A host needs the user (wrong boot order)."},
      {Ev::kRefresh,
       {kInstalling},
       All<ClusterContext>({finalizing, Not(pua)}),
       kFinalizing,
       Act::Say(kFinalizingInfo),
       "Enough masters and workers are installed."},
      {Ev::kRefresh,
       {kInstalling},
       All<ClusterContext>({Not(finalizing), Not(pua), installing}),
       std::nullopt,
       Act::Say(kInstallingInfo),
       "Installing normally."},
      {Ev::kRefresh,
       {kFinalizing},
       All<ClusterContext>({all_hosts_done, complete}),
       kInstalled,
       Act::Say("Cluster is installed", {E::kCompleteInstallation}),
       "Every host is done, the kubeconfig is stored and every monitored operator is available."},
      {Ev::kRefresh,
       {kInstalling},
       All<ClusterContext>({Not(finalizing), Not(installing)}),
       kError,
       hosts_failed,
       "Too few hosts can still complete the installation."},

      // ---- refresh: nothing to do ------------------------------------------------------------
      {Ev::kRefresh,
       {kError, kCancelled},
       logs_timed_out,
       std::nullopt,
       Act::Do({E::kSetLogsTimedOut}),
       "Log collection ran out of time."},
      {Ev::kRefresh,
       {kPreparing, kFinalizing, kInstalled, kError, kCancelled, kAddingHosts, kUnmonitored},
       Always<ClusterContext>(),
       std::nullopt,
       A{},
       "Nothing changed (an unmonitored cluster, registered as disconnected, is never "
       "monitored)."},
  };
}

}  // namespace

ClusterFieldsUpdate ClusterEffectFields(const types::v1::Cluster& cluster,
                                        const ClusterDecision& decision, absl::Time now) {
  ClusterFieldsUpdate update;
  types::v1::Cluster& fields = update.fields;
  const google::protobuf::Timestamp stamp =
      google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(now));
  for (ClusterEffect effect : decision.effects) {
    switch (effect) {
      case ClusterEffect::kStartPreparation:
        fields.mutable_last_installation_preparation()->set_status(
            types::v1::INSTALLATION_PREPARATION_STATUS_NOT_STARTED);
        update.Mark("last_installation_preparation");
        break;
      case ClusterEffect::kStartInstallation:
        *fields.mutable_install_started_at() = stamp;
        update.Mark("install_started_at");
        break;
      case ClusterEffect::kCompleteInstallation:
      case ClusterEffect::kFailInstallation:
        *fields.mutable_install_completed_at() = stamp;
        update.Mark("install_completed_at");
        break;
      case ClusterEffect::kResetHosts:
        fields.clear_last_installation_preparation();
        fields.clear_progress();
        update.Mark("last_installation_preparation");
        update.Mark("progress");
        break;
      case ClusterEffect::kSetFinalizingStageTimedOut:
        *fields.mutable_progress() = cluster.progress();
        fields.mutable_progress()->set_finalizing_stage_timed_out(true);
        update.Mark("progress");
        break;
      case ClusterEffect::kSetLogsTimedOut:
        fields.set_logs_info(types::v1::LOGS_STATE_TIMEOUT);
        update.Mark("logs_info");
        break;
      case ClusterEffect::kCancelHosts:
        break;
    }
  }
  return update;
}

absl::string_view ClusterEventName(ClusterEvent event) {
  switch (event) {
    case ClusterEvent::kPrepareForInstallation:
      return "PrepareForInstallation";
    case ClusterEvent::kCancel:
      return "CancelInstallation";
    case ClusterEvent::kReset:
      return "ResetCluster";
    case ClusterEvent::kRefresh:
      return "RefreshStatus";
    case ClusterEvent::kAllowAddHosts:
      return "AllowAddHosts";
  }
  return "unknown";
}

absl::string_view ClusterEffectName(ClusterEffect effect) {
  switch (effect) {
    case ClusterEffect::kStartPreparation:
      return "start-preparation";
    case ClusterEffect::kStartInstallation:
      return "start-installation";
    case ClusterEffect::kCancelHosts:
      return "cancel-hosts";
    case ClusterEffect::kResetHosts:
      return "reset-hosts";
    case ClusterEffect::kCompleteInstallation:
      return "complete-installation";
    case ClusterEffect::kFailInstallation:
      return "fail-installation";
    case ClusterEffect::kSetFinalizingStageTimedOut:
      return "set-finalizing-stage-timed-out";
    case ClusterEffect::kSetLogsTimedOut:
      return "set-logs-timed-out";
  }
  return "unknown";
}

const ClusterMachine& ClusterStateMachine() {
  static const auto* const kMachine = [] {
    std::vector<ClusterStatus> states;
    for (int s = types::v1::ClusterStatus_MIN + 1; s <= types::v1::ClusterStatus_MAX; ++s) {
      if (types::v1::ClusterStatus_IsValid(s)) states.push_back(static_cast<ClusterStatus>(s));
    }
    std::vector<ClusterEvent> events;
    for (int e = 0; e <= static_cast<int>(ClusterEvent::kAllowAddHosts); ++e) {
      events.push_back(static_cast<ClusterEvent>(e));
    }
    return new ClusterMachine("cluster", std::move(states), std::move(events), BuildRows(),
                              {ClusterStatusName, ClusterEventName, ClusterEffectName});
  }();
  return *kMachine;
}

}  // namespace assisted::orchestrator::core
