// File: fuzz/jwt_fuzzer.cc
//
// Bearer tokens as the gateway verifies them (services/gateway/jwt.h). A first byte chooses:
//   0  the rest is the token, verbatim (an attacker's guess);
//   1  "header\npayload": both JSON texts, signed here with the verifier's HS256 secret, so
//      the header and claim checks (alg, kid, exp/nbf/iat ranges, iss, aud) see any JSON;
//   2  the rest is a claims document, signed RS256 with the key the verifier's JWKS publishes;
//   3  the rest is a JWKS document (--jwks-file), loaded, then a fixed RS256 token verified.
// A token that verifies must have an object of claims.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "fuzz/fuzz_input.h"
#include "nlohmann/json.hpp"
#include "openssl/evp.h"
#include "openssl/hmac.h"
#include "services/gateway/jwt.h"
#include "services/gateway/rsa_test_key.h"

namespace {

using assisted::fuzz::FuzzInput;
using assisted::gateway::JwtVerifier;

constexpr char kSecret[] = "fuzzing-secret-of-at-least-32-bytes!";
const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

struct Keys {
  std::string rsa_pem = assisted::gateway::NewRsaKeyPem();
  std::string jwks = *assisted::gateway::PublicJwks(rsa_pem, "k1");
  std::unique_ptr<JwtVerifier> verifier =
      *JwtVerifier::Create(kSecret, jwks, {.issuer = "https://issuer", .audience = "assisted"});
  std::string fixed_rs256 =
      *assisted::gateway::SignRs256(rsa_pem, "k1", {{"sub", "a"}, {"exp", 1'800'000'000}});
};

const Keys& TheKeys() {
  static const Keys* keys = new Keys();
  return *keys;
}

std::string B64(absl::string_view bytes) { return absl::WebSafeBase64Escape(bytes); }

std::string SignedHs256(absl::string_view header, absl::string_view payload) {
  const std::string input = absl::StrCat(B64(header), ".", B64(payload));
  unsigned char tag[EVP_MAX_MD_SIZE];
  unsigned int tag_size = 0;
  HMAC(EVP_sha256(), kSecret, sizeof(kSecret) - 1,
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), tag, &tag_size);
  return absl::StrCat(input, ".", B64(absl::string_view(reinterpret_cast<char*>(tag), tag_size)));
}

void Verify(const JwtVerifier& verifier, absl::string_view token) {
  absl::StatusOr<nlohmann::json> claims = verifier.Verify(token, kNow);
  if (claims.ok() && !claims->is_object()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Keys& keys = TheKeys();
  FuzzInput in(data, size);
  switch (in.Byte() % 4) {
    case 0:
      Verify(*keys.verifier, in.Rest());
      break;
    case 1: {
      const absl::string_view header = in.Line();
      Verify(*keys.verifier, SignedHs256(header, in.Rest()));
      break;
    }
    case 2: {
      const nlohmann::json claims = nlohmann::json::parse(in.Rest(), nullptr, false);
      if (claims.is_discarded()) break;
      absl::StatusOr<std::string> token = assisted::gateway::SignRs256(keys.rsa_pem, "k1", claims);
      if (token.ok()) Verify(*keys.verifier, *token);
      break;
    }
    case 3: {
      auto verifier = JwtVerifier::Create("", in.Rest());
      if (verifier.ok()) Verify(**verifier, keys.fixed_rs256);
      break;
    }
  }
  return 0;
}
