#include "services/orchestrator/actions/progress.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/enums/spelling.h"
#include "lib/pki/pki.h"
#include "lib/status/status_macros.h"
#include "lib/time/proto_time.h"
#include "services/orchestrator/core/cluster_facts.h"
#include "services/orchestrator/core/host_state_machine.h"
#include "services/orchestrator/core/inventory_util.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/progress.h"
#include "services/orchestrator/core/stages.h"
#include "services/orchestrator/install/artifacts.h"
#include "services/orchestrator/install/install_config.h"

namespace assisted::orchestrator::actions {

namespace inv = inventory::v1;
using types::v1::Cluster;
using types::v1::Host;

absl::StatusOr<Host> ProgressActions::ApplyHostProgress(const std::string& infra_env_id,
                                                        const std::string& host_id,
                                                        types::v1::HostStage stage,
                                                        const std::string& info) {
  if (stage == types::v1::HOST_STAGE_UNSPECIFIED) {
    return absl::InvalidArgumentError("current_stage: required");
  }
  absl::Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    ASSIGN_OR_RETURN(Host host, context_.inventory.GetHost(infra_env_id, host_id));
    if (host.cluster_id().empty()) {
      return absl::FailedPreconditionError(absl::StrCat("host ", host_id, " is not in a cluster"));
    }
    ASSIGN_OR_RETURN(Cluster cluster,
                     context_.inventory.GetCluster(host.cluster_id(), /*with_hosts=*/true));
    std::vector<Host> members(cluster.hosts().begin(), cluster.hosts().end());
    cluster.clear_hosts();
    std::vector<const Host*> pointers;
    for (const Host& member : members) pointers.push_back(&member);
    const bool sno = install::IsSingleNode(cluster);
    const core::StageProfile profile = core::ProfileOf(host.role(), host.bootstrap(), sno);
    if (stage != types::v1::HOST_STAGE_FAILED) {
      RETURN_IF_ERROR(core::CheckStageUpdate(profile, host.progress().current_stage(), stage));
    }
    const absl::Time now = context_.clock.Now();
    core::HostContext context =
        core::MakeHostContext(host, &cluster, pointers, nullptr, now, context_.options.timeouts,
                              context_.options.decisions);
    context.reported_stage = stage;
    context.reason = info;
    ASSIGN_OR_RETURN(
        core::HostDecision decision,
        core::HostStateMachine().Fire(core::HostEvent::kProgress, host.status(), context));
    core::HostFieldsUpdate recorded;
    const bool new_stage = host.progress().current_stage() != stage;
    if (decision.Has(core::HostEffect::kRecordProgress) || stage == types::v1::HOST_STAGE_FAILED) {
      types::v1::HostProgress& progress = *recorded.fields.mutable_progress();
      progress = host.progress();
      if (new_stage) *progress.mutable_stage_started_at() = ToTimestamp(now);
      *progress.mutable_stage_updated_at() = ToTimestamp(now);
      progress.set_current_stage(stage);
      progress.set_progress_info(info);
      progress.set_stage_timed_out(false);
      if (stage != types::v1::HOST_STAGE_FAILED) {
        progress.set_installation_percentage(core::InstallationPercentage(profile, stage));
      }
      recorded.Mark("progress");
      if (host.progress_stages().empty()) {
        for (types::v1::HostStage s : core::StagesFor(profile)) {
          recorded.fields.add_progress_stages(s);
        }
        recorded.Mark("progress_stages");
      }
    }
    absl::StatusOr<Host> written = context_.refresher.Apply(host, decision, std::move(recorded));
    if (absl::IsAborted(written.status())) {
      last = written.status();
      continue;
    }
    RETURN_IF_ERROR(written.status());
    if (new_stage) {
      context_.Event(
          "host_install_progress_updated", cluster.id(), &*written,
          absl::StrCat("Host ", core::EffectiveHostname(*written), ": reached installation stage ",
                       core::HostStageName(stage), info.empty() ? "" : ": ", info),
          stage == types::v1::HOST_STAGE_FAILED ? types::v1::EVENT_SEVERITY_ERROR
                                                : types::v1::EVENT_SEVERITY_INFO);
    }
    // The cluster may move on (finalizing once enough hosts are done, error when too few can).
    absl::Status refreshed = context_.Refresh(cluster.id()).status();
    if (!refreshed.ok()) {
      context_.log.Warning("cannot refresh the cluster after progress",
                           {{"cluster_id", cluster.id()}, {"error", refreshed.message()}});
    }
    return context_.inventory.GetHost(infra_env_id, host_id);
  }
  return last;
}

