// File: services/gateway/auth.h
//
// Who is calling the REST API and what they may touch. Three kinds of credentials:
//   - users: "Authorization: Bearer <JWT>", or the bare JWT as aicli sends it (HS256 local
//     issuer or RS256 from a JWKS file); the claims name the user ("username", else "sub")
//     and the organisation ("org_id"), in any script but without control characters. Their identity
//     is forwarded to the inventory as metadata (lib/grpc/identity.h), which enforces tenancy
//     (another tenant's resource is NOT_FOUND, like a missing one);
//   - agents: "X-Secret-Key: <agent token>", the infra-env scoped token baked into the discovery
//     image (lib/auth/token.h: signed with the image service's --url-signing-key-file and the
//     infra-env's current signing key, so regenerating that key revokes it);
//   - image downloads: "Image-Token: <token>" or ?image_token= / ?api_key=, the download token
//     of a signed download URL. Neither kind passes for the other (nor does a rootfs token);
//   - cluster download links: ?api_key= carrying a cluster-download token that this gateway
//     signed for a user's files-presigned or credentials-presigned request (lib/auth/token.h).
// Agent and image tokens only ever reach routes of their own infra-env (anything else is
// NOT_FOUND) and never a cluster's files or credentials; a cluster link only that cluster's
// two download routes. With --auth=none (development only)
// every caller is an anonymous system caller. With --read-only-cluster (the agent-based
// installer's node 0) a caller without any credentials is a viewer of that one cluster: it may
// follow that cluster's changes and read its progress view (progress_view.h), nothing else.

#ifndef ASSISTED_SERVICES_GATEWAY_AUTH_H_
#define ASSISTED_SERVICES_GATEWAY_AUTH_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/auth/token.h"
#include "lib/grpc/identity.h"
#include "lib/http/message.h"
#include "services/gateway/jwt.h"

namespace assisted::gateway {

// Who made a request.
struct Principal {
  enum class Kind { kSystem, kUser, kAgent, kImage, kViewer, kClusterLink };
  Kind kind = Kind::kSystem;
  grpcutil::Identity identity;  // users: forwarded to the inventory; empty otherwise
  std::string infra_env_id;     // agents and image tokens: the only infra-env they may touch
  std::string cluster_id;       // viewers and cluster links: the only cluster they may reach
};

// What a route accepts.
enum class Access {
  kPublic,        // anyone (health, readiness, the OpenAPI document)
  kUser,          // users only
  kAgent,         // users, or agents of the route's {infra_env_id}
  kAgentOrImage,  // users, or agents and image tokens of the route's {infra_env_id}
  kClusterLink,   // users, or cluster download links of the route's {cluster_id}
};

struct AuthOptions {
  bool enabled = true;          // false: --auth=none
  std::string hs256_secret;     // local issuer's key; empty: none
  std::string jwks;             // JWKS document of an external issuer; empty: none
  JwtExpectations expected;     // iss and aud user tokens must carry (--jwt-issuer/-audience)
  std::string url_signing_key;  // verifies agent and image tokens; empty: refused
  // The current signing key of an infra-env, for agent tokens; empty: agent tokens refused.
  auth::InfraEnvKeyLookup infra_env_signing_key;
  // Callers without credentials are viewers of this cluster; empty: they are refused.
  std::string read_only_cluster_id;
};

class Authenticator {
 public:
  // INVALID_ARGUMENT for a short secret or an unusable JWKS document.
  static absl::StatusOr<std::unique_ptr<Authenticator>> Create(AuthOptions options);

  // The caller of `request`: UNAUTHENTICATED when credentials are missing or invalid (expired,
  // forged, unknown key, a token of another kind, a user or org name with a control character);
  // the look-up's own error when an agent token's infra-env key could not be read. Never echoes
  // a token.
  absl::StatusOr<Principal> Authenticate(const http::Request& request, absl::Time now) const;

  // Whether `principal` may use a route with `access` for `request`: PERMISSION_DENIED for an
  // agent, image or cluster-link token on a route that is not theirs by kind, NOT_FOUND for
  // another infra-env (cluster) than the token's, UNAUTHENTICATED for a viewer (no REST route
  // is theirs).
  static absl::Status Authorize(const Principal& principal, Access access,
                                const http::Request& request);

  // A token for a link to `cluster_id`'s downloads, valid until the returned time (now +
  // kClusterLinkLife). FAILED_PRECONDITION when the gateway has no URL signing key.
  struct ClusterLink {
    std::string token;
    absl::Time expires_at;
  };
  absl::StatusOr<ClusterLink> SignClusterLink(const std::string& cluster_id, absl::Time now) const;
  // Short: the link opens the cluster's credentials.
  static constexpr absl::Duration kClusterLinkLife = absl::Minutes(10);

 private:
  Authenticator() = default;
  AuthOptions options_;
  std::unique_ptr<JwtVerifier> jwt_;
};

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_AUTH_H_
