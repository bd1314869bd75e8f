#include "services/orchestrator/install/actions.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "lib/status/status_macros.h"
#include "services/orchestrator/core/agent_reports.h"
#include "services/orchestrator/core/cluster_facts.h"
#include "services/orchestrator/core/cluster_state_machine.h"
#include "services/orchestrator/core/host_state_machine.h"
#include "services/orchestrator/core/hw_requirements.h"
#include "services/orchestrator/core/inventory_util.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/progress.h"
#include "services/orchestrator/core/roles.h"
#include "services/orchestrator/core/stages.h"
#include "services/orchestrator/install/ignition_configs.h"
#include "services/orchestrator/install/install_config.h"
#include "services/orchestrator/install/pki.h"

namespace assisted::orchestrator::install {
namespace {

namespace inv = inventory::v1;
using types::v1::Cluster;
using types::v1::Host;

// Compare-and-set retries before a lost race is returned to the caller (ABORTED).
constexpr int kAttempts = 5;

const absl::Status& StatusOf(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& result) {
  return result.status();
}

// Agents keep writing their hosts (step results) while an action runs: `attempt` runs again
// while it ends ABORTED (a write lost that race and must re-read), kAttempts times at most.
template <typename Attempt>
auto RetryWhileAborted(const Attempt& attempt) {
  auto outcome = attempt();
  for (int tried = 1; tried < kAttempts && absl::IsAborted(StatusOf(outcome)); ++tried) {
    outcome = attempt();
  }
  return outcome;
}

google::protobuf::Timestamp Ts(absl::Time t) {
  return google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(t));
}

bool InstallationBegan(types::v1::HostStatus status) {
  using namespace core::host_status;  // NOLINT
  for (types::v1::HostStatus s :
       {kPreparing, kPreparingFailed, kPreparingSuccessful, kInstalling, kInProgress,
        kInstallingPua, kInstalled, kAdded, kError, kCancelled}) {
    if (s == status) return true;
  }
  return false;
}

}  // namespace

struct InstallActions::Loaded {
  Cluster cluster;  // without hosts
  std::vector<Host> hosts;
  std::vector<core::HostReports> reports;
  std::vector<const Host*> pointers;
  std::vector<core::HostView> views;
  bool kubeconfig_exists = false;
};

InstallActions::InstallActions(InventoryPort& inventory, ActionsOptions options, const Clock& clock,
                               Random& random, log::Logger log, ActionsParts parts)
    : inventory_(inventory),
      options_(std::move(options)),
      clock_(clock),
      random_(random),
      log_(std::move(log)),
      refresher_(parts.refresher),
      events_(parts.events),
      generator_(parts.files),
      steps_(options_.os_image) {}

void InstallActions::Event(const std::string& name, const std::string& cluster_id, const Host* host,
                           const std::string& message, types::v1::EventSeverity severity) const {
  types::v1::Event event = host != nullptr ? HostEvent(*host, name, message, severity)
                                           : ClusterEvent(cluster_id, name, message, severity);
  event.set_cluster_id(cluster_id);
  events_.Emit(std::move(event));
}

absl::StatusOr<std::unique_ptr<InstallActions::Loaded>> InstallActions::Load(
    const std::string& cluster_id) const {
  auto loaded = std::make_unique<Loaded>();
  ASSIGN_OR_RETURN(loaded->cluster, inventory_.GetCluster(cluster_id, /*with_hosts=*/true));
  loaded->hosts.assign(loaded->cluster.hosts().begin(), loaded->cluster.hosts().end());
  loaded->cluster.clear_hosts();
  loaded->reports.reserve(loaded->hosts.size());
  for (const Host& host : loaded->hosts) loaded->reports.push_back(core::ParseHostReports(host));
  for (size_t i = 0; i < loaded->hosts.size(); ++i) {
    loaded->pointers.push_back(&loaded->hosts[i]);
    loaded->views.push_back({&loaded->hosts[i], &loaded->reports[i]});
  }
  absl::StatusOr<inv::Artifact> artifact =
      inventory_.GetArtifact(cluster_id, kKubeconfigName, /*metadata_only=*/true);
  if (!artifact.ok() && !absl::IsNotFound(artifact.status())) return artifact.status();
  loaded->kubeconfig_exists = artifact.ok();
  return loaded;
}

