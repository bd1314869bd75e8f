#include "services/gateway/cli/agent/asset_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "assisted/types/v1/cluster.pb.h"
#include "lib/file/read_file.h"
#include "lib/iso/cpio.h"
#include "lib/iso/embed.h"
#include "lib/iso/iso9660.h"
#include "lib/pki/pki.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/agent/agent_ignition.h"
#include "services/gateway/cli/agent/yaml_reader.h"
#include "services/gateway/cli/agent/ztp_manifests.h"
#include "services/image/artifacts.h"
#include "services/image/catalog.h"

namespace assisted::cli::agent {
namespace {

// Far more than the five manifests read: a folder of thousands is refused unread.
constexpr size_t kMaxManifestFiles = 32;

std::string Join(const std::string& dir, absl::string_view name) {
  return absl::StrCat(dir, "/", name);
}

absl::Status Errno(absl::string_view what, const std::string& path) {
  return absl::InternalError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

// A user's input file, refused unread when it is larger than any real config.
absl::StatusOr<std::string> ReadInput(const std::string& dir, absl::string_view name) {
  const std::string path = Join(dir, name);
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": cannot read ", path, ": ", std::strerror(errno)));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", path, " is not a regular file"));
  }
  if (static_cast<uint64_t>(info.st_size) > kMaxYamlBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": is ", info.st_size, " bytes; at most ", kMaxYamlBytes, " are read"));
  }
  return ReadFile(path, name);
}

// A file written under "<path>.tmp" and renamed over `path` by Commit(); removed if it is
// never committed, so a run that fails midway leaves the folder as it was.
class StagedFile {
 public:
  // An empty file, or (with `copy_of`) a copy of that file to patch.
  static absl::StatusOr<std::unique_ptr<StagedFile>> Create(const std::string& path, mode_t mode,
                                                            const std::string& copy_of = "") {
    std::error_code error;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
    if (error) return absl::InternalError(absl::StrCat("mkdir for ", path, ": ", error.message()));
    auto file = std::unique_ptr<StagedFile>(new StagedFile(path, mode));
    if (!copy_of.empty()) {
      std::filesystem::copy_file(copy_of, file->temporary_,
                                 std::filesystem::copy_options::overwrite_existing, error);
      if (error) {
        return absl::InternalError(
            absl::StrCat("cannot copy ", copy_of, " to ", file->temporary_, ": ", error.message()));
      }
    }
    file->fd_ = open(file->temporary_.c_str(),
                     O_WRONLY | O_CREAT | O_CLOEXEC | (copy_of.empty() ? O_TRUNC : 0), mode);
    if (file->fd_ < 0) return Errno("cannot create", file->temporary_);
    return file;
  }

  ~StagedFile() {
    if (fd_ >= 0) close(fd_);
    if (!committed_) unlink(temporary_.c_str());
  }

  absl::Status WriteAt(absl::string_view bytes, uint64_t offset) {
    size_t written = 0;
    while (written < bytes.size()) {
      const ssize_t n = pwrite(fd_, bytes.data() + written, bytes.size() - written,
                               static_cast<off_t>(offset + written));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Errno("cannot write", temporary_);
      written += static_cast<size_t>(n);
    }
    return absl::OkStatus();
  }

  // Flushes and closes the file (mode `mode` whatever the umask).
  absl::Status Finish() {
    const bool ok = fchmod(fd_, mode_) == 0 && fsync(fd_) == 0;
    const int closed = close(fd_);
    fd_ = -1;
    if (!ok || closed != 0) return Errno("cannot finish", temporary_);
    return absl::OkStatus();
  }

  absl::Status Commit() {
    if (rename(temporary_.c_str(), path_.c_str()) != 0) return Errno("cannot rename", temporary_);
    committed_ = true;
    return absl::OkStatus();
  }

 private:
  StagedFile(std::string path, mode_t mode)
      : path_(std::move(path)), temporary_(absl::StrCat(path_, ".tmp")), mode_(mode) {}

