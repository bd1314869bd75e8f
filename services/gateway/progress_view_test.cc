#include "services/gateway/progress_view.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace assisted::gateway {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A cluster with every kind of secret the REST model can show, and one host.
types::v1::Cluster ClusterWithSecrets() {
  types::v1::Cluster cluster;
  cluster.set_id("8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c");
  cluster.set_name("kni22");
  cluster.set_base_dns_domain("example.com");
  cluster.set_status(types::v1::CLUSTER_STATUS_INSTALLING);
  cluster.set_pull_secret_set(true);
  cluster.set_ssh_public_key("ssh-ed25519 AAAA-the-ssh-key");
  cluster.mutable_proxy()->set_http_proxy("http://user:proxy-password@proxy:3128");
  cluster.set_install_config_overrides(R"({"fips":"install-config-override"})");
  cluster.mutable_owner()->set_user_name("agent-installer");
  types::v1::Host* host = cluster.add_hosts();
  host->set_id("11111111-1111-4111-8111-111111111111");
  host->set_status(types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS);
  host->set_role(types::v1::HOST_ROLE_MASTER);
  host->set_requested_hostname("master-0");
  host->set_ignition_config_overrides(R"({"ignition":"host-ignition-override"})");
  host->add_installer_args("host-installer-args");
  return cluster;
}

TEST(ProgressDocument, ShowsProgressAndNoSecret) {
  types::v1::Event event;
  event.set_message("Host master-0: updated status from known to installing");
  const nlohmann::json document = ProgressDocument(ClusterWithSecrets(), {event});
  const std::string text = document.dump();
  EXPECT_EQ(document["cluster"]["name"], "kni22");
  EXPECT_EQ(document["cluster"]["status"], "installing");
  ASSERT_EQ(document["cluster"]["hosts"].size(), 1u);
  EXPECT_EQ(document["cluster"]["hosts"][0]["requested_hostname"], "master-0");
  EXPECT_EQ(document["cluster"]["hosts"][0]["role"], "master");
  EXPECT_EQ(document["events"][0]["message"], event.message());
  for (const char* secret :
       {"proxy-password", "the-ssh-key", "install-config-override", "host-ignition-override",
        "host-installer-args", "pull_secret", "agent-installer"}) {
    EXPECT_THAT(text, Not(HasSubstr(secret)));
  }
}

TEST(WebUiConfig, NamesTheModeAndTheReadOnlyCluster) {
  EXPECT_EQ(WebUiConfigJson("", nullptr), nlohmann::json({{"mode", "console"}}));
  EXPECT_EQ(WebUiConfigJson("8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c", nullptr),
            nlohmann::json(
                {{"mode", "agent-based"}, {"cluster_id", "8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c"}}));
}

TEST(WebUiConfig, NamesTheIdentityProviderToSignInWith) {
  const OidcSignIn oidc{.issuer = "https://sso.example.com",
                        .client_id = "assisted-ui",
                        .authorization_endpoint = "https://sso.example.com/auth",
                        .token_endpoint = "https://sso.example.com/token",
                        .scopes = "openid"};
  const nlohmann::json config = WebUiConfigJson("", &oidc);
  EXPECT_EQ(config["mode"], "console");
  EXPECT_EQ(config["oidc"], OidcSignInJson(oidc));
}

}  // namespace
}  // namespace assisted::gateway
