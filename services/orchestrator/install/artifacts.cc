#include "services/orchestrator/install/artifacts.h"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/duration.pb.h"
#include "lib/operators/catalog.h"
#include "lib/pki/pki.h"
#include "lib/status/status_macros.h"
#include "services/orchestrator/install/ignition_configs.h"
#include "services/orchestrator/install/install_config.h"
#include "services/orchestrator/install/manifests.h"

namespace assisted::orchestrator::install {
namespace {

namespace inv = inventory::v1;

// Writes one artifact if it does not exist yet; returns what is stored (ours or the earlier one).
class OnceWriter {
 public:
  OnceWriter(InventoryPort& inventory, std::string cluster_id, inv::LeaseFence fence)
      : inventory_(inventory), cluster_id_(std::move(cluster_id)), fence_(std::move(fence)) {}

  absl::StatusOr<std::string> Put(const std::string& name, inv::ArtifactKind kind,
                                  const std::string& content_type, std::string content) {
    const absl::Status written = inventory_.PutArtifact({.cluster_id = cluster_id_,
                                                         .name = name,
                                                         .kind = kind,
                                                         .content_type = content_type,
                                                         .content = content,
                                                         .if_absent = true,
                                                         .fence = fence_});
    if (written.ok()) return content;
    if (!absl::IsAlreadyExists(written)) return written;
    return Existing(name);
  }

  // The stored content, nullopt when absent.
  absl::StatusOr<std::optional<std::string>> Get(const std::string& name) const {
    return inventory_.ArtifactContent(cluster_id_, name);
  }

 private:
  absl::StatusOr<std::string> Existing(const std::string& name) const {
    ASSIGN_OR_RETURN(std::optional<std::string> stored, Get(name));
    if (!stored) return absl::AbortedError(absl::StrCat(name, " vanished while generating"));
    return *stored;
  }

  InventoryPort& inventory_;
  const std::string cluster_id_;
  const inv::LeaseFence fence_;
};

// The cluster's user manifests, each at the path the bootstrap applies it from.
absl::StatusOr<std::vector<BootstrapFile>> UserManifests(InventoryPort& inventory,
                                                         const std::string& cluster_id) {
  ASSIGN_OR_RETURN(std::vector<inv::ArtifactInfo> stored,
                   inventory.ListArtifacts(cluster_id, inv::ARTIFACT_KIND_MANIFEST));
  std::vector<BootstrapFile> files;
  for (const inv::ArtifactInfo& info : stored) {
    const std::optional<ManifestName> name = ParseManifestArtifactName(info.name());
    if (!name) continue;  // not written by the manifest actions
    ASSIGN_OR_RETURN(std::optional<std::string> content,
                     inventory.ArtifactContent(cluster_id, info.name()));
    if (!content) continue;  // deleted since it was listed
    files.push_back({ManifestBootstrapPath(*name), *std::move(content)});
  }
  return files;
}

// The manifests of the operators `cluster` selected (lib/operators/catalog.h), in the
// installer's openshift folder as upstream writes them, then `user`'s: a user manifest of the
// same name replaces the operator's (the user's edit wins, and one path is written once).
std::vector<BootstrapFile> WithOperatorManifests(const types::v1::Cluster& cluster,
                                                 std::vector<BootstrapFile> user) {
  std::vector<BootstrapFile> files;
  for (const operators::OperatorSpec* op : operators::SelectedOperators(cluster)) {
    for (operators::OperatorManifest& m : operators::ManifestsOf(*op)) {
      BootstrapFile file{ManifestBootstrapPath({"openshift", m.file_name}), std::move(m.content)};
      const bool replaced = std::any_of(
          user.begin(), user.end(), [&](const BootstrapFile& u) { return u.path == file.path; });
      if (!replaced) files.push_back(std::move(file));
    }
  }
  for (BootstrapFile& file : user) files.push_back(std::move(file));
  return files;
}

constexpr char kJson[] = "application/json";
constexpr char kText[] = "text/plain";
constexpr char kYaml[] = "application/yaml";

int CountRole(const types::v1::Cluster& cluster, bool masters) {
  int n = 0;
  for (const types::v1::Host& host : cluster.hosts()) {
    const bool master = host.bootstrap() || host.role() == types::v1::HOST_ROLE_MASTER ||
                        host.role() == types::v1::HOST_ROLE_ARBITER;
    if (masters ? master : host.role() == types::v1::HOST_ROLE_WORKER) ++n;
  }
  return n;
}

const types::v1::InfraEnv* InfraEnvOf(const std::vector<types::v1::InfraEnv>& infra_envs,
                                      const std::string& id) {
  for (const types::v1::InfraEnv& infra_env : infra_envs) {
    if (infra_env.id() == id) return &infra_env;
  }
  return nullptr;
}

// The root CA: the stored one, or a new one stored now.
absl::StatusOr<pki::KeyPair> RootCa(OnceWriter& writer, const types::v1::Cluster& cluster,
                                    absl::Time now, Random& random) {
  ASSIGN_OR_RETURN(std::optional<std::string> cert, writer.Get(kRootCaCertName));
  ASSIGN_OR_RETURN(std::optional<std::string> key, writer.Get(kRootCaKeyName));
  if (cert && key) return pki::KeyPair{*cert, *key};
  ASSIGN_OR_RETURN(pki::ClusterCredentials fresh, pki::GenerateCredentials(cluster, now, random));
  pki::KeyPair ca;
  // The key first: a certificate without its key would be useless to a resumed generation.
  ASSIGN_OR_RETURN(ca.private_key_pem, writer.Put(kRootCaKeyName, inv::ARTIFACT_KIND_CREDENTIALS,
                                                  kText, fresh.root_ca.private_key_pem));
  ASSIGN_OR_RETURN(ca.certificate_pem, writer.Put(kRootCaCertName, inv::ARTIFACT_KIND_CREDENTIALS,
                                                  kText, fresh.root_ca.certificate_pem));
  return ca;
}

}  // namespace

absl::Status ArtifactGenerator::Generate(const types::v1::Cluster& cluster) {
  {
    // The lease's holder is this replica's, so it would be granted again: two writers under one
    // fence, and the first to finish would release it under the other. The second waits, then
    // finds the files written (a user action then returns with them, as the caller expects).
    absl::MutexLock lock(&mu_);
    const std::string& id = cluster.id();
    auto idle = [this, &id]()
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !generating_.contains(id); };
    mu_.Await(absl::Condition(&idle));
    generating_.insert(id);
  }
  const absl::Status generated = GenerateUnderLease(cluster);
  absl::MutexLock lock(&mu_);
  generating_.erase(cluster.id());
  return generated;
}

