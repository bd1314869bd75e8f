// File: fuzz/token_fuzzer.cc
//
// Purpose-bound tokens (lib/auth/token.h), which arrive in URL paths, query strings, headers and
// agent streams from anyone. A first byte chooses:
//   0  the rest is a token to verify, for every purpose (a guess or a tampered token);
//   1  "resource id\nexpiry seconds": signed, then verified: a token we sign must verify to
//      the canonical form of the same id and the same second, or be refused as expired, and
//      never as any other purpose;
//   2  16 bytes of UUID, 4 of expiry, then the index and the value of one byte to change in
//      the signed token: a token changed anywhere must not verify to other claims.
// The purpose of cases 1 and 2 is the next byte.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/time/time.h"
#include "fuzz/fuzz_input.h"
#include "lib/auth/token.h"

namespace {

using assisted::auth::SignToken;
using assisted::auth::TokenClaims;
using assisted::auth::TokenKey;
using assisted::auth::TokenPurpose;
using assisted::auth::VerifyToken;
using assisted::fuzz::FuzzInput;

constexpr char kServiceKey[] = "url-signing-key-for-fuzzing-32-bytes-long";
constexpr char kInfraEnvKey[] = "infra-env-signing-key-for-fuzzing";
constexpr TokenPurpose kPurposes[] = {TokenPurpose::kDownload, TokenPurpose::kRootfs,
                                      TokenPurpose::kAgent};
const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

TokenKey KeyFor(TokenPurpose purpose) {
  return {.service = kServiceKey, .infra_env = purpose == TokenPurpose::kAgent ? kInfraEnvKey : ""};
}

void SignThenVerify(TokenPurpose purpose, absl::string_view id, absl::Time expires_at) {
  absl::StatusOr<std::string> token = SignToken(KeyFor(purpose), purpose, id, expires_at);
  if (!token.ok()) return;
  if (token->size() != 50) std::abort();  // the documented length, which URLs are built for
  for (TokenPurpose other : kPurposes) {
    if (other != purpose && VerifyToken(KeyFor(other), other, *token, kNow).ok()) std::abort();
  }
  absl::StatusOr<TokenClaims> claims = VerifyToken(KeyFor(purpose), purpose, *token, kNow);
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
    case 0: {
      const std::string token(in.Rest());
      for (TokenPurpose purpose : kPurposes) {
        (void)VerifyToken(KeyFor(purpose), purpose, token, kNow);
      }
      break;
    }
    case 1: {
      const TokenPurpose purpose = kPurposes[in.Byte() % 3];
      const absl::string_view id = in.Line();
      int64_t seconds = 0;
      if (!absl::SimpleAtoi(in.Rest(), &seconds)) return 0;
      SignThenVerify(purpose, id, absl::FromUnixSeconds(seconds));
      break;
    }
    case 2: {
      const TokenPurpose purpose = kPurposes[in.Byte() % 3];
      std::string hex;
      for (int i = 0; i < 16; ++i) hex.push_back(static_cast<char>(in.Byte()));
      hex = absl::BytesToHexString(hex);
      const std::string id = hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) +
                             "-" + hex.substr(16, 4) + "-" + hex.substr(20);
      uint32_t seconds = 0;
      for (int i = 0; i < 4; ++i) seconds = (seconds << 8) | in.Byte();
      absl::StatusOr<std::string> token =
          SignToken(KeyFor(purpose), purpose, id, absl::FromUnixSeconds(seconds));
      if (!token.ok()) std::abort();  // every UUID and 32-bit expiry can be signed
      std::string tampered = *token;
      const size_t at = in.Byte() % tampered.size();
      const char replacement = static_cast<char>(in.Byte());
      if (replacement == tampered[at]) return 0;
      tampered[at] = replacement;
      absl::StatusOr<TokenClaims> claims = VerifyToken(KeyFor(purpose), purpose, tampered, kNow);
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
