#include "services/gateway/auth.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/auth/token.h"
#include "lib/status/status_macros.h"
#include "lib/text/utf8.h"

namespace assisted::gateway {
namespace {

constexpr char kCredentialsRequired[] =
    "authentication required: Authorization: Bearer <token>, X-Secret-Key or Image-Token";

// A claim's string value, or "".
std::string StringClaim(const nlohmann::json& claims, const char* name) {
  if (!claims.contains(name) || !claims[name].is_string()) return "";
  return claims[name].get<std::string>();
}

// A name claim travels on as call metadata and into logs and events. Any letters are fine
// (metadata carries them encoded), but a control character ("\r\n" included) has no place in a
// name and only serves to forge log lines or headers: such a token is refused.
absl::Status CheckNameClaim(absl::string_view value, absl::string_view claim) {
  if (text::IsPrintableUtf8(value)) return absl::OkStatus();
  return absl::UnauthenticatedError(absl::StrCat(
      "invalid bearer token: the ", claim, " claim contains a control character or is not UTF-8"));
}

// The principal of an agent or image token: agent tokens are checked against their infra-env's
// current signing key, image tokens are download tokens. A bad token is UNAUTHENTICATED; a key
// that could not be read (inventory down) keeps its own code, since it says nothing of the
// token.
absl::StatusOr<Principal> ScopedToken(const AuthOptions& options, absl::string_view token,
                                      Principal::Kind kind, absl::Time now) {
  const bool agent = kind == Principal::Kind::kAgent;
  const char* what = agent ? "agent token" : "image token";
  if (options.url_signing_key.empty() || (agent && !options.infra_env_signing_key)) {
    return absl::UnauthenticatedError(absl::StrCat(what, "s are not accepted"));
  }
  absl::StatusOr<auth::TokenClaims> claims =
      agent ? auth::VerifyAgentToken(options.url_signing_key, options.infra_env_signing_key, token,
                                     now)
            : auth::VerifyToken({.service = options.url_signing_key}, auth::TokenPurpose::kDownload,
                                token, now);
  if (absl::IsPermissionDenied(claims.status())) {
    return absl::UnauthenticatedError(
        absl::StrCat("invalid ", what, ": ", claims.status().message()));
  }
  if (!claims.ok()) return claims.status();
  Principal principal;
  principal.kind = kind;
  principal.infra_env_id = claims->resource_id;
  return principal;
}

// The principal of a cluster download link this gateway signed.
absl::StatusOr<Principal> ClusterLinkToken(const AuthOptions& options, absl::string_view token,
                                           absl::Time now) {
  if (options.url_signing_key.empty()) {
    return absl::UnauthenticatedError("cluster download links are not accepted");
  }
  absl::StatusOr<auth::TokenClaims> claims = auth::VerifyToken(
      {.service = options.url_signing_key}, auth::TokenPurpose::kClusterDownload, token, now);
  if (!claims.ok()) {
    return absl::UnauthenticatedError(
        absl::StrCat("invalid cluster download link: ", claims.status().message()));
  }
  Principal principal;
  principal.kind = Principal::Kind::kClusterLink;
  principal.cluster_id = claims->resource_id;
  return principal;
}

}  // namespace

absl::StatusOr<Authenticator::ClusterLink> Authenticator::SignClusterLink(
    const std::string& cluster_id, absl::Time now) const {
  if (options_.url_signing_key.empty()) {
    return absl::FailedPreconditionError(
        "presigned links need a URL signing key (--url-signing-key-file)");
  }
  const absl::Time expires_at = now + kClusterLinkLife;
  ASSIGN_OR_RETURN(std::string token,
                   auth::SignToken({.service = options_.url_signing_key},
                                   auth::TokenPurpose::kClusterDownload, cluster_id, expires_at));
  return ClusterLink{std::move(token), expires_at};
}

absl::StatusOr<std::unique_ptr<Authenticator>> Authenticator::Create(AuthOptions options) {
  std::unique_ptr<Authenticator> authenticator(new Authenticator());
  if (options.enabled) {
    ASSIGN_OR_RETURN(authenticator->jwt_,
                     JwtVerifier::Create(options.hs256_secret, options.jwks, options.expected));
  }
  authenticator->options_ = std::move(options);
  return authenticator;
}

absl::StatusOr<Principal> Authenticator::Authenticate(const http::Request& request,
                                                      absl::Time now) const {
  if (!options_.enabled) return Principal{};
  if (absl::optional<absl::string_view> header = request.headers.Get("Authorization")) {
    absl::string_view value = absl::StripAsciiWhitespace(*header);
    // "Bearer <token>" (any case), or the bare token as aicli sends it (upstream's Python client
    // puts the api key in the header without a prefix).
    if (value.size() > 7 && absl::StartsWithIgnoreCase(value, "Bearer ")) value.remove_prefix(7);
    ASSIGN_OR_RETURN(nlohmann::json claims, jwt_->Verify(absl::StripAsciiWhitespace(value), now));
    Principal principal;
    principal.kind = Principal::Kind::kUser;
    const char* user_claim = "username";
    principal.identity.user = StringClaim(claims, user_claim);
    if (principal.identity.user.empty()) {
      user_claim = "sub";
      principal.identity.user = StringClaim(claims, user_claim);
    }
    principal.identity.org = StringClaim(claims, "org_id");
    if (principal.identity.user.empty()) {
      return absl::UnauthenticatedError("invalid bearer token: no username or sub claim");
    }
    RETURN_IF_ERROR(CheckNameClaim(principal.identity.user, user_claim));
    RETURN_IF_ERROR(CheckNameClaim(principal.identity.org, "org_id"));
    return principal;
  }
  if (absl::optional<absl::string_view> agent = request.headers.Get("X-Secret-Key")) {
    return ScopedToken(options_, *agent, Principal::Kind::kAgent, now);
  }
  absl::optional<absl::string_view> image = request.headers.Get("Image-Token");
  if (!image) image = request.Query("image_token");
  if (!image) image = request.Query("api_key");
  if (image) {
    // Both kinds travel in the URL; the purpose the token claims picks how it is verified (and
    // the verification checks that claim).
    absl::StatusOr<auth::TokenPurpose> claimed = auth::ClaimedPurpose(*image);
    if (claimed.ok() && *claimed == auth::TokenPurpose::kClusterDownload) {
      return ClusterLinkToken(options_, *image, now);
    }
    return ScopedToken(options_, *image, Principal::Kind::kImage, now);
  }
  if (!options_.read_only_cluster_id.empty()) {
    Principal viewer;
    viewer.kind = Principal::Kind::kViewer;
    viewer.cluster_id = options_.read_only_cluster_id;
    return viewer;
  }
  return absl::UnauthenticatedError(kCredentialsRequired);
}

absl::Status Authenticator::Authorize(const Principal& principal, Access access,
                                      const http::Request& request) {
  switch (principal.kind) {
    case Principal::Kind::kSystem:
    case Principal::Kind::kUser:
      return absl::OkStatus();
    case Principal::Kind::kViewer:
      // Exactly what a caller without credentials hears where there is no viewer.
      return absl::UnauthenticatedError(kCredentialsRequired);
    case Principal::Kind::kClusterLink: {
      if (access != Access::kClusterLink) {
        return absl::PermissionDeniedError(
            "cluster download links may not use this endpoint; it needs a user token");
      }
      const absl::string_view cluster_id = request.Param("cluster_id");
      if (cluster_id.empty() || !absl::EqualsIgnoreCase(cluster_id, principal.cluster_id)) {
        return absl::NotFoundError(absl::StrCat("cluster ", cluster_id, " not found"));
      }
      return absl::OkStatus();
    }
    case Principal::Kind::kAgent:
    case Principal::Kind::kImage:
      break;
  }
  const bool allowed_kind = access == Access::kPublic || access == Access::kAgentOrImage ||
                            (access == Access::kAgent && principal.kind == Principal::Kind::kAgent);
  if (!allowed_kind) {
    return absl::PermissionDeniedError(
        principal.kind == Principal::Kind::kAgent
            ? "agent tokens may not use this endpoint; it needs a user token"
            : "image tokens may not use this endpoint; it needs a user token");
  }
  if (access == Access::kPublic) return absl::OkStatus();
  const absl::string_view infra_env_id = request.Param("infra_env_id");
  if (infra_env_id.empty() || !absl::EqualsIgnoreCase(infra_env_id, principal.infra_env_id)) {
    return absl::NotFoundError(absl::StrCat("infra-env ", infra_env_id, " not found"));
  }
  return absl::OkStatus();
}

}  // namespace assisted::gateway