absl::StatusOr<Cluster> ProgressActions::UpdateFinalizingProgress(
    const std::string& cluster_id, types::v1::FinalizingStage stage) {
  if (stage == types::v1::FINALIZING_STAGE_UNSPECIFIED) {
    return absl::InvalidArgumentError("finalizing_stage: required");
  }
  ASSIGN_OR_RETURN(Cluster cluster, context_.inventory.GetCluster(cluster_id, /*with_hosts=*/true));
  // Late, as for hosts: a cluster with nothing left to wait for can be installed before the
  // reporter's stages arrive; they change nothing, and refusing them would be retried for ever.
  if (cluster.status() == core::cluster_status::kInstalled) return cluster;
  if (cluster.status() != core::cluster_status::kFinalizing) {
    return absl::FailedPreconditionError(
        absl::StrCat("cluster ", cluster_id, " is ", core::ClusterStatusName(cluster.status()),
                     ": finalizing stages are reported while finalizing"));
  }
  core::ClusterFieldsUpdate reported;
  types::v1::ClusterProgress& progress = *reported.fields.mutable_progress();
  progress = cluster.progress();
  if (progress.finalizing_stage() != stage) {
    *progress.mutable_finalizing_stage_started_at() = ToTimestamp(context_.clock.Now());
    progress.set_finalizing_stage_timed_out(false);
  }
  progress.set_finalizing_stage(stage);
  reported.Mark("progress");
  cluster.clear_hosts();
  // Not a transition: the cluster stays finalizing with its new stage.
  RETURN_IF_ERROR(
      context_.refresher.Apply(cluster, {cluster.status(), cluster.status()}, std::move(reported))
          .status());
  context_.Event("cluster_finalizing_stage_updated", cluster_id, nullptr,
                 absl::StrCat("Finalizing stage: ", core::FinalizingStageName(stage)));
  return context_.Refresh(cluster_id);
}

absl::StatusOr<Cluster> ProgressActions::ReportOperatorStatus(
    const v1::ReportOperatorStatusRequest& report) {
  absl::Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    ASSIGN_OR_RETURN(Cluster cluster,
                     context_.inventory.GetCluster(report.cluster_id(), /*with_hosts=*/false));
    core::ClusterFieldsUpdate update;
    Cluster& changes = update.fields;
    *changes.mutable_monitored_operators() = cluster.monitored_operators();
    auto op = std::find_if(
        changes.mutable_monitored_operators()->begin(),
        changes.mutable_monitored_operators()->end(),
        [&](const types::v1::MonitoredOperator& o) { return o.name() == report.name(); });
    if (op == changes.mutable_monitored_operators()->end()) {
      return absl::NotFoundError(absl::StrCat(
          "name: cluster ", cluster.id(), " does not monitor an operator \"", report.name(), "\""));
    }
    const bool changed = op->status() != report.status();
    op->set_status(report.status());
    op->set_status_info(report.status_info());
    if (!report.version().empty()) op->set_version(report.version());
    *op->mutable_status_updated_at() = ToTimestamp(context_.clock.Now());
    update.Mark("monitored_operators");
    absl::StatusOr<Cluster> written =
        context_.inventory.UpdateCluster(cluster.id(), update, cluster.resource_version());
    if (absl::IsAborted(written.status())) {
      last = written.status();
      continue;
    }
    RETURN_IF_ERROR(written.status());
    if (changed) {
      context_.Event("cluster_operator_status_updated", cluster.id(), nullptr,
                     absl::StrCat("Operator ", report.name(), " is ",
                                  enums::EnumTextOrUnknown(report.status()),
                                  report.status_info().empty() ? "" : ": ", report.status_info()),
                     report.status() == types::v1::OPERATOR_STATUS_FAILED
                         ? types::v1::EVENT_SEVERITY_WARNING
                         : types::v1::EVENT_SEVERITY_INFO);
    }
    return context_.Refresh(report.cluster_id());
  }
  return last;
}