absl::StatusOr<Cluster> InstallActions::Refresh(const std::string& cluster_id) {
  ASSIGN_OR_RETURN(RefreshOutcome outcome, refresher_.RefreshCluster(cluster_id));
  Cluster cluster = *std::move(outcome.cluster);
  for (Host& host : outcome.hosts) *cluster.add_hosts() = std::move(host);
  return cluster;
}

absl::StatusOr<Cluster> InstallActions::RefreshCluster(const std::string& cluster_id) {
  return Refresh(cluster_id);
}

absl::Status InstallActions::AssignRolesAndBootstrap(const std::string& cluster_id) {
  ASSIGN_OR_RETURN(std::unique_ptr<Loaded> loaded, Load(cluster_id));
  if (loaded->cluster.status() != core::cluster_status::kReady) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cluster ", cluster_id, " is ", core::ClusterStatusName(loaded->cluster.status()),
        ", it must be ready to install: ", loaded->cluster.status_info()));
  }
  ASSIGN_OR_RETURN(
      core::ClusterFacts facts,
      core::BuildClusterFacts(&loaded->cluster, loaded->views, core::DefaultHwRequirements(), {}));
  for (const core::RoleAssignment& assignment : core::AssignRoles(loaded->pointers, facts)) {
    auto host = std::find_if(loaded->hosts.begin(), loaded->hosts.end(),
                             [&](const Host& h) { return h.id() == assignment.host_id; });
    if (host == loaded->hosts.end() || host->role() == assignment.role) continue;
    core::HostFieldsUpdate update;
    update.fields.set_role(assignment.role);
    update.Mark("role");
    ASSIGN_OR_RETURN(*host, inventory_.UpdateHost(host->infra_env_id(), host->id(), update,
                                                  host->resource_version()));
  }
  const bool has_bootstrap = std::any_of(loaded->hosts.begin(), loaded->hosts.end(),
                                         [](const Host& h) { return h.bootstrap(); });
  if (has_bootstrap) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::string bootstrap_id, core::ChooseBootstrap(loaded->pointers, facts));
  for (const Host& host : loaded->hosts) {
    if (host.id() != bootstrap_id) continue;
    core::HostFieldsUpdate update;
    update.fields.set_bootstrap(true);
    update.Mark("bootstrap");
    RETURN_IF_ERROR(
        inventory_.UpdateHost(host.infra_env_id(), host.id(), update, host.resource_version())
            .status());
    Event("host_bootstrap_set", cluster_id, &host,
          absl::StrCat("Host ", core::EffectiveHostname(host), ": set as bootstrap"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Cluster> InstallActions::InstallCluster(const std::string& cluster_id) {
  RETURN_IF_ERROR(Refresh(cluster_id).status());
  RETURN_IF_ERROR(RetryWhileAborted([&] { return AssignRolesAndBootstrap(cluster_id); }));
  RETURN_IF_ERROR(FireCluster(cluster_id, core::ClusterEvent::kPrepareForInstallation).status());
  Event("cluster_installation_started", cluster_id, nullptr, "Installation of the cluster started");
  return Refresh(cluster_id);
}

absl::StatusOr<Cluster> InstallActions::FireCluster(const std::string& cluster_id,
                                                    core::ClusterEvent event,
                                                    core::ClusterFieldsUpdate fields) {
  absl::Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    ASSIGN_OR_RETURN(std::unique_ptr<Loaded> loaded, Load(cluster_id));
    const core::ClusterContext context =
        core::MakeClusterContext(loaded->cluster, loaded->pointers, nullptr, clock_.Now(),
                                 options_.timeouts, options_.decisions, loaded->kubeconfig_exists);
    ASSIGN_OR_RETURN(core::ClusterDecision decision,
                     core::ClusterStateMachine().Fire(event, loaded->cluster.status(), context));
    absl::StatusOr<Cluster> written = refresher_.Apply(loaded->cluster, decision, fields);
    if (absl::IsAborted(written.status())) {
      last = written.status();
      continue;
    }
    RETURN_IF_ERROR(written.status());
    ApplyClusterEffects(*loaded, decision);
    return inventory_.GetCluster(cluster_id, /*with_hosts=*/true);
  }
  return last;
}

void InstallActions::ApplyClusterEffects(const Loaded& loaded,
                                         const core::ClusterDecision& decision) {
  const bool cancel = decision.Has(core::ClusterEffect::kCancelHosts);
  const bool reset = decision.Has(core::ClusterEffect::kResetHosts);
  if (!cancel && !reset) return;
  Cluster cluster = loaded.cluster;
  cluster.set_status(decision.to);
  for (const Host& host : loaded.hosts) {
    absl::StatusOr<Host> moved =
        FireHost(host, &cluster, cancel ? core::HostEvent::kCancel : core::HostEvent::kReset);
    if (!moved.ok() && !absl::IsFailedPrecondition(moved.status())) {
      log_.Warning("cannot move a host with its cluster",
                   {{"host_id", host.id()}, {"error", moved.status().message()}});
    }
  }
  if (reset) {
    absl::Status deleted = inventory_.DeleteArtifacts(
        cluster.id(), {inv::ARTIFACT_KIND_INSTALL_CONFIG, inv::ARTIFACT_KIND_IGNITION,
                       inv::ARTIFACT_KIND_CREDENTIALS, inv::ARTIFACT_KIND_METADATA});
    if (!deleted.ok()) {
      log_.Warning("cannot delete the installation files",
                   {{"cluster_id", cluster.id()}, {"error", deleted.message()}});
    }
  }
}

absl::StatusOr<Host> InstallActions::RegisterAgain(const Host& host) {
  std::optional<Cluster> cluster;
  if (!host.cluster_id().empty()) {
    ASSIGN_OR_RETURN(cluster, inventory_.GetCluster(host.cluster_id(), /*with_hosts=*/true));
  }
  const core::HostContext context =
      core::MakeHostContext(host, cluster ? &*cluster : nullptr, {&host}, nullptr, clock_.Now(),
                            options_.timeouts, options_.decisions);
  if (!core::HostStateMachine().Fire(core::HostEvent::kRegister, host.status(), context).ok()) {
    return host;  // no register row for this state: nothing to change
  }
  return FireHost(host, cluster ? &*cluster : nullptr, core::HostEvent::kRegister);
}

absl::StatusOr<Host> InstallActions::FireHost(const Host& stored, const Cluster* cluster,
                                              core::HostEvent event) {
  Host host = stored;
  absl::Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const core::HostContext context = core::MakeHostContext(
        host, cluster, {&host}, nullptr, clock_.Now(), options_.timeouts, options_.decisions);
    ASSIGN_OR_RETURN(core::HostDecision decision,
                     core::HostStateMachine().Fire(event, host.status(), context));
    absl::StatusOr<Host> written = refresher_.Apply(host, decision);
    if (!absl::IsAborted(written.status())) return written;
    last = written.status();
    ASSIGN_OR_RETURN(host, inventory_.GetHost(stored.infra_env_id(), stored.id()));
  }
  return last;
}

absl::StatusOr<Cluster> InstallActions::CancelInstallation(const std::string& cluster_id) {
  RETURN_IF_ERROR(FireCluster(cluster_id, core::ClusterEvent::kCancel).status());
  return Refresh(cluster_id);
}

absl::StatusOr<Cluster> InstallActions::ResetCluster(const std::string& cluster_id) {
  RETURN_IF_ERROR(FireCluster(cluster_id, core::ClusterEvent::kReset).status());
  return Refresh(cluster_id);
}

absl::StatusOr<Cluster> InstallActions::AllowAddWorkers(const std::string& cluster_id) {
  core::ClusterFieldsUpdate day2;
  day2.fields.set_kind(types::v1::CLUSTER_KIND_ADD_HOSTS_CLUSTER);
  day2.Mark("kind");
  return FireCluster(cluster_id, core::ClusterEvent::kAllowAddHosts, std::move(day2));
}

absl::StatusOr<v1::GetClusterValidationsResponse> InstallActions::GetClusterValidations(
    const std::string& cluster_id) {
  ASSIGN_OR_RETURN(Cluster cluster, inventory_.GetCluster(cluster_id, /*with_hosts=*/true));
  v1::GetClusterValidationsResponse response;
  *response.mutable_cluster_validations() = cluster.validations_info();
  *response.mutable_ignored_cluster_validations() = cluster.ignored_cluster_validations();
  *response.mutable_ignored_host_validations() = cluster.ignored_host_validations();
  for (const Host& host : cluster.hosts()) {
    v1::HostValidations& entry = *response.add_hosts();
    entry.set_infra_env_id(host.infra_env_id());
    entry.set_host_id(host.id());
    entry.set_status(host.status());
    *entry.mutable_validations() = host.validations_info();
  }
  return response;
}

absl::StatusOr<Host> InstallActions::InstallHost(const std::string& infra_env_id,
                                                 const std::string& host_id) {
  return RetryWhileAborted([&] { return InstallHostOnce(infra_env_id, host_id); });
}

absl::StatusOr<Host> InstallActions::InstallHostOnce(const std::string& infra_env_id,
                                                     const std::string& host_id) {
  ASSIGN_OR_RETURN(Host host, inventory_.GetHost(infra_env_id, host_id));
  if (host.cluster_id().empty()) {
    return absl::FailedPreconditionError(absl::StrCat("host ", host_id, " is not in a cluster"));
  }
  ASSIGN_OR_RETURN(Cluster cluster, inventory_.GetCluster(host.cluster_id(), /*with_hosts=*/true));
  if (cluster.status() != core::cluster_status::kAddingHosts) {
    return absl::FailedPreconditionError(
        absl::StrCat("cluster ", cluster.id(), " is ", core::ClusterStatusName(cluster.status()),
                     ": day-2 hosts install into adding-hosts clusters"));
  }
  for (const Host& other : cluster.hosts()) {
    if (other.id() != host.id() && (other.status() == core::host_status::kInstalling ||
                                    other.status() == core::host_status::kInProgress)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "host ", other.id(), " is still installing: day-2 hosts install one by one"));
    }
  }
  if (host.role() == types::v1::HOST_ROLE_AUTO_ASSIGN ||
      host.role() == types::v1::HOST_ROLE_UNSPECIFIED) {
    core::HostFieldsUpdate update;
    update.fields.set_role(types::v1::HOST_ROLE_WORKER);
    update.Mark("role");
    ASSIGN_OR_RETURN(host, inventory_.UpdateHost(host.infra_env_id(), host.id(), update,
                                                 host.resource_version()));
  } else if (host.role() != types::v1::HOST_ROLE_WORKER) {
    return absl::FailedPreconditionError(absl::StrCat("host ", host_id, " is a ",
                                                      core::HostRoleName(host.role()),
                                                      ": day-2 hosts join as workers"));
  }
  cluster.clear_hosts();
  const core::HostContext context = core::MakeHostContext(
      host, &cluster, {&host}, nullptr, clock_.Now(), options_.timeouts, options_.decisions);
  // Check the transition before generating anything for the host.
  RETURN_IF_ERROR(
      core::HostStateMachine().Fire(core::HostEvent::kInstall, host.status(), context).status());
  RETURN_IF_ERROR(generator_.GenerateHostIgnition(cluster, host));
  return FireHost(host, &cluster, core::HostEvent::kInstall);
}