  const std::string path_;
  const std::string temporary_;
  const mode_t mode_;
  int fd_ = -1;
  bool committed_ = false;
};

absl::StatusOr<std::unique_ptr<StagedFile>> StageText(const std::string& path,
                                                      absl::string_view contents, mode_t mode) {
  ASSIGN_OR_RETURN(std::unique_ptr<StagedFile> file, StagedFile::Create(path, mode));
  RETURN_IF_ERROR(file->WriteAt(contents, 0));
  RETURN_IF_ERROR(file->Finish());
  return file;
}

// `base_iso` copied to `output` with the Ignition embed area replaced by `ignition_json`; the
// image keeps its size and every other byte (lib/iso/embed.h).
absl::StatusOr<std::unique_ptr<StagedFile>> StageIso(const std::string& base_iso,
                                                     const std::string& output,
                                                     const std::string& ignition_json) {
  const int base_fd = open(base_iso.c_str(), O_RDONLY | O_CLOEXEC);
  if (base_fd < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--base-iso: cannot read ", base_iso, ": ",
                                                   std::strerror(errno),
                                                   " (./dev os-images builds the default one)"));
  }
  absl::StatusOr<iso::Patch> patch = [&]() -> absl::StatusOr<iso::Patch> {
    ASSIGN_OR_RETURN(iso::IsoReader reader, iso::IsoReader::Open(base_fd, base_iso));
    ASSIGN_OR_RETURN(iso::EmbedAreas areas, iso::FindEmbedAreas(reader));
    ASSIGN_OR_RETURN(std::string archive, iso::IgnitionArchive(ignition_json));
    return iso::IgnitionPatch(areas.ignition, archive);
  }();
  close(base_fd);
  if (!patch.ok()) {
    return absl::Status(patch.status().code(),
                        absl::StrCat("--base-iso ", base_iso, ": ", patch.status().message()));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<StagedFile> iso, StagedFile::Create(output, 0644, base_iso));
  RETURN_IF_ERROR(iso->WriteAt(patch->bytes, patch->offset));
  RETURN_IF_ERROR(iso->Finish());
  return iso;
}

