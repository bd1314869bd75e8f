#include "services/image/publisher.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "lib/auth/token.h"
#include "lib/enums/architecture.h"
#include "lib/grpc/channel.h"
#include "lib/status/grpc_status.h"
#include "lib/status/status_macros.h"

namespace assisted::image {
namespace {

namespace inv = inventory::v1;

// Agent and rootfs tokens outlive any image download: they last as long as the hosts run
// discovery (an agent token until its infra-env's signing key is regenerated).
constexpr absl::Duration kAgentTokenLife = absl::Hours(24 * 3650);

constexpr absl::Duration kInventoryTimeout = absl::Seconds(10);

}  // namespace

InventoryInfraEnvSource::InventoryInfraEnvSource(std::shared_ptr<grpc::Channel> inventory)
    : stub_(inv::InventoryService::NewStub(std::move(inventory))) {}

absl::StatusOr<InfraEnvRecord> InventoryInfraEnvSource::Get(const std::string& infra_env_id) {
  InfraEnvRecord record;
  inv::GetInfraEnvRequest infra_env_request;
  infra_env_request.set_id(infra_env_id);
  RETURN_IF_ERROR(FromGrpcStatus(stub_->GetInfraEnv(
      grpcutil::ContextWithin(kInventoryTimeout).get(), infra_env_request, &record.infra_env)));
  inv::GetPullSecretRequest request;
  request.set_infra_env_id(infra_env_id);
  inv::GetPullSecretResponse response;
  RETURN_IF_ERROR(FromGrpcStatus(
      stub_->GetPullSecret(grpcutil::ContextWithin(kInventoryTimeout).get(), request, &response)));
  record.pull_secret = response.pull_secret();
  inv::GetInfraEnvSigningKeyRequest key_request;
  key_request.set_infra_env_id(infra_env_id);
  inv::GetInfraEnvSigningKeyResponse key;
  RETURN_IF_ERROR(FromGrpcStatus(stub_->GetInfraEnvSigningKey(
      grpcutil::ContextWithin(kInventoryTimeout).get(), key_request, &key)));
  record.signing_key = key.signing_key();
  return record;
}

absl::StatusOr<std::string> Publisher::DownloadToken(const std::string& infra_env_id,
                                                     absl::Time now) const {
  return auth::SignToken({.service = options_.signing_key}, auth::TokenPurpose::kDownload,
                         infra_env_id, now + options_.url_ttl);
}

absl::StatusOr<std::string> Publisher::Url(const std::string& infra_env_id, absl::Time now,
                                           absl::string_view prefix,
                                           absl::string_view suffix) const {
  ASSIGN_OR_RETURN(std::string token, DownloadToken(infra_env_id, now));
  return absl::StrCat(absl::StripSuffix(options_.public_url, "/"), prefix, token, suffix);
}

absl::StatusOr<std::string> Publisher::ImageUrl(const std::string& infra_env_id, absl::Time now,
                                                types::v1::ImageType type) const {
  ASSIGN_OR_RETURN(InfraEnvRecord record, infra_envs_.Get(infra_env_id));
  if (type == types::v1::IMAGE_TYPE_UNSPECIFIED) type = record.infra_env.type();
  return Url(infra_env_id, now, "/images/",
             type == types::v1::IMAGE_TYPE_MINIMAL_ISO ? "/minimal.iso" : "/discovery.iso");
}

absl::StatusOr<std::string> Publisher::RootfsUrl(const std::string& infra_env_id) const {
  ASSIGN_OR_RETURN(InfraEnvRecord record, infra_envs_.Get(infra_env_id));
  return RootfsUrlOf(record.infra_env);
}

absl::StatusOr<std::string> Publisher::RootfsUrlOf(const types::v1::InfraEnv& infra_env) const {
  const absl::Time created = absl::FromUnixSeconds(infra_env.created_at().seconds());
  ASSIGN_OR_RETURN(std::string token,
                   auth::SignToken({.service = options_.signing_key}, auth::TokenPurpose::kRootfs,
                                   infra_env.id(), created + kAgentTokenLife));
  return absl::StrCat(absl::StripSuffix(options_.public_url, "/"), "/rootfs/", token,
                      "/rootfs.img");
}

absl::StatusOr<std::string> Publisher::PxeUrl(const std::string& infra_env_id,
                                              absl::Time now) const {
  RETURN_IF_ERROR(infra_envs_.Get(infra_env_id).status());
  return Url(infra_env_id, now, "/pxe/", "/");
}

absl::StatusOr<std::string> Publisher::AgentToken(const InfraEnvRecord& record) const {
  const absl::Time created = absl::FromUnixSeconds(record.infra_env.created_at().seconds());
  return auth::SignToken({.service = options_.signing_key, .infra_env = record.signing_key},
                         auth::TokenPurpose::kAgent, record.infra_env.id(),
                         created + kAgentTokenLife);
}

absl::StatusOr<discovery::DiscoveryIgnition> Publisher::IgnitionOf(
    const InfraEnvRecord& record) const {
  discovery::DiscoveryIgnitionSettings settings = options_.ignition;
  ASSIGN_OR_RETURN(settings.agent_token, AgentToken(record));
  return discovery::BuildDiscoveryIgnition(record.infra_env, record.pull_secret, settings);
}

absl::StatusOr<discovery::DiscoveryIgnition> Publisher::Ignition(
    const std::string& infra_env_id) const {
  ASSIGN_OR_RETURN(InfraEnvRecord record, infra_envs_.Get(infra_env_id));
  return IgnitionOf(record);
}

absl::StatusOr<std::vector<discovery::NetworkFile>> Publisher::StaticNetworkFiles(
    const std::string& infra_env_id) const {
  ASSIGN_OR_RETURN(InfraEnvRecord record, infra_envs_.Get(infra_env_id));
  return discovery::StaticNetworkFiles(record.infra_env);
}

absl::StatusOr<const CachedImage*> Publisher::BaseFor(const types::v1::InfraEnv& infra_env) const {
  const std::string version = infra_env.openshift_version().empty()
                                  ? options_.default_openshift_version
                                  : infra_env.openshift_version();
  return catalog_.Find(version, enums::OsImageArchitecture(infra_env.cpu_architecture()));
}

absl::StatusOr<std::shared_ptr<const Download>> Publisher::Get(Artifact artifact,
                                                               absl::string_view token,
                                                               absl::Time now) const {
  // The rootfs URL sits on kernel command lines, so the rootfs has tokens of its own; every
  // other artifact holds the Ignition (and its agent token) or boots it, behind download tokens.
  const auth::TokenPurpose purpose =
      artifact == Artifact::kRootfs ? auth::TokenPurpose::kRootfs : auth::TokenPurpose::kDownload;
  ASSIGN_OR_RETURN(auth::TokenClaims claims,
                   auth::VerifyToken({.service = options_.signing_key}, purpose, token, now));
  return Cached(artifact, claims.resource_id);
}

absl::StatusOr<std::shared_ptr<const Download>> Publisher::Cached(
    Artifact artifact, const std::string& infra_env_id) const {
  ASSIGN_OR_RETURN(InfraEnvRecord record, infra_envs_.Get(infra_env_id));
  ASSIGN_OR_RETURN(const CachedImage* base, BaseFor(record.infra_env));
  const types::v1::InfraEnv& infra_env = record.infra_env;
  // The signing key is in the key (besides the version its regeneration bumps): a download
  // built before a regeneration carries an agent token that no longer works.
  const std::string key = absl::StrCat(
      static_cast<int>(artifact), "/", infra_env.id(), "/", infra_env.resource_version(), "/",
      infra_env.updated_at().seconds(), ".", infra_env.updated_at().nanos(), "/",
      std::hash<std::string>()(record.pull_secret), "/",
      std::hash<std::string>()(record.signing_key), "/", base->path);
  if (std::shared_ptr<const Download> hit = downloads_.Find(key)) return hit;
  ASSIGN_OR_RETURN(std::shared_ptr<const Download> built, Build(artifact, record, *base));
  downloads_.Insert(key, built);
  return built;
}

absl::StatusOr<std::unique_ptr<Download>> Publisher::Build(Artifact artifact,
                                                           const InfraEnvRecord& record,
                                                           const CachedImage& base) const {
  if (artifact == Artifact::kKernel) return PxeKernel(base);
  if (artifact == Artifact::kRootfs) return PxeRootfs(base);
  ASSIGN_OR_RETURN(discovery::DiscoveryIgnition ignition, IgnitionOf(record));
  const std::string kargs = absl::StrJoin(ignition.kernel_arguments, " ");
  if (artifact == Artifact::kInitrd) {
    return PxeInitrd(base, ignition.config, ignition.initrd_archive);
  }
  if (artifact == Artifact::kMinimalIso) {
    ASSIGN_OR_RETURN(std::string rootfs_url, RootfsUrlOf(record.infra_env));
    return MinimalIso(base, ignition.config, rootfs_url, kargs, ignition.initrd_archive);
  }
  return FullIso(base, ignition.config, kargs);
}

absl::StatusOr<Publisher::IpxeLink> Publisher::IpxeFor(const std::string& infra_env_id,
                                                       absl::Time now) const {
  ASSIGN_OR_RETURN(std::string token, DownloadToken(infra_env_id, now));
  IpxeLink link;
  ASSIGN_OR_RETURN(link.script, Ipxe(token, now));
  link.url = absl::StrCat(absl::StripSuffix(options_.public_url, "/"), "/pxe/", token, "/ipxe");
  return link;
}

absl::StatusOr<std::string> Publisher::Ipxe(absl::string_view token, absl::Time now) const {
  ASSIGN_OR_RETURN(auth::TokenClaims claims,
                   auth::VerifyToken({.service = options_.signing_key},
                                     auth::TokenPurpose::kDownload, token, now));
  ASSIGN_OR_RETURN(InfraEnvRecord record, infra_envs_.Get(claims.resource_id));
  ASSIGN_OR_RETURN(discovery::DiscoveryIgnition ignition, IgnitionOf(record));
  // The kernel line (the host's /proc/cmdline) names the rootfs with a rootfs token: the
  // download token of the script's own URL would open the initrd and its agent token.
  ASSIGN_OR_RETURN(std::string rootfs_url, RootfsUrlOf(record.infra_env));
  const std::string artifacts =
      absl::StrCat(absl::StripSuffix(options_.public_url, "/"), "/pxe/", token, "/");
  return IpxeScript({.kernel = absl::StrCat(artifacts, "vmlinuz"),
                     .initrd = absl::StrCat(artifacts, "initrd"),
                     .rootfs = std::move(rootfs_url)},
                    absl::StrJoin(ignition.kernel_arguments, " "));
}

}  // namespace assisted::image
