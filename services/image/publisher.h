// File: services/image/publisher.h
//
// What the image service publishes for an infra-env, independent of transport: signed short
// download URLs, and, behind a valid token, the discovery Ignition and the Downloads built from
// it (full and minimal ISO, PXE initrd/kernel/rootfs, iPXE script). Three kinds of token
// (lib/auth/token.h), none of which passes for another:
//   - download tokens (ImageUrl, PxeUrl, IpxeFor) open the ISOs, the PXE initrd and kernel and
//     the iPXE script for url_ttl (4 h): they hold or boot the Ignition, and so the agent token;
//   - rootfs tokens ("<public_url>/rootfs/<token>/rootfs.img") open the rootfs alone: it is all a
//     kernel command line names (the minimal ISO's kargs, the iPXE kernel line), and a host's
//     /proc/cmdline then gives away nothing secret. They last as long as agent tokens, so a
//     minimal ISO is the same bytes on every request and hosts boot from it long after the
//     download;
//   - the agent token baked into the Ignition is signed with the infra-env's own signing key
//     too (kept by the inventory): regenerating that key revokes it, and the next download
//     carries a new one. It is otherwise derived from the infra-env alone, so a discovery ISO is
//     the same bytes on every request (strong ETag, resumable downloads).
#ifndef ASSISTED_SERVICES_IMAGE_PUBLISHER_H_
#define ASSISTED_SERVICES_IMAGE_PUBLISHER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "assisted/types/v1/infra_env.pb.h"
#include "grpcpp/channel.h"
#include "lib/ignition/discovery_ignition.h"
#include "services/image/artifacts.h"
#include "services/image/catalog.h"
#include "services/image/download_cache.h"

namespace assisted::image {

// An infra-env with its pull secret, from wherever infra-envs live. Its resource_version must
// change whenever it does (downloads built from it are cached under that version).
struct InfraEnvRecord {
  types::v1::InfraEnv infra_env;
  std::string pull_secret;
  std::string signing_key;  // the infra-env's own, mixed into its agent tokens
};

class InfraEnvSource {
 public:
  virtual ~InfraEnvSource() = default;
  // NOT_FOUND for an unknown infra-env.
  virtual absl::StatusOr<InfraEnvRecord> Get(const std::string& infra_env_id) = 0;
};

// Reads infra-envs from the inventory service (as a system caller).
class InventoryInfraEnvSource final : public InfraEnvSource {
 public:
  explicit InventoryInfraEnvSource(std::shared_ptr<grpc::Channel> inventory);
  absl::StatusOr<InfraEnvRecord> Get(const std::string& infra_env_id) override;

 private:
  std::unique_ptr<inventory::v1::InventoryService::Stub> stub_;
};

struct PublisherOptions {
  std::string public_url = "http://localhost:8888";  // how clients reach the HTTP port
  std::string signing_key;                           // >= 32 bytes of secret
  absl::Duration url_ttl = absl::Hours(4);
  discovery::DiscoveryIgnitionSettings
      ignition;                           // orchestrator address, TLS; the token is filled in
  std::string default_openshift_version;  // for infra-envs that name none
};

class Publisher {
 public:
  Publisher(PublisherOptions options, const Catalog& catalog, InfraEnvSource& infra_envs)
      : options_(std::move(options)), catalog_(catalog), infra_envs_(infra_envs) {}

  // "<public_url>/images/<token>/discovery.iso" (minimal.iso for a minimal image), valid until
  // now + url_ttl. `type` UNSPECIFIED: the infra-env's own type.
  absl::StatusOr<std::string> ImageUrl(const std::string& infra_env_id, absl::Time now,
                                       types::v1::ImageType type) const;
  // "<public_url>/pxe/<token>/": initrd, vmlinuz and ipxe live under it (the rootfs under
  // RootfsUrl).
  absl::StatusOr<std::string> PxeUrl(const std::string& infra_env_id, absl::Time now) const;

  // The discovery Ignition JSON of an infra-env.
  absl::StatusOr<discovery::DiscoveryIgnition> Ignition(const std::string& infra_env_id) const;
  // The static-network files the discovery Ignition of an infra-env carries (empty without
  // static networking).
  absl::StatusOr<std::vector<discovery::NetworkFile>> StaticNetworkFiles(
      const std::string& infra_env_id) const;

  enum class Artifact { kIso, kMinimalIso, kInitrd, kKernel, kRootfs };
  // The artifact behind `token`: a rootfs token for kRootfs, a download token for the others
  // (PERMISSION_DENIED when the token is bad, expired or of the other kind). Downloads are kept
  // in a small cache (download_cache.h) between requests.
  absl::StatusOr<std::shared_ptr<const Download>> Get(Artifact artifact, absl::string_view token,
                                                      absl::Time now) const;

  // The rootfs URL of an infra-env: what minimal ISOs and PXE boots put on the kernel line.
  absl::StatusOr<std::string> RootfsUrl(const std::string& infra_env_id) const;
  // The iPXE script behind a download `token`.
  absl::StatusOr<std::string> Ipxe(absl::string_view token, absl::Time now) const;

  struct IpxeLink {
    std::string url;     // where the script itself is served
    std::string script;  // its content
  };
  // A fresh iPXE link for an infra-env and the script it serves.
  absl::StatusOr<IpxeLink> IpxeFor(const std::string& infra_env_id, absl::Time now) const;

  absl::Duration url_ttl() const { return options_.url_ttl; }

  // A download token for the infra-env, valid until now + url_ttl: the one every link above
  // carries, also for the REST API's presigned links to the infra-env's files.
  absl::StatusOr<std::string> DownloadToken(const std::string& infra_env_id, absl::Time now) const;

 private:
  // The token an infra-env's agents present (stable until its signing key is regenerated).
  absl::StatusOr<std::string> AgentToken(const InfraEnvRecord& record) const;
  absl::StatusOr<std::string> Url(const std::string& infra_env_id, absl::Time now,
                                  absl::string_view prefix, absl::string_view suffix) const;
  absl::StatusOr<std::string> RootfsUrlOf(const types::v1::InfraEnv& infra_env) const;
  absl::StatusOr<discovery::DiscoveryIgnition> IgnitionOf(const InfraEnvRecord& record) const;
  absl::StatusOr<const CachedImage*> BaseFor(const types::v1::InfraEnv& infra_env) const;
  // `artifact` of the infra-env, from the cache or built (and cached).
  absl::StatusOr<std::shared_ptr<const Download>> Cached(Artifact artifact,
                                                         const std::string& infra_env_id) const;
  // Builds `artifact` of `record` on `base` (no cache).
  absl::StatusOr<std::unique_ptr<Download>> Build(Artifact artifact, const InfraEnvRecord& record,
                                                  const CachedImage& base) const;

  const PublisherOptions options_;
  const Catalog& catalog_;
  InfraEnvSource& infra_envs_;
  // Entries hold up to ~1.3 MiB of overlays each: 16 bound the cache to ~20 MiB.
  mutable DownloadCache downloads_{16};
};

}  // namespace assisted::image

#endif  // ASSISTED_SERVICES_IMAGE_PUBLISHER_H_
