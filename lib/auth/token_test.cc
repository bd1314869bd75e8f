#include "lib/auth/token.h"

#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::auth {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

const std::string kKey(32, 'k');
const std::string kInfraEnvKey(32, 'e');
constexpr char kId[] = "6f1c3b4e-2a9d-4c1e-9b7a-0d2e5f8a1c3b";
const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

const std::vector<TokenPurpose> kPurposes = {TokenPurpose::kDownload, TokenPurpose::kRootfs,
                                             TokenPurpose::kAgent, TokenPurpose::kClusterDownload};

// The key each purpose is signed with in these tests.
TokenKey KeyFor(TokenPurpose purpose) {
  return purpose == TokenPurpose::kAgent ? TokenKey{kKey, kInfraEnvKey} : TokenKey{kKey, ""};
}

TEST(Token, RoundTripsTheResourceAndExpiryForEveryPurpose) {
  for (TokenPurpose purpose : kPurposes) {
    SCOPED_TRACE(TokenPurposeName(purpose));
    auto token = SignToken(KeyFor(purpose), purpose, kId, kNow + absl::Hours(4));
    ASSERT_THAT(token, IsOk());
    EXPECT_EQ(token->size(), 50u);
    EXPECT_EQ(token->find_first_not_of(
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
              std::string::npos);
    auto claims = VerifyToken(KeyFor(purpose), purpose, *token, kNow);
    ASSERT_THAT(claims, IsOk());
    EXPECT_EQ(claims->resource_id, kId);
    EXPECT_EQ(claims->expires_at, kNow + absl::Hours(4));
  }
}

TEST(Token, ATokenOfOnePurposeNeverPassesAsAnother) {
  for (TokenPurpose made : kPurposes) {
    auto token = SignToken(KeyFor(made), made, kId, kNow + absl::Hours(4));
    ASSERT_THAT(token, IsOk());
    for (TokenPurpose expected : kPurposes) {
      if (expected == made) continue;
      SCOPED_TRACE(absl::StrCat(TokenPurposeName(made), " as ", TokenPurposeName(expected)));
      EXPECT_THAT(VerifyToken(KeyFor(expected), expected, *token, kNow),
                  StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("wrong kind of token")));
    }
  }
}

TEST(Token, TheClaimedPurposeIsReadWithoutTrustingIt) {
  for (TokenPurpose purpose : kPurposes) {
    auto token = SignToken(KeyFor(purpose), purpose, kId, kNow + absl::Hours(4));
    ASSERT_THAT(token, IsOk());
    EXPECT_THAT(ClaimedPurpose(*token), IsOkAndHolds(purpose));
  }
  EXPECT_THAT(ClaimedPurpose("garbage"), StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST(Token, ThePurposeByteIsSigned) {
  // A download token relabelled as an agent token: its tag was made with the download key.
  auto download = SignToken(KeyFor(TokenPurpose::kDownload), TokenPurpose::kDownload, kId,
                            kNow + absl::Hours(4));
  ASSERT_THAT(download, IsOk());
  std::string raw;
  ASSERT_TRUE(absl::WebSafeBase64Unescape(*download, &raw));
  raw[0] = static_cast<char>((raw[0] & 0xf0) | static_cast<int>(TokenPurpose::kAgent));
  EXPECT_THAT(VerifyToken(KeyFor(TokenPurpose::kAgent), TokenPurpose::kAgent,
                          absl::WebSafeBase64Escape(raw), kNow),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("signature")));
}

TEST(Token, AnotherInfraEnvKeyRevokesAgentTokens) {
  auto token =
      SignToken(KeyFor(TokenPurpose::kAgent), TokenPurpose::kAgent, kId, kNow + absl::Hours(4));
  ASSERT_THAT(token, IsOk());
  const std::string rotated(32, 'r');
  EXPECT_THAT(VerifyToken({kKey, rotated}, TokenPurpose::kAgent, *token, kNow),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("signature")));
}

