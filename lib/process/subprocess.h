// File: lib/process/subprocess.h
//
// Running other programs: the ProcessRunner interface for short commands whose output is wanted
// (so logic that shells out can be tested with a fake), and Subprocess for long-lived children
// such as the services a test harness starts. Both use fork/exec directly: no shell, so no
// quoting bugs, and arguments are passed exactly as given.

#ifndef ASSISTED_LIB_PROCESS_SUBPROCESS_H_
#define ASSISTED_LIB_PROCESS_SUBPROCESS_H_

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace assisted::process {

struct Command {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH when it has no '/'
  // Variables added to (or replacing those of) the caller's environment.
  std::map<std::string, std::string> env;
  std::string working_dir;                    // empty: the caller's
  std::string stdin_data;                     // written to the child's stdin, which is then closed
  absl::Duration timeout = absl::Minutes(5);  // the child is killed after this
};

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  int term_signal = 0;
  std::string stdout_data;
  std::string stderr_data;
  bool timed_out = false;

  bool ok() const { return exit_code == 0; }
};

// Runs a command to completion and collects its output.
class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // Returns the result whatever the exit code; an error only when the command could not be
  // started (NOT_FOUND for a missing program) or waited for.
  virtual absl::StatusOr<CommandResult> Run(const Command& command) = 0;
};

// Runs commands on this machine.
class LocalProcessRunner final : public ProcessRunner {
 public:
  absl::StatusOr<CommandResult> Run(const Command& command) override;
};

// A started child process that runs until stopped. Its stdout and stderr go to `log_path`
// (appended) so a failing test can show what the child said. The destructor kills a child that
// is still running.
class Subprocess {
 public:
  static absl::StatusOr<std::unique_ptr<Subprocess>> Start(
      const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
      const std::string& log_path);
  ~Subprocess();

  pid_t pid() const { return pid_; }

  // Returns the exit status if the child has exited (-signal when killed), without blocking.
  std::optional<int> Poll();

  // Sends `signal` to the child.
  void Signal(int signal);

  // Waits up to `timeout` for exit; DEADLINE_EXCEEDED if it is still running.
  absl::StatusOr<int> Wait(absl::Duration timeout);

  // SIGTERM, wait up to `grace`, then SIGKILL. Returns the exit status.
  int Stop(absl::Duration grace);

 private:
  explicit Subprocess(pid_t pid) : pid_(pid) {}
  pid_t pid_;
  std::optional<int> exit_status_;
};

}  // namespace assisted::process

#endif  // ASSISTED_LIB_PROCESS_SUBPROCESS_H_
