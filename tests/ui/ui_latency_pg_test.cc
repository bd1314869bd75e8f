// A measurement more than a test: how long a change in the inventory takes to show in the
// browser's DOM with 100 hosts on screen (ui/tests/e2e.mjs "latency": host renames through the
// REST API, timed from the request to the row showing the new name; the change travels as a
// Watch hint to the gateway, down the change stream, and through a re-read of the cluster).
// Manual: run it with
//   bazel test //tests/ui:ui_latency_pg_test --test_env=ASSISTED_UI_DIR=$PWD/ui --test_output=all
// Its last line is JSON with the figures.
#include "gtest/gtest.h"
#include "tests/ui/ui_stack.h"

namespace assisted::testing {
namespace {

class UiLatencyTest : public UiStackTest {};

TEST_F(UiLatencyTest, InventoryChangeToDomWithAHundredHostsOnScreen) {
  std::map<std::string, std::string> env = FleetEnv(::testing::TempDir() + "/ui-latency-fleet");
  env["UI_HOSTS"] = "100";
  env["UI_SAMPLES"] = "100";
  RunScenario("latency", std::move(env), absl::Minutes(10));
}

}  // namespace
}  // namespace assisted::testing
