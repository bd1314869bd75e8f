#include "lib/auth/url_token.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::auth {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

const std::string kKey(32, 'k');
constexpr char kId[] = "6f1c3b4e-2a9d-4c1e-9b7a-0d2e5f8a1c3b";
const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

TEST(UrlToken, RoundTripsTheResourceAndExpiry) {
  auto token = SignUrlToken(kKey, kId, kNow + absl::Hours(4));
  ASSERT_THAT(token, IsOk());
  EXPECT_EQ(token->size(), 50u);
  EXPECT_EQ(
      token->find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
      std::string::npos);
  auto claims = VerifyUrlToken(kKey, *token, kNow);
  ASSERT_THAT(claims, IsOk());
  EXPECT_EQ(claims->resource_id, kId);
  EXPECT_EQ(claims->expires_at, kNow + absl::Hours(4));
}

TEST(UrlToken, RejectsExpiredForgedAlteredAndGarbageTokens) {
  auto token = SignUrlToken(kKey, kId, kNow + absl::Minutes(1));
  ASSERT_THAT(token, IsOk());
  EXPECT_THAT(VerifyUrlToken(kKey, *token, kNow + absl::Minutes(1)),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("expired")));
  EXPECT_THAT(VerifyUrlToken(std::string(32, 'x'), *token, kNow),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("signature")));
  for (size_t i = 0; i < token->size(); ++i) {
    std::string altered = *token;
    altered[i] = altered[i] == 'A' ? 'B' : 'A';
    EXPECT_THAT(VerifyUrlToken(kKey, altered, kNow), StatusIs(absl::StatusCode::kPermissionDenied))
        << i;
  }
  for (const char* garbage : {"", "x", "!!!!", "a.b.c"}) {
    EXPECT_THAT(VerifyUrlToken(kKey, garbage, kNow), StatusIs(absl::StatusCode::kPermissionDenied));
  }
  EXPECT_THAT(VerifyUrlToken(kKey, std::string(1000, 'A'), kNow),
              StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST(UrlToken, NeedsAUuidAndAStrongKey) {
  EXPECT_THAT(SignUrlToken(kKey, "cluster-1", kNow), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SignUrlToken("short", kId, kNow), StatusIs(absl::StatusCode::kInvalidArgument));
}

// Found by fuzz/url_token_fuzzer: the dashes were dropped before the length check, so text with
// 32 hex digits and four dashes anywhere was signed as the UUID those digits spell, a resource
// other than the one named.
TEST(UrlToken, RefusesDashesOutOfPlace) {
  EXPECT_THAT(SignUrlToken(kKey, "0a8c8a6e-0c55-4c9a-9ad-97bd51e0f2a11", kNow + absl::Hours(1)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SignUrlToken(kKey, "-0a8c8a6e0c554c9a9ad997bd51e0f2a11---", kNow + absl::Hours(1)),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace assisted::auth
