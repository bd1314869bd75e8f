// File: fuzz/url_token_fuzzer.cc
//
// Download tokens (lib/auth/url_token.h), which arrive in URL paths and query strings from
// anyone. A first byte chooses:
//   0  the rest is a token to verify (a guess or a tampered token);
//   1  "resource id\nexpiry seconds": signed, then verified: a token we sign must verify to
//      the canonical form of the same id and the same second, or be refused as expired;
//   2  16 bytes of UUID, 4 of expiry, then the index and the value of one byte to change in
//      the signed token: a token changed anywhere must not verify to other claims.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/time/time.h"
#include "fuzz/fuzz_input.h"
#include "lib/auth/url_token.h"

namespace {

using assisted::auth::SignUrlToken;
using assisted::auth::UrlTokenClaims;
using assisted::auth::VerifyUrlToken;
using assisted::fuzz::FuzzInput;

constexpr char kKey[] = "url-signing-key-for-fuzzing-32-bytes-long";
const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

void SignThenVerify(absl::string_view id, absl::Time expires_at) {
  absl::StatusOr<std::string> token = SignUrlToken(kKey, id, expires_at);
  if (!token.ok()) return;
  if (token->size() != 50) std::abort();  // the documented length, which URLs are built for
  absl::StatusOr<UrlTokenClaims> claims = VerifyUrlToken(kKey, *token, kNow);
  if (!claims.ok()) {
    if (expires_at > kNow) std::abort();  // a fresh token we signed was refused
    return;
  }
  if (claims->resource_id != absl::AsciiStrToLower(id)) std::abort();
  if (claims->expires_at != absl::FromUnixSeconds(absl::ToUnixSeconds(expires_at))) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  switch (in.Byte() % 3) {
    case 0:
      (void)VerifyUrlToken(kKey, in.Rest(), kNow);
      break;
    case 1: {
      const absl::string_view id = in.Line();
      int64_t seconds = 0;
      if (!absl::SimpleAtoi(in.Rest(), &seconds)) return 0;
      SignThenVerify(id, absl::FromUnixSeconds(seconds));
      break;
    }
    case 2: {
      std::string hex;
      for (int i = 0; i < 16; ++i) hex.push_back(static_cast<char>(in.Byte()));
      hex = absl::BytesToHexString(hex);
      const std::string id = hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) +
                             "-" + hex.substr(16, 4) + "-" + hex.substr(20);
      uint32_t seconds = 0;
      for (int i = 0; i < 4; ++i) seconds = (seconds << 8) | in.Byte();
      absl::StatusOr<std::string> token = SignUrlToken(kKey, id, absl::FromUnixSeconds(seconds));
      if (!token.ok()) std::abort();  // every UUID and 32-bit expiry can be signed
      std::string tampered = *token;
      const size_t at = in.Byte() % tampered.size();
      const char replacement = static_cast<char>(in.Byte());
      if (replacement == tampered[at]) return 0;
      tampered[at] = replacement;
      absl::StatusOr<UrlTokenClaims> claims = VerifyUrlToken(kKey, tampered, kNow);
      // Base64url's last character carries spare bits, so a change there may decode to the same
      // bytes; anything that verifies must still be exactly what was signed.
      if (claims.ok() &&
          (claims->resource_id != id || claims->expires_at != absl::FromUnixSeconds(seconds))) {
        std::abort();
      }
      break;
    }
  }
  return 0;
}