absl::StatusOr<Cluster> ProgressActions::UploadIngressCert(const std::string& cluster_id,
                                                           const std::string& ca_certificate) {
  ASSIGN_OR_RETURN(
      std::optional<std::string> noingress,
      context_.inventory.ArtifactContent(cluster_id, install::kKubeconfigNoIngressName));
  if (!noingress) {
    return absl::FailedPreconditionError(
        absl::StrCat("cluster ", cluster_id, " has no kubeconfig-noingress: not installing"));
  }
  ASSIGN_OR_RETURN(std::string kubeconfig,
                   pki::AddCertificateAuthority(*noingress, ca_certificate));
  for (const auto& [name, content] :
       {std::pair<const char*, const std::string*>{"ingress-ca.crt", &ca_certificate},
        {install::kKubeconfigName, &kubeconfig}}) {
    RETURN_IF_ERROR(context_.inventory.PutArtifact({.cluster_id = cluster_id,
                                                    .name = name,
                                                    .kind = inv::ARTIFACT_KIND_CREDENTIALS,
                                                    .content_type = "text/plain",
                                                    .content = *content}));
  }
  context_.Event("cluster_ingress_ca_uploaded", cluster_id, nullptr,
                 "The ingress CA joined the admin kubeconfig");
  return context_.Refresh(cluster_id);
}

absl::StatusOr<Cluster> ProgressActions::CompleteInstallation(const std::string& cluster_id,
                                                              bool success,
                                                              const std::string& error_info) {
  ASSIGN_OR_RETURN(Cluster cluster, context_.inventory.GetCluster(cluster_id, /*with_hosts=*/true));
  const types::v1::ClusterStatus status = cluster.status();
  if (status != core::cluster_status::kFinalizing && status != core::cluster_status::kInstalled) {
    return absl::FailedPreconditionError(absl::StrCat("cluster ", cluster_id, " is ",
                                                      core::ClusterStatusName(status),
                                                      ": installations complete from finalizing"));
  }
  if (success || status == core::cluster_status::kInstalled) {
    // Success is decided by the criteria (all hosts done, kubeconfig, operators) on refresh.
    return context_.Refresh(cluster_id);
  }
  // The controller's failure report: not a table event in the reference either (it writes the
  // status directly), but still a compare-and-set from finalizing with the failure's effect.
  core::ClusterDecision failed{status, core::cluster_status::kError};
  failed.status_info = absl::StrCat("Installation failed: ",
                                    error_info.empty() ? "reported by the controller" : error_info);
  failed.effects = {core::ClusterEffect::kFailInstallation};
  cluster.clear_hosts();
  ASSIGN_OR_RETURN(Cluster written, context_.refresher.Apply(cluster, failed));
  context_.Event("cluster_installation_failed", cluster_id, nullptr, written.status_info(),
                 types::v1::EVENT_SEVERITY_ERROR);
  return context_.Refresh(cluster_id);
}

absl::Status ProgressActions::ApplyAgentProgress(const Host& host,
                                                 const agent::v1::Progress& progress) {
  const absl::Status applied = ApplyHostProgress(host.infra_env_id(), host.id(),
                                                 progress.current_stage(), progress.progress_info())
                                   .status();
  if (absl::IsFailedPrecondition(applied) || absl::IsInvalidArgument(applied) ||
      absl::IsNotFound(applied)) {
    context_.log.Warning("agent progress not applied",
                         {{"host_id", host.id()},
                          {"stage", core::HostStageName(progress.current_stage())},
                          {"error", applied.message()}});
    return absl::OkStatus();
  }
  return applied;
}

}  // namespace assisted::orchestrator::actions