absl::StatusOr<Host> InstallActions::ResetHost(const std::string& infra_env_id,
                                               const std::string& host_id) {
  ASSIGN_OR_RETURN(Host host, inventory_.GetHost(infra_env_id, host_id));
  std::optional<Cluster> cluster;
  if (!host.cluster_id().empty()) {
    ASSIGN_OR_RETURN(cluster, inventory_.GetCluster(host.cluster_id(), /*with_hosts=*/true));
    cluster->clear_hosts();
  }
  return FireHost(host, cluster ? &*cluster : nullptr, core::HostEvent::kReset);
}

absl::StatusOr<Host> InstallActions::UpdateHost(const v1::UpdateHostRequest& request) {
  static const std::vector<std::string> kAllowed = {"role",
                                                    "requested_hostname",
                                                    "installation_disk_id",
                                                    "installer_args",
                                                    "machine_config_pool_name",
                                                    "node_labels",
                                                    "skip_formatting_disks",
                                                    "ignition_config_overrides",
                                                    "fencing_credentials"};
  if (request.update_mask().paths().empty()) {
    return absl::InvalidArgumentError("update_mask: name the fields to change");
  }
  ASSIGN_OR_RETURN(Host host, inventory_.GetHost(request.infra_env_id(), request.host_id()));
  if (InstallationBegan(host.status())) {
    return absl::FailedPreconditionError(
        absl::StrCat("host ", host.id(), " is ", core::HostStatusName(host.status()),
                     ": it cannot be changed once its installation began"));
  }
  core::HostFieldsUpdate update;
  Host& changes = update.fields;
  changes = request.host();
  for (const std::string& path : request.update_mask().paths()) {
    if (std::find(kAllowed.begin(), kAllowed.end(), path) == kAllowed.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("update_mask: \"", path, "\" cannot be changed here"));
    }
    update.Mark(path);
  }
  const auto& paths = request.update_mask().paths();
  if (std::find(paths.begin(), paths.end(), "role") != paths.end()) {
    const types::v1::HostRole role = request.host().role();
    if (role != types::v1::HOST_ROLE_AUTO_ASSIGN && role != types::v1::HOST_ROLE_MASTER &&
        role != types::v1::HOST_ROLE_WORKER && role != types::v1::HOST_ROLE_ARBITER) {
      return absl::InvalidArgumentError(
          "host.role: must be auto-assign, master, arbiter or worker");
    }
  }
  if (std::find(paths.begin(), paths.end(), "installation_disk_id") != paths.end()) {
    Host probe = host;
    probe.set_installation_disk_id(request.host().installation_disk_id());
    probe.clear_installation_disk_path();
    const types::v1::Disk* disk = core::InstallationDisk(probe);
    if (disk == nullptr || !disk->installation_eligibility().eligible()) {
      return absl::InvalidArgumentError(absl::StrCat("host.installation_disk_id: \"",
                                                     request.host().installation_disk_id(),
                                                     "\" is not an eligible disk of the host"));
    }
    changes.set_installation_disk_path(disk->path());
    update.Mark("installation_disk_path");
  }
  ASSIGN_OR_RETURN(Host written, inventory_.UpdateHost(host.infra_env_id(), host.id(), update,
                                                       request.resource_version()));
  if (written.cluster_id().empty()) return written;
  RETURN_IF_ERROR(Refresh(written.cluster_id()).status());
  return inventory_.GetHost(written.infra_env_id(), written.id());
}

