#include "services/gateway/server.h"

#include "gtest/gtest.h"
#include "lib/config/config.h"
#include "lib/testing/status_matchers.h"

namespace assisted::gateway {
namespace {

using ::assisted::testing::IsOk;

TEST(GatewayConfig, ExpectedIssuerAndAudienceComeFromFlagsOrTheEnvironment) {
  Config config;
  config::Parser parser("assisted-gateway", "test");
  config.Register(parser);
  ASSERT_THAT(parser.Parse({"--jwt-issuer=https://sso.example.com"},
                           {{"ASSISTED_JWT_AUDIENCE", "assisted"}}),
              IsOk());
  EXPECT_EQ(config.jwt_issuer, "https://sso.example.com");
  EXPECT_EQ(config.jwt_audience, "assisted");
}

TEST(GatewayConfig, IssuerAndAudienceAreNotCheckedUnlessSet) {
  Config config;
  config::Parser parser("assisted-gateway", "test");
  config.Register(parser);
  ASSERT_THAT(parser.Parse(std::vector<std::string>{}, {}), IsOk());
  EXPECT_EQ(config.jwt_issuer, "");
  EXPECT_EQ(config.jwt_audience, "");
}

}  // namespace
}  // namespace assisted::gateway
