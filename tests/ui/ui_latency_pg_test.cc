// A measurement more than a test: how long a host's status change takes from the inventory to
// the browser's DOM with 100 hosts on screen (ui/tests/e2e.mjs "latency": each sample a host
// made insufficient by another host's name, or known again by its own, through the REST API,
// timed from the request to the row showing the new status; the change travels as the
// orchestrator's status write, a Watch hint to the gateway, down the change stream, and through
// a re-read of that host). Manual: run it with
//   bazel test //tests/ui:ui_latency_pg_test --test_env=ASSISTED_TEST_UI_PROJECT=$PWD/ui
//     --test_output=all [--test_env=UI_HOSTS=10 --test_env=UI_SAMPLES=10]
// Its last line is JSON with the figures and the core count.
#include <cstdlib>

#include "gtest/gtest.h"
#include "tests/ui/ui_stack.h"

namespace assisted::testing {
namespace {

class UiLatencyTest : public UiStackTest {};

TEST_F(UiLatencyTest, InventoryChangeToDomWithAHundredHostsOnScreen) {
  std::map<std::string, std::string> env = FleetEnv(::testing::TempDir() + "/ui-latency-fleet");
  const char* hosts = std::getenv("UI_HOSTS");
  const char* samples = std::getenv("UI_SAMPLES");
  env["UI_HOSTS"] = hosts != nullptr ? hosts : "100";
  env["UI_SAMPLES"] = samples != nullptr ? samples : "100";
  // Each change waits for the orchestrator to judge a host of a 100-host cluster: minutes on a
  // loaded 2-core machine.
  RunScenario("latency", std::move(env), absl::Minutes(40));
}

}  // namespace
}  // namespace assisted::testing
