#include "lib/auth/token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace assisted::auth {
namespace {

// The first byte: format 2 in the high nibble, the purpose in the low one. Format 1 tokens
// (no purpose) are refused like any malformed token.
constexpr uint8_t kFormat = 0x20;
constexpr size_t kPayloadSize = 1 + 16 + 4;
constexpr size_t kTagSize = 16;
constexpr size_t kMinServiceKeySize = 32;
constexpr size_t kMinInfraEnvKeySize = 16;
// Base64 of kPayloadSize + kTagSize bytes, unpadded.
constexpr size_t kTokenSize = 50;

// Dashes only where a UUID has them: dropping them wherever they stood signed
// "0a8c8a6e-0c55-4c9a-9ad-97bd51e0f2a11" as another UUID (found by fuzz/url_token_fuzzer).
absl::StatusOr<std::string> UuidBytes(absl::string_view uuid) {
  std::string hex;
  bool valid = uuid.size() == 36;
  for (size_t i = 0; valid && i < uuid.size(); ++i) {
    const bool dash_here = i == 8 || i == 13 || i == 18 || i == 23;
    valid = dash_here ? uuid[i] == '-' : absl::ascii_isxdigit(uuid[i]);
    if (!dash_here) hex.push_back(uuid[i]);
  }
  if (!valid) return absl::InvalidArgumentError(absl::StrCat("\"", uuid, "\" is not a UUID"));
  return absl::HexStringToBytes(hex);
}

std::string UuidText(absl::string_view bytes) {
  const std::string hex = absl::BytesToHexString(bytes);
  return absl::StrCat(hex.substr(0, 8), "-", hex.substr(8, 4), "-", hex.substr(12, 4), "-",
                      hex.substr(16, 4), "-", hex.substr(20));
}

std::string Hmac(absl::string_view key, absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

bool IsPurpose(uint8_t value) {
  return value >= static_cast<uint8_t>(TokenPurpose::kDownload) &&
         value <= static_cast<uint8_t>(TokenPurpose::kClusterDownload);
}

// The key that tags tokens of `purpose`: one per purpose (and per infra-env key), so that even
// a bug that skipped the purpose byte could not make one kind verify as another.
absl::StatusOr<std::string> TagKey(const TokenKey& key, TokenPurpose purpose) {
  if (key.service.size() < kMinServiceKeySize) {
    return absl::InvalidArgumentError(
        absl::StrCat("signing key: at least ", kMinServiceKeySize, " bytes needed"));
  }
  if (purpose == TokenPurpose::kAgent && key.infra_env.size() < kMinInfraEnvKeySize) {
    return absl::InvalidArgumentError(
        absl::StrCat("agent tokens need the infra-env's signing key (at least ",
                     kMinInfraEnvKeySize, " bytes)"));
  }
  if (purpose != TokenPurpose::kAgent && !key.infra_env.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("an infra-env's signing key signs agent tokens only, not ",
                     TokenPurposeName(purpose), " tokens"));
  }
  // NUL separators: purpose names hold none, so no two inputs derive from the same bytes.
  return Hmac(key.service,
              absl::StrCat("assisted token v2", std::string(1, '\0'), TokenPurposeName(purpose),
                           std::string(1, '\0'), key.infra_env));
}

// A token taken apart, before its tag is checked.
struct Parsed {
  std::string raw;  // payload + tag
  uint8_t purpose = 0;
  std::string resource_id;
  absl::Time expires_at;
};

absl::StatusOr<Parsed> Parse(absl::string_view token) {
  Parsed parsed;
  if (token.size() != kTokenSize || !absl::WebSafeBase64Unescape(token, &parsed.raw) ||
      parsed.raw.size() != kPayloadSize + kTagSize ||
      (static_cast<uint8_t>(parsed.raw[0]) & 0xf0) != kFormat ||
      !IsPurpose(static_cast<uint8_t>(parsed.raw[0]) & 0x0f)) {
    return absl::PermissionDeniedError("malformed token");
  }
  parsed.purpose = static_cast<uint8_t>(parsed.raw[0]) & 0x0f;
  parsed.resource_id = UuidText(absl::string_view(parsed.raw).substr(1, 16));
  uint32_t seconds = 0;
  for (int i = 0; i < 4; ++i) seconds = (seconds << 8) | static_cast<uint8_t>(parsed.raw[17 + i]);
  parsed.expires_at = absl::FromUnixSeconds(seconds);
  return parsed;
}

absl::Status WrongPurpose(TokenPurpose actual, TokenPurpose expected) {
  return absl::PermissionDeniedError(absl::StrCat("wrong kind of token (", TokenPurposeName(actual),
                                                  ", expected ", TokenPurposeName(expected), ")"));
}

}  // namespace

