#include "services/orchestrator/actions/host_actions.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "lib/coreos/installer_args.h"
#include "lib/enums/architecture.h"
#include "lib/ignition/config_builder.h"
#include "lib/status/status_macros.h"
#include "services/orchestrator/core/cluster_facts.h"
#include "services/orchestrator/core/cluster_state_machine.h"
#include "services/orchestrator/core/host_state_machine.h"
#include "services/orchestrator/core/hw_requirements.h"
#include "services/orchestrator/core/inventory_util.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/validation_ids.h"
#include "services/orchestrator/install/ignition_configs.h"

namespace assisted::orchestrator::actions {

using types::v1::Cluster;
using types::v1::Host;

namespace {

bool InstallationBegan(types::v1::HostStatus status) {
  using namespace core::host_status;  // NOLINT
  for (types::v1::HostStatus s :
       {kPreparing, kPreparingFailed, kPreparingSuccessful, kInstalling, kInProgress,
        kInstallingPua, kInstalled, kAdded, kError, kCancelled}) {
    if (s == status) return true;
  }
  return false;
}

// The inventory's tenancy rule: the members of an organisation share its records; without an
// organisation a record is its user's alone.
bool SameTenant(const types::v1::Owner& a, const types::v1::Owner& b) {
  if (!a.org_id().empty() || !b.org_id().empty()) return a.org_id() == b.org_id();
  return a.user_name() == b.user_name();
}

// The cluster states a host may join in (the reference's).
bool AcceptsHosts(types::v1::ClusterStatus status) {
  using namespace core::cluster_status;  // NOLINT
  return status == kInsufficient || status == kReady || status == kPendingForInput ||
         status == kAddingHosts;
}

}  // namespace

absl::StatusOr<Host> HostActions::RegisterAgain(const Host& host) {
  std::optional<Cluster> cluster;
  if (!host.cluster_id().empty()) {
    ASSIGN_OR_RETURN(cluster,
                     context_.inventory.GetCluster(host.cluster_id(), /*with_hosts=*/true));
  }
  const core::HostContext context = core::MakeHostContext(
      host, cluster ? &*cluster : nullptr, {&host}, nullptr, context_.clock.Now(),
      context_.options.timeouts, context_.options.decisions);
  if (!core::HostStateMachine().Fire(core::HostEvent::kRegister, host.status(), context).ok()) {
    return host;  // no register row for this state: nothing to change
  }
  return context_.FireHost(host, cluster ? &*cluster : nullptr, core::HostEvent::kRegister);
}

absl::StatusOr<Host> HostActions::InstallHost(const std::string& infra_env_id,
                                              const std::string& host_id) {
  return RetryWhileAborted([&] { return InstallHostOnce(infra_env_id, host_id); });
}

absl::StatusOr<Host> HostActions::InstallHostOnce(const std::string& infra_env_id,
                                                  const std::string& host_id) {
  ASSIGN_OR_RETURN(Host host, context_.inventory.GetHost(infra_env_id, host_id));
  if (host.cluster_id().empty()) {
    return absl::FailedPreconditionError(absl::StrCat("host ", host_id, " is not in a cluster"));
  }
  ASSIGN_OR_RETURN(Cluster cluster,
                   context_.inventory.GetCluster(host.cluster_id(), /*with_hosts=*/true));
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
    ASSIGN_OR_RETURN(host, context_.inventory.UpdateHost(host.infra_env_id(), host.id(), update,
                                                         host.resource_version()));
  } else if (host.role() != types::v1::HOST_ROLE_WORKER) {
    return absl::FailedPreconditionError(absl::StrCat("host ", host_id, " is a ",
                                                      core::HostRoleName(host.role()),
                                                      ": day-2 hosts join as workers"));
  }
  cluster.clear_hosts();
  const core::HostContext context =
      core::MakeHostContext(host, &cluster, {&host}, nullptr, context_.clock.Now(),
                            context_.options.timeouts, context_.options.decisions);
  // Check the transition before generating anything for the host.
  RETURN_IF_ERROR(
      core::HostStateMachine().Fire(core::HostEvent::kInstall, host.status(), context).status());
  RETURN_IF_ERROR(context_.files.GenerateHostIgnition(cluster, host));
  return context_.FireHost(host, &cluster, core::HostEvent::kInstall);
}

