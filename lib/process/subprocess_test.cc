#include "lib/process/subprocess.h"

#include <signal.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::process {
namespace {

using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;

TEST(LocalProcessRunner, CollectsOutputAndExitCode) {
  LocalProcessRunner runner;
  absl::StatusOr<CommandResult> result =
      runner.Run({.argv = {"sh", "-c", "echo out; echo err >&2; exit 3"}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_EQ(result->stdout_data, "out\n");
  EXPECT_EQ(result->stderr_data, "err\n");
}

TEST(LocalProcessRunner, FeedsStdinAndEnvironment) {
  LocalProcessRunner runner;
  absl::StatusOr<CommandResult> result =
      runner.Run({.argv = {"sh", "-c", "cat; printf %s \"$GREETING\""},
                  .env = {{"GREETING", "hi"}},
                  .stdin_data = std::string(100000, 'x')});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->stdout_data, std::string(100000, 'x') + "hi");
}

TEST(LocalProcessRunner, MissingProgramIsNotFound) {
  LocalProcessRunner runner;
  EXPECT_THAT(runner.Run({.argv = {"/nonexistent/program"}}),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST(LocalProcessRunner, KillsCommandsThatOverrunTheirTimeout) {
  LocalProcessRunner runner;
  absl::StatusOr<CommandResult> result =
      runner.Run({.argv = {"sleep", "30"}, .timeout = absl::Milliseconds(200)});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->timed_out);
  EXPECT_EQ(result->term_signal, SIGKILL);
}

TEST(Subprocess, StopsAChildWithSigterm) {
  const std::string log = ::testing::TempDir() + "/child.log";
  absl::StatusOr<std::unique_ptr<Subprocess>> child =
      Subprocess::Start({"sh", "-c", "echo hello; exec sleep 30"}, {}, log);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_FALSE((*child)->Poll().has_value());
  EXPECT_EQ((*child)->Stop(absl::Seconds(5)), -SIGTERM);
}

TEST(Subprocess, ReportsExitStatus) {
  const std::string log = ::testing::TempDir() + "/exit.log";
  absl::StatusOr<std::unique_ptr<Subprocess>> child = Subprocess::Start({"false"}, {}, log);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_THAT((*child)->Wait(absl::Seconds(5)), IsOkAndHolds(1));
}

}  // namespace
}  // namespace assisted::process
