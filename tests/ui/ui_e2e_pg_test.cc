// The web UI end to end in a real headless Chromium (ui/tests/e2e.mjs, puppeteer-core driving
// Debian's chromium) against the real services (ui_stack.h), with simulated hosts booted from
// the ISO the UI offers. Skips without ASSISTED_TEST_UI_PROJECT (./dev test sets it).
#include "gtest/gtest.h"
#include "tests/harness/gateway_service.h"
#include "tests/ui/ui_stack.h"

namespace assisted::testing {
namespace {

class UiEndToEndTest : public UiStackTest {};

TEST_F(UiEndToEndTest, SignInCreateDiscoverInstallAndDownloadCredentialsInChromium) {
  RunScenario("flow", FleetEnv(::testing::TempDir() + "/ui-e2e-fleet"));
}

TEST_F(UiEndToEndTest, WizardShowsNmstateErrorsInlineThenCreatesDualStackWithStaticNetworking) {
  RunScenario("wizard", {});
}

TEST_F(UiEndToEndTest, ExpiredTokenSignsOutOtherTenantsClusterIsNotFoundAndOutageShowsABanner) {
  AictlOutcome other = RunAictl(
      server_, Token("mallory", "other", absl::Hours(1)),
      {"clusters", "create", "--name=theirs", "--base-domain=example.com",
       "--openshift-version=4.16", "--user-managed-networking",
       "--pull-secret-file=" + WriteFile("ps.json", R"({"auths":{"q":{"auth":"eDp5"}}})")});
  ASSERT_EQ(other.code, 0) << other.err;
  // The scenario also stops the gateway and starts it again (same command line) to see the
  // "cannot be reached" banner come and go; it stops its own copy at the end.
  RunScenario("errors", {{"UI_EXPIRED_TOKEN", Token("demo", "demo", -absl::Hours(1))},
                         {"UI_OTHER_CLUSTER", other.Trimmed()},
                         {"UI_GATEWAY_PID", std::to_string(stack().gateway().pid())}});
}

}  // namespace
}  // namespace assisted::testing
