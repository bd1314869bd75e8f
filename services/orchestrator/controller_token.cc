#include "services/orchestrator/controller_token.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/auth/token.h"

namespace assisted::orchestrator {
namespace {

// The purpose byte controller tokens carry (see the header: the derived key sets them apart).
constexpr auth::TokenPurpose kStoredPurpose = auth::TokenPurpose::kDownload;

std::string DeriveKey(absl::string_view signing_key) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), signing_key.data(), static_cast<int>(signing_key.size()),
       reinterpret_cast<const unsigned char*>(kControllerTokenPurpose),
       sizeof(kControllerTokenPurpose) - 1, digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

}  // namespace

ControllerTokens::ControllerTokens(absl::string_view signing_key) : key_(DeriveKey(signing_key)) {}

absl::StatusOr<std::string> ControllerTokens::Issue(absl::string_view cluster_id,
                                                    absl::Time now) const {
  return auth::SignToken({.service = key_}, kStoredPurpose, cluster_id,
                         now + kControllerTokenLifetime);
}

absl::StatusOr<std::string> ControllerTokens::Verify(absl::string_view token,
                                                     absl::Time now) const {
  if (token.empty()) {
    return absl::UnauthenticatedError("missing controller token (authorization: Bearer metadata)");
  }
  absl::StatusOr<auth::TokenClaims> claims =
      auth::VerifyToken({.service = key_}, kStoredPurpose, token, now);
  if (!claims.ok()) {
    return absl::UnauthenticatedError(
        absl::StrCat("invalid controller token: ", claims.status().message()));
  }
  return std::move(claims->resource_id);
}

std::string BearerToken(const grpc::ServerContextBase& context) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) return "";
  absl::string_view value(it->second.data(), it->second.size());
  if (!absl::ConsumePrefix(&value, "Bearer ")) return "";
  return std::string(value);
}

}  // namespace assisted::orchestrator
