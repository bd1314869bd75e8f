// File: services/agent/steps/host_commands.h
//
// Steps that act on the host itself through one command (run by the ProcessRunner on a real
// host; in simulation handed to SimulationHooks::host_command, or a no-op when that is empty).
// The result carries the command's exit code, its stdout as output and its stderr as error.
//   stop-installation   args: none          command: podman stop -i -t 5 assisted-installer
//   reboot-for-reclaim  args: [] or [{"host_fs_mount_dir": "/host"}]
//                       command: systemctl reboot (under chroot <dir> when a mount dir other
//                       than "/" is given)

#ifndef ASSISTED_SERVICES_AGENT_STEPS_HOST_COMMANDS_H_
#define ASSISTED_SERVICES_AGENT_STEPS_HOST_COMMANDS_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

struct StopInstallationOptions {
  std::vector<std::string> command = {"podman", "stop", "-i", "-t", "5", "assisted-installer"};
  absl::Duration timeout = absl::Seconds(30);
};

class StopInstallation final : public StepExecutor {
 public:
  explicit StopInstallation(StopInstallationOptions options) : options_(std::move(options)) {}

  StepType type() const override { return types::v1::STEP_TYPE_STOP_INSTALLATION; }
  absl::Duration default_timeout() const override { return absl::Minutes(1); }
  StepResult Run(const Step& step, StepContext& context) override;

 private:
  const StopInstallationOptions options_;
};

struct RebootOptions {
  std::vector<std::string> command = {"systemctl", "reboot"};
  absl::Duration timeout = absl::Seconds(30);
};

class RebootForReclaim final : public StepExecutor {
 public:
  explicit RebootForReclaim(RebootOptions options) : options_(std::move(options)) {}

  StepType type() const override { return types::v1::STEP_TYPE_REBOOT_FOR_RECLAIM; }
  absl::Duration default_timeout() const override { return absl::Minutes(1); }
  StepResult Run(const Step& step, StepContext& context) override;

 private:
  const RebootOptions options_;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_HOST_COMMANDS_H_
