// File: services/agent/steps/install.cc

#include "services/agent/steps/install.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/status/status_macros.h"
#include "services/agent/steps/block_device.h"
#include "services/agent/steps/install_disk.h"
#include "services/agent/steps/json_args.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/unique_fd.h"

namespace assisted::agent::steps {
namespace {

using nlohmann::json;
using types::v1::HostStage;

constexpr char kFooterMagic[] = "ASSISTED-INSTALL-1\n";
constexpr int64_t kFooterBytes = 4096;
constexpr int64_t kAlign = 1 << 20;
constexpr int kExitWriteFailed = 1;
constexpr int kExitImageFailed = 2;
// The boot entry's loader on the EFI system partition (partition 2): the removable-media path,
// present on every UEFI-bootable OS image.
constexpr char kUefiFallbackLoader[] = "\\EFI\\BOOT\\BOOTX64.EFI";

// Incremental SHA-256.
class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr); }
  void Update(const void* data, size_t n) { EVP_DigestUpdate(ctx_.get(), data, n); }
  std::string Hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(ctx_.get(), digest, &length);
    return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), length));
  }

 private:
  struct Free {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
  };
  std::unique_ptr<EVP_MD_CTX, Free> ctx_;
};

absl::Status WriteAll(int fd, const char* data, size_t n, int64_t offset, absl::string_view what) {
  while (n > 0) {
    const ssize_t written = pwrite(fd, data, n, offset);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      return absl::InternalError(absl::StrCat("cannot write ", what, ": ", std::strerror(errno)));
    }
    data += written;
    n -= static_cast<size_t>(written);
    offset += written;
  }
  return absl::OkStatus();
}

absl::Status ReadAll(int fd, char* data, size_t n, int64_t offset, absl::string_view what) {
  while (n > 0) {
    const ssize_t got = pread(fd, data, n, offset);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      return absl::InternalError(absl::StrCat("cannot read ", what, ": ",
                                              got == 0 ? "short device" : std::strerror(errno)));
    }
    data += got;
    n -= static_cast<size_t>(got);
    offset += got;
  }
  return absl::OkStatus();
}