absl::StatusOr<Host> InstallActions::ApplyHostProgress(const std::string& infra_env_id,
                                                       const std::string& host_id,
                                                       types::v1::HostStage stage,
                                                       const std::string& info) {
  if (stage == types::v1::HOST_STAGE_UNSPECIFIED) {
    return absl::InvalidArgumentError("current_stage: required");
  }
  absl::Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    ASSIGN_OR_RETURN(Host host, inventory_.GetHost(infra_env_id, host_id));
    if (host.cluster_id().empty()) {
      return absl::FailedPreconditionError(absl::StrCat("host ", host_id, " is not in a cluster"));
    }
    ASSIGN_OR_RETURN(Cluster cluster,
                     inventory_.GetCluster(host.cluster_id(), /*with_hosts=*/true));
    std::vector<Host> members(cluster.hosts().begin(), cluster.hosts().end());
    cluster.clear_hosts();
    std::vector<const Host*> pointers;
    for (const Host& member : members) pointers.push_back(&member);
    const bool sno = IsSingleNode(cluster);
    const core::StageProfile profile = core::ProfileOf(host.role(), host.bootstrap(), sno);
    if (stage != types::v1::HOST_STAGE_FAILED) {
      RETURN_IF_ERROR(core::CheckStageUpdate(profile, host.progress().current_stage(), stage));
    }
    const absl::Time now = clock_.Now();
    core::HostContext context = core::MakeHostContext(host, &cluster, pointers, nullptr, now,
                                                      options_.timeouts, options_.decisions);
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
      if (new_stage) *progress.mutable_stage_started_at() = Ts(now);
      *progress.mutable_stage_updated_at() = Ts(now);
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
    absl::StatusOr<Host> written = refresher_.Apply(host, decision, std::move(recorded));
    if (absl::IsAborted(written.status())) {
      last = written.status();
      continue;
    }
    RETURN_IF_ERROR(written.status());
    if (new_stage) {
      Event(
          "host_install_progress_updated", cluster.id(), &*written,
          absl::StrCat("Host ", core::EffectiveHostname(*written), ": reached installation stage ",
                       core::HostStageName(stage), info.empty() ? "" : ": ", info),
          stage == types::v1::HOST_STAGE_FAILED ? types::v1::EVENT_SEVERITY_ERROR
                                                : types::v1::EVENT_SEVERITY_INFO);
    }
    // The cluster may move on (finalizing once enough hosts are done, error when too few can).
    absl::Status refreshed = Refresh(cluster.id()).status();
    if (!refreshed.ok()) {
      log_.Warning("cannot refresh the cluster after progress",
                   {{"cluster_id", cluster.id()}, {"error", refreshed.message()}});
    }
    return inventory_.GetHost(infra_env_id, host_id);
  }
  return last;
}