// Renames every staged file into place: all of them, or (when one fails) the ones before it.
absl::Status CommitAll(const std::vector<std::unique_ptr<StagedFile>>& files) {
  for (const std::unique_ptr<StagedFile>& file : files) RETURN_IF_ERROR(file->Commit());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ClusterDefinition> ReadClusterDefinition(const std::string& dir) {
  std::error_code error;
  const bool has_install_config = std::filesystem::exists(Join(dir, kInstallConfigFile), error);
  const std::string manifests_dir = Join(dir, kClusterManifestsDir);
  if (has_install_config || !std::filesystem::is_directory(manifests_dir, error)) {
    ASSIGN_OR_RETURN(std::string install, ReadInput(dir, kInstallConfigFile));
    ASSIGN_OR_RETURN(std::string agent, ReadInput(dir, kAgentConfigFile));
    return ParseClusterDefinition(install, agent);
  }
  // No install-config.yaml: the ZTP manifests, with agent-config.yaml when there is one.
  std::map<std::string, std::string> manifests;
  for (const std::filesystem::directory_entry& entry :
       std::filesystem::directory_iterator(manifests_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (manifests.size() == kMaxManifestFiles) {
      return absl::InvalidArgumentError(
          absl::StrCat(kZtpDir, ": holds more than ", kMaxManifestFiles, " files"));
    }
    ASSIGN_OR_RETURN(manifests[name], ReadInput(dir, absl::StrCat(kZtpDir, name)));
  }
  if (error) {
    return absl::InvalidArgumentError(
        absl::StrCat(kZtpDir, ": cannot list ", manifests_dir, ": ", error.message()));
  }
  std::optional<std::string> agent;
  if (std::filesystem::exists(Join(dir, kAgentConfigFile), error)) {
    ASSIGN_OR_RETURN(agent, ReadInput(dir, kAgentConfigFile));
  }
  return ParseZtpClusterDefinition(manifests, agent);
}

namespace {

// What every boot medium of one `agent create` carries: the checked definition, the identity
// made for it and the agent Ignition.
struct AgentBoot {
  ClusterDefinition definition;
  AgentImageIdentity identity;
  std::string ignition;
};

absl::StatusOr<AgentBoot> PrepareAgentBoot(const std::string& dir, const std::string& release_image,
                                           absl::Time now, Random& random) {
  ASSIGN_OR_RETURN(ClusterDefinition definition, ReadClusterDefinition(dir));
  RETURN_IF_ERROR(WithReleaseImage(release_image, definition));
  types::v1::Cluster cluster;
  cluster.set_name(definition.install.cluster_name);
  cluster.set_base_dns_domain(definition.install.base_domain);
  AgentImageIdentity identity{.cluster_id = RandomUuid(random), .infra_env_id = RandomUuid(random)};
  ASSIGN_OR_RETURN(std::string jwt_key, SecureRandomBytes(32));
  identity.gateway_jwt_secret = absl::BytesToHexString(jwt_key);
  ASSIGN_OR_RETURN(std::string url_key, SecureRandomBytes(32));
  identity.url_signing_key = absl::Base64Escape(url_key);
  ASSIGN_OR_RETURN(std::string secrets_key, SecureRandomBytes(32));
  identity.secrets_key = absl::Base64Escape(secrets_key);
  ASSIGN_OR_RETURN(identity.credentials, pki::GenerateCredentials(cluster, now, random));
  ASSIGN_OR_RETURN(std::string ignition, BuildAgentIgnition(definition, identity));
  return AgentBoot{std::move(definition), std::move(identity), std::move(ignition)};
}

std::vector<std::string> Warnings(const ClusterDefinition& definition) {
  std::vector<std::string> warnings;
  // A disconnected install names its release: node 0's default is a tag at its source, which
  // the hosts check they can pull and a mirror by digest never serves.
  if (!definition.install.mirrors.empty() && definition.release_image.empty()) {
    warnings.push_back(absl::StrCat(
        "install-config.yaml's ", definition.install.mirror_key, " list mirrors but no ",
        kReleaseImageFlag,
        " is given: node 0 will check its default release image at its source "
        "registry, which a disconnected network cannot reach; name the release by digest with ",
        kReleaseImageFlag, " (or OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE)"));
  }
  return warnings;
}

CreatedImage Created(const AgentBoot& boot, std::string iso_path) {
  return {.iso_path = std::move(iso_path),
          .cluster_id = boot.identity.cluster_id,
          .infra_env_id = boot.identity.infra_env_id,
          .rendezvous_ip = boot.definition.agent.rendezvous_ip.ToString(),
          .expected_hosts = boot.definition.expected_hosts(),
          .warnings = Warnings(boot.definition)};
}

// Stages auth/ and the state file after the boot media `staged` holds, then renames all of
// them into place: a run that fails leaves no new file, so the media, auth/ and the state file
// always belong together. `media` names the media in the state file ("iso" or "pxe").
absl::Status StageCredentialsAndCommit(const std::string& dir, const AgentBoot& boot,
                                       absl::Time now, const char* media_key,
                                       absl::string_view media,
                                       std::vector<std::unique_ptr<StagedFile>> staged) {
  const ClusterDefinition& definition = boot.definition;
  const AgentImageIdentity& identity = boot.identity;
  ASSIGN_OR_RETURN(staged.emplace_back(),
                   StageText(Join(dir, kKubeconfigName), identity.credentials.kubeconfig, 0600));
  ASSIGN_OR_RETURN(staged.emplace_back(), StageText(Join(dir, kKubeadminPasswordName),
                                                    identity.credentials.kubeadmin_password, 0600));
  const nlohmann::ordered_json state = {
      {"version", 1},
      {"cluster_name", definition.install.cluster_name},
      {"base_domain", definition.install.base_domain},
      {"rendezvous_ip", definition.agent.rendezvous_ip.ToString()},
      {"orchestrator_address", HostPort(definition.agent.rendezvous_ip, kAgentPort)},
      {"gateway_url",
       absl::StrCat("http://", HostPort(definition.agent.rendezvous_ip, kGatewayPort))},
      {"cluster_id", identity.cluster_id},
      {"infra_env_id", identity.infra_env_id},
      {"expected_hosts", definition.expected_hosts()},
      {"gateway_jwt_secret", identity.gateway_jwt_secret},
      {media_key, std::string(media)},
      {"created_at", absl::FormatTime(absl::RFC3339_sec, now, absl::UTCTimeZone())}};
  ASSIGN_OR_RETURN(staged.emplace_back(),
                   StageText(Join(dir, kStateFileName), state.dump(2) + "\n", 0600));
  return CommitAll(staged);
}

// `download` (services/image/artifacts.h) written to `path`, a bounded chunk at a time.
absl::StatusOr<std::unique_ptr<StagedFile>> StageDownload(const image::Download& download,
                                                          const std::string& path) {
  constexpr uint64_t kChunk = 8 << 20;
  ASSIGN_OR_RETURN(std::unique_ptr<StagedFile> file, StagedFile::Create(path, 0644));
  for (uint64_t offset = 0; offset < download.size; offset += kChunk) {
    ASSIGN_OR_RETURN(
        std::string chunk,
        image::ReadDownload(download, offset, std::min(kChunk, download.size - offset)));
    RETURN_IF_ERROR(file->WriteAt(chunk, offset));
  }
  RETURN_IF_ERROR(file->Finish());
  return file;
}

// An absolute http(s) URL ending in '/', or INVALID_ARGUMENT naming the flag.
absl::StatusOr<std::string> BootArtifactsUrl(const std::string& url) {
  const bool scheme = absl::StartsWith(url, "http://") || absl::StartsWith(url, "https://");
  const bool printable = std::all_of(
      url.begin(), url.end(), [](char c) { return c > ' ' && c <= '~' && c != '"' && c != '\\'; });
  if (!scheme || !printable || url.size() <= std::string("https://").size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--boot-artifacts-base-url: ", Quoted(url),
        " must be an absolute http:// or https:// URL without spaces (where DIR/",
        kBootArtifactsDir, "/ is served to the hosts; the kernel fetches the rootfs from it)"));
  }
  return absl::EndsWith(url, "/") ? url : absl::StrCat(url, "/");
}

}  // namespace