absl::StatusOr<Host> HostActions::ResetHost(const std::string& infra_env_id,
                                            const std::string& host_id) {
  ASSIGN_OR_RETURN(Host host, context_.inventory.GetHost(infra_env_id, host_id));
  std::optional<Cluster> cluster;
  if (!host.cluster_id().empty()) {
    ASSIGN_OR_RETURN(cluster,
                     context_.inventory.GetCluster(host.cluster_id(), /*with_hosts=*/true));
    cluster->clear_hosts();
  }
  return context_.FireHost(host, cluster ? &*cluster : nullptr, core::HostEvent::kReset);
}

absl::StatusOr<Host> HostActions::UpdateHost(const v1::UpdateHostRequest& request) {
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
  ASSIGN_OR_RETURN(Host host,
                   context_.inventory.GetHost(request.infra_env_id(), request.host_id()));
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
  // What the install applies must be what it can apply: the agent's own parser and Ignition's
  // merge rules, checked now rather than when the host is being written.
  if (std::find(paths.begin(), paths.end(), "installer_args") != paths.end()) {
    RETURN_IF_ERROR(coreos::ParseInstallerArgs({request.host().installer_args().begin(),
                                                request.host().installer_args().end()})
                        .status());
  }
  if (std::find(paths.begin(), paths.end(), "ignition_config_overrides") != paths.end() &&
      !request.host().ignition_config_overrides().empty()) {
    RETURN_IF_ERROR(ignition::CheckMergeConfig(request.host().ignition_config_overrides(),
                                               "host.ignition_config_overrides"));
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
  auto write = [&] {
    return context_.inventory.UpdateHost(host.infra_env_id(), host.id(), update,
                                         request.resource_version());
  };
  if (host.cluster_id().empty()) return write();
  // The write and the judgement are one refresh for the hub: the PATCH is judged once.
  RETURN_IF_ERROR(context_.ChangeThenJudge(host.cluster_id(), [&] { return write().status(); }));
  return context_.inventory.GetHost(host.infra_env_id(), host.id());
}

absl::StatusOr<Host> HostActions::ResetHostValidation(
    const v1::ResetHostValidationRequest& request) {
  const std::string& id = request.validation_id();
  const bool disk_speed = id == core::host_id::kSufficientInstallationDiskSpeed;
  if (!disk_speed && id != core::host_id::kContainerImagesAvailable) {
    return absl::InvalidArgumentError(
        absl::StrCat("validation_id: \"", id, "\" cannot be reset; only ",
                     core::host_id::kSufficientInstallationDiskSpeed, " and ",
                     core::host_id::kContainerImagesAvailable, " are measured again"));
  }
  ASSIGN_OR_RETURN(Host host,
                   context_.inventory.GetHost(request.infra_env_id(), request.host_id()));
  if (host.cluster_id().empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "host ", host.id(), " is not bound to a cluster: its validations are not judged"));
  }
  if (InstallationBegan(host.status())) {
    return absl::FailedPreconditionError(absl::StrCat("host ", host.id(), " is ",
                                                      core::HostStatusName(host.status()),
                                                      ": its validations are no longer judged"));
  }
  core::HostFieldsUpdate update;
  if (disk_speed) {
    // The other disks keep their measurements: only the installation disk's decides.
    for (const types::v1::DiskInfo& disk : host.disks_info_report().disks()) {
      if (disk.path() != host.installation_disk_path()) {
        *update.fields.mutable_disks_info_report()->add_disks() = disk;
      }
    }
    update.Mark("disks_info_report");
  } else {
    update.Mark("images_status_report");  // left unset: no pulls reported
  }
  ASSIGN_OR_RETURN(Host written, context_.inventory.UpdateHost(host.infra_env_id(), host.id(),
                                                               update, host.resource_version()));
  RETURN_IF_ERROR(context_.JudgeAfterStoredChange(written.cluster_id()));
  return context_.inventory.GetHost(written.infra_env_id(), written.id());
}

