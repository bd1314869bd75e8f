// File: lib/auth/token.h
//
// Short signed tokens that scope a credential to one resource (an infra-env or a cluster) until a
// deadline, each made for ONE purpose: a token of one purpose never passes as another. Tokens
// travel where nothing but a URL or a short string fits (BMC virtual media and PXE firmware take
// a URL and no headers; many BMCs reject long URLs), so a token is 50 URL-safe characters and
// sits in a path segment ("/images/<token>/discovery.iso"): a byte naming the format and the
// purpose, the resource's UUID, a 32-bit expiry and a 128-bit HMAC-SHA256 tag.
//
// The tag's key is derived per purpose from the service's secret (and, for agent tokens, from
// the infra-env's own signing key too), and the purpose is inside the signed bytes: a download
// link cannot register a host, a rootfs URL read from a kernel command line cannot download the
// ISO (whose Ignition holds the agent token), and regenerating an infra-env's signing key
// invalidates every agent token of that infra-env at once.
//
//   ASSIGN_OR_RETURN(std::string token,
//                    SignToken({.service = key}, TokenPurpose::kDownload, id, now + ttl));
//   ASSIGN_OR_RETURN(TokenClaims claims,
//                    VerifyToken({.service = key}, TokenPurpose::kDownload, token, now));

#ifndef ASSISTED_LIB_AUTH_TOKEN_H_
#define ASSISTED_LIB_AUTH_TOKEN_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace assisted::auth {

enum class TokenPurpose {
  // Download links (ISO, PXE initrd and kernel, iPXE script): hours. Opens the discovery image,
  // whose Ignition holds the agent token, so it never goes on a kernel command line.
  kDownload = 1,
  // The rootfs URL on a live kernel command line (/proc/cmdline is readable on the host): opens
  // the rootfs, which holds nothing secret, and nothing else.
  kRootfs = 2,
  // An agent's credential (AgentService stream, the REST API's X-Secret-Key): lives as long as
  // the image it is baked into, revoked by regenerating the infra-env's signing key.
  kAgent = 3,
  // A presigned link to one cluster's files and credentials (the REST API's files-presigned and
  // credentials-presigned): minutes. Scoped to a cluster, not an infra-env; opens those two
  // download routes of that cluster and nothing else.
  kClusterDownload = 4,
};

// "download", "rootfs", "agent" or "cluster-download", for messages.
absl::string_view TokenPurposeName(TokenPurpose purpose);

// What signs and verifies a token.
struct TokenKey {
  // The service's secret (--url-signing-key-file), at least 32 bytes.
  absl::string_view service;
  // Agent tokens only (required for them, refused for the others): the infra-env's own signing
  // key (at least 16 bytes), which the inventory keeps and regenerates.
  absl::string_view infra_env;
};

// Signs "`resource_id` for `purpose` until `expires_at`". INVALID_ARGUMENT when resource_id is
// not a UUID, a key is too short, or key.infra_env is given for anything but an agent token (or
// missing for one).
absl::StatusOr<std::string> SignToken(const TokenKey& key, TokenPurpose purpose,
                                      absl::string_view resource_id, absl::Time expires_at);

struct TokenClaims {
  std::string resource_id;  // canonical lower-case UUID
  absl::Time expires_at;
};

// Checks the token's purpose, tag and expiry against `now`. PERMISSION_DENIED for a forged,
// altered or expired token, or one made for another purpose (the message says which, but never
// echoes secrets); INVALID_ARGUMENT for an unusable key.
absl::StatusOr<TokenClaims> VerifyToken(const TokenKey& key, TokenPurpose expected,
                                        absl::string_view token, absl::Time now);

// The purpose a well-formed token claims, before anything is verified: for choosing how to
// verify it, never for trusting it. PERMISSION_DENIED for a malformed token.
absl::StatusOr<TokenPurpose> ClaimedPurpose(absl::string_view token);

// Looks up the current signing key of an infra-env (NOT_FOUND for an unknown one).
using InfraEnvKeyLookup = std::function<absl::StatusOr<std::string>(const std::string&)>;

// Verifies an agent token against the current signing key of the infra-env it names: the
// well-formed token's infra-env is looked up with `lookup`, then VerifyToken(kAgent) decides.
// PERMISSION_DENIED as VerifyToken, also for an infra-env `lookup` does not know; other errors
// of `lookup` (UNAVAILABLE...) are returned as they are, since they say nothing of the token.
absl::StatusOr<TokenClaims> VerifyAgentToken(absl::string_view service_key,
                                             const InfraEnvKeyLookup& lookup,
                                             absl::string_view token, absl::Time now);

}  // namespace assisted::auth

#endif  // ASSISTED_LIB_AUTH_TOKEN_H_
