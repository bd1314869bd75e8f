#include "services/gateway/jwt.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>

#include <algorithm>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/status/status_macros.h"

namespace assisted::gateway {
namespace {

using Json = nlohmann::json;

constexpr size_t kMinSecretBytes = 32;

struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

absl::Status Unauthenticated(absl::string_view why) {
  return absl::UnauthenticatedError(absl::StrCat("invalid bearer token: ", why));
}

std::string B64(absl::string_view bytes) { return absl::WebSafeBase64Escape(bytes); }

std::string Hs256(absl::string_view secret, absl::string_view input) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &length);
  return std::string(reinterpret_cast<char*>(mac), length);
}

absl::StatusOr<Pkey> ReadPrivateKey(absl::string_view pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return absl::ResourceExhaustedError("out of memory");
  Pkey key(PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  if (key == nullptr) return absl::InvalidArgumentError("private key: not a PEM private key");
  return key;
}

std::string Header(absl::string_view alg, absl::string_view kid) {
  Json header = {{"alg", alg}, {"typ", "JWT"}};
  if (!kid.empty()) header["kid"] = kid;
  return header.dump();
}

std::string BignumBytes(const BIGNUM* bn) {
  std::string bytes(BN_num_bytes(bn), '\0');
  BN_bn2bin(bn, reinterpret_cast<unsigned char*>(bytes.data()));
  return bytes;
}

// An RSA public key from the base64url modulus and exponent of a JWK.
Pkey RsaFromJwk(const std::string& n64, const std::string& e64) {
  std::string n, e;
  if (!absl::WebSafeBase64Unescape(n64, &n) || !absl::WebSafeBase64Unescape(e64, &e) ||
      n.size() < 256) {  // at least 2048-bit moduli
    return nullptr;
  }
  BIGNUM* bn_n = BN_bin2bn(reinterpret_cast<const unsigned char*>(n.data()), n.size(), nullptr);
  BIGNUM* bn_e = BN_bin2bn(reinterpret_cast<const unsigned char*>(e.data()), e.size(), nullptr);
  OSSL_PARAM_BLD* build = OSSL_PARAM_BLD_new();
  OSSL_PARAM* params = nullptr;
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr);
  if (bn_n != nullptr && bn_e != nullptr && build != nullptr && ctx != nullptr &&
      OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_N, bn_n) == 1 &&
      OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_E, bn_e) == 1 &&
      (params = OSSL_PARAM_BLD_to_param(build)) != nullptr && EVP_PKEY_fromdata_init(ctx) == 1) {
    if (EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) key = nullptr;
  }
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  OSSL_PARAM_BLD_free(build);
  BN_free(bn_n);
  BN_free(bn_e);
  return Pkey(key);
}

absl::StatusOr<Json> DecodeSegment(absl::string_view segment, absl::string_view what) {
  std::string text;
  if (!absl::WebSafeBase64Unescape(segment, &text))
    return Unauthenticated(absl::StrCat(what, " is not base64url"));
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return Unauthenticated(absl::StrCat(what, " is not a JSON object"));
  }
  return json;
}

// The last second of 9999 (UTC). Real tokens carry times of this century; values beyond (or
// before 1970) only probe for overflows in the conversion, which is undefined behaviour.
constexpr double kLatestNumericDate = 253402300799;

// A NumericDate claim (seconds since 1970, fractions allowed), when present; error when present
// but not a number, or out of range.
absl::StatusOr<absl::optional<absl::Time>> TimeClaim(const Json& claims, const char* name) {
  auto claim = claims.find(name);
  if (claim == claims.end()) return absl::optional<absl::Time>();
  if (!claim->is_number()) return Unauthenticated(absl::StrCat(name, " is not a number"));
  const double seconds = claim->get<double>();
  if (!(seconds >= 0 && seconds <= kLatestNumericDate)) {
    return Unauthenticated(absl::StrCat(name, " is out of range"));
  }
  return absl::optional<absl::Time>(absl::UnixEpoch() + absl::Seconds(seconds));
}