absl::StatusOr<Cluster> InstallActions::UpdateFinalizingProgress(const std::string& cluster_id,
                                                                 types::v1::FinalizingStage stage) {
  if (stage == types::v1::FINALIZING_STAGE_UNSPECIFIED) {
    return absl::InvalidArgumentError("finalizing_stage: required");
  }
  ASSIGN_OR_RETURN(Cluster cluster, inventory_.GetCluster(cluster_id, /*with_hosts=*/true));
  if (cluster.status() != core::cluster_status::kFinalizing) {
    return absl::FailedPreconditionError(
        absl::StrCat("cluster ", cluster_id, " is ", core::ClusterStatusName(cluster.status()),
                     ": finalizing stages are reported while finalizing"));
  }
  core::ClusterFieldsUpdate reported;
  types::v1::ClusterProgress& progress = *reported.fields.mutable_progress();
  progress = cluster.progress();
  if (progress.finalizing_stage() != stage) {
    *progress.mutable_finalizing_stage_started_at() = Ts(clock_.Now());
    progress.set_finalizing_stage_timed_out(false);
  }
  progress.set_finalizing_stage(stage);
  reported.Mark("progress");
  cluster.clear_hosts();
  // Not a transition: the cluster stays finalizing with its new stage.
  RETURN_IF_ERROR(
      refresher_.Apply(cluster, {cluster.status(), cluster.status()}, std::move(reported))
          .status());
  Event("cluster_finalizing_stage_updated", cluster_id, nullptr,
        absl::StrCat("Finalizing stage: ", core::FinalizingStageName(stage)));
  return Refresh(cluster_id);
}

