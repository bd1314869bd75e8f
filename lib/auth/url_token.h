// File: lib/auth/url_token.h
//
// Short signed tokens that put a URL in the scope of one resource until a deadline, for download
// links handed to machines: BMC virtual media and PXE firmware take a URL and nothing else (no
// headers), and many BMCs reject long URLs. A token is 50 URL-safe characters: the resource's
// UUID, a 32-bit expiry and a 128-bit HMAC-SHA256 tag, so it can sit in a path segment
// ("/images/<token>/discovery.iso").

#ifndef ASSISTED_LIB_AUTH_URL_TOKEN_H_
#define ASSISTED_LIB_AUTH_URL_TOKEN_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace assisted::auth {

// Signs "`resource_id` until `expires_at`" with `key` (at least 32 bytes of secret).
// INVALID_ARGUMENT when resource_id is not a UUID or the key is too short.
absl::StatusOr<std::string> SignUrlToken(absl::string_view key, absl::string_view resource_id,
                                         absl::Time expires_at);

struct UrlTokenClaims {
  std::string resource_id;  // canonical lower-case UUID
  absl::Time expires_at;
};

// Checks the tag and the expiry against `now`. PERMISSION_DENIED for a forged, altered or
// expired token (the message says which, but never echoes secrets).
absl::StatusOr<UrlTokenClaims> VerifyUrlToken(absl::string_view key, absl::string_view token,
                                              absl::Time now);

}  // namespace assisted::auth

#endif  // ASSISTED_LIB_AUTH_URL_TOKEN_H_
