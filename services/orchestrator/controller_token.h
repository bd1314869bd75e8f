// File: services/orchestrator/controller_token.h
//
// Controller tokens: what a cluster's post-reboot reporter (the in-cluster controller) presents
// on the orchestrator's agent port (assisted.orchestrator.v1.ControllerService). One token is
// scoped to ONE cluster and lasts kControllerTokenLifetime from the install step that carried
// it; the orchestrator hands it only to that cluster's hosts, over their authenticated agent
// streams (Instruction.controller_token).
//
// A token has the short signed form of lib/auth/token.h (the cluster's UUID, an expiry and an
// HMAC tag), signed with a key derived for this purpose alone from the URL-signing key
// (HMAC-SHA256(key, kControllerTokenPurpose)), which lib/auth then derives again for the
// purpose byte it stores (kDownload: lib/auth has no controller purpose yet; the key, not the
// byte, keeps the kinds apart). So an agent, download or rootfs token signed with the same file
// never verifies as a controller token, nor the other way round. Rotating the URL-signing key
// revokes every controller token with it.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CONTROLLER_TOKEN_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CONTROLLER_TOKEN_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpcpp/server_context.h"

namespace assisted::orchestrator {

// What the purpose-derived key is derived with.
inline constexpr char kControllerTokenPurpose[] = "assisted controller token v1";

// An installation, finalizing included, stays well within a week (the longest cluster time
// limits are hours).
inline constexpr absl::Duration kControllerTokenLifetime = absl::Hours(24 * 7);

class ControllerTokens {
 public:
  // `signing_key`: the URL-signing key (at least 32 bytes; the caller has checked it).
  explicit ControllerTokens(absl::string_view signing_key);

  // A token for `cluster_id` valid until now + kControllerTokenLifetime. INVALID_ARGUMENT when
  // cluster_id is not a UUID.
  absl::StatusOr<std::string> Issue(absl::string_view cluster_id, absl::Time now) const;

  // The cluster `token` is scoped to. UNAUTHENTICATED for a forged, altered, expired or
  // other-purpose token (the message never echoes the token).
  absl::StatusOr<std::string> Verify(absl::string_view token, absl::Time now) const;

 private:
  std::string key_;  // derived for kControllerTokenPurpose
};

// The token of an incoming call's "authorization: Bearer <token>" metadata ("" when absent).
std::string BearerToken(const grpc::ServerContextBase& context);

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CONTROLLER_TOKEN_H_