int64_t AlignUp(int64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// SHA-256 of the first `size` bytes of the disk open at `fd`.
absl::StatusOr<std::string> DigestOfDisk(int fd, int64_t size) {
  Sha256 digest;
  std::string buffer(1 << 20, '\0');
  for (int64_t at = 0; at < size;) {
    const size_t n = static_cast<size_t>(std::min<int64_t>(buffer.size(), size - at));
    RETURN_IF_ERROR(ReadAll(fd, buffer.data(), n, at, "the OS image"));
    digest.Update(buffer.data(), n);
    at += static_cast<int64_t>(n);
  }
  return digest.Hex();
}

// Where the install record lives on the boot partition of an installed GPT image.
constexpr char kRecordPath[] = "assisted/install.json";
constexpr char kReporterSettingsPath[] = "assisted/reporter.json";
constexpr int kSecretMode = 0600;
constexpr char kIgnitionPath[] = "ignition/config.ign";
constexpr char kKargsPath[] = "kargs.cfg";
constexpr char kFirstbootNetworkDir[] = "coreos-firstboot-network";

// Streams the OS image into the disk at offset 0, hashing it; reports each new whole percentage
// through `percent` (when the size is known). Returns the bytes written.
struct ImageWriter {
  int fd;
  int64_t limit;  // the image may not reach past this offset
  const StepContext& context;
  std::function<void(int)> percent;
  int64_t expected_size = -1;  // -1: unknown
  int64_t written = 0;
  Sha256 digest;
  absl::Status failure;

  bool Accept(const char* data, size_t n) {
    if (context.cancelled()) {
      failure = absl::CancelledError("install cancelled");
      return false;
    }
    if (written + static_cast<int64_t>(n) > limit) {
      failure = absl::ResourceExhaustedError(absl::StrCat(
          "the OS image does not fit the installation disk (", limit, " bytes available)"));
      return false;
    }
    failure = WriteAll(fd, data, n, written, "the OS image to the disk");
    if (!failure.ok()) return false;
    digest.Update(data, n);
    written += static_cast<int64_t>(n);
    if (expected_size > 0) percent(static_cast<int>(written * 100 / expected_size));
    return true;
  }
};

absl::Status CopyFile(const std::string& path, ImageWriter& writer, size_t chunk) {
  UniqueFd source(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!source.valid()) {
    return absl::NotFoundError(
        absl::StrCat("cannot open the OS image ", path, ": ", std::strerror(errno)));
  }
  struct stat st {};
  if (fstat(source.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("the OS image ", path, " is not a file"));
  }
  writer.expected_size = st.st_size;
  std::string buffer(chunk, '\0');
  for (;;) {
    const ssize_t got = read(source.get(), buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      return absl::InternalError(absl::StrCat("cannot read the OS image: ", std::strerror(errno)));
    }
    if (got == 0) break;
    if (!writer.Accept(buffer.data(), static_cast<size_t>(got))) return writer.failure;
  }
  return absl::OkStatus();
}

size_t CurlWrite(char* data, size_t size, size_t count, void* user) {
  auto* writer = static_cast<ImageWriter*>(user);
  if (writer->expected_size < 0) writer->expected_size = 0;  // set by the header callback
  return writer->Accept(data, size * count) ? size * count : 0;
}

int CurlProgress(void* user, curl_off_t total, curl_off_t, curl_off_t, curl_off_t) {
  auto* writer = static_cast<ImageWriter*>(user);
  if (total > 0) writer->expected_size = total;
  return writer->context.cancelled() ? 1 : 0;
}

absl::Status Download(const std::string& url, ImageWriter& writer, absl::Duration timeout) {
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (curl == nullptr) return absl::InternalError("cannot start an HTTP client");
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(timeout)));
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, CurlWrite);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &writer);
  curl_easy_setopt(curl.get(), CURLOPT_XFERINFOFUNCTION, CurlProgress);
  curl_easy_setopt(curl.get(), CURLOPT_XFERINFODATA, &writer);
  curl_easy_setopt(curl.get(), CURLOPT_NOPROGRESS, 0L);
  const CURLcode code = curl_easy_perform(curl.get());
  if (code != CURLE_OK) {
    if (!writer.failure.ok()) return writer.failure;
    return absl::UnavailableError(absl::StrCat("cannot download the OS image ", url, ": ",
                                               error[0] ? error : curl_easy_strerror(code)));
  }
  return absl::OkStatus();
}

// Reports the "Writing image to disk" percentages: every 5 % and 100 %.
class PercentReporter {
 public:
  explicit PercentReporter(std::function<void(int)> report) : report_(std::move(report)) {}
  void operator()(int percent) {
    percent = std::min(percent, 100);
    if (percent >= last_ + 5 || (percent == 100 && last_ != 100)) {
      last_ = percent;
      report_(percent);
    }
  }

 private:
  std::function<void(int)> report_;
  int last_ = 0;
};

struct Written {
  std::string os_image_sha256;
  std::string ignition_sha256;
};

