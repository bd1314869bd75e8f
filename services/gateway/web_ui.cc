#include "services/gateway/web_ui.h"

#include <algorithm>
#include <utility>

#include "absl/strings/escaping.h"
#include "lib/random/random.h"
#include "lib/status/status_macros.h"

namespace assisted::gateway {

absl::StatusOr<std::unique_ptr<WebUi>> WebUi::Start(const WebUiOptions& options,
                                                    const Backends& backends,
                                                    const Authenticator& authenticator,
                                                    const Clock& clock, log::Logger log) {
  auto ui = std::unique_ptr<WebUi>(new WebUi());
  const OidcSignIn* oidc = options.oidc.has_value() ? &*options.oidc : nullptr;
  if (!options.ui_dir.empty()) {
    ASSIGN_OR_RETURN(ui->files_,
                     StaticFiles::Load(options.ui_dir,
                                       UiContentSecurityPolicy(
                                           oidc != nullptr ? OriginOf(oidc->token_endpoint) : "")));
  }
  ASSIGN_OR_RETURN(std::string boot, SecureRandomBytes(8));
  ui->feed_ = std::make_unique<ChangeFeed>(absl::BytesToHexString(boot));
  // Tenancy is the inventory's decision: a cluster the caller cannot read is NOT_FOUND there.
  auto can_read_cluster = [&backends](const Principal& caller, const std::string& cluster_id) {
    inventory::v1::GetClusterRequest request;
    request.set_id(cluster_id);
    return backends
        .Call("inventory", backends.inventory(), &inventory::v1::InventoryService::Stub::GetCluster,
              request, caller.identity)
        .status();
  };
  ui->stream_ = std::make_unique<ChangeStream>(
      *ui->feed_, authenticator, clock, std::move(can_read_cluster),
      ChangeStream::Options{.max_wait = absl::Seconds(25),
                            .max_watchers = std::max(1, options.handler_threads / 4)});
  ui->progress_ = std::make_unique<ProgressView>(backends, options.read_only_cluster_id, oidc);
  if (options.follow_changes) {
    ui->follower_ = std::make_unique<inventory_client::WatchFollower>(
        backends.inventory(),
        inventory_client::WatchFollower::Options{.kinds = WatchedKinds(), .hints = true},
        ui->feed_->FollowerCallbacks(), log.Child("changes"));
  }
  return ui;
}

std::vector<WebUi::Route> WebUi::Routes() {
  return {{"GET", ChangeStream::kPath, {"cluster_id", "last_event_id"}},
          {"GET", ProgressView::kConfigPath, {}},
          {"GET", ProgressView::kProgressPath, {}}};
}

std::vector<inventory::v1::ResourceKind> WebUi::WatchedKinds() {
  return {inventory::v1::RESOURCE_KIND_CLUSTER, inventory::v1::RESOURCE_KIND_INFRA_ENV,
          inventory::v1::RESOURCE_KIND_HOST, inventory::v1::RESOURCE_KIND_EVENT};
}

inventory_client::WatchFollower::Callbacks WebUi::AfterCache(
    inventory_client::WatchFollower::Callbacks cache,
    std::vector<inventory::v1::ResourceKind> cache_kinds) {
  return FeedAfterCache(std::move(cache), std::move(cache_kinds), *feed_);
}

WebUi::~WebUi() {
  Shutdown();
  follower_.reset();  // before the feed its callbacks append to
}

absl::Status WebUi::Register(http::Router& router) const {
  RETURN_IF_ERROR(stream_->Register(router));
  RETURN_IF_ERROR(progress_->Register(router));
  if (files_ != nullptr) RETURN_IF_ERROR(files_->Register(router));
  return absl::OkStatus();
}

void WebUi::Shutdown() {
  if (feed_ != nullptr) feed_->Close();
}

}  // namespace assisted::gateway
