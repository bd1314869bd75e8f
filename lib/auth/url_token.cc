#include "lib/auth/url_token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace assisted::auth {
namespace {

constexpr uint8_t kVersion = 1;
constexpr size_t kPayloadSize = 1 + 16 + 4;
constexpr size_t kTagSize = 16;
constexpr size_t kMinKeySize = 32;

// 8-4-4-4-12 hex digits; dashes anywhere else would sign the UUID the digits spell, which is not
// the resource the caller named.
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

std::string Tag(absl::string_view key, absl::string_view payload) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(payload.data()), payload.size(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), kTagSize);
}

}  // namespace

absl::StatusOr<std::string> SignUrlToken(absl::string_view key, absl::string_view resource_id,
                                         absl::Time expires_at) {
  if (key.size() < kMinKeySize) {
    return absl::InvalidArgumentError(
        absl::StrCat("signing key: at least ", kMinKeySize, " bytes needed"));
  }
  absl::StatusOr<std::string> id = UuidBytes(resource_id);
  if (!id.ok()) return id.status();
  const int64_t seconds = absl::ToUnixSeconds(expires_at);
  if (seconds < 0 || seconds > UINT32_MAX) {
    return absl::InvalidArgumentError("expires_at: outside the 32-bit range");
  }
  std::string payload(1, static_cast<char>(kVersion));
  payload += *id;
  for (int shift = 24; shift >= 0; shift -= 8) {
    payload.push_back(static_cast<char>((static_cast<uint32_t>(seconds) >> shift) & 0xff));
  }
  return absl::WebSafeBase64Escape(payload + Tag(key, payload));
}

absl::StatusOr<UrlTokenClaims> VerifyUrlToken(absl::string_view key, absl::string_view token,
                                              absl::Time now) {
  std::string raw;
  if (token.size() > 64 || !absl::WebSafeBase64Unescape(token, &raw) ||
      raw.size() != kPayloadSize + kTagSize || static_cast<uint8_t>(raw[0]) != kVersion) {
    return absl::PermissionDeniedError("malformed download token");
  }
  const std::string payload = raw.substr(0, kPayloadSize);
  const std::string expected = Tag(key, payload);
  if (CRYPTO_memcmp(expected.data(), raw.data() + kPayloadSize, kTagSize) != 0) {
    return absl::PermissionDeniedError("download token signature does not match");
  }
  uint32_t seconds = 0;
  for (int i = 0; i < 4; ++i) seconds = (seconds << 8) | static_cast<uint8_t>(payload[17 + i]);
  UrlTokenClaims claims{UuidText(payload.substr(1, 16)), absl::FromUnixSeconds(seconds)};
  if (now >= claims.expires_at) {
    return absl::PermissionDeniedError(
        absl::StrCat("download token expired at ", absl::FormatTime(claims.expires_at)));
  }
  return claims;
}

}  // namespace assisted::auth
