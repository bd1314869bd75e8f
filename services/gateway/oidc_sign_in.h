// File: services/gateway/oidc_sign_in.h
//
// The web UI's sign-in through an external OpenID Connect identity provider: the authorization
// code flow with PKCE (RFC 7636, S256) of a public client, since a browser can hold no client
// secret. The gateway only tells the UI where to send the user and where to exchange the code
// (GET web-ui/config, progress_view.h); it never sees the code or the user's password. The
// provider's tokens then reach the REST API as bearer tokens and are checked like any other
// RS256 user token (--jwks-file, and --jwt-issuer / --jwt-audience when set).
//
// Configured with the provider's discovery document saved to a file, as its keys are
// (--jwks-file):
//   curl -fo oidc.json https://PROVIDER/.well-known/openid-configuration
//   assisted-gateway --jwks-file=jwks.json --oidc-discovery-file=oidc.json
//       --oidc-client-id=assisted-ui ...
// and a client the provider registered for the UI with the redirect URI
// https://GATEWAY/oidc/callback (kCallbackPath).
//
// The browser posts the code to the token endpoint itself, so the UI's Content-Security-Policy
// lets it connect to that one origin (OriginOf) besides its own.

#ifndef ASSISTED_SERVICES_GATEWAY_OIDC_SIGN_IN_H_
#define ASSISTED_SERVICES_GATEWAY_OIDC_SIGN_IN_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace assisted::gateway {

struct OidcSignIn {
  // The UI's route the provider sends the browser back to (register https://GATEWAY + this).
  static constexpr char kCallbackPath[] = "/oidc/callback";

  std::string issuer;
  std::string client_id;
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string end_session_endpoint;  // empty: the provider offers none; sign-out is local
  std::string scopes;                // space-separated, "openid" among them
};

// The sign-in described by the provider's discovery document `document` for `client_id`,
// asking for `scopes`. INVALID_ARGUMENT naming --oidc-discovery-file and the field when the
// document is not a JSON object; issuer, authorization_endpoint or token_endpoint is missing;
// an endpoint is not an absolute https URL (http only on a loopback host, as in tests) or has
// user information, a fragment, or characters outside a plain host[:port] in its authority;
// "code" is not among response_types_supported or S256 not among
// code_challenge_methods_supported (each when the document lists them); or the issuer is not
// `expected_issuer` (--jwt-issuer, when set). INVALID_ARGUMENT naming --oidc-client-id or
// --oidc-scopes for an empty client id, or scopes without "openid" or with characters a scope
// cannot have.
absl::StatusOr<OidcSignIn> ParseOidcDiscovery(absl::string_view document, std::string client_id,
                                              std::string scopes,
                                              absl::string_view expected_issuer);

// What the UI is told: {"issuer", "client_id", "authorization_endpoint", "token_endpoint",
// "scopes", "redirect_path"} and "end_session_endpoint" when there is one.
nlohmann::json OidcSignInJson(const OidcSignIn& sign_in);

// "scheme://host[:port]" of an absolute http(s) URL that ParseOidcDiscovery accepted.
std::string OriginOf(absl::string_view url);

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_OIDC_SIGN_IN_H_
