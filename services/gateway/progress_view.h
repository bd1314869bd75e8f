// File: services/gateway/progress_view.h
//
// The agent-based installer's read-only progress view (issue 17, node 0): with
// --read-only-cluster=ID the gateway serves that one cluster's progress to anyone who reaches
// its port, without sign-in, so the person at node 0's console (or any browser on the cluster's
// network) can watch the install. What it shows is an allow-list, not the REST model minus
// secrets: the cluster's name, version, status, progress and validations; per host its status,
// role, stage, progress, validations and inventory; the latest events. Never credentials,
// pull secrets, proxy URLs (they may carry a password), SSH keys, Ignition or install-config
// overrides, or download links (their tokens open the discovery Ignition's agent token).
//
// Routes (public, GET):
//   /api/assisted-install/v2/web-ui/config    what the UI is served for (WebUiConfig): console
//                                             or read-only, and the identity provider to sign
//                                             in with (oidc_sign_in.h)
//   /api/assisted-install/v2/web-ui/progress  the view; 404 (an Error document) without
//                                             --read-only-cluster
// The change stream (change_stream.h) lets a caller without credentials follow that cluster's
// changes only (Authenticator's viewer principal).

#ifndef ASSISTED_SERVICES_GATEWAY_PROGRESS_VIEW_H_
#define ASSISTED_SERVICES_GATEWAY_PROGRESS_VIEW_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/event.pb.h"
#include "lib/http/message.h"
#include "lib/http/router.h"
#include "nlohmann/json.hpp"
#include "services/gateway/backends.h"
#include "services/gateway/oidc_sign_in.h"

namespace assisted::gateway {

// What the UI is served for: {"mode": "console"} or {"mode": "agent-based", "cluster_id": ID},
// with "oidc" (OidcSignInJson) when users sign in through an identity provider (`oidc` not
// null).
nlohmann::json WebUiConfigJson(const std::string& read_only_cluster_id, const OidcSignIn* oidc);

// The progress document of `cluster` (read with its hosts) and its latest `events`:
// {"cluster": {...allowed fields, "hosts": [...]}, "events": [...]}.
nlohmann::json ProgressDocument(const types::v1::Cluster& cluster,
                                const std::vector<types::v1::Event>& events);

class ProgressView {
 public:
  static constexpr char kConfigPath[] = "/api/assisted-install/v2/web-ui/config";
  static constexpr char kProgressPath[] = "/api/assisted-install/v2/web-ui/progress";
  static constexpr int kEvents = 100;  // the latest, newest first

  // `read_only_cluster_id` empty: no view (console mode). `oidc`: the identity provider's
  // sign-in the UI offers, null for none. `backends` must outlive this.
  ProgressView(const Backends& backends, std::string read_only_cluster_id, const OidcSignIn* oidc);

  absl::Status Register(http::Router& router) const;

 private:
  absl::StatusOr<http::Response> Progress() const;

  const Backends& backends_;
  const std::string cluster_id_;
  const std::string config_;  // the config route's answer
};

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_PROGRESS_VIEW_H_
