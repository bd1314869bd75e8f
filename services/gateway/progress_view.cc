#include "services/gateway/progress_view.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "services/gateway/api_error.h"
#include "services/gateway/json_model.h"

namespace assisted::gateway {
namespace {

namespace inv = ::assisted::inventory::v1;

// What the view shows of a cluster and of each host (REST field names). Anything else the REST
// model gains later stays out until it is added here.
constexpr const char* kClusterFields[] = {"id",
                                          "kind",
                                          "name",
                                          "base_dns_domain",
                                          "openshift_version",
                                          "status",
                                          "status_info",
                                          "status_updated_at",
                                          "progress",
                                          "validations_info",
                                          "install_started_at",
                                          "install_completed_at",
                                          "total_host_count",
                                          "ready_host_count",
                                          "enabled_host_count",
                                          "control_plane_count",
                                          "high_availability_mode",
                                          "created_at",
                                          "updated_at"};
constexpr const char* kHostFields[] = {"id",
                                       "kind",
                                       "infra_env_id",
                                       "cluster_id",
                                       "status",
                                       "status_info",
                                       "status_updated_at",
                                       "validations_info",
                                       "role",
                                       "suggested_role",
                                       "bootstrap",
                                       "progress",
                                       "stage_started_at",
                                       "stage_updated_at",
                                       "progress_stages",
                                       "inventory",
                                       "requested_hostname",
                                       "installation_disk_id",
                                       "installation_disk_path",
                                       "created_at",
                                       "updated_at"};

template <size_t N>
Json Only(const Json& full, const char* const (&fields)[N]) {
  Json shown = Json::object();
  for (const char* field : fields) {
    if (full.contains(field)) shown[field] = full[field];
  }
  return shown;
}

}  // namespace

Json WebUiConfigJson(const std::string& read_only_cluster_id, const OidcSignIn* oidc) {
  Json config = {{"mode", read_only_cluster_id.empty() ? "console" : "agent-based"}};
  if (!read_only_cluster_id.empty()) config["cluster_id"] = read_only_cluster_id;
  if (oidc != nullptr) config["oidc"] = OidcSignInJson(*oidc);
  return config;
}

Json ProgressDocument(const types::v1::Cluster& cluster,
                      const std::vector<types::v1::Event>& events) {
  const Json full = ToJson(ClusterModel(), cluster);
  Json shown = Only(full, kClusterFields);
  shown["hosts"] = Json::array();
  for (const Json& host : full.value("hosts", Json::array())) {
    shown["hosts"].push_back(Only(host, kHostFields));
  }
  Json listed = Json::array();
  for (const types::v1::Event& event : events) listed.push_back(ToJson(EventModel(), event));
  return {{"cluster", std::move(shown)}, {"events", std::move(listed)}};
}

ProgressView::ProgressView(const Backends& backends, std::string read_only_cluster_id,
                           const OidcSignIn* oidc)
    : backends_(backends),
      cluster_id_(std::move(read_only_cluster_id)),
      config_(Dump(WebUiConfigJson(cluster_id_, oidc))) {}

absl::Status ProgressView::Register(http::Router& router) const {
  RETURN_IF_ERROR(router.Handle("GET", kConfigPath, [this](const http::Request&) {
    return http::Response::Json(200, config_);
  }));
  return router.Handle("GET", kProgressPath, [this](const http::Request&) {
    absl::StatusOr<http::Response> response = Progress();
    return response.ok() ? *std::move(response) : ErrorResponse(response.status());
  });
}

// Read as the gateway itself (no tenant): the operator named the cluster with the flag, and
// nothing a caller sends selects anything else.
absl::StatusOr<http::Response> ProgressView::Progress() const {
  if (cluster_id_.empty()) {
    return absl::NotFoundError(
        "no read-only progress view: the gateway runs without --read-only-cluster");
  }
  inv::GetClusterRequest get;
  get.set_id(cluster_id_);
  get.set_include_hosts(true);
  ASSIGN_OR_RETURN(types::v1::Cluster cluster,
                   backends_.Call("inventory", backends_.inventory(),
                                  &inv::InventoryService::Stub::GetCluster, get, {}));
  inv::ListEventsRequest list;
  list.set_cluster_id(cluster_id_);
  list.set_limit(kEvents);
  list.set_order(inv::SORT_ORDER_DESC);
  ASSIGN_OR_RETURN(inv::ListEventsResponse events,
                   backends_.Call("inventory", backends_.inventory(),
                                  &inv::InventoryService::Stub::ListEvents, list, {}));
  return http::Response::Json(
      200, Dump(ProgressDocument(cluster, {events.events().begin(), events.events().end()})));
}

}  // namespace assisted::gateway
