#include "services/agent/steps/host_commands.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/test_util.h"

namespace assisted::agent::steps {
namespace {

using testing::ContextHolder;
using ::testing::ElementsAre;
using testing::Exited;
using ::testing::HasSubstr;
using testing::MakeStep;
using testing::ScriptedProcessRunner;

TEST(StopInstallation, StopsTheInstallerContainer) {
  ScriptedProcessRunner processes([](const process::Command&) { return Exited(0, "stopped\n"); });
  ContextHolder holder;
  holder.processes = &processes;
  StepContext context = holder.context();
  StopInstallation step({});
  StepResult result = step.Run(MakeStep(types::v1::STEP_TYPE_STOP_INSTALLATION), context);
  EXPECT_EQ(result.exit_code(), 0) << result.error();
  EXPECT_THAT(processes.commands(),
              ElementsAre(ElementsAre("podman", "stop", "-i", "-t", "5", "assisted-installer")));
}

TEST(StopInstallation, ReportsTheCommandsFailure) {
  ScriptedProcessRunner processes(
      [](const process::Command&) { return Exited(125, "", "Error: no such container\n"); });
  ContextHolder holder;
  holder.processes = &processes;
  StepContext context = holder.context();
  StopInstallation step({});
  StepResult result = step.Run(MakeStep(types::v1::STEP_TYPE_STOP_INSTALLATION), context);
  EXPECT_EQ(result.exit_code(), 125);
  EXPECT_THAT(result.error(), HasSubstr("no such container"));
}

TEST(StopInstallation, MissingProgramIsAFailureNotACrash) {
  ContextHolder holder;  // real processes
  StepContext context = holder.context();
  StopInstallation step({.command = {"/nonexistent/podman", "stop"}});
  StepResult result = step.Run(MakeStep(types::v1::STEP_TYPE_STOP_INSTALLATION), context);
  EXPECT_EQ(result.exit_code(), 1);
  EXPECT_THAT(result.error(), HasSubstr("/nonexistent/podman"));
  EXPECT_EQ(step.Run(MakeStep(types::v1::STEP_TYPE_STOP_INSTALLATION, {"x"}), context).exit_code(),
            -1);
}

TEST(RebootForReclaim, RunsSystemctlRebootInTheHostsRoot) {
  ScriptedProcessRunner processes([](const process::Command&) { return Exited(0); });
  ContextHolder holder;
  holder.processes = &processes;
  StepContext context = holder.context();
  RebootForReclaim step({});
  EXPECT_EQ(step.Run(MakeStep(types::v1::STEP_TYPE_REBOOT_FOR_RECLAIM), context).exit_code(), 0);
  EXPECT_EQ(step.Run(MakeStep(types::v1::STEP_TYPE_REBOOT_FOR_RECLAIM,
                              {R"({"host_fs_mount_dir": "/host"})"}, 2),
                     context)
                .exit_code(),
            0);
  EXPECT_THAT(processes.commands(),
              ElementsAre(ElementsAre("systemctl", "reboot"),
                          ElementsAre("chroot", "/host", "systemctl", "reboot")));
  StepResult bad = step.Run(
      MakeStep(types::v1::STEP_TYPE_REBOOT_FOR_RECLAIM, {R"({"host_fs_mount_dir": "host"})"}),
      context);
  EXPECT_EQ(bad.exit_code(), -1);
}

TEST(RebootForReclaim, SimulatedHostNeverRunsTheCommand) {
  ScriptedProcessRunner processes([](const process::Command&) { return Exited(0); });
  SimulationHooks hooks;
  ContextHolder holder;
  holder.processes = &processes;
  holder.simulation = &hooks;
  StepContext context = holder.context();
  RebootForReclaim step({});
  EXPECT_EQ(step.Run(MakeStep(types::v1::STEP_TYPE_REBOOT_FOR_RECLAIM), context).exit_code(), 0);
  std::vector<std::string> seen;
  hooks.host_command = [&](const process::Command& c) -> absl::StatusOr<process::CommandResult> {
    seen = c.argv;
    return Exited(0);
  };
  EXPECT_EQ(step.Run(MakeStep(types::v1::STEP_TYPE_REBOOT_FOR_RECLAIM), context).exit_code(), 0);
  EXPECT_THAT(seen, ElementsAre("systemctl", "reboot"));
  EXPECT_TRUE(processes.commands().empty());
}

}  // namespace
}  // namespace assisted::agent::steps
