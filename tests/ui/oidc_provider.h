// File: tests/ui/oidc_provider.h
//
// A small OpenID Connect identity provider for tests that sign in through a real browser, on a
// loopback port, with nothing external. It serves what a browser-based public client uses:
//   GET  /.well-known/openid-configuration   discovery (DiscoveryDocument())
//   GET  /jwks                               its RS256 public key (Jwks())
//   GET  /authorize                          the authorization code flow with PKCE (S256 only):
//                                            a login page with "Sign in as USER" and "Deny",
//                                            or, while its session cookie lasts, the code at once
//   POST /authorize                          the login page's answer
//   POST /token                              code + code_verifier -> access and ID tokens (RS256
//                                            JWTs: iss, aud = the client id, sub, username,
//                                            org_id, iat, exp, jti) and a refresh token,
//                                            readable cross-origin by the registered redirect
//                                            URI's origin only; grant_type=refresh_token with a
//                                            refresh token -> new ones (the old one is used up;
//                                            sign-out ends them all)
//   GET  /logout                             end session, back to post_logout_redirect_uri
// It checks what a strict provider checks (client id, exact redirect URI, S256 challenge and
// verifier, single-use codes that expire, state echoed) and refuses as RFC 6749 says: on the
// redirect (error=...) when the redirect URI is trusted, else with a 400 page or JSON error.
// Record() says what happened, so a test can tell a refused exchange from one never made.

#ifndef ASSISTED_TESTS_UI_OIDC_PROVIDER_H_
#define ASSISTED_TESTS_UI_OIDC_PROVIDER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/http/router.h"
#include "lib/http/server.h"

namespace assisted::testing {

struct OidcProviderOptions {
  std::string client_id = "assisted-ui";
  std::string user = "demo";  // sub and username of the tokens
  std::string org = "demo";   // org_id
  absl::Duration token_lifetime = absl::Hours(1);
};

class OidcProvider {
 public:
  // Makes its RSA key and starts serving on 127.0.0.1, a port the kernel picks.
  static absl::StatusOr<std::unique_ptr<OidcProvider>> Start(OidcProviderOptions options);
  ~OidcProvider();

  // "http://127.0.0.1:PORT": the issuer, and the base of every endpoint.
  std::string issuer() const;
  std::string DiscoveryDocument() const;
  std::string Jwks() const;

  // The client's one redirect URI (matched exactly); its origin may read token answers and is
  // where sign-out may return. Until it is set, every authorization request is refused.
  void RegisterRedirectUri(const std::string& uri);

  struct Record {
    int login_pages = 0;                // login pages shown (no session yet)
    int codes = 0;                      // codes issued
    int tokens = 0;                     // code exchanges that gave tokens
    int refreshes = 0;                  // refresh-token grants that gave tokens
    int sessions_ended = 0;             // sign-outs at /logout
    std::vector<std::string> refusals;  // every refusal's error and reason, in order
  };
  Record record() const;

 private:
  struct Code {
    std::string challenge;
    std::string redirect_uri;
    absl::Time expires;
  };
  OidcProvider() = default;
  absl::Status Register(http::Router& router);
  http::Response Authorize(const std::vector<std::pair<std::string, std::string>>& params,
                           const http::Request& request, bool answered);
  http::Response Token(const http::Request& request);
  // A fresh access, ID and refresh token, counted as a code exchange or a refresh.
  http::Response Tokens(bool refreshed);
  http::Response Logout(const http::Request& request);
  http::Response Refuse(int status, const std::string& error, const std::string& reason);
  std::string Sign(const std::string& kind) const;

  OidcProviderOptions options_;
  std::string key_pem_;
  std::string kid_ = "oidc-test-key";
  std::unique_ptr<http::HttpServer> server_;
  std::string issuer_;
  mutable absl::Mutex mu_;
  std::string redirect_uri_ ABSL_GUARDED_BY(mu_);
  std::string session_ ABSL_GUARDED_BY(mu_);  // the signed-in session's cookie value; "": none
  absl::flat_hash_map<std::string, Code> codes_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::string> refresh_tokens_ ABSL_GUARDED_BY(mu_);
  Record record_ ABSL_GUARDED_BY(mu_);
};

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_UI_OIDC_PROVIDER_H_
