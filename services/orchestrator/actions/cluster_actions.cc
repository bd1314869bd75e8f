#include "services/orchestrator/actions/cluster_actions.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "services/orchestrator/core/cluster_facts.h"
#include "services/orchestrator/core/host_validations.h"
#include "services/orchestrator/core/hw_requirements.h"
#include "services/orchestrator/core/inventory_util.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/roles.h"
#include "services/orchestrator/core/validation_ids.h"
#include "services/orchestrator/install/install_config.h"
#include "services/orchestrator/install/manifests.h"

namespace assisted::orchestrator::actions {

namespace inv = inventory::v1;
using types::v1::Cluster;
using types::v1::Host;

absl::StatusOr<Cluster> ClusterActions::RefreshCluster(const std::string& cluster_id) {
  return context_.Refresh(cluster_id);
}

absl::StatusOr<std::optional<std::string>> ClusterActions::RendezvousIp(
    const std::string& cluster_id) {
  ASSIGN_OR_RETURN(std::vector<types::v1::InfraEnv> infra_envs,
                   context_.inventory.ListClusterInfraEnvs(cluster_id));
  for (const types::v1::InfraEnv& infra_env : infra_envs) {
    if (!infra_env.rendezvous_ip().empty()) return infra_env.rendezvous_ip();
  }
  return std::nullopt;
}

absl::Status ClusterActions::AssignRolesAndBootstrap(const std::string& cluster_id) {
  ASSIGN_OR_RETURN(std::unique_ptr<ActionContext::Loaded> loaded, context_.Load(cluster_id));
  if (loaded->cluster.status() != core::cluster_status::kReady) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cluster ", cluster_id, " is ", core::ClusterStatusName(loaded->cluster.status()),
        ", it must be ready to install: ", loaded->cluster.status_info()));
  }
  ASSIGN_OR_RETURN(core::ClusterFacts facts,
                   core::BuildClusterFacts(&loaded->cluster, loaded->views,
                                           context_.options.decisions.hw_requirements, {}));
  for (const core::RoleAssignment& assignment : core::AssignRoles(loaded->pointers, facts)) {
    auto host = std::find_if(loaded->hosts.begin(), loaded->hosts.end(),
                             [&](const Host& h) { return h.id() == assignment.host_id; });
    if (host == loaded->hosts.end() || host->role() == assignment.role) continue;
    core::HostFieldsUpdate update;
    update.fields.set_role(assignment.role);
    update.Mark("role");
    ASSIGN_OR_RETURN(*host, context_.inventory.UpdateHost(host->infra_env_id(), host->id(), update,
                                                          host->resource_version()));
  }
  const bool has_bootstrap = std::any_of(loaded->hosts.begin(), loaded->hosts.end(),
                                         [](const Host& h) { return h.bootstrap(); });
  if (has_bootstrap) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::optional<std::string> rendezvous_ip, RendezvousIp(cluster_id));
  ASSIGN_OR_RETURN(std::string bootstrap_id,
                   core::ChooseBootstrap(loaded->pointers, facts, rendezvous_ip));
  for (const Host& host : loaded->hosts) {
    if (host.id() != bootstrap_id) continue;
    core::HostFieldsUpdate update;
    update.fields.set_bootstrap(true);
    update.Mark("bootstrap");
    RETURN_IF_ERROR(context_.inventory
                        .UpdateHost(host.infra_env_id(), host.id(), update, host.resource_version())
                        .status());
    context_.Event("host_bootstrap_set", cluster_id, &host,
                   absl::StrCat("Host ", core::EffectiveHostname(host), ": set as bootstrap"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Cluster> ClusterActions::InstallCluster(const std::string& cluster_id) {
  RETURN_IF_ERROR(context_.Refresh(cluster_id).status());
  RETURN_IF_ERROR(RetryWhileAborted([&] { return AssignRolesAndBootstrap(cluster_id); }));
  RETURN_IF_ERROR(
      context_.FireCluster(cluster_id, core::ClusterEvent::kPrepareForInstallation).status());
  context_.Event("cluster_installation_started", cluster_id, nullptr,
                 "Installation of the cluster started");
  // The installation is under way: a replica that judged the hosts into preparing first has
  // done this refresh's work, which is not the user's failure.
  RETURN_IF_ERROR(context_.JudgeAfterStoredChange(cluster_id));
  return context_.inventory.GetCluster(cluster_id, /*with_hosts=*/true);
}

absl::StatusOr<Cluster> ClusterActions::CancelInstallation(const std::string& cluster_id) {
  RETURN_IF_ERROR(context_.FireCluster(cluster_id, core::ClusterEvent::kCancel).status());
  return context_.Refresh(cluster_id);
}

absl::StatusOr<Cluster> ClusterActions::ResetCluster(const std::string& cluster_id) {
  RETURN_IF_ERROR(context_.FireCluster(cluster_id, core::ClusterEvent::kReset).status());
  return context_.Refresh(cluster_id);
}

absl::StatusOr<Cluster> ClusterActions::AllowAddWorkers(const std::string& cluster_id) {
  core::ClusterFieldsUpdate day2;
  day2.fields.set_kind(types::v1::CLUSTER_KIND_ADD_HOSTS_CLUSTER);
  day2.Mark("kind");
  return context_.FireCluster(cluster_id, core::ClusterEvent::kAllowAddHosts, std::move(day2));
}

absl::StatusOr<v1::GetClusterValidationsResponse> ClusterActions::GetClusterValidations(
    const std::string& cluster_id) {
  ASSIGN_OR_RETURN(Cluster cluster, context_.inventory.GetCluster(cluster_id, /*with_hosts=*/true));
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

namespace {

// The statuses in which a cluster is customised: before its installation began.
const std::vector<types::v1::ClusterStatus>& CustomisableStatuses() {
  using namespace core::cluster_status;  // NOLINT
  static const auto* statuses =
      new std::vector<types::v1::ClusterStatus>{kInsufficient, kReady, kPendingForInput};
  return *statuses;
}

bool BeforeInstallation(types::v1::ClusterStatus status) {
  return absl::c_linear_search(CustomisableStatuses(), status);
}

absl::Status CheckCustomisable(const Cluster& cluster) {
  if (BeforeInstallation(cluster.status())) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("cluster ", cluster.id(), " is ", core::ClusterStatusName(cluster.status()),
                   ": it can be customised only before its installation "
                   "(insufficient, ready or pending-for-input)"));
}

}  // namespace

absl::Status ClusterActions::RequireCustomisable(const std::string& cluster_id) {
  ASSIGN_OR_RETURN(Cluster cluster,
                   context_.inventory.GetCluster(cluster_id, /*with_hosts=*/false));
  return CheckCustomisable(cluster);
}

absl::StatusOr<Cluster> ClusterActions::CustomiseBeforeInstall(
    const std::string& cluster_id, const core::ClusterFieldsUpdate& update) {
  // The write and the judgement are one refresh for the hub: the change is judged once.
  RETURN_IF_ERROR(context_.ChangeThenJudge(cluster_id, [&] {
    return RetryWhileAborted([&]() -> absl::StatusOr<Cluster> {
             ASSIGN_OR_RETURN(Cluster cluster,
                              context_.inventory.GetCluster(cluster_id, /*with_hosts=*/false));
             RETURN_IF_ERROR(CheckCustomisable(cluster));
             // Conditional on the status just read: an install that began meanwhile
             // makes this write lose, and the next attempt refuses it.
             return context_.inventory.UpdateCluster(cluster_id, update,
                                                     cluster.resource_version());
           })
        .status();
  }));
  return context_.inventory.GetCluster(cluster_id, /*with_hosts=*/false);
}

absl::StatusOr<Cluster> ClusterActions::SetIgnoredValidations(
    const v1::SetIgnoredValidationsRequest& request) {
  const std::vector<std::string> hosts(request.ignored_host_validations().begin(),
                                       request.ignored_host_validations().end());
  const std::vector<std::string> clusters(request.ignored_cluster_validations().begin(),
                                          request.ignored_cluster_validations().end());
  RETURN_IF_ERROR(core::CheckIgnorable("ignored_host_validations", hosts,
                                       core::CoreHostValidationIds(),
                                       core::NonIgnorableHostValidationIds()));
  RETURN_IF_ERROR(core::CheckIgnorable("ignored_cluster_validations", clusters,
                                       core::CoreClusterValidationIds(),
                                       core::NonIgnorableClusterValidationIds()));
  core::ClusterFieldsUpdate update;
  *update.fields.mutable_ignored_host_validations() = request.ignored_host_validations();
  *update.fields.mutable_ignored_cluster_validations() = request.ignored_cluster_validations();
  update.Mark("ignored_host_validations");
  update.Mark("ignored_cluster_validations");
  return CustomiseBeforeInstall(request.cluster_id(), update);
}

absl::StatusOr<std::string> ClusterActions::GetInstallConfig(const std::string& cluster_id) {
  ASSIGN_OR_RETURN(Cluster cluster, context_.inventory.GetCluster(cluster_id, /*with_hosts=*/true));
  absl::StatusOr<std::string> document = context_.files.InstallConfig(cluster);
  // What is missing is the cluster's state, not the caller's request.
  if (absl::IsInvalidArgument(document.status())) {
    return absl::FailedPreconditionError(
        absl::StrCat("the install-config of cluster ", cluster_id,
                     " cannot be generated yet: ", document.status().message()));
  }
  return document;
}

namespace {

v1::RoleHardwareRequirements RoleRequirementsProto(const core::RoleRequirements& r) {
  v1::RoleHardwareRequirements out;
  out.set_cpu_cores(r.cpu_cores);
  out.set_ram_mib(r.ram_mib);
  out.set_disk_size_gb(r.disk_size_gb);
  out.set_installation_disk_speed_threshold_ms(r.installation_disk_speed_threshold_ms);
  if (r.network_latency_threshold_ms) {
    out.set_network_latency_threshold_ms(*r.network_latency_threshold_ms);
  }
  if (r.packet_loss_percentage) out.set_packet_loss_percentage(*r.packet_loss_percentage);
  return out;
}

}  // namespace

absl::StatusOr<v1::PreflightRequirements> ClusterActions::GetPreflightRequirements(
    const std::string& cluster_id) {
  ASSIGN_OR_RETURN(Cluster cluster,
                   context_.inventory.GetCluster(cluster_id, /*with_hosts=*/false));
  // The deployment's requirements (--hw-requirements-file): the rows the validations apply.
  ASSIGN_OR_RETURN(
      core::ClusterFacts facts,
      core::BuildClusterFacts(&cluster, {}, context_.options.decisions.hw_requirements, {}));
  const core::PreflightRequirements rows = core::PreflightRequirementsOf(facts);
  v1::PreflightRequirements answer;
  *answer.mutable_master() = RoleRequirementsProto(rows.master);
  *answer.mutable_worker() = RoleRequirementsProto(rows.worker);
  if (rows.arbiter) *answer.mutable_arbiter() = RoleRequirementsProto(*rows.arbiter);
  return answer;
}

absl::StatusOr<v1::GetSupportedPlatformsResponse> ClusterActions::GetSupportedPlatforms(
    const std::string& cluster_id) {
  ASSIGN_OR_RETURN(Cluster cluster, context_.inventory.GetCluster(cluster_id, /*with_hosts=*/true));
  std::vector<const Host*> hosts;
  for (const Host& host : cluster.hosts()) hosts.push_back(&host);
  v1::GetSupportedPlatformsResponse answer;
  for (types::v1::PlatformType platform : core::SupportedPlatforms(hosts)) {
    answer.add_platforms(platform);
  }
  return answer;
}

absl::StatusOr<Cluster> ClusterActions::UpdateInstallConfig(const std::string& cluster_id,
                                                            const std::string& overrides) {
  RETURN_IF_ERROR(install::CheckInstallConfigOverrides(overrides));
  ASSIGN_OR_RETURN(Cluster cluster, context_.inventory.GetCluster(cluster_id, /*with_hosts=*/true));
  // The overrides must also merge into the document (a key of the wrong shape, say). A cluster
  // that cannot have a document yet is checked again when it is generated.
  const absl::Status before = context_.files.InstallConfig(cluster).status();
  cluster.set_install_config_overrides(overrides);
  const absl::Status with = context_.files.InstallConfig(cluster).status();
  if (before.ok() && !with.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("install_config_overrides: ", with.message()));
  }
  core::ClusterFieldsUpdate update;
  update.fields.set_install_config_overrides(overrides);
  update.Mark("install_config_overrides");
  return CustomiseBeforeInstall(cluster_id, update);
}

// ---- User manifests ----

namespace {

constexpr char kYamlType[] = "application/yaml";
constexpr char kJsonType[] = "application/json";

install::ManifestName NameOf(const v1::ClusterManifestRef& ref) {
  return {ref.folder(), ref.file_name()};
}

v1::ClusterManifestRef RefOf(const std::string& cluster_id, const install::ManifestName& name) {
  v1::ClusterManifestRef ref;
  ref.set_cluster_id(cluster_id);
  ref.set_folder(name.folder);
  ref.set_file_name(name.file_name);
  return ref;
}

// The inventory write of manifest `name` of `cluster_id` holding `content`; with `if_absent`
// only where no manifest of that name is stored yet. Only while the cluster is customisable,
// checked by the inventory in the write's own transaction: the installation moves the cluster
// to preparing-for-installation before it reads the manifests into bootstrap.ign, so a write
// either lands before that move (and is installed) or is refused (409), never lost between.
ArtifactWrite ManifestWrite(const std::string& cluster_id, const install::ManifestName& name,
                            const std::string& content, bool if_absent) {
  return {.cluster_id = cluster_id,
          .name = install::ManifestArtifactName(name),
          .kind = inv::ARTIFACT_KIND_MANIFEST,
          .content_type = absl::EndsWith(name.file_name, ".json") ? kJsonType : kYamlType,
          .content = content,
          .if_absent = if_absent,
          .cluster_status_in = CustomisableStatuses()};
}

absl::Status NotFound(const v1::ClusterManifestRef& ref) {
  return absl::NotFoundError(absl::StrCat("manifest ", ref.folder(), "/", ref.file_name(),
                                          " of cluster ", ref.cluster_id(), " not found"));
}

}  // namespace

absl::StatusOr<v1::ListClusterManifestsResponse> ClusterActions::ListManifests(
    const std::string& cluster_id) {
  ASSIGN_OR_RETURN(std::vector<inv::ArtifactInfo> stored,
                   context_.inventory.ListArtifacts(cluster_id, inv::ARTIFACT_KIND_MANIFEST));
  // By name, so "manifests/manifests/..." before "manifests/openshift/...": folder, then file.
  std::sort(
      stored.begin(), stored.end(),
      [](const inv::ArtifactInfo& a, const inv::ArtifactInfo& b) { return a.name() < b.name(); });
  v1::ListClusterManifestsResponse answer;
  for (const inv::ArtifactInfo& info : stored) {
    if (std::optional<install::ManifestName> name =
            install::ParseManifestArtifactName(info.name())) {
      *answer.add_manifests() = RefOf(cluster_id, *name);
    }
  }
  return answer;
}

absl::StatusOr<v1::ClusterManifest> ClusterActions::GetManifest(const v1::ClusterManifestRef& ref) {
  RETURN_IF_ERROR(install::CheckManifestName(NameOf(ref), "folder", "file_name"));
  ASSIGN_OR_RETURN(std::optional<std::string> content,
                   context_.inventory.ArtifactContent(ref.cluster_id(),
                                                      install::ManifestArtifactName(NameOf(ref))));
  if (!content) return NotFound(ref);
  v1::ClusterManifest manifest;
  *manifest.mutable_ref() = ref;
  manifest.set_content(*std::move(content));
  return manifest;
}

absl::StatusOr<v1::ClusterManifest> ClusterActions::CreateManifest(
    const v1::ClusterManifest& manifest) {
  const v1::ClusterManifestRef& ref = manifest.ref();
  RETURN_IF_ERROR(install::CheckManifestName(NameOf(ref), "folder", "file_name"));
  RETURN_IF_ERROR(install::CheckManifestContent(ref.file_name(), manifest.content(), "content"));
  RETURN_IF_ERROR(RequireCustomisable(ref.cluster_id()));
  const absl::Status written = context_.inventory.PutArtifact(
      ManifestWrite(ref.cluster_id(), NameOf(ref), manifest.content(), /*if_absent=*/true));
  if (absl::IsAlreadyExists(written)) {
    return absl::AlreadyExistsError(absl::StrCat("file_name: ", ref.folder(), "/", ref.file_name(),
                                                 " already exists; update it"));
  }
  RETURN_IF_ERROR(written);
  RETURN_IF_ERROR(context_.JudgeAfterStoredChange(ref.cluster_id()));
  v1::ClusterManifest stored;
  *stored.mutable_ref() = ref;
  return stored;
}

absl::StatusOr<v1::ClusterManifest> ClusterActions::UpdateManifest(
    const v1::UpdateClusterManifestRequest& request) {
  const v1::ClusterManifestRef& from = request.ref();
  RETURN_IF_ERROR(install::CheckManifestName(NameOf(from), "folder", "file_name"));
  install::ManifestName to = NameOf(from);
  if (!request.updated_folder().empty()) to.folder = request.updated_folder();
  if (!request.updated_file_name().empty()) to.file_name = request.updated_file_name();
  RETURN_IF_ERROR(install::CheckManifestName(to, "updated_folder", "updated_file_name"));
  RETURN_IF_ERROR(RequireCustomisable(from.cluster_id()));
  ASSIGN_OR_RETURN(v1::ClusterManifest current, GetManifest(from));
  const std::string content =
      request.has_updated_content() ? request.updated_content() : current.content();
  // A rename to a .json name must hold JSON, even with the content kept.
  RETURN_IF_ERROR(install::CheckManifestContent(
      to.file_name, content, request.has_updated_content() ? "updated_content" : "content"));
  const bool moved = !(to == NameOf(from));
  const absl::Status written = context_.inventory.PutArtifact(
      ManifestWrite(from.cluster_id(), to, content, /*if_absent=*/moved));
  if (absl::IsAlreadyExists(written)) {
    return absl::AlreadyExistsError(
        absl::StrCat("updated_file_name: ", to.folder, "/", to.file_name, " already exists"));
  }
  RETURN_IF_ERROR(written);
  if (moved) {
    RETURN_IF_ERROR(context_.inventory
                        .DeleteArtifact(from.cluster_id(),
                                        install::ManifestArtifactName(NameOf(from)),
                                        CustomisableStatuses())
                        .status());
  }
  RETURN_IF_ERROR(context_.JudgeAfterStoredChange(from.cluster_id()));
  v1::ClusterManifest updated;
  *updated.mutable_ref() = RefOf(from.cluster_id(), to);
  updated.set_content(content);
  return updated;
}

absl::StatusOr<v1::ClusterManifestRef> ClusterActions::DeleteManifest(
    const v1::ClusterManifestRef& ref) {
  RETURN_IF_ERROR(install::CheckManifestName(NameOf(ref), "folder", "file_name"));
  RETURN_IF_ERROR(RequireCustomisable(ref.cluster_id()));
  ASSIGN_OR_RETURN(
      int64_t deleted,
      context_.inventory.DeleteArtifact(
          ref.cluster_id(), install::ManifestArtifactName(NameOf(ref)), CustomisableStatuses()));
  if (deleted == 0) return NotFound(ref);
  RETURN_IF_ERROR(context_.JudgeAfterStoredChange(ref.cluster_id()));
  return ref;
}

}  // namespace assisted::orchestrator::actions
