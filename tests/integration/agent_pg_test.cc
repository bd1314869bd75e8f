// The real agent binary against the real orchestrator, inventory and PostgreSQL: it registers
// its host, comes back after the orchestrator restarts, and stops cleanly on SIGTERM.
#include <signal.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/eventually.h"
#include "tests/harness/probes.h"
#include "tests/harness/stack.h"

namespace assisted::testing {
namespace {

namespace inv = ::assisted::inventory::v1;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kHost[] = "5d0c9a1e-3b7f-4e2a-9c41-8f6b2d0e7a13";

int Count(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

class AgentTest : public StackTest {};

TEST_F(AgentTest, RegistersComesBackAfterAnOrchestratorRestartAndStopsOnSigterm) {
  absl::StatusOr<types::v1::InfraEnv> infra_env = stack().CreateInfraEnv("discovery");
  ASSERT_THAT(infra_env, IsOk());
  inv::InventoryService::Stub* stub = &stack().inventory_stub();

  const std::string log = ::testing::TempDir() + "/agent.log";
  // Tests run side by side: the connectivity probe listens on a free port, not the default.
  auto probe_port = FreePort();
  ASSERT_THAT(probe_port, IsOk());
  auto agent = process::Subprocess::Start(
      {RunfilePath("services/agent/assisted-agent"),
       "--orchestrator-address=" + orchestrator().grpc_target(),
       "--infra-env-id=" + infra_env->id(), std::string("--host-id=") + kHost,
       "--agent-token=s3cret-token", absl::StrCat("--probe-port=", *probe_port)},
      {}, log);
  ASSERT_THAT(agent, IsOk());

  auto host_registered = [&] {
    inv::GetHostRequest get;
    get.set_infra_env_id(infra_env->id());
    get.set_id(kHost);
    types::v1::Host host;
    grpc::ClientContext context;
    return stub->GetHost(&context, get, &host).ok();
  };
  EXPECT_TRUE(Eventually(host_registered, absl::Seconds(15), "the host registered"))
      << ReadFile(log, "test file").value_or("");
  {
    // The host came with the machine's real hardware inventory.
    inv::GetHostRequest get;
    get.set_infra_env_id(infra_env->id());
    get.set_id(kHost);
    types::v1::Host host;
    grpc::ClientContext context;
    ASSERT_TRUE(stub->GetHost(&context, get, &host).ok());
    EXPECT_GT(host.inventory().cpu().count(), 0) << host.inventory().DebugString();
    EXPECT_GT(host.inventory().memory().usable_bytes(), 0);
  }
  EXPECT_TRUE(Eventually(
      [&] { return Count(ReadFile(log, "test file").value_or(""), "INFO agent: registered") >= 1; },
      absl::Seconds(30), "the agent's log says registered"))
      << ReadFile(log, "test file").value_or("") << orchestrator().Log();

  // The orchestrator goes away and comes back on the same address: the agent re-registers.
  EXPECT_EQ(orchestrator().Stop(), 0);
  EXPECT_TRUE(Eventually(
      [&] {
        return ReadFile(log, "test file").value_or("").find("reconnecting") != std::string::npos;
      },
      absl::Seconds(15), "the agent reconnecting"))
      << ReadFile(log, "test file").value_or("");
  ASSERT_THAT(stack().RestartOrchestrator(), IsOk());
  EXPECT_TRUE(Eventually(
      [&] { return Count(ReadFile(log, "test file").value_or(""), "INFO agent: registered") >= 2; },
      absl::Seconds(20), "the agent registered again"))
      << ReadFile(log, "test file").value_or("");

  (*agent)->Signal(SIGTERM);
  EXPECT_THAT((*agent)->Wait(absl::Seconds(10)), IsOkAndHolds(0));
  EXPECT_THAT(ReadFile(log, "test file").value_or(""), HasSubstr("stopped"));
  EXPECT_THAT(ReadFile(log, "test file").value_or(""), Not(HasSubstr("s3cret-token")));
}

}  // namespace
}  // namespace assisted::testing
