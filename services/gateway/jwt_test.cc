#include "services/gateway/jwt.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/gateway/rsa_test_key.h"

namespace assisted::gateway {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;

using ::testing::HasSubstr;
using Json = nlohmann::json;

constexpr char kSecret[] = "0123456789abcdef0123456789abcdef";
const absl::Time kNow = absl::FromUnixSeconds(1800000000);

Json Claims(absl::Duration exp_in) {
  return {{"sub", "alice"}, {"org_id", "acme"}, {"exp", absl::ToUnixSeconds(kNow + exp_in)}};
}

TEST(Jwt, Hs256RoundTrip) {
  auto verifier = JwtVerifier::Create(kSecret, "");
  ASSERT_THAT(verifier, IsOk());
  absl::StatusOr<std::string> token = SignHs256(kSecret, Claims(absl::Hours(1)));
  ASSERT_THAT(token, IsOk());
  absl::StatusOr<Json> claims = (*verifier)->Verify(*token, kNow);
  ASSERT_THAT(claims, IsOk());
  EXPECT_EQ((*claims)["sub"], "alice");
}

TEST(Jwt, RefusesBadTokens) {
  auto verifier = *JwtVerifier::Create(kSecret, "");
  const std::string good = *SignHs256(kSecret, Claims(absl::Hours(1)));
  std::vector<std::string> parts = absl::StrSplit(good, '.');
  const std::string other_payload = absl::WebSafeBase64Escape(
      Json{{"sub", "mallory"}, {"exp", absl::ToUnixSeconds(kNow + absl::Hours(1))}}.dump());
  const std::string none_header = absl::WebSafeBase64Escape(R"({"alg":"none"})");
  struct Case {
    std::string token;
    const char* why;
  };
  for (const Case& c : std::vector<Case>{
           {"", "not a compact JWS"},
           {"a.b", "not a compact JWS"},
           {*SignHs256("another-secret-another-secret-xx", Claims(absl::Hours(1))),
            "bad signature"},
           {parts[0] + "." + other_payload + "." + parts[2], "bad signature"},
           {none_header + "." + parts[1] + ".", "algorithm not accepted"},
           {*SignHs256(kSecret, Claims(-absl::Hours(1))), "expired"},
           {*SignHs256(kSecret, Json{{"sub", "alice"}}), "no exp claim"},
           {*SignHs256(kSecret, Json{{"sub", "a"}, {"exp", "soon"}}), "exp is not a number"},
           {*SignHs256(kSecret, Json{{"sub", "a"},
                                     {"exp", absl::ToUnixSeconds(kNow + absl::Hours(2))},
                                     {"nbf", absl::ToUnixSeconds(kNow + absl::Hours(1))}}),
            "not valid yet"},
           {"!!!.###.$$$", "not base64url"},
       }) {
    EXPECT_THAT(verifier->Verify(c.token, kNow),
                StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr(c.why)))
        << c.token;
  }
  // Within the leeway, a just-expired token still passes.
  EXPECT_THAT(verifier->Verify(*SignHs256(kSecret, Claims(-absl::Seconds(10))), kNow), IsOk());
}

TEST(Jwt, Rs256WithJwks) {
  const std::string pem = NewRsaKeyPem();
  absl::StatusOr<std::string> jwks = PublicJwks(pem, "key-1");
  ASSERT_THAT(jwks, IsOk());
  auto verifier = JwtVerifier::Create("", *jwks);
  ASSERT_THAT(verifier, IsOk());
  absl::StatusOr<std::string> token = SignRs256(pem, "key-1", Claims(absl::Hours(1)));
  ASSERT_THAT(token, IsOk());
  EXPECT_THAT((*verifier)->Verify(*token, kNow), IsOk());
  // A key it does not know, another key under the same kid, HS256 when only RS256 is on.
  EXPECT_THAT((*verifier)->Verify(*SignRs256(pem, "key-2", Claims(absl::Hours(1))), kNow),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("unknown signing key")));
  EXPECT_THAT(
      (*verifier)->Verify(*SignRs256(NewRsaKeyPem(), "key-1", Claims(absl::Hours(1))), kNow),
      StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("bad signature")));
  EXPECT_THAT((*verifier)->Verify(*SignHs256(kSecret, Claims(absl::Hours(1))), kNow),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("algorithm not accepted")));
}