absl::StatusOr<CreatedImage> CreateImage(const std::string& dir, const std::string& base_iso,
                                         absl::Time now, Random& random,
                                         const std::string& release_image) {
  ASSIGN_OR_RETURN(AgentBoot boot, PrepareAgentBoot(dir, release_image, now, random));
  CreatedImage created = Created(boot, Join(dir, kIsoName));
  std::vector<std::unique_ptr<StagedFile>> staged;
  ASSIGN_OR_RETURN(staged.emplace_back(), StageIso(base_iso, created.iso_path, boot.ignition));
  RETURN_IF_ERROR(StageCredentialsAndCommit(dir, boot, now, "iso", kIsoName, std::move(staged)));
  return created;
}

absl::StatusOr<CreatedPxeFiles> CreatePxeFiles(const std::string& dir, const std::string& base_iso,
                                               const std::string& base_url, absl::Time now,
                                               Random& random, const std::string& release_image) {
  ASSIGN_OR_RETURN(const std::string url, BootArtifactsUrl(base_url));
  ASSIGN_OR_RETURN(AgentBoot boot, PrepareAgentBoot(dir, release_image, now, random));
  // The base ISO as the image service's artifacts read it; they use its descriptor and path.
  image::CachedImage base;
  base.path = base_iso;
  base.fd = open(base_iso.c_str(), O_RDONLY | O_CLOEXEC);
  if (base.fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--base-iso: cannot read ", base_iso, ": ", std::strerror(errno)));
  }
  const auto named = [&base_iso](absl::StatusOr<std::unique_ptr<image::Download>> download)
      -> absl::StatusOr<std::unique_ptr<image::Download>> {
    if (download.ok()) return download;
    return absl::Status(download.status().code(),
                        absl::StrCat("--base-iso ", base_iso, ": ", download.status().message()));
  };
  const std::pair<const char*, absl::StatusOr<std::unique_ptr<image::Download>>> files[] = {
      {kPxeKernelName, named(image::PxeKernel(base))},
      {kPxeInitrdName, named(image::PxeInitrd(base, boot.ignition, ""))},
      {kPxeRootfsName, named(image::PxeRootfs(base))}};
  CreatedPxeFiles created{.image = Created(boot, "")};
  std::vector<std::unique_ptr<StagedFile>> staged;
  for (const auto& [name, download] : files) {
    RETURN_IF_ERROR(download.status());
    created.paths.push_back(Join(dir, absl::StrCat(kBootArtifactsDir, "/", name)));
    ASSIGN_OR_RETURN(staged.emplace_back(), StageDownload(**download, created.paths.back()));
  }
  created.paths.push_back(Join(dir, absl::StrCat(kBootArtifactsDir, "/", kIpxeScriptName)));
  ASSIGN_OR_RETURN(staged.emplace_back(),
                   StageText(created.paths.back(),
                             image::IpxeScript({.kernel = absl::StrCat(url, kPxeKernelName),
                                                .initrd = absl::StrCat(url, kPxeInitrdName),
                                                .rootfs = absl::StrCat(url, kPxeRootfsName)},
                                               ""),
                             0644));
  RETURN_IF_ERROR(StageCredentialsAndCommit(dir, boot, now, "pxe", url, std::move(staged)));
  return created;
}