// What coreos-installer does after writing a GPT disk image: the backup GPT moves to the end of
// the disk, the Ignition goes to the boot partition where the installed OS's first boot reads
// it, the installer args edit the kernel arguments and copy the network keyfiles; the install
// record goes next to the Ignition, with the post-reboot reporter's settings when there is an
// `access`. Everything is read back.
absl::Status FinishDiskImage(int fd, const std::string& target, const InstallRequest& request,
                             const json& record, const std::optional<ControllerAccess>& access,
                             process::ProcessRunner& processes) {
  ASSIGN_OR_RETURN(const InstallerArgs args, ParseInstallerArgs(request.installer_args));
  RETURN_IF_ERROR(RelocateBackupGpt(fd));
  RETURN_IF_ERROR(CheckGpt(fd));
  ASSIGN_OR_RETURN(BootPartition boot, BootPartition::Find(target, processes));
  RETURN_IF_ERROR(boot.WriteFile(kIgnitionPath, request.ignition, kSecretMode));
  if (!args.append_kargs.empty() || !args.delete_kargs.empty()) {
    ASSIGN_OR_RETURN(const std::string kargs, boot.ReadFile(kKargsPath));
    ASSIGN_OR_RETURN(const std::string edited,
                     EditKargs(kargs, args.append_kargs, args.delete_kargs));
    RETURN_IF_ERROR(boot.WriteFile(kKargsPath, edited));
  }
  if (args.copy_network) {
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(args.network_dir, error)) {
      if (!entry.is_regular_file() || !absl::EndsWith(entry.path().string(), ".nmconnection")) {
        continue;
      }
      std::ifstream in(entry.path(), std::ios::binary);
      const std::string keyfile((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
      RETURN_IF_ERROR(boot.WriteFile(
          absl::StrCat(kFirstbootNetworkDir, "/", entry.path().filename().string()), keyfile));
    }
  }
  RETURN_IF_ERROR(boot.WriteFile(kRecordPath, DumpJson(record)));
  if (!access.has_value()) return absl::OkStatus();
  return boot.WriteFile(kReporterSettingsPath,
                        ReporterSettingsJson(ReporterSettingsFor(request, *access)), kSecretMode);
}

// Writes image, Ignition and footer to `target`, then reads everything back and checks it.
// Codes: NOT_FOUND/UNAVAILABLE/DATA_LOSS for the image (exit 2), others exit 1.
absl::StatusOr<Written> WriteDisk(const std::string& target, const InstallRequest& request,
                                  const std::optional<ControllerAccess>& access,
                                  const StepContext& context, const InstallOptions& options,
                                  process::ProcessRunner& processes,
                                  std::function<void(int)> percent) {
  UniqueFd fd(open(target.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd.valid()) {
    return absl::InternalError(absl::StrCat("cannot open ", target, ": ", std::strerror(errno)));
  }
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) return absl::InternalError(absl::StrCat("cannot stat ", target));
  ASSIGN_OR_RETURN(const int64_t device_size, SizeOf(fd.get(), st));
  const int64_t ignition_size = static_cast<int64_t>(request.ignition.size());
  // The image must leave room for the aligned Ignition and the footer.
  const int64_t room = device_size - kFooterBytes - ignition_size - kAlign;
  if (room <= 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat(request.boot_device, " is too small (", device_size, " bytes)"));
  }
  PercentReporter reporter(std::move(percent));
  ImageWriter writer{fd.get(), room, context, [&reporter](int p) { reporter(p); }};
  if (absl::StartsWith(request.os_image_url, "file://")) {
    RETURN_IF_ERROR(CopyFile(request.os_image_url.substr(7), writer, options.chunk_bytes));
  } else {
    RETURN_IF_ERROR(
        Download(request.os_image_url, writer, context.Budget(options.download_timeout)));
  }
  reporter(100);
  Written written{writer.digest.Hex(), Sha256Hex(request.ignition)};
  if (!request.os_image_sha256.empty() && written.os_image_sha256 != request.os_image_sha256) {
    return absl::DataLossError(absl::StrCat("the OS image's sha256 is ", written.os_image_sha256,
                                            ", expected ", request.os_image_sha256));
  }
  const json record = {{"os_image_size", writer.written},
                       {"os_image_sha256", written.os_image_sha256},
                       {"os_image_url", request.os_image_url},
                       {"ignition_sha256", written.ignition_sha256},
                       {"cluster_id", request.cluster_id},
                       {"host_id", request.host_id},
                       {"role", request.role},
                       {"bootstrap", request.bootstrap},
                       {"installer_args", request.installer_args}};
  // Read back before anything edits the image's GPT or boot partition.
  ASSIGN_OR_RETURN(const std::string on_disk, DigestOfDisk(fd.get(), writer.written));
  if (on_disk != written.os_image_sha256) {
    return absl::InternalError("the disk does not read back the OS image that was written");
  }
  absl::StatusOr<std::vector<GptPartition>> gpt = ReadGpt(fd.get());
  const bool disk_image =
      gpt.ok() &&
      std::any_of(gpt->begin(), gpt->end(), [](const GptPartition& p) { return p.name == "boot"; });
  if (!gpt.ok() && gpt.status().code() == absl::StatusCode::kDataLoss) return gpt.status();
  if (disk_image) {
    RETURN_IF_ERROR(FinishDiskImage(fd.get(), target, request, record, access, processes));
    return written;
  }
  const int64_t ignition_offset = AlignUp(writer.written);
  RETURN_IF_ERROR(WriteAll(fd.get(), request.ignition.data(), request.ignition.size(),
                           ignition_offset, "the Ignition to the disk"));
  json footer = record;
  footer["ignition_offset"] = ignition_offset;
  footer["ignition_size"] = ignition_size;
  std::string block = absl::StrCat(kFooterMagic, DumpJson(footer), "\n");
  if (static_cast<int64_t>(block.size()) > kFooterBytes) {
    return absl::InvalidArgumentError(
        "installer_args and os_image url are too long for the footer");
  }
  block.resize(kFooterBytes, '\0');
  RETURN_IF_ERROR(
      WriteAll(fd.get(), block.data(), block.size(), device_size - kFooterBytes, "the footer"));
  if (fsync(fd.get()) != 0) {
    return absl::InternalError(absl::StrCat("cannot flush ", target, ": ", std::strerror(errno)));
  }
  ASSIGN_OR_RETURN(InstalledDisk check, ReadInstalledDisk(target));
  if (check.os_image_sha256 != written.os_image_sha256 ||
      check.ignition_sha256 != written.ignition_sha256) {
    return absl::InternalError("the disk does not read back what was written");
  }
  return written;
}

