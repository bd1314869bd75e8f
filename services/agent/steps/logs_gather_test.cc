#include "services/agent/steps/logs_gather.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/test_util.h"

namespace assisted::agent::steps {
namespace {

using ::testing::Contains;
using testing::ContextHolder;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;
using testing::MakeStep;
using ::testing::Not;

constexpr StepType kType = types::v1::STEP_TYPE_LOGS_GATHER;
constexpr char kRequest[] =
    R"({"cluster_id": "c1", "host_id": "h1", "infra_env_id": "e1", "bootstrap": true,
        "installer_gather": false, "master_ips": ["192.168.111.10"]})";

class LogsGatherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = ::testing::TempDir() + "/logs-gather-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(root_ + "/var/log/sub");
    std::filesystem::create_directories(root_ + "/work");
    std::ofstream(root_ + "/var/log/a.log") << std::string(5000, 'a') << "\n";
    std::ofstream(root_ + "/var/log/sub/b.log") << "bee\n";
  }

  LogsGatherOptions Options() {
    LogsGatherOptions options;
    options.paths = {root_ + "/var/log", root_ + "/not-there"};
    options.commands = {{"journal.log", {"echo", "a journal line"}},
                        {"missing.log", {"/nonexistent/tool"}}};
    options.work_dir = root_ + "/work";
    options.chunk_bytes = 256;
    return options;
  }

  // Writes the chunks' bytes, in offset order, to a file and returns its path.
  std::string Reassemble(const std::vector<agent::v1::LogChunk>& chunks) {
    std::string bundle;
    for (const auto& c : chunks) {
      EXPECT_EQ(c.offset(), static_cast<int64_t>(bundle.size()));
      EXPECT_LE(c.data().size(), 256u);
      EXPECT_EQ(c.step_id(), "logs-gather-00000001");
      EXPECT_EQ(c.logs_type(), agent::v1::LOGS_TYPE_HOST);
      EXPECT_EQ(c.last(), &c == &chunks.back());
      bundle += c.data();
    }
    const std::string path = root_ + "/received.tar.gz";
    std::ofstream(path, std::ios::binary) << bundle;
    return path;
  }

  std::string root_;
};

TEST_F(LogsGatherTest, StreamsATarGzOfCommandOutputsAndLogPaths) {
  LogsGather step(Options());
  ContextHolder holder;
  StepContext context = holder.context();
  StepResult result = step.Run(MakeStep(kType, {kRequest}), context);
  ASSERT_EQ(result.exit_code(), 0) << result.error();

  const std::vector<agent::v1::LogChunk> chunks = holder.sink.chunks();
  ASSERT_GT(chunks.size(), 1u);
  const nlohmann::json summary = nlohmann::json::parse(result.output(), nullptr, false);
  EXPECT_EQ(summary["chunks"], chunks.size());
  const std::string bundle = Reassemble(chunks);
  EXPECT_EQ(summary["bundle_bytes"], std::filesystem::file_size(bundle));

  process::LocalProcessRunner runner;
  absl::StatusOr<process::CommandResult> listing = runner.Run({.argv = {"tar", "-tzf", bundle}});
  ASSERT_TRUE(listing.ok() && listing->ok()) << listing.status() << listing->stderr_data;
  std::vector<std::string> names = absl::StrSplit(listing->stdout_data, '\n', absl::SkipEmpty());
  const std::string logs(absl::StripPrefix(root_, "/"));
  EXPECT_THAT(names, IsSupersetOf(std::vector<std::string>{"journal.log", "logs-gather.json",
                                                           logs + "/var/log/a.log",
                                                           logs + "/var/log/sub/b.log"}));
  EXPECT_THAT(names, Not(Contains(HasSubstr("missing.log"))));
  EXPECT_THAT(names, Not(Contains(HasSubstr("work/"))));

  absl::StatusOr<process::CommandResult> manifest =
      runner.Run({.argv = {"tar", "-xzOf", bundle, "logs-gather.json"}});
  ASSERT_TRUE(manifest.ok() && manifest->ok());
  EXPECT_THAT(manifest->stdout_data, HasSubstr(R"("cluster_id":"c1")"));
  EXPECT_THAT(manifest->stdout_data, HasSubstr("/nonexistent/tool"));
  // The staging directory is gone.
  EXPECT_TRUE(std::filesystem::is_empty(root_ + "/work"));
}

TEST_F(LogsGatherTest, ASimulatedHostSendsItsManifestAndNothingOfTheMachine) {
  LogsGather step(Options());
  SimulationHooks hooks;
  ContextHolder holder;
  holder.simulation = &hooks;
  StepContext context = holder.context();
  StepResult result = step.Run(MakeStep(kType, {kRequest}), context);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  const std::string bundle = Reassemble(holder.sink.chunks());
  process::LocalProcessRunner runner;
  absl::StatusOr<process::CommandResult> listing = runner.Run({.argv = {"tar", "-tzf", bundle}});
  ASSERT_TRUE(listing.ok() && listing->ok());
  EXPECT_EQ(listing->stdout_data, "logs-gather.json\n");
  absl::StatusOr<process::CommandResult> manifest =
      runner.Run({.argv = {"tar", "-xzOf", bundle, "logs-gather.json"}});
  ASSERT_TRUE(manifest.ok() && manifest->ok());
  EXPECT_THAT(manifest->stdout_data, HasSubstr(R"("simulated":true)"));
}

class FailingSink final : public LogChunkSink {
 public:
  absl::Status Send(const agent::v1::LogChunk&) override {
    return absl::UnavailableError("session closed");
  }
};

TEST_F(LogsGatherTest, UndeliverableBundleFails) {
  LogsGather step(Options());
  process::LocalProcessRunner processes;
  RealClock clock;
  Cancellation cancellation;
  FailingSink sink;
  StepContext context{processes, clock, cancellation, sink};
  StepResult result = step.Run(MakeStep(kType, {kRequest}), context);
  EXPECT_EQ(result.exit_code(), 1);
  EXPECT_THAT(result.error(), HasSubstr("session closed"));
  EXPECT_TRUE(std::filesystem::is_empty(root_ + "/work"));
}

TEST_F(LogsGatherTest, OversizedBundleFails) {
  LogsGatherOptions options = Options();
  options.max_bundle_bytes = 10;
  LogsGather step(options);
  ContextHolder holder;
  StepContext context = holder.context();
  StepResult result = step.Run(MakeStep(kType, {kRequest}), context);
  EXPECT_EQ(result.exit_code(), 1);
  EXPECT_THAT(result.error(), HasSubstr("exceeds 10"));
  EXPECT_TRUE(holder.sink.chunks().empty());
}

TEST_F(LogsGatherTest, BadArgumentsAreMinusOne) {
  LogsGather step(Options());
  ContextHolder holder;
  StepContext context = holder.context();
  for (const char* args : {R"([])", R"({"bootstrap": "yes"})", R"({"master_ips": ["nope"]})",
                           R"({"cluster_id": "a/b"})", R"({"master_ips": "10.0.0.1"})"}) {
    StepResult result = step.Run(MakeStep(kType, {args}), context);
    EXPECT_EQ(result.exit_code(), -1) << args;
    EXPECT_THAT(result.error(), HasSubstr("invalid arguments")) << args;
  }
  EXPECT_TRUE(holder.sink.chunks().empty());
}

}  // namespace
}  // namespace assisted::agent::steps
