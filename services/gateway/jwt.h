// File: services/gateway/jwt.h
//
// JSON Web Tokens for user authentication (RFC 7519, compact JWS): HS256 with a shared secret
// (the local issuer used by tests, the demo and `aictl token issue`) and RS256 with the public
// keys of an external identity provider, read from a JWKS document (RFC 7517). Verification
// checks the signature with the key the header names, rejects every other algorithm ("none"
// included), and enforces exp (required), nbf and iat with a small clock leeway; each must be a
// number of seconds from 1970 to 9999 (anything else only probes for overflows). When the
// gateway is told which issuer and audience to expect, iss and aud must say so too.

#ifndef ASSISTED_SERVICES_GATEWAY_JWT_H_
#define ASSISTED_SERVICES_GATEWAY_JWT_H_

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace assisted::gateway {

// "header.payload.signature" for `claims` signed with HS256 and `secret` (>= 32 bytes).
absl::StatusOr<std::string> SignHs256(absl::string_view secret, const nlohmann::json& claims);

// The same signed with RS256 and a PEM private key; `kid` goes into the header when not empty.
absl::StatusOr<std::string> SignRs256(absl::string_view private_key_pem, absl::string_view kid,
                                      const nlohmann::json& claims);

// A JWKS document {"keys": [{"kty": "RSA", "kid", "n", "e", ...}]} holding the public half of a
// PEM private key, for tests and for publishing a local RS256 issuer's keys.
absl::StatusOr<std::string> PublicJwks(absl::string_view private_key_pem, absl::string_view kid);

// Claims a token must carry besides a valid signature and times; empty: not checked.
struct JwtExpectations {
  std::string issuer;    // "iss" must equal it
  std::string audience;  // "aud", a string or an array of strings, must name it
};

class JwtVerifier {
 public:
  // `hs256_secret` (empty: HS256 refused) and `jwks` (empty: RS256 refused). INVALID_ARGUMENT
  // for a secret shorter than 32 bytes or a JWKS document that does not parse; RSA keys in it
  // that are unusable are skipped, other key types ignored.
  static absl::StatusOr<std::unique_ptr<JwtVerifier>> Create(std::string hs256_secret,
                                                             absl::string_view jwks,
                                                             JwtExpectations expected = {});
  ~JwtVerifier();

  // The claims of a valid token. UNAUTHENTICATED (with a reason that never echoes the token)
  // for a malformed token, an unknown algorithm or key, a bad signature, a missing or past exp,
  // an nbf or iat in the future (all with `leeway`), a time claim that is not a number from
  // 1970 to 9999, or an iss or aud other than expected.
  absl::StatusOr<nlohmann::json> Verify(absl::string_view token, absl::Time now,
                                        absl::Duration leeway = absl::Seconds(30)) const;

 private:
  struct RsaKey;
  JwtVerifier() = default;
  absl::Status CheckExpectedClaims(const nlohmann::json& claims) const;

  std::string hs256_secret_;
  JwtExpectations expected_;
  absl::flat_hash_map<std::string, std::unique_ptr<RsaKey>> rsa_keys_;  // by kid
};

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_JWT_H_
