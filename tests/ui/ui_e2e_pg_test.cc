// The web UI end to end in a real headless Chromium (ui/tests/e2e.mjs, puppeteer-core driving
// Debian's chromium) against the real services (ui_stack.h), with simulated hosts booted from
// the ISO the UI offers. Skips without ASSISTED_TEST_UI_PROJECT (./dev test sets it).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/gateway_service.h"
#include "tests/ui/oidc_provider.h"
#include "tests/ui/ui_stack.h"

namespace assisted::testing {
namespace {

class UiEndToEndTest : public UiStackTest {
 protected:
  // Runs `scenario` against a gateway whose users sign in at `provider` (its keys, discovery
  // document, client and issuer; registered there as the client's redirect URI), on a cluster
  // of the provider's user's organisation made with the local issuer's token (UI_OIDC_CLUSTER).
  void RunOidcScenario(const std::string& scenario, OidcProvider& provider) {
    const std::string cluster = CreateCluster(Token("demo", "demo", absl::Hours(1)), "oidc");
    ASSERT_FALSE(HasFailure());
    absl::StatusOr<RunningGateway> gateway = LaunchUiGateway(
        {"--jwks-file=" + WriteFile("jwks.json", provider.Jwks()),
         "--oidc-discovery-file=" + WriteFile("oidc.json", provider.DiscoveryDocument()),
         "--oidc-client-id=assisted-ui", "--jwt-issuer=" + provider.issuer(),
         "--jwt-audience=assisted-ui"});
    ASSERT_TRUE(gateway.ok()) << gateway.status();
    provider.RegisterRedirectUri(gateway->http_base + "/oidc/callback");
    RunScenario(scenario, {{"UI_BASE", gateway->http_base},
                           {"OIDC_ISSUER", provider.issuer()},
                           {"UI_OIDC_CLUSTER", cluster}});
  }
};

TEST_F(UiEndToEndTest, SignInCreateDiscoverInstallAndDownloadCredentialsInChromium) {
  RunScenario("flow", FleetEnv(::testing::TempDir() + "/ui-e2e-fleet"));
}

TEST_F(UiEndToEndTest, CancelledInstallIsResetAndTheRebootedHostsMakeTheClusterReadyAgain) {
  RunScenario("cancel-reset", FleetEnv(::testing::TempDir() + "/ui-cancel-reset-fleet"));
}

TEST_F(UiEndToEndTest, WizardShowsNmstateErrorsInlineThenCreatesDualStackWithStaticNetworking) {
  RunScenario("wizard", {});
}

TEST_F(UiEndToEndTest, ExpiredTokenSignsOutOtherTenantsClusterIsNotFoundAndOutageShowsABanner) {
  const std::string other = CreateCluster(Token("mallory", "other", absl::Hours(1)), "theirs");
  ASSERT_FALSE(HasFailure());
  // The scenario also stops the gateway and starts it again (same command line) to see the
  // "cannot be reached" banner come and go; it stops its own copy at the end.
  RunScenario("errors", {{"UI_EXPIRED_TOKEN", Token("demo", "demo", -absl::Hours(1))},
                         {"UI_OTHER_CLUSTER", other},
                         {"UI_GATEWAY_PID", std::to_string(stack().gateway().pid())}});
}

// The agent-based installer's node 0: a gateway with --read-only-cluster serves that cluster's
// progress without sign-in, read-only and live, and nothing else without credentials.
TEST_F(UiEndToEndTest, AgentBasedNodeZeroShowsItsOneClusterReadOnlyWithoutSignIn) {
  const std::string owner = Token("agent-installer", "agent-installer", absl::Hours(1));
  const std::string cluster = CreateCluster(owner, "kni22");
  const std::string other = CreateCluster(Token("demo", "demo", absl::Hours(1)), "theirs");
  ASSERT_FALSE(HasFailure());
  absl::StatusOr<RunningGateway> node_zero = LaunchUiGateway({"--read-only-cluster=" + cluster});
  ASSERT_TRUE(node_zero.ok()) << node_zero.status();
  RunScenario("agent-based", {{"UI_BASE", node_zero->http_base},
                              {"UI_READ_ONLY_CLUSTER", cluster},
                              {"UI_NODE_ZERO_TOKEN", owner},
                              {"UI_OTHER_CLUSTER", other}});
}

// A gateway whose users sign in through an identity provider (--oidc-discovery-file,
// --jwks-file): the test's own provider on loopback, strict about PKCE, the client and the
// redirect URI. The browser goes there and back, the provider's token opens the user's
// organisation's cluster, and sign-out ends the provider's session too.
TEST_F(UiEndToEndTest, SignsInThroughAnIdentityProviderWithPkceAndSignsOutThere) {
  absl::StatusOr<std::unique_ptr<OidcProvider>> provider = OidcProvider::Start({});
  ASSERT_THAT(provider, IsOk());
  ASSERT_NO_FATAL_FAILURE(RunOidcScenario("oidc", **provider));

  // What the provider saw: two login pages (the denied one and the real one), one code
  // exchanged, with the right verifier (a wrong one is refused there), one session ended, the
  // third sign-in asking again; the only refusal is the user's own denial.
  const OidcProvider::Record record = (*provider)->record();
  EXPECT_EQ(record.login_pages, 3);
  EXPECT_EQ(record.codes, 1);
  EXPECT_EQ(record.tokens, 1);
  EXPECT_EQ(record.sessions_ended, 1);
  EXPECT_THAT(record.refusals, ::testing::ElementsAre(::testing::HasSubstr("access_denied")));
}

// A cluster made by aictl has no infra-env: its screen generates one (with the pull secret,
// which the API never gives back), and a host booted from that ISO appears.
TEST_F(UiEndToEndTest, AClusterMadeWithoutAnInfraEnvGetsItsDiscoveryImageFromTheUi) {
  const std::string cluster = CreateCluster(Token("demo", "demo", absl::Hours(1)), "demo");
  ASSERT_FALSE(HasFailure());
  std::map<std::string, std::string> env = FleetEnv(::testing::TempDir() + "/ui-infra-env-fleet");
  env["UI_AICTL_CLUSTER"] = cluster;
  RunScenario("infra-env", std::move(env));
}

// The provider's tokens live 10 s here: the tab refreshes its sign-in (the refresh_token grant)
// before each expires, so it outlives the first token (refused by the gateway once past its
// clock leeway) without going back to sign-in. Time passes by the token lifetime alone: the
// scenario waits for conditions (a new token, the first one refused), never for a fixed time.
TEST_F(UiEndToEndTest, AnIdentityProviderSignInIsRefreshedBeforeItsTokenExpires) {
  absl::StatusOr<std::unique_ptr<OidcProvider>> provider =
      OidcProvider::Start({.token_lifetime = absl::Seconds(10)});
  ASSERT_THAT(provider, IsOk());
  ASSERT_NO_FATAL_FAILURE(RunOidcScenario("oidc-refresh", **provider));

  // One sign-in at the provider, one code exchanged, then refreshes only, none refused.
  const OidcProvider::Record record = (*provider)->record();
  EXPECT_EQ(record.login_pages, 1);
  EXPECT_EQ(record.tokens, 1);
  EXPECT_GE(record.refreshes, 1);
  EXPECT_THAT(record.refusals, ::testing::IsEmpty());
}

}  // namespace
}  // namespace assisted::testing