absl::StatusOr<std::string> ArtifactGenerator::InstallConfig(const types::v1::Cluster& cluster) {
  ASSIGN_OR_RETURN(const std::string pull_secret, inventory_.GetPullSecret(cluster.id()));
  ASSIGN_OR_RETURN(const std::vector<types::v1::InfraEnv> infra_envs,
                   inventory_.ListClusterInfraEnvs(cluster.id()));
  return InstallConfigOf(cluster, pull_secret, infra_envs);
}

absl::StatusOr<std::string> InstallConfigOf(const types::v1::Cluster& cluster,
                                            const std::string& pull_secret,
                                            const std::vector<types::v1::InfraEnv>& infra_envs) {
  InstallConfigInput input{.cluster = cluster, .pull_secret = pull_secret};
  // Before roles are assigned (a preview of the document), the control plane the user asked for.
  input.masters = CountRole(cluster, true);
  if (input.masters == 0) input.masters = cluster.control_plane_count();
  input.workers = CountRole(cluster, false);
  // The cluster's hosts booted from its infra-envs: their mirrors and trusted CAs serve the
  // installed cluster too (each source and each bundle once).
  std::set<std::string> sources, bundles;
  for (const types::v1::InfraEnv& infra_env : infra_envs) {
    for (const types::v1::RegistryMirror& mirror : infra_env.mirror_registries().mirrors()) {
      if (!sources.insert(mirror.source()).second) continue;
      input.mirrors.push_back(
          {mirror.source(), {mirror.mirrors().begin(), mirror.mirrors().end()}});
    }
    for (const std::string& bundle :
         {infra_env.additional_trust_bundle(), infra_env.mirror_registries().ca_bundle()}) {
      if (bundle.empty() || !bundles.insert(bundle).second) continue;
      absl::StrAppend(&input.additional_trust_bundle, bundle,
                      absl::EndsWith(bundle, "\n") ? "" : "\n");
    }
  }
  return BuildInstallConfig(input);
}

