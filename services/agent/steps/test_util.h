// File: services/agent/steps/test_util.h
//
// Test doubles and helpers for executor and runner tests: a scripted ProcessRunner, a sink that
// keeps log chunks, a ready-made StepContext, and well-formed Steps.

#ifndef ASSISTED_SERVICES_AGENT_STEPS_TEST_UTIL_H_
#define ASSISTED_SERVICES_AGENT_STEPS_TEST_UTIL_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/step_executor.h"
#include "services/agent/steps/unique_fd.h"

namespace assisted::agent::steps::testing {

// Answers commands with a function instead of running them, and remembers what was asked.
class ScriptedProcessRunner final : public process::ProcessRunner {
 public:
  using Handler = std::function<absl::StatusOr<process::CommandResult>(const process::Command&)>;
  explicit ScriptedProcessRunner(Handler handler) : handler_(std::move(handler)) {}

  absl::StatusOr<process::CommandResult> Run(const process::Command& command) override;
  // argv of every command run so far, in order.
  std::vector<std::vector<std::string>> commands() const;

 private:
  Handler handler_;
  mutable absl::Mutex mu_;
  std::vector<std::vector<std::string>> commands_ ABSL_GUARDED_BY(mu_);
};

// A command result with `exit_code` and `stdout_data`.
process::CommandResult Exited(int exit_code, std::string stdout_data = "",
                              std::string stderr_data = "");

// Keeps every chunk it is sent.
class CollectingSink final : public LogChunkSink {
 public:
  absl::Status Send(const agent::v1::LogChunk& chunk) override;
  std::vector<agent::v1::LogChunk> chunks() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<agent::v1::LogChunk> chunks_ ABSL_GUARDED_BY(mu_);
};

// Everything a StepContext refers to, for calling an executor directly. Real processes and a
// real clock unless a test swaps them before calling context().
struct ContextHolder {
  process::LocalProcessRunner local_processes;
  process::ProcessRunner* processes = &local_processes;
  RealClock clock;
  Cancellation cancellation;
  CollectingSink sink;
  const SimulationHooks* simulation = nullptr;
  absl::Duration timeout = absl::Minutes(1);

  StepContext context() {
    return StepContext{
        *processes,           clock, cancellation, sink, simulation, log::Logger::Discard(),
        clock.Now() + timeout};
  }
};

// A socket bound to 127.0.0.1 on a port the kernel chose.
struct LoopbackSocket {
  UniqueFd fd;
  int port = 0;
};
// `type` SOCK_STREAM (then also listening) or SOCK_DGRAM. INTERNAL on failure.
absl::StatusOr<LoopbackSocket> BindLoopback(int type);

// A loopback server for executor tests: binds a socket (BindLoopback) and, on its own thread,
// calls `handle(fd, stopping)` whenever the socket is readable, until destroyed. A handler that
// means to hang (a server that never answers) waits on `stopping`.
class LoopbackServer {
 public:
  using Handler = std::function<void(int fd, const absl::Notification& stopping)>;
  LoopbackServer(int type, Handler handle);
  ~LoopbackServer();
  int port() const { return port_; }

 private:
  UniqueFd fd_;
  int port_ = 0;
  Handler handle_;
  absl::Notification stopping_;
  std::thread thread_;
};

// A step of `type` with a well-formed id ("<type>-<8 hex>", `serial` as the hex) and `args`.
Step MakeStep(StepType type, std::vector<std::string> args = {}, uint32_t serial = 1);

// A 48 MiB OS disk image at `path` laid out like ./dev os-images' disk.raw, made with the tools a
// user would use (sfdisk, mkfs.ext4): GPT with BIOS-BOOT, EFI-SYSTEM, boot (ext4 at
// kOsDiskImageBootOffset, 16 MiB, holding kargs.cfg with `set kargs="<kargs>"`) and root (ending
// at 47 MiB). FAILED_PRECONDITION with the tool's words when one is missing or fails.
inline constexpr int64_t kOsDiskImageBootOffset = 6 << 20;
absl::Status MakeOsDiskImage(const std::string& path, const std::string& kargs);

}  // namespace assisted::agent::steps::testing

#endif  // ASSISTED_SERVICES_AGENT_STEPS_TEST_UTIL_H_