// Whether `audience` is the aud claim or one of its strings.
bool NamesAudience(const Json& aud, const std::string& audience) {
  if (aud.is_string()) return aud.get_ref<const std::string&>() == audience;
  if (!aud.is_array()) return false;
  return std::any_of(aud.begin(), aud.end(), [&](const Json& one) {
    return one.is_string() && one.get_ref<const std::string&>() == audience;
  });
}

}  // namespace

struct JwtVerifier::RsaKey {
  Pkey key;
};

JwtVerifier::~JwtVerifier() = default;

absl::StatusOr<std::string> SignHs256(absl::string_view secret, const Json& claims) {
  if (secret.size() < kMinSecretBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("HS256 secret: needs at least ", kMinSecretBytes, " bytes"));
  }
  const std::string input = absl::StrCat(B64(Header("HS256", "")), ".", B64(claims.dump()));
  return absl::StrCat(input, ".", B64(Hs256(secret, input)));
}

absl::StatusOr<std::string> SignRs256(absl::string_view private_key_pem, absl::string_view kid,
                                      const Json& claims) {
  ASSIGN_OR_RETURN(Pkey key, ReadPrivateKey(private_key_pem));
  const std::string input = absl::StrCat(B64(Header("RS256", kid)), ".", B64(claims.dump()));
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  size_t length = 0;
  std::string signature;
  bool ok = ctx != nullptr &&
            EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, key.get()) == 1 &&
            EVP_DigestSign(ctx, nullptr, &length,
                           reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
  if (ok) {
    signature.resize(length);
    ok = EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(signature.data()), &length,
                        reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
    signature.resize(length);
  }
  EVP_MD_CTX_free(ctx);
  if (!ok) return absl::InvalidArgumentError("private key: cannot sign RS256 (not an RSA key?)");
  return absl::StrCat(input, ".", B64(signature));
}

absl::StatusOr<std::string> PublicJwks(absl::string_view private_key_pem, absl::string_view kid) {
  ASSIGN_OR_RETURN(Pkey key, ReadPrivateKey(private_key_pem));
  BIGNUM* n = nullptr;
  BIGNUM* e = nullptr;
  if (EVP_PKEY_get_bn_param(key.get(), OSSL_PKEY_PARAM_RSA_N, &n) != 1 ||
      EVP_PKEY_get_bn_param(key.get(), OSSL_PKEY_PARAM_RSA_E, &e) != 1) {
    BN_free(n);
    BN_free(e);
    return absl::InvalidArgumentError("private key: not an RSA key");
  }
  Json jwk = {{"kty", "RSA"}, {"alg", "RS256"},           {"use", "sig"},
              {"kid", kid},   {"n", B64(BignumBytes(n))}, {"e", B64(BignumBytes(e))}};
  BN_free(n);
  BN_free(e);
  return Json{{"keys", Json::array({jwk})}}.dump();
}

absl::StatusOr<std::unique_ptr<JwtVerifier>> JwtVerifier::Create(std::string hs256_secret,
                                                                 absl::string_view jwks,
                                                                 JwtExpectations expected) {
  std::unique_ptr<JwtVerifier> verifier(new JwtVerifier());
  verifier->expected_ = std::move(expected);
  if (!hs256_secret.empty() && hs256_secret.size() < kMinSecretBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("HS256 secret: needs at least ", kMinSecretBytes, " bytes"));
  }
  verifier->hs256_secret_ = std::move(hs256_secret);
  if (jwks.empty()) return verifier;
  Json document = Json::parse(jwks.begin(), jwks.end(), nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object() || !document.contains("keys") ||
      !document["keys"].is_array()) {
    return absl::InvalidArgumentError("JWKS: expected {\"keys\": [...]}");
  }
  for (const Json& jwk : document["keys"]) {
    if (!jwk.is_object() || jwk.value("kty", Json()) != "RSA" || !jwk.contains("n") ||
        !jwk.contains("e") || !jwk["n"].is_string() || !jwk["e"].is_string()) {
      continue;
    }
    std::string kid =
        jwk.contains("kid") && jwk["kid"].is_string() ? jwk["kid"].get<std::string>() : "";
    Pkey key = RsaFromJwk(jwk["n"].get<std::string>(), jwk["e"].get<std::string>());
    if (key == nullptr) continue;
    verifier->rsa_keys_[kid] = std::make_unique<RsaKey>(RsaKey{std::move(key)});
  }
  if (verifier->rsa_keys_.empty()) return absl::InvalidArgumentError("JWKS: no usable RSA key");
  return verifier;
}

