#include "services/orchestrator/actions/host_actions.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "services/orchestrator/core/host_state_machine.h"
#include "services/orchestrator/core/hw_requirements.h"
#include "services/orchestrator/core/inventory_util.h"
#include "services/orchestrator/core/names.h"
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
  ASSIGN_OR_RETURN(Host written, context_.inventory.UpdateHost(host.infra_env_id(), host.id(),
                                                               update, request.resource_version()));
  if (written.cluster_id().empty()) return written;
  RETURN_IF_ERROR(context_.Refresh(written.cluster_id()).status());
  return context_.inventory.GetHost(written.infra_env_id(), written.id());
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