bool IsImageFailure(const absl::Status& status) {
  return status.code() == absl::StatusCode::kNotFound ||
         status.code() == absl::StatusCode::kUnavailable ||
         status.code() == absl::StatusCode::kDataLoss;
}

// The fields the footer and the install record share.
absl::Status ParseRecord(const json& record, const std::string& path, InstalledDisk& disk) {
  if (!record.is_object()) return absl::DataLossError(absl::StrCat(path, ": unreadable record"));
  try {
    disk.os_image_size = record.at("os_image_size").get<int64_t>();
    disk.os_image_sha256 = record.at("os_image_sha256").get<std::string>();
    disk.os_image_url = record.at("os_image_url").get<std::string>();
    disk.ignition_sha256 = record.at("ignition_sha256").get<std::string>();
    disk.cluster_id = record.at("cluster_id").get<std::string>();
    disk.host_id = record.at("host_id").get<std::string>();
    disk.role = record.at("role").get<std::string>();
    disk.bootstrap = record.at("bootstrap").get<bool>();
    disk.installer_args = record.at("installer_args").get<std::vector<std::string>>();
  } catch (const json::exception& e) {
    return absl::DataLossError(absl::StrCat(path, ": bad install record: ", e.what()));
  }
  return absl::OkStatus();
}

// An installed GPT disk image: the record and the Ignition from its boot partition. The image's
// digest was checked on read-back at install time; the install then edited its GPT and boot
// partition, so it is not recomputed here.
absl::StatusOr<InstalledDisk> ReadInstalledDiskImage(const std::string& path, BootPartition& boot) {
  absl::StatusOr<std::string> record = boot.ReadFile(kRecordPath);
  if (record.status().code() == absl::StatusCode::kNotFound) {
    return absl::NotFoundError(absl::StrCat(path, " holds no installation"));
  }
  RETURN_IF_ERROR(record.status());
  InstalledDisk disk;
  RETURN_IF_ERROR(ParseRecord(json::parse(*record, nullptr, false), path, disk));
  ASSIGN_OR_RETURN(disk.ignition, boot.ReadFile(kIgnitionPath));
  if (Sha256Hex(disk.ignition) != disk.ignition_sha256) {
    return absl::DataLossError(
        absl::StrCat(path, ": the Ignition on disk does not match its sha256"));
  }
  return disk;
}

}  // namespace

std::string Sha256Hex(absl::string_view data) {
  Sha256 digest;
  digest.Update(data.data(), data.size());
  return digest.Hex();
}

