// File: services/gateway/web_ui.h
//
// What the gateway adds for the web UI, in one place so the server's composition root stays
// small: the built files at "/" (static_files.h, only with --ui-dir), the live change stream
// (change_stream.h, always: other clients may follow it too), fed by a follower of the
// inventory's change log of its own, and the UI's config and read-only progress view
// (progress_view.h), which names the identity provider to sign in with (oidc_sign_in.h).

#ifndef ASSISTED_SERVICES_GATEWAY_WEB_UI_H_
#define ASSISTED_SERVICES_GATEWAY_WEB_UI_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/optional.h"
#include "lib/http/router.h"
#include "lib/inventory_client/watch_follower.h"
#include "lib/log/log.h"
#include "lib/time/clock.h"
#include "services/gateway/auth.h"
#include "services/gateway/backends.h"
#include "services/gateway/change_stream.h"
#include "services/gateway/oidc_sign_in.h"
#include "services/gateway/progress_view.h"
#include "services/gateway/static_files.h"

namespace assisted::gateway {

struct WebUiOptions {
  std::string ui_dir;        // empty: no UI files, the change stream only
  int handler_threads = 32;  // the HTTP server's: held change answers take at most a quarter
  // Follow the change log itself. False when the caller already follows it (the read cache)
  // and feeds the stream through AfterCache().
  bool follow_changes = true;
  // --read-only-cluster: the agent-based installer's cluster the UI shows without sign-in.
  std::string read_only_cluster_id;
  // The identity provider the UI signs users in with (--oidc-discovery-file,
  // --oidc-client-id); none: users paste a bearer token.
  absl::optional<OidcSignIn> oidc;
};

class WebUi {
 public:
  // Loads the UI files (INVALID_ARGUMENT naming --ui-dir when unusable) and starts following
  // the change log. Everything given must outlive the result.
  static absl::StatusOr<std::unique_ptr<WebUi>> Start(const WebUiOptions& options,
                                                      const Backends& backends,
                                                      const Authenticator& authenticator,
                                                      const Clock& clock, log::Logger log);
  ~WebUi();

  absl::Status Register(http::Router& router) const;

  // The routes registered besides the REST table's (for the OpenAPI document's test).
  struct Route {
    std::string method, path;
    std::vector<std::string> query;
  };
  static std::vector<Route> Routes();

  // The kinds the change stream shows.
  static std::vector<inventory::v1::ResourceKind> WatchedKinds();

  // Callbacks for one follower serving the read cache and the change stream: each change goes
  // to `cache` first (when of one of `cache_kinds`), then to the stream, so a browser that
  // re-reads on hearing of a change never gets the cached answer from before it.
  inventory_client::WatchFollower::Callbacks AfterCache(
      inventory_client::WatchFollower::Callbacks cache,
      std::vector<inventory::v1::ResourceKind> cache_kinds);
  // Ends held change answers at once, so the HTTP server drains quickly.
  void Shutdown();

 private:
  WebUi() = default;
  std::unique_ptr<StaticFiles> files_;
  std::unique_ptr<ChangeFeed> feed_;
  std::unique_ptr<ChangeStream> stream_;
  std::unique_ptr<ProgressView> progress_;
  std::unique_ptr<inventory_client::WatchFollower> follower_;
};

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_WEB_UI_H_
