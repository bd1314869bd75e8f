// File: services/agent/steps/logs_gather.h
//
// logs-gather: bundle this host's logs as a tar.gz and stream it to the orchestrator as
// LogChunks (through StepContext::log_chunks), instead of the reference's HTTP upload.
//   args:   [{"cluster_id", "host_id", "infra_env_id", "bootstrap", "installer_gather",
//             "master_ips": [...]}] (all optional; recorded in the bundle's manifest)
//   output: {"bundle_bytes": N, "chunks": K}
// The bundle holds each configured command's standard output as a file (journal, dmesg, ...),
// every configured path as it is on disk, and logs-gather.json (the request and each command's
// exit status). Commands and tar run through the ProcessRunner; the bundle is staged in a fresh
// directory under work_dir, removed afterwards, and sent in chunks of at most chunk_bytes with
// their byte offsets, the final one marked last. Bundles larger than max_bundle_bytes fail.
// A simulated host (StepContext::simulation set) runs no command and archives no path: its
// bundle holds logs-gather.json alone, marked "simulated".

#ifndef ASSISTED_SERVICES_AGENT_STEPS_LOGS_GATHER_H_
#define ASSISTED_SERVICES_AGENT_STEPS_LOGS_GATHER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

// A command whose standard output is stored in the bundle as `file_name`.
struct LogCommand {
  std::string file_name;
  std::vector<std::string> argv;
};

struct LogsGatherOptions {
  std::vector<std::string> paths = {"/var/log"};  // absolute; missing ones are skipped
  std::vector<LogCommand> commands = {
      {"journal.log",
       {"journalctl", "--no-pager", "--boot", "--lines=200000", "-o", "short-precise"}},
      {"dmesg.log", {"dmesg"}},
      {"mounts.txt", {"cat", "/proc/mounts"}},
      {"block-devices.txt", {"lsblk", "--all", "--output-all"}},
  };
  std::string work_dir = "/var/tmp";
  std::string tar = "tar";
  absl::Duration command_timeout = absl::Minutes(5);  // each command
  absl::Duration tar_timeout = absl::Minutes(30);
  size_t chunk_bytes = 1 << 20;  // LogChunk carries at most 1 MiB
  int64_t max_bundle_bytes = int64_t{1} << 30;
};

class LogsGather final : public StepExecutor {
 public:
  explicit LogsGather(LogsGatherOptions options) : options_(std::move(options)) {}

  StepType type() const override { return types::v1::STEP_TYPE_LOGS_GATHER; }
  absl::Duration default_timeout() const override { return absl::Hours(1); }
  StepResult Run(const Step& step, StepContext& context) override;

 private:
  const LogsGatherOptions options_;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_LOGS_GATHER_H_