absl::StatusOr<InstallRequest> ParseInstallRequest(const Step& step) {
  RETURN_IF_ERROR(CheckArgCount(step, 1, 1));
  ASSIGN_OR_RETURN(json args, JsonArg(step, 0, JsonKind::kObject));
  InstallRequest r;
  ASSIGN_OR_RETURN(r.cluster_id, StringField(args, "cluster_id", Need::kRequired, 64));
  RETURN_IF_ERROR(CheckId(r.cluster_id, "cluster_id"));
  ASSIGN_OR_RETURN(r.host_id, StringField(args, "host_id", Need::kRequired, 64));
  RETURN_IF_ERROR(CheckId(r.host_id, "host_id"));
  ASSIGN_OR_RETURN(r.role, StringField(args, "role", Need::kRequired, 32));
  ASSIGN_OR_RETURN(r.bootstrap, BoolField(args, "bootstrap", Need::kOptional));
  if (r.role == "bootstrap") {
    r.role = "master";
    r.bootstrap = true;
  }
  if (r.role != "master" && r.role != "worker") {
    return absl::InvalidArgumentError(
        absl::StrCat("role \"", r.role, "\" is not one of master, worker, bootstrap"));
  }
  if (r.bootstrap && r.role != "master") {
    return absl::InvalidArgumentError("bootstrap is only valid with role master");
  }
  ASSIGN_OR_RETURN(r.boot_device, StringField(args, "boot_device", Need::kRequired, 4096));
  if (!absl::StartsWith(r.boot_device, "/dev/") || absl::StrContains(r.boot_device, "/../")) {
    return absl::InvalidArgumentError(
        absl::StrCat("boot_device \"", r.boot_device, "\" is not a /dev/ path"));
  }
  ASSIGN_OR_RETURN(json installer_args, ArrayField(args, "installer_args", Need::kOptional, 64));
  ASSIGN_OR_RETURN(r.installer_args, StringList(installer_args, "installer_args", 64));
  RETURN_IF_ERROR(ParseInstallerArgs(r.installer_args).status());
  if (!args.contains("os_image") || !args["os_image"].is_object()) {
    return absl::InvalidArgumentError("os_image must be an object with url and sha256");
  }
  const json& image = args["os_image"];
  ASSIGN_OR_RETURN(r.os_image_url, StringField(image, "url", Need::kRequired, 4096));
  if (!absl::StartsWith(r.os_image_url, "file:///") &&
      !absl::StartsWith(r.os_image_url, "http://") &&
      !absl::StartsWith(r.os_image_url, "https://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("os_image.url \"", r.os_image_url, "\" is not file:///, http:// or https://"));
  }
  ASSIGN_OR_RETURN(r.os_image_sha256, StringField(image, "sha256", Need::kOptional, 64));
  r.os_image_sha256 = absl::AsciiStrToLower(r.os_image_sha256);
  if (!r.os_image_sha256.empty() &&
      (r.os_image_sha256.size() != 64 ||
       !std::all_of(r.os_image_sha256.begin(), r.os_image_sha256.end(), absl::ascii_isxdigit))) {
    return absl::InvalidArgumentError("os_image.sha256 must be 64 hex digits");
  }
  ASSIGN_OR_RETURN(r.ignition, StringField(args, "ignition", Need::kRequired, 16 << 20));
  if (r.ignition.empty()) return absl::InvalidArgumentError("ignition must not be empty");
  if (json::parse(r.ignition, nullptr, false).is_discarded()) {
    return absl::InvalidArgumentError("ignition is not JSON text");
  }
  ASSIGN_OR_RETURN(std::string mode,
                   StringField(args, "high_availability_mode", Need::kOptional, 16));
  if (!mode.empty() && mode != "Full" && mode != "None") {
    return absl::InvalidArgumentError(
        absl::StrCat("high_availability_mode \"", mode, "\" is not Full or None"));
  }
  r.sno = mode == "None";
  ASSIGN_OR_RETURN(json operators, ArrayField(args, "olm_operators", Need::kOptional, 32));
  ASSIGN_OR_RETURN(r.olm_operators, StringList(operators, "olm_operators", 32, 64));
  return r;
}

