#include "services/agent/steps/disk_speed.h"

#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/steps/orchestrator_view.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/test_util.h"

namespace assisted::agent::steps {
namespace {

using ::assisted::testing::IsOk;
using testing::ContextHolder;
using ::testing::HasSubstr;
using testing::MakeStep;
using testing::OrchestratorDiskSpeed;
using testing::ReferenceText;

constexpr StepType kType = types::v1::STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A disk image of `bytes` random bytes.
std::string MakeDiskImage(const std::string& name, size_t bytes) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::string content(bytes, '\0');
  std::mt19937 random(7);
  for (char& c : content) c = static_cast<char>(random());
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

TEST(DiskSpeedCheck, MeasuresADiskImageWithoutChangingIt) {
  const std::string image = MakeDiskImage("disk.img", 4 << 20);
  const std::string before = Slurp(image);
  SimulationHooks hooks;
  hooks.disk_image = [&](const std::string& device) {
    return device == "/dev/sda" ? image : std::string();
  };
  DiskSpeedCheck step({.writes = 64});
  ContextHolder holder;
  holder.simulation = &hooks;
  StepContext context = holder.context();
  StepResult result = step.Run(MakeStep(kType, {R"({"path": "/dev/sda"})", "480"}), context);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  EXPECT_THAT(ReferenceText(result), HasSubstr(R"("path":"/dev/sda")"));
  auto speeds = OrchestratorDiskSpeed(result);
  ASSERT_THAT(speeds, IsOk());
  ASSERT_EQ(speeds->size(), 1u);
  EXPECT_EQ((*speeds)[0].path, "/dev/sda");
  EXPECT_TRUE((*speeds)[0].tested);
  EXPECT_GE((*speeds)[0].speed_ms, 1);  // rounded up: never reported as 0
  EXPECT_EQ((*speeds)[0].exit_code, 0);
  EXPECT_EQ(Slurp(image), before);
}

TEST(DiskSpeedCheck, ScriptedLatencyIsReportedWhateverTheMachine) {
  const std::string image = MakeDiskImage("scripted.img", 1 << 20);
  const std::string before = Slurp(image);
  SimulationHooks hooks;
  hooks.disk_image = [&](const std::string&) { return image; };
  hooks.disk_sync_latency = [] { return std::optional<absl::Duration>(absl::Milliseconds(12)); };
  DiskSpeedCheck step({.writes = 16});
  ContextHolder holder;
  holder.simulation = &hooks;
  StepContext context = holder.context();
  StepResult result = step.Run(MakeStep(kType, {R"({"path": "/dev/vda"})"}), context);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  auto speeds = OrchestratorDiskSpeed(result);
  ASSERT_THAT(speeds, IsOk());
  ASSERT_EQ(speeds->size(), 1u);
  EXPECT_EQ((*speeds)[0].speed_ms, 12);
  EXPECT_EQ(Slurp(image), before);
}

TEST(DiskSpeedCheck, SmallDeviceUsesTheRegionAtItsStart) {
  const std::string image = MakeDiskImage("small.img", 64 << 10);
  const std::string before = Slurp(image);
  SimulationHooks hooks;
  hooks.disk_image = [&](const std::string&) { return image; };
  DiskSpeedCheck step({.writes = 8});
  ContextHolder holder;
  holder.simulation = &hooks;
  StepContext context = holder.context();
  StepResult result = step.Run(MakeStep(kType, {R"({"path": "/dev/vda"})"}), context);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  EXPECT_EQ(Slurp(image), before);
}

TEST(DiskSpeedCheck, RealHostOnlyMeasuresBlockDevices) {
  const std::string file = MakeDiskImage("not-a-device.img", 1 << 20);
  const std::string before = Slurp(file);
  DiskSpeedCheck step({});
  ContextHolder holder;
  StepContext context = holder.context();
  StepResult result =
      step.Run(MakeStep(kType, {absl::StrCat(R"({"path": ")", file, R"("})")}), context);
  EXPECT_EQ(result.exit_code(), 1);
  EXPECT_THAT(result.error(), HasSubstr("not a block device"));
  auto speeds = OrchestratorDiskSpeed(result);
  ASSERT_THAT(speeds, IsOk());
  EXPECT_EQ((*speeds)[0].exit_code, 1);  // the validation then fails
  EXPECT_EQ(Slurp(file), before);

  result = step.Run(MakeStep(kType, {R"({"path": "/dev/does-not-exist"})"}), context);
  EXPECT_EQ(result.exit_code(), 1);
  EXPECT_THAT(result.error(), HasSubstr("cannot find"));
}

TEST(DiskSpeedCheck, SimulatedHostWithoutThatDiskFails) {
  SimulationHooks hooks;
  DiskSpeedCheck step({});
  ContextHolder holder;
  holder.simulation = &hooks;
  StepContext context = holder.context();
  StepResult result = step.Run(MakeStep(kType, {R"({"path": "/dev/sdz"})"}), context);
  EXPECT_EQ(result.exit_code(), 1);
  EXPECT_THAT(result.error(), HasSubstr("no disk /dev/sdz"));
}

TEST(DiskSpeedCheck, BadArgumentsAreMinusOne) {
  DiskSpeedCheck step({});
  ContextHolder holder;
  StepContext context = holder.context();
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{R"({"path": "sda"})"},
                                             {R"({"path": "/dev/../etc/passwd"})"},
                                             {R"({})"},
                                             {R"({"path": 3})"},
                                             {R"({"path": "/dev/sda"})", "soon"},
                                             {R"({"path": "/dev/sda"})", "-4"},
                                             {}}) {
    StepResult result = step.Run(MakeStep(kType, args), context);
    EXPECT_EQ(result.exit_code(), -1) << (args.empty() ? "" : args[0]);
    EXPECT_THAT(result.error(), HasSubstr("invalid arguments"));
  }
}

}  // namespace
}  // namespace assisted::agent::steps