absl::StatusOr<AgentState> ReadState(const std::string& dir) {
  const std::string path = Join(dir, kStateFileName);
  absl::StatusOr<std::string> text = ReadInput(dir, kStateFileName);
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(text.status().message(), " (run aictl agent create image first)"));
  }
  const nlohmann::json state = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  AgentState parsed;
  const std::pair<const char*, std::string*> fields[] = {
      {"cluster_name", &parsed.cluster_name},
      {"cluster_id", &parsed.cluster_id},
      {"gateway_url", &parsed.gateway_url},
      {"gateway_jwt_secret", &parsed.gateway_jwt_secret}};
  for (const auto& [key, target] : fields) {
    if (!state.is_object() || !state.contains(key) || !state[key].is_string() ||
        state[key].get<std::string>().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kStateFileName, ": ", key, ": missing (", path, " is not from this aictl)"));
    }
    *target = state[key].get<std::string>();
  }
  if (state.contains("expected_hosts") && state["expected_hosts"].is_number_integer()) {
    parsed.expected_hosts = state["expected_hosts"].get<int64_t>();
  }
  return parsed;
}

absl::StatusOr<std::vector<std::string>> CreateClusterManifests(const std::string& dir) {
  ASSIGN_OR_RETURN(ClusterDefinition definition, ReadClusterDefinition(dir));
  std::vector<std::string> written;
  std::vector<std::unique_ptr<StagedFile>> staged;
  for (const auto& [name, contents] : ZtpManifests(definition)) {
    const std::string path = Join(dir, absl::StrCat(kClusterManifestsDir, "/", name));
    ASSIGN_OR_RETURN(staged.emplace_back(),
                     StageText(path, contents, name == "pull-secret.yaml" ? 0600 : 0644));
    written.push_back(path);
  }
  RETURN_IF_ERROR(CommitAll(staged));
  return written;
}

}  // namespace assisted::cli::agent