ReporterSettings ReporterSettingsFor(const InstallRequest& request, ControllerAccess access) {
  ReporterSettings settings;
  settings.access = std::move(access);
  settings.cluster_id = request.cluster_id;
  settings.host_id = request.host_id;
  settings.role = request.role;
  settings.bootstrap = request.bootstrap;
  settings.sno = request.sno;
  settings.olm_operators = request.olm_operators;
  return settings;
}

std::vector<HostStage> StagesBeforeReboot(const InstallRequest& request) {
  using types::v1::HostStage;
  if (request.sno) {
    return {types::v1::HOST_STAGE_STARTING_INSTALLATION, types::v1::HOST_STAGE_INSTALLING,
            types::v1::HOST_STAGE_WAITING_FOR_BOOTKUBE, types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK,
            types::v1::HOST_STAGE_REBOOTING};
  }
  std::vector<HostStage> stages = {types::v1::HOST_STAGE_STARTING_INSTALLATION,
                                   types::v1::HOST_STAGE_INSTALLING,
                                   types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK};
  if (request.bootstrap) {
    stages.insert(stages.end(), {types::v1::HOST_STAGE_WAITING_FOR_CONTROL_PLANE,
                                 types::v1::HOST_STAGE_WAITING_FOR_BOOTKUBE,
                                 types::v1::HOST_STAGE_WAITING_FOR_CONTROLLER});
  } else if (request.role == "worker") {
    stages.push_back(types::v1::HOST_STAGE_WAITING_FOR_CONTROL_PLANE);
  }
  stages.push_back(types::v1::HOST_STAGE_REBOOTING);
  return stages;
}

std::vector<HostStage> StagesAfterReboot(const InstallRequest& request) {
  if (request.sno) return {types::v1::HOST_STAGE_JOINED, types::v1::HOST_STAGE_DONE};
  if (request.role == "worker") {
    return {types::v1::HOST_STAGE_WAITING_FOR_IGNITION, types::v1::HOST_STAGE_CONFIGURING,
            types::v1::HOST_STAGE_JOINED, types::v1::HOST_STAGE_DONE};
  }
  return {types::v1::HOST_STAGE_CONFIGURING, types::v1::HOST_STAGE_JOINED,
          types::v1::HOST_STAGE_DONE};
}

StepResult InstallStep::Run(const Step& step, StepContext& context) {
  absl::StatusOr<InstallRequest> request = ParseInstallRequest(step);
  if (!request.ok()) return InvalidArgsResult(request.status());
  auto progress = [&](HostStage stage, const std::string& info, int percentage) {
    if (context.install != nullptr) context.install->Progress(stage, info, percentage);
  };
  auto fail = [&](int exit_code, absl::string_view why) {
    context.log.Warning("install failed", {{"boot_device", request->boot_device}, {"error", why}});
    progress(types::v1::HOST_STAGE_FAILED, std::string(why), -1);
    return FailureResult(exit_code, why);
  };
  const bool simulated = context.simulation != nullptr;
  absl::StatusOr<std::string> target = ResolveDisk(request->boot_device, context);
  if (!target.ok()) return fail(kExitWriteFailed, target.status().message());

  const std::optional<ControllerAccess> access =
      context.install != nullptr ? context.install->PostRebootAccess() : std::nullopt;
  Written written;
  for (HostStage stage : StagesBeforeReboot(*request)) {
    if (stage == types::v1::HOST_STAGE_REBOOTING) break;  // after the result, by the reporter
    if (context.cancelled()) return fail(kExitWriteFailed, "install cancelled");
    if (simulated && options_.stage_delay > absl::ZeroDuration() &&
        context.cancellation.SleepUnlessCancelled(options_.stage_delay)) {
      return fail(kExitWriteFailed, "install cancelled");
    }
    if (stage != types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK) {
      const bool with_role = stage == types::v1::HOST_STAGE_STARTING_INSTALLATION ||
                             stage == types::v1::HOST_STAGE_INSTALLING;
      progress(stage, with_role ? (request->bootstrap ? "bootstrap" : request->role) : "", -1);
      continue;
    }
    progress(stage, "0%", 0);
    absl::StatusOr<Written> result = WriteDisk(
        *target, *request, access, context, options_, context.processes, [&](int percent) {
          progress(types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK, absl::StrCat(percent, "%"),
                   percent);
        });
    if (!result.ok()) {
      return fail(IsImageFailure(result.status()) ? kExitImageFailed : kExitWriteFailed,
                  result.status().message());
    }
    written = *result;
  }
  if (!simulated && std::filesystem::exists("/sys/firmware/efi")) {
    process::Command efibootmgr;
    efibootmgr.argv = {"efibootmgr", "-c",
                       "-d",         request->boot_device,
                       "-p",         "2",
                       "-L",         "Red Hat Enterprise Linux",
                       "-l",         kUefiFallbackLoader};
    efibootmgr.timeout = context.Budget(absl::Seconds(30));
    absl::StatusOr<process::CommandResult> ran = context.processes.Run(efibootmgr);
    if (!ran.ok() || ran->exit_code != 0) {
      context.log.Warning("cannot set the boot order (ignored)",
                          {{"error", ran.ok() ? ran->stderr_data : ran.status().message()}});
    }
  }
  context.log.Info("installation written", {{"boot_device", request->boot_device},
                                            {"os_image_sha256", written.os_image_sha256}});
  if (context.install != nullptr) context.install->RebootAfterResult(*request);
  return SuccessResult(DumpJson({{"boot_device", request->boot_device},
                                 {"os_image_sha256", written.os_image_sha256},
                                 {"ignition_sha256", written.ignition_sha256}}));
}