TEST(Token, RejectsExpiredForgedAlteredAndGarbageTokens) {
  const TokenKey key = KeyFor(TokenPurpose::kDownload);
  auto token = SignToken(key, TokenPurpose::kDownload, kId, kNow + absl::Minutes(1));
  ASSERT_THAT(token, IsOk());
  EXPECT_THAT(VerifyToken(key, TokenPurpose::kDownload, *token, kNow + absl::Minutes(1)),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("expired")));
  const std::string other(32, 'x');
  EXPECT_THAT(VerifyToken({other, ""}, TokenPurpose::kDownload, *token, kNow),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("signature")));
  for (size_t i = 0; i < token->size(); ++i) {
    std::string altered = *token;
    altered[i] = altered[i] == 'A' ? 'B' : 'A';
    EXPECT_THAT(VerifyToken(key, TokenPurpose::kDownload, altered, kNow),
                StatusIs(absl::StatusCode::kPermissionDenied))
        << i;
  }
  for (const char* garbage : {"", "x", "!!!!", "a.b.c"}) {
    EXPECT_THAT(VerifyToken(key, TokenPurpose::kDownload, garbage, kNow),
                StatusIs(absl::StatusCode::kPermissionDenied));
  }
  EXPECT_THAT(VerifyToken(key, TokenPurpose::kDownload, std::string(1000, 'A'), kNow),
              StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST(Token, RefusesTheUnpurposedTokensOfTheFirstFormat) {
  // Format 1: version byte 1, the UUID, the expiry and a tag, 50 characters, no purpose.
  std::string raw(37, '\0');
  raw[0] = 1;
  EXPECT_THAT(VerifyToken(KeyFor(TokenPurpose::kDownload), TokenPurpose::kDownload,
                          absl::WebSafeBase64Escape(raw), kNow),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("malformed")));
}

TEST(Token, NeedsAUuidStrongKeysAndTheInfraEnvKeyForAgentsOnly) {
  EXPECT_THAT(SignToken({kKey, ""}, TokenPurpose::kDownload, "cluster-1", kNow),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SignToken({"short", ""}, TokenPurpose::kDownload, kId, kNow),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SignToken({kKey, ""}, TokenPurpose::kAgent, kId, kNow),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("infra-env")));
  EXPECT_THAT(SignToken({kKey, "short"}, TokenPurpose::kAgent, kId, kNow),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("infra-env")));
  EXPECT_THAT(SignToken({kKey, kInfraEnvKey}, TokenPurpose::kDownload, kId, kNow),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("agent tokens only")));
  EXPECT_THAT(VerifyToken({kKey, ""}, TokenPurpose::kAgent, std::string(50, 'A'), kNow),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(Token, RefusesAResourceIdWithDashesOutOfPlace) {
  EXPECT_THAT(SignToken({kKey, ""}, TokenPurpose::kDownload, "0a8c8a6e-0c55-4c9a-9ad-97bd51e0f2a11",
                        kNow + absl::Hours(1)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SignToken({kKey, ""}, TokenPurpose::kDownload,
                        "-0a8c8a6e0c554c9a9ad997bd51e0f2a11---", kNow + absl::Hours(1)),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(Token, VerifyAgentTokenUsesTheCurrentKeyOfTheTokensInfraEnv) {
  auto token =
      SignToken(KeyFor(TokenPurpose::kAgent), TokenPurpose::kAgent, kId, kNow + absl::Hours(4));
  ASSERT_THAT(token, IsOk());
  std::string current = kInfraEnvKey;
  std::vector<std::string> looked_up;
  InfraEnvKeyLookup lookup = [&](const std::string& id) -> absl::StatusOr<std::string> {
    looked_up.push_back(id);
    if (current.empty()) return absl::NotFoundError("no such infra-env");
    if (current == "down") return absl::UnavailableError("inventory unavailable");
    return current;
  };
  auto claims = VerifyAgentToken(kKey, lookup, *token, kNow);
  ASSERT_THAT(claims, IsOk());
  EXPECT_EQ(claims->resource_id, kId);
  EXPECT_EQ(looked_up, std::vector<std::string>{kId});

  current = std::string(32, 'r');  // regenerated
  EXPECT_THAT(VerifyAgentToken(kKey, lookup, *token, kNow),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("signature")));
  current = "";  // deleted
  EXPECT_THAT(VerifyAgentToken(kKey, lookup, *token, kNow),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("does not exist")));
  current = "down";
  EXPECT_THAT(VerifyAgentToken(kKey, lookup, *token, kNow),
              StatusIs(absl::StatusCode::kUnavailable));

  // Garbage and other purposes cost no look-up.
  looked_up.clear();
  auto download = SignToken(KeyFor(TokenPurpose::kDownload), TokenPurpose::kDownload, kId,
                            kNow + absl::Hours(4));
  ASSERT_THAT(download, IsOk());
  EXPECT_THAT(VerifyAgentToken(kKey, lookup, *download, kNow),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("wrong kind of token")));
  EXPECT_THAT(VerifyAgentToken(kKey, lookup, "garbage", kNow),
              StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_TRUE(looked_up.empty());
}

}  // namespace
}  // namespace assisted::auth