absl::StatusOr<Json> JwtVerifier::Verify(absl::string_view token, absl::Time now,
                                         absl::Duration leeway) const {
  std::vector<absl::string_view> parts = absl::StrSplit(token, '.');
  if (parts.size() != 3 || parts[0].empty() || parts[1].empty()) {
    return Unauthenticated("not a compact JWS");
  }
  ASSIGN_OR_RETURN(Json header, DecodeSegment(parts[0], "header"));
  std::string signature;
  if (!absl::WebSafeBase64Unescape(parts[2], &signature)) {
    return Unauthenticated("signature is not base64url");
  }
  const std::string input = absl::StrCat(parts[0], ".", parts[1]);
  const Json alg = header.value("alg", Json());
  if (alg == "HS256" && !hs256_secret_.empty()) {
    const std::string expected = Hs256(hs256_secret_, input);
    if (signature.size() != expected.size() ||
        CRYPTO_memcmp(signature.data(), expected.data(), expected.size()) != 0) {
      return Unauthenticated("bad signature");
    }
  } else if (alg == "RS256" && !rsa_keys_.empty()) {
    std::string kid;
    if (header.contains("kid")) {
      if (!header["kid"].is_string()) return Unauthenticated("kid is not a string");
      kid = header["kid"].get<std::string>();
    }
    auto it = rsa_keys_.find(kid);
    if (it == rsa_keys_.end() && kid.empty() && rsa_keys_.size() == 1) it = rsa_keys_.begin();
    if (it == rsa_keys_.end()) return Unauthenticated("unknown signing key");
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    const bool ok =
        ctx != nullptr &&
        EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, it->second->key.get()) == 1 &&
        EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature.data()),
                         signature.size(), reinterpret_cast<const unsigned char*>(input.data()),
                         input.size()) == 1;
    EVP_MD_CTX_free(ctx);
    if (!ok) return Unauthenticated("bad signature");
  } else {
    return Unauthenticated("algorithm not accepted");
  }
  ASSIGN_OR_RETURN(Json claims, DecodeSegment(parts[1], "payload"));
  ASSIGN_OR_RETURN(absl::optional<absl::Time> exp, TimeClaim(claims, "exp"));
  ASSIGN_OR_RETURN(absl::optional<absl::Time> nbf, TimeClaim(claims, "nbf"));
  ASSIGN_OR_RETURN(absl::optional<absl::Time> iat, TimeClaim(claims, "iat"));
  if (!exp.has_value()) return Unauthenticated("no exp claim");
  if (now > *exp + leeway) return Unauthenticated("expired");
  if (nbf.has_value() && now + leeway < *nbf) return Unauthenticated("not valid yet (nbf)");
  // A token issued in the future comes from a skewed or forged issuer.
  if (iat.has_value() && now + leeway < *iat) return Unauthenticated("iat is in the future");
  RETURN_IF_ERROR(CheckExpectedClaims(claims));
  return claims;
}

absl::Status JwtVerifier::CheckExpectedClaims(const Json& claims) const {
  if (!expected_.issuer.empty()) {
    auto iss = claims.find("iss");
    if (iss == claims.end()) return Unauthenticated("no iss claim");
    if (!iss->is_string() || iss->get_ref<const std::string&>() != expected_.issuer) {
      return Unauthenticated("iss is not the expected issuer");
    }
  }
  if (!expected_.audience.empty()) {
    auto aud = claims.find("aud");
    if (aud == claims.end()) return Unauthenticated("no aud claim");
    if (!NamesAudience(*aud, expected_.audience)) {
      return Unauthenticated("aud does not name the expected audience");
    }
  }
  return absl::OkStatus();
}

}  // namespace assisted::gateway