absl::StatusOr<Host> HostActions::BindHost(const std::string& infra_env_id,
                                           const std::string& host_id,
                                           const std::string& cluster_id) {
  if (cluster_id.empty()) return absl::InvalidArgumentError("cluster_id: required");
  ASSIGN_OR_RETURN(Host host, context_.inventory.GetHost(infra_env_id, host_id));
  if (!host.cluster_id().empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "host ", host_id, " is already bound to cluster ", host.cluster_id(), "; unbind it first"));
  }
  ASSIGN_OR_RETURN(types::v1::InfraEnv infra_env,
                   context_.inventory.GetInfraEnv(host.infra_env_id()));
  if (!infra_env.cluster_id().empty() && infra_env.cluster_id() != cluster_id) {
    return absl::InvalidArgumentError(
        absl::StrCat("cluster_id: the host's infra-env belongs to cluster ", infra_env.cluster_id(),
                     "; its hosts join no other"));
  }
  absl::StatusOr<Cluster> cluster = context_.inventory.GetCluster(cluster_id, false);
  // Another tenant's cluster is as absent as an unknown one: its existence is not told.
  if (absl::IsNotFound(cluster.status()) ||
      (cluster.ok() && !SameTenant(cluster->owner(), infra_env.owner()))) {
    return absl::NotFoundError(absl::StrCat("cluster_id: cluster ", cluster_id, " not found"));
  }
  RETURN_IF_ERROR(cluster.status());
  if (!AcceptsHosts(cluster->status())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cluster_id: cluster ", cluster_id, " is ", core::ClusterStatusName(cluster->status()),
        ": hosts join clusters that are insufficient, ready, pending-for-input or adding-hosts"));
  }
  if (cluster->cpu_architecture() != types::v1::CPU_ARCHITECTURE_MULTI &&
      enums::OsImageArchitecture(cluster->cpu_architecture()) !=
          enums::OsImageArchitecture(infra_env.cpu_architecture())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cluster_id: cluster ", cluster_id, " installs ",
        enums::OsImageArchitecture(cluster->cpu_architecture()), "; the host's infra-env boots ",
        enums::OsImageArchitecture(infra_env.cpu_architecture())));
  }
  core::HostFieldsUpdate into;
  into.fields.set_cluster_id(cluster_id);
  into.Mark("cluster_id");
  // Fired as the pool host it still is; the decision writes the cluster_id with the status.
  RETURN_IF_ERROR(context_.FireHost(host, nullptr, core::HostEvent::kBind, into).status());
  // The same refresh as any trigger's judges it in its new cluster.
  RETURN_IF_ERROR(context_.JudgeAfterStoredChange(cluster_id));
  return context_.inventory.GetHost(host.infra_env_id(), host.id());
}

absl::StatusOr<Host> HostActions::UnbindHost(const std::string& infra_env_id,
                                             const std::string& host_id) {
  ASSIGN_OR_RETURN(Host host, context_.inventory.GetHost(infra_env_id, host_id));
  if (host.cluster_id().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("host ", host_id, " is not bound to a cluster"));
  }
  ASSIGN_OR_RETURN(types::v1::InfraEnv infra_env,
                   context_.inventory.GetInfraEnv(host.infra_env_id()));
  if (!infra_env.cluster_id().empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "host ", host_id, " cannot be unbound: its infra-env belongs to cluster ",
        infra_env.cluster_id(), " (only hosts of an infra-env without a cluster have a pool)"));
  }
  const std::string cluster_id = host.cluster_id();
  ASSIGN_OR_RETURN(Cluster cluster, context_.inventory.GetCluster(cluster_id, false));
  ASSIGN_OR_RETURN(Host unbound, context_.FireHost(host, &cluster, core::HostEvent::kUnbind));
  // The cluster is judged without it, and it in the pool (unless it waits for a reboot).
  RETURN_IF_ERROR(context_.JudgeAfterStoredChange(cluster_id));
  RETURN_IF_ERROR(context_.refresher.RefreshHost(unbound).status());
  return context_.inventory.GetHost(host.infra_env_id(), host.id());
}

absl::StatusOr<std::vector<types::v1::Step>> HostActions::InstallInstructions(
    const Host& host, const Cluster& cluster) {
  if (host.status() != core::host_status::kInstalling || host.cluster_id() != cluster.id()) {
    return std::vector<types::v1::Step>();
  }
  ASSIGN_OR_RETURN(
      std::optional<std::string> ignition,
      context_.inventory.ArtifactContent(cluster.id(), install::HostIgnitionName(host.id())));
  if (!ignition) {
    return absl::FailedPreconditionError(
        absl::StrCat("host ", host.id(), " has no Ignition config yet"));
  }
  ASSIGN_OR_RETURN(types::v1::Step step, steps_.Step(cluster, host, *ignition, context_.random));
  return std::vector<types::v1::Step>{std::move(step)};
}

}  // namespace assisted::orchestrator::actions
