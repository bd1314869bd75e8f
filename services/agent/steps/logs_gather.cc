// File: services/agent/steps/logs_gather.cc

#include "services/agent/steps/logs_gather.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/net/ip.h"
#include "lib/status/status_macros.h"
#include "services/agent/steps/json_args.h"
#include "services/agent/steps/unique_fd.h"

namespace assisted::agent::steps {

namespace {

using nlohmann::json;

constexpr char kManifest[] = "logs-gather.json";
constexpr char kBundle[] = "bundle.tar.gz";

// The request, checked, as it goes into the manifest.
absl::StatusOr<json> ParseRequest(const Step& step) {
  RETURN_IF_ERROR(CheckArgCount(step, 1, 1));
  ASSIGN_OR_RETURN(json request, JsonArg(step, 0, JsonKind::kObject));
  json out = json::object();
  for (const char* key : {"cluster_id", "host_id", "infra_env_id"}) {
    ASSIGN_OR_RETURN(std::string id, StringField(request, key, Need::kOptional, 64));
    if (!id.empty()) RETURN_IF_ERROR(CheckId(id, key));
    out[key] = id;
  }
  for (const char* key : {"bootstrap", "installer_gather"}) {
    ASSIGN_OR_RETURN(out[key], BoolField(request, key, Need::kOptional));
  }
  ASSIGN_OR_RETURN(json ips, ArrayField(request, "master_ips", Need::kOptional, 16));
  ASSIGN_OR_RETURN(std::vector<std::string> masters, StringList(ips, "master_ips", 16, 64));
  for (const std::string& ip : masters) RETURN_IF_ERROR(net::IpAddress::Parse(ip).status());
  out["master_ips"] = masters;
  return out;
}

// A private directory under `parent`, removed with everything in it when this goes away.
class StagingDir {
 public:
  static absl::StatusOr<StagingDir> Create(const std::string& parent) {
    std::string pattern = parent + "/assisted-logs-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      return absl::InternalError(
          absl::StrCat("cannot create a directory in ", parent, ": ", std::strerror(errno)));
    }
    return StagingDir(std::move(pattern));
  }
  StagingDir(StagingDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  StagingDir& operator=(StagingDir&&) = delete;
  ~StagingDir() {
    std::error_code ignored;  // the non-throwing overload
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  explicit StagingDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

absl::Status WriteFile(const std::string& path, absl::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace

StepResult LogsGather::Run(const Step& step, StepContext& context) {
  absl::StatusOr<json> request = ParseRequest(step);
  if (!request.ok()) return InvalidArgsResult(request.status());
  auto fail = [&](absl::string_view why) {
    context.log.Warning("logs gathering failed", {{"error", why}});
    return FailureResult(1, why);
  };

  absl::StatusOr<StagingDir> staging = StagingDir::Create(options_.work_dir);
  if (!staging.ok()) return fail(staging.status().message());
  const std::string& dir = staging->path();

  // 1. Command outputs, each into its own file. A simulated host has no journal or logs of
  // its own: its bundle is the manifest alone (the machine running it is not a host's).
  const bool simulated = context.simulation != nullptr;
  const std::vector<LogCommand> no_commands;
  json manifest = {{"request", *request}, {"commands", json::array()}};
  if (simulated) manifest["simulated"] = true;
  std::vector<std::string> members;
  for (const LogCommand& c : simulated ? no_commands : options_.commands) {
    if (context.cancelled()) return FailureResult(kExitInvalid, "logs gathering cancelled");
    absl::StatusOr<process::CommandResult> r = context.processes.Run(
        {.argv = c.argv, .timeout = context.Budget(options_.command_timeout)});
    json entry = {{"file", c.file_name}, {"command", c.argv}};
    if (!r.ok()) {
      entry["error"] = r.status().message();
    } else {
      entry["exit_code"] = r->exit_code;
      if (r->timed_out) entry["timed_out"] = true;
      if (absl::Status s = WriteFile(absl::StrCat(dir, "/", c.file_name), r->stdout_data);
          !s.ok()) {
        return fail(s.message());
      }
      members.push_back(c.file_name);
    }
    manifest["commands"].push_back(std::move(entry));
  }
  manifest["paths"] = simulated ? std::vector<std::string>() : options_.paths;
  if (absl::Status s = WriteFile(absl::StrCat(dir, "/", kManifest), DumpJson(manifest)); !s.ok()) {
    return fail(s.message());
  }
  members.push_back(kManifest);

  // 2. One tar.gz: the staged files, then the log paths relative to "/".
  if (context.cancelled()) return FailureResult(kExitInvalid, "logs gathering cancelled");
  const std::string bundle = absl::StrCat(dir, "/", kBundle);
  std::vector<std::string> argv = {options_.tar,
                                   "--create",
                                   "--gzip",
                                   "--file",
                                   bundle,
                                   "--ignore-failed-read",
                                   "--warning=no-file-changed",
                                   "--warning=no-file-removed",
                                   absl::StrCat("--exclude=", absl::StripPrefix(dir, "/")),
                                   "--directory",
                                   dir};
  argv.insert(argv.end(), members.begin(), members.end());
  std::vector<std::string> log_paths;
  for (const std::string& path : simulated ? std::vector<std::string>() : options_.paths) {
    absl::string_view relative = absl::StripPrefix(path, "/");
    if (access(path.c_str(), F_OK) == 0 && !relative.empty()) log_paths.emplace_back(relative);
  }
  if (!log_paths.empty()) {  // tar refuses a trailing --directory
    argv.insert(argv.end(), {"--directory", "/"});
    argv.insert(argv.end(), log_paths.begin(), log_paths.end());
  }
  absl::StatusOr<process::CommandResult> tar =
      context.processes.Run({.argv = argv, .timeout = context.Budget(options_.tar_timeout)});
  if (!tar.ok()) return fail(tar.status().message());
  if (tar->exit_code != 0 && tar->exit_code != 1) {  // 1: a file changed while being read
    return fail(absl::StrCat("tar exited ", tar->exit_code, ": ", tar->stderr_data));
  }

  // 3. Stream it.
  UniqueFd fd(open(bundle.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || fstat(fd.get(), &st) != 0) return fail("tar produced no bundle");
  const int64_t size = st.st_size;
  if (size > options_.max_bundle_bytes) {
    return fail(absl::StrCat("bundle of ", size, " bytes exceeds ", options_.max_bundle_bytes));
  }
  const size_t chunk_bytes = std::clamp<size_t>(options_.chunk_bytes, 1, 1 << 20);
  std::string buffer(chunk_bytes, '\0');
  int64_t offset = 0;
  int chunks = 0;
  do {
    if (context.cancelled()) return FailureResult(kExitInvalid, "logs gathering cancelled");
    const size_t want = static_cast<size_t>(std::min<int64_t>(chunk_bytes, size - offset));
    const ssize_t n = pread(fd.get(), buffer.data(), want, offset);
    if (n < 0 || static_cast<size_t>(n) != want) return fail("cannot read the bundle");
    agent::v1::LogChunk chunk;
    chunk.set_step_id(step.step_id());
    chunk.set_logs_type(agent::v1::LOGS_TYPE_HOST);
    chunk.set_offset(offset);
    chunk.set_data(buffer.data(), want);
    offset += n;
    chunk.set_last(offset == size);
    if (absl::Status s = context.log_chunks.Send(chunk); !s.ok()) {
      return fail(absl::StrCat("cannot send the bundle: ", s.message()));
    }
    ++chunks;
  } while (offset < size);
  context.log.Info("logs sent", {{"bytes", size}, {"chunks", chunks}});
  return SuccessResult(DumpJson({{"bundle_bytes", size}, {"chunks", chunks}}));
}

}  // namespace assisted::agent::steps
