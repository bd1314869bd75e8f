// The identity provider's discovery document as the gateway reads it for the UI's sign-in:
// what it publishes, and every document it refuses to start with.

#include "services/gateway/oidc_sign_in.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::gateway {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using Json = nlohmann::json;

Json Discovery() {
  return {{"issuer", "https://sso.example.com/realms/lab"},
          {"authorization_endpoint", "https://sso.example.com/realms/lab/auth"},
          {"token_endpoint", "https://tokens.example.com:8443/realms/lab/token"},
          {"end_session_endpoint", "https://sso.example.com/realms/lab/logout"},
          {"jwks_uri", "https://sso.example.com/realms/lab/certs"},
          {"response_types_supported", {"code", "id_token"}},
          {"code_challenge_methods_supported", {"plain", "S256"}}};
}

absl::StatusOr<OidcSignIn> Parse(const Json& document, std::string expected_issuer = "") {
  return ParseOidcDiscovery(document.dump(), "assisted-ui", "openid profile", expected_issuer);
}

TEST(OidcSignIn, PublishesTheEndpointsTheClientAndTheCallbackRoute) {
  absl::StatusOr<OidcSignIn> sign_in = Parse(Discovery(), "https://sso.example.com/realms/lab");
  ASSERT_THAT(sign_in, IsOk());
  EXPECT_EQ(OidcSignInJson(*sign_in),
            Json({{"issuer", "https://sso.example.com/realms/lab"},
                  {"client_id", "assisted-ui"},
                  {"authorization_endpoint", "https://sso.example.com/realms/lab/auth"},
                  {"token_endpoint", "https://tokens.example.com:8443/realms/lab/token"},
                  {"end_session_endpoint", "https://sso.example.com/realms/lab/logout"},
                  {"scopes", "openid profile"},
                  {"redirect_path", "/oidc/callback"}}));
  EXPECT_EQ(OriginOf(sign_in->token_endpoint), "https://tokens.example.com:8443");
}

TEST(OidcSignIn, AProviderWithoutEndSessionSignsOutLocally) {
  Json document = Discovery();
  document.erase("end_session_endpoint");
  document.erase("code_challenge_methods_supported");  // not listed: assumed, as RFC 8414 allows
  absl::StatusOr<OidcSignIn> sign_in = Parse(document);
  ASSERT_THAT(sign_in, IsOk());
  EXPECT_FALSE(OidcSignInJson(*sign_in).contains("end_session_endpoint"));
}

TEST(OidcSignIn, PlainHttpOnlyOnLoopback) {
  Json document = Discovery();
  document["token_endpoint"] = "http://127.0.0.1:41234/token";
  document["authorization_endpoint"] = "http://[::1]:41234/authorize";
  ASSERT_THAT(Parse(document), IsOk());
  EXPECT_EQ(OriginOf("http://[::1]:41234/authorize"), "http://[::1]:41234");
  document["token_endpoint"] = "http://sso.example.com/token";
  EXPECT_THAT(Parse(document),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("token_endpoint must be https (http only on a loopback host)")));
}

TEST(OidcSignIn, RefusesDocumentsItCannotSignInWith) {
  struct Case {
    const char* what;
    Json document;
    const char* error;
  };
  const auto with = [](const char* field, Json value) {
    Json document = Discovery();
    document[field] = std::move(value);
    return document;
  };
  const auto without = [](const char* field) {
    Json document = Discovery();
    document.erase(field);
    return document;
  };
  const Case cases[] = {
      {"no token endpoint", without("token_endpoint"), "token_endpoint is missing"},
      {"no authorization endpoint", without("authorization_endpoint"),
       "authorization_endpoint is missing"},
      {"no issuer", without("issuer"), "issuer is missing"},
      {"relative", with("authorization_endpoint", "/auth"), "is not an absolute URL"},
      {"another scheme", with("token_endpoint", "javascript:alert(1)"), "not an absolute URL"},
      {"user information", with("token_endpoint", "https://u:p@sso.example.com/token"),
       "user information"},
      // Would extend the Content-Security-Policy the origin goes into.
      {"a directive in the host", with("token_endpoint", "https://sso.example.com;script-src"),
       "odd characters"},
      {"a fragment", with("authorization_endpoint", "https://sso.example.com/auth#x"), "fragment"},
      {"white space", with("authorization_endpoint", "https://sso.example.com/a b"), "white space"},
      {"not a string", with("token_endpoint", 42), "token_endpoint is not a string"},
      {"no code flow", with("response_types_supported", {"id_token"}), "does not list \"code\""},
      {"no S256", with("code_challenge_methods_supported", {"plain"}), "does not list S256"},
      {"a list that is not one", with("code_challenge_methods_supported", "S256"), "is not a list"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(Parse(c.document), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.error)))
        << c.what;
    EXPECT_THAT(Parse(c.document),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--oidc-discovery-file")))
        << c.what;
  }
  EXPECT_THAT(ParseOidcDiscovery("[1,2]", "assisted-ui", "openid", ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a JSON object")));
  EXPECT_THAT(ParseOidcDiscovery("{", "assisted-ui", "openid", ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a JSON object")));
}

TEST(OidcSignIn, TheIssuerMustBeTheOneTokensAreCheckedFor) {
  EXPECT_THAT(Parse(Discovery(), "https://other.example.com"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("not --jwt-issuer https://other.example.com")));
}

TEST(OidcSignIn, NeedsAClientIdAndTheOpenidScope) {
  const std::string document = Discovery().dump();
  EXPECT_THAT(ParseOidcDiscovery(document, "", "openid", ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--oidc-client-id")));
  EXPECT_THAT(ParseOidcDiscovery(document, "a b", "openid", ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--oidc-client-id")));
  EXPECT_THAT(ParseOidcDiscovery(document, "assisted-ui", "profile email", ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--oidc-scopes")));
  EXPECT_THAT(ParseOidcDiscovery(document, "assisted-ui", "openid \"x\"", ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--oidc-scopes")));
}

}  // namespace
}  // namespace assisted::gateway