// A token for `claims` signed with kSecret, which every verifier below accepts.
std::string Signed(const Json& claims) { return *SignHs256(kSecret, claims); }

Json ClaimsWith(const char* name, Json value) {
  Json claims = Claims(absl::Hours(1));
  claims[name] = std::move(value);
  return claims;
}

// Expects `verifier` to refuse a token whose claim `name` is each of `values`, saying `why`.
void ExpectRefused(const JwtVerifier& verifier, const char* name, const std::vector<Json>& values,
                   const std::string& why) {
  for (const Json& value : values) {
    EXPECT_THAT(verifier.Verify(Signed(ClaimsWith(name, value)), kNow),
                StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr(why)))
        << name << "=" << value.dump();
  }
}

TEST(Jwt, TimeClaimsMustBeNumbersInASaneRange) {
  auto verifier = *JwtVerifier::Create(kSecret, "");
  for (const char* name : {"exp", "nbf", "iat"}) {
    ExpectRefused(*verifier, name, {"soon", true, Json::array({1}), Json::object(), nullptr},
                  std::string(name) + " is not a number");
    ExpectRefused(*verifier, name, {-1, -1e300, 1e300, 9.3e18, 18446744073709551615u, 1e19},
                  std::string(name) + " is out of range");
  }
  // Fractional NumericDates are legal (RFC 7519 section 2).
  EXPECT_THAT(verifier->Verify(Signed(ClaimsWith("exp", absl::ToUnixSeconds(kNow) + 60.5)), kNow),
              IsOk());
}

TEST(Jwt, IssuedAtInTheFutureIsRefusedBeyondTheLeeway) {
  auto verifier = *JwtVerifier::Create(kSecret, "");
  const int64_t now = absl::ToUnixSeconds(kNow);
  ExpectRefused(*verifier, "iat", {now + 3600}, "iat is in the future");
  EXPECT_THAT(verifier->Verify(Signed(ClaimsWith("iat", now + 10)), kNow), IsOk());
  EXPECT_THAT(verifier->Verify(Signed(ClaimsWith("iat", now - 3600)), kNow), IsOk());
}

TEST(Jwt, IssuerMustMatchWhenOneIsExpected) {
  auto verifier = *JwtVerifier::Create(kSecret, "", {.issuer = "https://sso.example.com"});
  EXPECT_THAT(verifier->Verify(Signed(ClaimsWith("iss", "https://sso.example.com")), kNow), IsOk());
  ExpectRefused(*verifier, "iss",
                {"https://evil.example.com", "https://sso.example.com/", 42,
                 Json::array({"https://sso.example.com"})},
                "iss is not the expected issuer");
  EXPECT_THAT(verifier->Verify(Signed(Claims(absl::Hours(1))), kNow),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("no iss claim")));
  // Without an expected issuer, any is accepted (the local issuer sets none).
  auto any = *JwtVerifier::Create(kSecret, "");
  EXPECT_THAT(any->Verify(Signed(ClaimsWith("iss", "https://anyone.example.com")), kNow), IsOk());
}

TEST(Jwt, AudienceMustBeNamedWhenOneIsExpected) {
  auto verifier = *JwtVerifier::Create(kSecret, "", {.audience = "assisted"});
  EXPECT_THAT(verifier->Verify(Signed(ClaimsWith("aud", "assisted")), kNow), IsOk());
  EXPECT_THAT(verifier->Verify(Signed(ClaimsWith("aud", Json::array({"other", "assisted"}))), kNow),
              IsOk());
  ExpectRefused(*verifier, "aud",
                {"other", Json::array({"other", "assisted-x"}), Json::array(), 7, Json::array({7})},
                "aud does not name the expected audience");
  EXPECT_THAT(verifier->Verify(Signed(Claims(absl::Hours(1))), kNow),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("no aud claim")));
  auto any = *JwtVerifier::Create(kSecret, "");
  EXPECT_THAT(any->Verify(Signed(ClaimsWith("aud", "whatever")), kNow), IsOk());
}

TEST(Jwt, RefusesBadKeys) {
  EXPECT_THAT(JwtVerifier::Create("short", ""), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(JwtVerifier::Create("", "not json"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(JwtVerifier::Create("", R"({"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no usable RSA key")));
  EXPECT_THAT(SignHs256("short", Claims(absl::Hours(1))),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SignRs256("not a key", "", Claims(absl::Hours(1))),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace assisted::gateway