absl::string_view TokenPurposeName(TokenPurpose purpose) {
  switch (purpose) {
    case TokenPurpose::kDownload:
      return "download";
    case TokenPurpose::kRootfs:
      return "rootfs";
    case TokenPurpose::kAgent:
      return "agent";
    case TokenPurpose::kClusterDownload:
      return "cluster-download";
  }
  return "unknown";
}

absl::StatusOr<TokenPurpose> ClaimedPurpose(absl::string_view token) {
  absl::StatusOr<Parsed> parsed = Parse(token);
  if (!parsed.ok()) return parsed.status();
  return static_cast<TokenPurpose>(parsed->purpose);
}

absl::StatusOr<std::string> SignToken(const TokenKey& key, TokenPurpose purpose,
                                      absl::string_view resource_id, absl::Time expires_at) {
  absl::StatusOr<std::string> tag_key = TagKey(key, purpose);
  if (!tag_key.ok()) return tag_key.status();
  absl::StatusOr<std::string> id = UuidBytes(resource_id);
  if (!id.ok()) return id.status();
  const int64_t seconds = absl::ToUnixSeconds(expires_at);
  if (seconds < 0 || seconds > UINT32_MAX) {
    return absl::InvalidArgumentError("expires_at: outside the 32-bit range");
  }
  std::string payload(1, static_cast<char>(kFormat | static_cast<uint8_t>(purpose)));
  payload += *id;
  for (int shift = 24; shift >= 0; shift -= 8) {
    payload.push_back(static_cast<char>((static_cast<uint32_t>(seconds) >> shift) & 0xff));
  }
  return absl::WebSafeBase64Escape(payload + Hmac(*tag_key, payload).substr(0, kTagSize));
}

absl::StatusOr<TokenClaims> VerifyToken(const TokenKey& key, TokenPurpose expected,
                                        absl::string_view token, absl::Time now) {
  absl::StatusOr<std::string> tag_key = TagKey(key, expected);
  if (!tag_key.ok()) return tag_key.status();
  absl::StatusOr<Parsed> parsed = Parse(token);
  if (!parsed.ok()) return parsed.status();
  if (parsed->purpose != static_cast<uint8_t>(expected)) {
    return WrongPurpose(static_cast<TokenPurpose>(parsed->purpose), expected);
  }
  const std::string tag = Hmac(*tag_key, absl::string_view(parsed->raw).substr(0, kPayloadSize));
  if (CRYPTO_memcmp(tag.data(), parsed->raw.data() + kPayloadSize, kTagSize) != 0) {
    return absl::PermissionDeniedError("token signature does not match");
  }
  if (now >= parsed->expires_at) {
    return absl::PermissionDeniedError(
        absl::StrCat("token expired at ", absl::FormatTime(parsed->expires_at)));
  }
  return TokenClaims{std::move(parsed->resource_id), parsed->expires_at};
}

absl::StatusOr<TokenClaims> VerifyAgentToken(absl::string_view service_key,
                                             const InfraEnvKeyLookup& lookup,
                                             absl::string_view token, absl::Time now) {
  absl::StatusOr<Parsed> parsed = Parse(token);
  if (!parsed.ok()) return parsed.status();
  // Only an agent token is worth a look-up.
  if (parsed->purpose != static_cast<uint8_t>(TokenPurpose::kAgent)) {
    return WrongPurpose(static_cast<TokenPurpose>(parsed->purpose), TokenPurpose::kAgent);
  }
  absl::StatusOr<std::string> infra_env_key = lookup(parsed->resource_id);
  if (absl::IsNotFound(infra_env_key.status())) {
    return absl::PermissionDeniedError(
        absl::StrCat("the token's infra-env ", parsed->resource_id, " does not exist"));
  }
  if (!infra_env_key.ok()) return infra_env_key.status();
  return VerifyToken({.service = service_key, .infra_env = *infra_env_key}, TokenPurpose::kAgent,
                     token, now);
}

}  // namespace assisted::auth