absl::StatusOr<Cluster> InstallActions::ReportOperatorStatus(
    const v1::ReportOperatorStatusRequest& report) {
  absl::Status last;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    ASSIGN_OR_RETURN(Cluster cluster,
                     inventory_.GetCluster(report.cluster_id(), /*with_hosts=*/false));
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
    op->set_status(report.status());
    op->set_status_info(report.status_info());
    if (!report.version().empty()) op->set_version(report.version());
    *op->mutable_status_updated_at() = Ts(clock_.Now());
    update.Mark("monitored_operators");
    absl::StatusOr<Cluster> written =
        inventory_.UpdateCluster(cluster.id(), update, cluster.resource_version());
    if (absl::IsAborted(written.status())) {
      last = written.status();
      continue;
    }
    RETURN_IF_ERROR(written.status());
    return Refresh(report.cluster_id());
  }
  return last;
}

absl::StatusOr<Cluster> InstallActions::UploadIngressCert(const std::string& cluster_id,
                                                          const std::string& ca_certificate) {
  ASSIGN_OR_RETURN(std::optional<std::string> noingress,
                   inventory_.ArtifactContent(cluster_id, kKubeconfigNoIngressName));
  if (!noingress) {
    return absl::FailedPreconditionError(
        absl::StrCat("cluster ", cluster_id, " has no kubeconfig-noingress: not installing"));
  }
  ASSIGN_OR_RETURN(std::string kubeconfig, AddCertificateAuthority(*noingress, ca_certificate));
  for (const auto& [name, content] :
       {std::pair<const char*, const std::string*>{"ingress-ca.crt", &ca_certificate},
        {kKubeconfigName, &kubeconfig}}) {
    RETURN_IF_ERROR(inventory_.PutArtifact({.cluster_id = cluster_id,
                                            .name = name,
                                            .kind = inv::ARTIFACT_KIND_CREDENTIALS,
                                            .content_type = "text/plain",
                                            .content = *content}));
  }
  Event("cluster_ingress_ca_uploaded", cluster_id, nullptr,
        "The ingress CA joined the admin kubeconfig");
  return Refresh(cluster_id);
}