absl::StatusOr<InstalledDisk> ReadInstalledDisk(const std::string& path) {
  process::LocalProcessRunner processes;
  absl::StatusOr<BootPartition> boot = BootPartition::Find(path, processes);
  if (boot.ok()) return ReadInstalledDiskImage(path, *boot);
  if (boot.status().code() == absl::StatusCode::kDataLoss) return boot.status();
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) return absl::InternalError(absl::StrCat("cannot stat ", path));
  ASSIGN_OR_RETURN(const int64_t size, SizeOf(fd.get(), st));
  if (size < kFooterBytes) return absl::NotFoundError(absl::StrCat(path, " holds no installation"));
  std::string block(kFooterBytes, '\0');
  RETURN_IF_ERROR(ReadAll(fd.get(), block.data(), block.size(), size - kFooterBytes, "the footer"));
  if (!absl::StartsWith(block, kFooterMagic)) {
    return absl::NotFoundError(absl::StrCat(path, " holds no installation"));
  }
  const size_t start = std::strlen(kFooterMagic);
  const size_t end = block.find('\n', start);
  const json footer =
      json::parse(block.substr(start, end == std::string::npos ? 0 : end - start), nullptr, false);
  InstalledDisk disk;
  RETURN_IF_ERROR(ParseRecord(footer, path, disk));
  int64_t ignition_offset = 0;
  int64_t ignition_size = 0;
  try {
    ignition_offset = footer.at("ignition_offset").get<int64_t>();
    ignition_size = footer.at("ignition_size").get<int64_t>();
  } catch (const json::exception& e) {
    return absl::DataLossError(absl::StrCat(path, ": bad footer: ", e.what()));
  }
  if (disk.os_image_size < 0 || ignition_size < 0 || ignition_offset < disk.os_image_size ||
      ignition_offset + ignition_size > size - kFooterBytes) {
    return absl::DataLossError(absl::StrCat(path, ": footer offsets out of range"));
  }
  ASSIGN_OR_RETURN(const std::string image, DigestOfDisk(fd.get(), disk.os_image_size));
  if (image != disk.os_image_sha256) {
    return absl::DataLossError(
        absl::StrCat(path, ": the OS image on disk does not match its sha256"));
  }
  disk.ignition.resize(static_cast<size_t>(ignition_size));
  RETURN_IF_ERROR(ReadAll(fd.get(), disk.ignition.data(), disk.ignition.size(), ignition_offset,
                          "the Ignition"));
  if (Sha256Hex(disk.ignition) != disk.ignition_sha256) {
    return absl::DataLossError(
        absl::StrCat(path, ": the Ignition on disk does not match its sha256"));
  }
  return disk;
}

}  // namespace assisted::agent::steps
