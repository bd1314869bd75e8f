// File: services/agent/steps/host_commands.cc

#include "services/agent/steps/host_commands.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "services/agent/steps/json_args.h"
#include "services/agent/steps/simulation.h"

namespace assisted::agent::steps {

namespace {

StepResult RunOnHost(process::Command command, StepContext& context) {
  command.timeout = context.Budget(command.timeout);
  absl::StatusOr<process::CommandResult> r;
  if (context.simulation == nullptr) {
    r = context.processes.Run(command);
  } else if (context.simulation->host_command) {
    r = context.simulation->host_command(command);
  } else {
    r = process::CommandResult{.exit_code = 0};
  }
  if (!r.ok()) return FailureResult(1, r.status().message());
  if (r->timed_out) {
    return FailureResult(1, absl::StrCat(command.argv[0], " timed out"), r->stdout_data);
  }
  StepResult result = r->ok() ? SuccessResult(std::move(r->stdout_data))
                              : FailureResult(r->exit_code, r->stderr_data, r->stdout_data);
  if (!r->ok() && result.error().empty()) {
    result.set_error(absl::StrCat(command.argv[0], " exited ", r->exit_code));
  }
  return result;
}

absl::StatusOr<std::string> MountDir(const Step& step) {
  RETURN_IF_ERROR(CheckArgCount(step, 0, 1));
  if (step.args_size() == 0) return std::string("/");
  ASSIGN_OR_RETURN(nlohmann::json request, JsonArg(step, 0, JsonKind::kObject));
  ASSIGN_OR_RETURN(std::string dir,
                   StringField(request, "host_fs_mount_dir", Need::kOptional, 4096));
  if (dir.empty()) return std::string("/");
  if (!absl::StartsWith(dir, "/") || absl::StrContains(dir, "..")) {
    return absl::InvalidArgumentError(absl::StrCat("\"", dir, "\" is not an absolute path"));
  }
  return dir;
}

}  // namespace

StepResult StopInstallation::Run(const Step& step, StepContext& context) {
  if (absl::Status s = CheckArgCount(step, 0, 0); !s.ok()) return InvalidArgsResult(s);
  return RunOnHost({.argv = options_.command, .timeout = options_.timeout}, context);
}

StepResult RebootForReclaim::Run(const Step& step, StepContext& context) {
  absl::StatusOr<std::string> dir = MountDir(step);
  if (!dir.ok()) return InvalidArgsResult(dir.status());
  std::vector<std::string> argv;
  if (*dir != "/") argv = {"chroot", *dir};
  argv.insert(argv.end(), options_.command.begin(), options_.command.end());
  return RunOnHost({.argv = std::move(argv), .timeout = options_.timeout}, context);
}

}  // namespace assisted::agent::steps