absl::StatusOr<Cluster> InstallActions::CompleteInstallation(const std::string& cluster_id,
                                                             bool success,
                                                             const std::string& error_info) {
  ASSIGN_OR_RETURN(Cluster cluster, inventory_.GetCluster(cluster_id, /*with_hosts=*/true));
  const types::v1::ClusterStatus status = cluster.status();
  if (status != core::cluster_status::kFinalizing && status != core::cluster_status::kInstalled) {
    return absl::FailedPreconditionError(absl::StrCat("cluster ", cluster_id, " is ",
                                                      core::ClusterStatusName(status),
                                                      ": installations complete from finalizing"));
  }
  if (success || status == core::cluster_status::kInstalled) {
    // Success is decided by the criteria (all hosts done, kubeconfig, operators) on refresh.
    return Refresh(cluster_id);
  }
  // The controller's failure report: not a table event in the reference either (it writes the
  // status directly), but still a compare-and-set from finalizing with the failure's effect.
  core::ClusterDecision failed{status, core::cluster_status::kError};
  failed.status_info = absl::StrCat("Installation failed: ",
                                    error_info.empty() ? "reported by the controller" : error_info);
  failed.effects = {core::ClusterEffect::kFailInstallation};
  cluster.clear_hosts();
  ASSIGN_OR_RETURN(Cluster written, refresher_.Apply(cluster, failed));
  Event("cluster_installation_failed", cluster_id, nullptr, written.status_info(),
        types::v1::EVENT_SEVERITY_ERROR);
  return Refresh(cluster_id);
}

absl::Status InstallActions::ApplyAgentProgress(const Host& host,
                                                const agent::v1::Progress& progress) {
  const absl::Status applied = ApplyHostProgress(host.infra_env_id(), host.id(),
                                                 progress.current_stage(), progress.progress_info())
                                   .status();
  if (absl::IsFailedPrecondition(applied) || absl::IsInvalidArgument(applied) ||
      absl::IsNotFound(applied)) {
    log_.Warning("agent progress not applied",
                 {{"host_id", host.id()},
                  {"stage", core::HostStageName(progress.current_stage())},
                  {"error", applied.message()}});
    return absl::OkStatus();
  }
  return applied;
}

absl::StatusOr<std::vector<types::v1::Step>> InstallActions::InstallInstructions(
    const Host& host, const Cluster& cluster) {
  if (host.status() != core::host_status::kInstalling || host.cluster_id() != cluster.id()) {
    return std::vector<types::v1::Step>();
  }
  ASSIGN_OR_RETURN(std::optional<std::string> ignition,
                   inventory_.ArtifactContent(cluster.id(), HostIgnitionName(host.id())));
  if (!ignition) {
    return absl::FailedPreconditionError(
        absl::StrCat("host ", host.id(), " has no Ignition config yet"));
  }
  ASSIGN_OR_RETURN(types::v1::Step step, steps_.Step(cluster, host, *ignition, random_));
  return std::vector<types::v1::Step>{std::move(step)};
}

}  // namespace assisted::orchestrator::install
