// The agent reaches the orchestrator over a real gRPC channel, notices when it goes away, and
// stops cleanly on SIGTERM.
#include <signal.h>

#include <fstream>
#include <sstream>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/probes.h"
#include "tests/harness/service_launcher.h"

namespace assisted::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

// Polls `path` until it contains `needle` or `timeout` passes.
bool WaitForLog(const std::string& path, const std::string& needle, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (ReadAll(path).find(needle) != std::string::npos) return true;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return false;
}

TEST(Agent, ReportsTheOrchestratorReachableThenUnreachableAndStopsOnSigterm) {
  absl::StatusOr<std::unique_ptr<LaunchedService>> orchestrator =
      LaunchedService::Launch({.binary = "services/orchestrator/assisted-orchestrator"});
  ASSERT_THAT(orchestrator, IsOk());

  const std::string log = ::testing::TempDir() + "/agent.log";
  absl::StatusOr<std::unique_ptr<process::Subprocess>> agent = process::Subprocess::Start(
      {RunfilePath("services/agent/assisted-agent"),
       "--orchestrator-address=" + (*orchestrator)->grpc_target(),
       "--infra-env-id=6f1c3b4e-2a9d-4c1e-9b7a-0d2e5f8a1c3b", "--agent-token=s3cret-token"},
      {}, log);
  ASSERT_THAT(agent, IsOk());
  EXPECT_TRUE(WaitForLog(log, "orchestrator reachable", absl::Seconds(10))) << ReadAll(log);

  EXPECT_EQ((*orchestrator)->Stop(), 0);
  EXPECT_TRUE(WaitForLog(log, "orchestrator unreachable", absl::Seconds(10))) << ReadAll(log);

  (*agent)->Signal(SIGTERM);
  EXPECT_THAT((*agent)->Wait(absl::Seconds(10)), IsOkAndHolds(0));
  EXPECT_THAT(ReadAll(log), HasSubstr("stopped"));
  EXPECT_THAT(ReadAll(log), Not(HasSubstr("s3cret-token")));
}

}  // namespace
}  // namespace assisted::testing
