// Controller tokens are scoped to one cluster, expire, and are a kind of their own: an agent or
// download token signed with the same URL-signing key is not one.
#include "services/orchestrator/controller_token.h"

#include "gtest/gtest.h"
#include "lib/auth/token.h"
#include "lib/testing/status_matchers.h"

namespace assisted::orchestrator {
namespace {

using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;

constexpr char kKey[] = "0123456789abcdef0123456789abcdef-test-key";
constexpr char kCluster[] = "6a0c6f52-3d1e-4b8e-9f64-0d5a3c2b1a90";
constexpr char kInfraEnvKey[] = "an infra-env's own signing key";
const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

TEST(ControllerTokensTest, AnIssuedTokenNamesItsCluster) {
  const ControllerTokens tokens(kKey);
  absl::StatusOr<std::string> token = tokens.Issue(kCluster, kNow);
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_THAT(tokens.Verify(*token, kNow + absl::Hours(24)), IsOkAndHolds(kCluster));
}

TEST(ControllerTokensTest, ExpiresAfterItsLifetime) {
  const ControllerTokens tokens(kKey);
  const std::string token = *tokens.Issue(kCluster, kNow);
  EXPECT_THAT(tokens.Verify(token, kNow + kControllerTokenLifetime + absl::Seconds(1)),
              StatusIs(absl::StatusCode::kUnauthenticated));
}

TEST(ControllerTokensTest, OtherTokensSignedWithTheSameKeyAreNotControllerTokens) {
  const absl::Time later = kNow + absl::Hours(1);
  for (const std::string& token :
       {*auth::SignToken({.service = kKey, .infra_env = kInfraEnvKey}, auth::TokenPurpose::kAgent,
                         kCluster, later),
        *auth::SignToken({.service = kKey}, auth::TokenPurpose::kDownload, kCluster, later),
        *auth::SignToken({.service = kKey}, auth::TokenPurpose::kRootfs, kCluster, later)}) {
    EXPECT_THAT(ControllerTokens(kKey).Verify(token, kNow),
                StatusIs(absl::StatusCode::kUnauthenticated));
  }
}

TEST(ControllerTokensTest, AControllerTokenIsNoOtherToken) {
  const std::string token = *ControllerTokens(kKey).Issue(kCluster, kNow);
  for (auth::TokenPurpose purpose : {auth::TokenPurpose::kDownload, auth::TokenPurpose::kRootfs}) {
    EXPECT_FALSE(auth::VerifyToken({.service = kKey}, purpose, token, kNow).ok());
  }
  EXPECT_FALSE(auth::VerifyToken({.service = kKey, .infra_env = kInfraEnvKey},
                                 auth::TokenPurpose::kAgent, token, kNow)
                   .ok());
}

TEST(ControllerTokensTest, ATokenOfAnotherKeyIsRefused) {
  const std::string token =
      *ControllerTokens("another key, also long enough: 0123456789").Issue(kCluster, kNow);
  EXPECT_THAT(ControllerTokens(kKey).Verify(token, kNow),
              StatusIs(absl::StatusCode::kUnauthenticated));
}

TEST(ControllerTokensTest, NoTokenIsRefused) {
  EXPECT_THAT(ControllerTokens(kKey).Verify("", kNow),
              StatusIs(absl::StatusCode::kUnauthenticated));
}

}  // namespace
}  // namespace assisted::orchestrator
