#include "services/image/service.h"

#include <openssl/evp.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/status/grpc_status.h"
#include "lib/time/proto_time.h"

namespace assisted::image {
namespace {

std::string Sha256Hex(absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<char*>(digest), length));
}

}  // namespace

grpc::Status ImageServiceImpl::GetDiscoveryIgnition(grpc::ServerContext*,
                                                    const v1::GetDiscoveryIgnitionRequest* request,
                                                    v1::GetDiscoveryIgnitionResponse* response) {
  absl::StatusOr<discovery::DiscoveryIgnition> ignition =
      publisher_.Ignition(request->infra_env_id());
  if (!ignition.ok()) return ToGrpcStatus(ignition.status());
  response->set_ignition_json(ignition->config);
  response->set_sha256(Sha256Hex(ignition->config));
  *response->mutable_generated_at() = ToTimestamp(clock_.Now());
  return grpc::Status::OK;
}

grpc::Status ImageServiceImpl::GetImageUrl(grpc::ServerContext*,
                                           const v1::GetImageUrlRequest* request,
                                           v1::GetImageUrlResponse* response) {
  const absl::Time now = clock_.Now();
  absl::StatusOr<std::string> iso =
      publisher_.ImageUrl(request->infra_env_id(), now, request->image_type());
  if (!iso.ok()) return ToGrpcStatus(iso.status());
  absl::StatusOr<std::string> pxe = publisher_.PxeUrl(request->infra_env_id(), now);
  if (!pxe.ok()) return ToGrpcStatus(pxe.status());
  absl::StatusOr<std::string> rootfs = publisher_.RootfsUrl(request->infra_env_id());
  if (!rootfs.ok()) return ToGrpcStatus(rootfs.status());
  absl::StatusOr<std::string> token = publisher_.DownloadToken(request->infra_env_id(), now);
  if (!token.ok()) return ToGrpcStatus(token.status());
  response->set_download_token(*std::move(token));
  response->set_url(*iso);
  response->set_pxe_initrd_url(*pxe + "initrd");
  response->set_kernel_url(*pxe + "vmlinuz");
  response->set_rootfs_url(*std::move(rootfs));
  *response->mutable_expires_at() = ToTimestamp(now + publisher_.url_ttl());
  return grpc::Status::OK;
}

grpc::Status ImageServiceImpl::GetIpxeScript(grpc::ServerContext*,
                                             const v1::GetIpxeScriptRequest* request,
                                             v1::GetIpxeScriptResponse* response) {
  absl::StatusOr<Publisher::IpxeLink> link =
      publisher_.IpxeFor(request->infra_env_id(), clock_.Now());
  if (!link.ok()) return ToGrpcStatus(link.status());
  response->set_url(link->url);
  response->set_script(link->script);
  return grpc::Status::OK;
}

grpc::Status ImageServiceImpl::ListBaseImages(grpc::ServerContext*,
                                              const v1::ListBaseImagesRequest* request,
                                              v1::ListBaseImagesResponse* response) {
  for (v1::BaseImage& image : catalog_.List()) {
    if (!request->openshift_version().empty() &&
        image.openshift_version() != request->openshift_version()) {
      continue;
    }
    if (request->cpu_architecture() != types::v1::CPU_ARCHITECTURE_UNSPECIFIED &&
        image.cpu_architecture() != request->cpu_architecture()) {
      continue;
    }
    *response->add_images() = std::move(image);
  }
  return grpc::Status::OK;
}

grpc::Status ImageServiceImpl::GetStaticNetworkConfig(
    grpc::ServerContext*, const v1::GetStaticNetworkConfigRequest* request,
    v1::GetStaticNetworkConfigResponse* response) {
  absl::StatusOr<std::vector<discovery::NetworkFile>> files =
      publisher_.StaticNetworkFiles(request->infra_env_id());
  if (!files.ok()) return ToGrpcStatus(files.status());
  // The per-host folders under the network folder; the MAC-matching script is the image's own.
  const std::string folder = absl::StrCat(discovery::kNetworkConfigDir, "/");
  for (discovery::NetworkFile& file : *files) {
    absl::string_view path = file.path;
    if (!absl::ConsumePrefix(&path, folder)) continue;
    v1::GeneratedFile& generated = *response->add_files();
    generated.set_path(std::string(path));
    generated.set_mode(file.mode);
    generated.set_content(std::move(file.contents));
  }
  return grpc::Status::OK;
}

grpc::Status ImageServiceImpl::GetMinimalInitrd(grpc::ServerContext*,
                                                const v1::GetMinimalInitrdRequest* request,
                                                v1::GetMinimalInitrdResponse* response) {
  // The same archive the minimal ISO's ramdisk area and the PXE initrd carry.
  absl::StatusOr<discovery::DiscoveryIgnition> ignition =
      publisher_.Ignition(request->infra_env_id());
  if (!ignition.ok()) return ToGrpcStatus(ignition.status());
  response->set_initrd(std::move(ignition->initrd_archive));
  return grpc::Status::OK;
}

}  // namespace assisted::image