absl::Status ArtifactGenerator::GenerateUnderLease(const types::v1::Cluster& cluster) {
  const std::string lease = absl::StrCat("install-artifacts-", cluster.id());
  ASSIGN_OR_RETURN(LeaseState held, inventory_.AcquireLease(lease, holder_, absl::Seconds(60)));
  if (!held.granted) {
    return absl::AbortedError(absl::StrCat("installation files of cluster ", cluster.id(),
                                           " are being generated by ", held.holder));
  }
  inv::LeaseFence fence;
  fence.set_name(lease);
  fence.set_epoch(held.epoch);
  OnceWriter writer(inventory_, cluster.id(), fence);

  ASSIGN_OR_RETURN(const std::string pull_secret, inventory_.GetPullSecret(cluster.id()));
  ASSIGN_OR_RETURN(const std::vector<types::v1::InfraEnv> infra_envs,
                   inventory_.ListClusterInfraEnvs(cluster.id()));
  ASSIGN_OR_RETURN(std::string install_config, InstallConfigOf(cluster, pull_secret, infra_envs));
  ASSIGN_OR_RETURN(install_config, writer.Put(kInstallConfigName, inv::ARTIFACT_KIND_INSTALL_CONFIG,
                                              kYaml, install_config));

  const absl::Time now = clock_.Now();
  ASSIGN_OR_RETURN(pki::KeyPair ca, RootCa(writer, cluster, now, random_));
  ASSIGN_OR_RETURN(std::optional<std::string> kubeconfig, writer.Get(kKubeconfigNoIngressName));
  if (!kubeconfig) {
    ASSIGN_OR_RETURN(pki::KeyPair admin,
                     pki::IssueClientCertificate(ca, "system:admin", "system:masters", now,
                                                 absl::Hours(24 * 3653), random_));
    kubeconfig = pki::Kubeconfig(cluster.name(),
                                 absl::StrCat("https://api.", ClusterDomain(cluster), ":6443"),
                                 ca.certificate_pem, admin);
  }
  ASSIGN_OR_RETURN(*kubeconfig, writer.Put(kKubeconfigNoIngressName, inv::ARTIFACT_KIND_CREDENTIALS,
                                           kYaml, *kubeconfig));
  RETURN_IF_ERROR(
      writer.Put(kKubeconfigName, inv::ARTIFACT_KIND_CREDENTIALS, kYaml, *kubeconfig).status());
  RETURN_IF_ERROR(writer
                      .Put(kKubeadminPasswordName, inv::ARTIFACT_KIND_CREDENTIALS, kText,
                           pki::KubeadminPassword(random_))
                      .status());

  for (const char* pool : {"master", "worker"}) {
    ASSIGN_OR_RETURN(std::string pointer, PointerIgnition(cluster, pool, ca.certificate_pem));
    RETURN_IF_ERROR(
        writer.Put(absl::StrCat(pool, ".ign"), inv::ARTIFACT_KIND_IGNITION, kJson, pointer)
            .status());
  }
  ASSIGN_OR_RETURN(std::vector<BootstrapFile> manifests, UserManifests(inventory_, cluster.id()));
  ASSIGN_OR_RETURN(std::string bootstrap,
                   BootstrapIgnition(cluster, {.root_ca_pem = ca.certificate_pem,
                                               .pull_secret = pull_secret,
                                               .install_config = install_config,
                                               .kubeconfig = *kubeconfig,
                                               .extra_files = WithOperatorManifests(
                                                   cluster, std::move(manifests))}));
  RETURN_IF_ERROR(
      writer.Put(kBootstrapIgnitionName, inv::ARTIFACT_KIND_IGNITION, kJson, bootstrap).status());
  for (const types::v1::Host& host : cluster.hosts()) {
    ASSIGN_OR_RETURN(std::string config,
                     HostIgnition(cluster, host, InfraEnvOf(infra_envs, host.infra_env_id()),
                                  ca.certificate_pem));
    RETURN_IF_ERROR(
        writer
            .Put(HostIgnitionName(host.id()), inv::ARTIFACT_KIND_IGNITION, kJson, std::move(config))
            .status());
  }
  return inventory_.ReleaseLease(lease, holder_);
}

absl::Status ArtifactGenerator::GenerateHostIgnition(const types::v1::Cluster& cluster,
                                                     const types::v1::Host& host) {
  ASSIGN_OR_RETURN(std::optional<std::string> ca,
                   inventory_.ArtifactContent(cluster.id(), kRootCaCertName));
  // A cluster installed elsewhere (imported) has no root CA here: its machine-config server is
  // trusted through the CA the user gave.
  if (!ca && !cluster.ignition_endpoint().ca_certificate().empty()) {
    ca = cluster.ignition_endpoint().ca_certificate();
  }
  if (!ca) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cluster ", cluster.id(),
        " has no root CA: it was not installed here (for an imported cluster, give its "
        "machine-config CA in ignition_endpoint.ca_certificate)"));
  }
  ASSIGN_OR_RETURN(types::v1::InfraEnv infra_env, inventory_.GetInfraEnv(host.infra_env_id()));
  ASSIGN_OR_RETURN(std::string config, HostIgnition(cluster, host, &infra_env, *ca));
  return inventory_.PutArtifact({.cluster_id = cluster.id(),
                                 .name = HostIgnitionName(host.id()),
                                 .kind = inv::ARTIFACT_KIND_IGNITION,
                                 .content_type = kJson,
                                 .content = std::move(config)});
}

}  // namespace assisted::orchestrator::install
