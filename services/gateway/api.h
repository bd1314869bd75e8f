// File: services/gateway/api.h
//
// The REST API of assisted (/api/assisted-install/v2/…), shaped after assisted-service v2: its
// route table (method, path, who may call it, accepted query parameters) and the handlers that
// turn each request into gRPC calls. Reads and plain CRUD go to the inventory with the caller's
// identity (which enforces tenancy); actions go to the orchestrator after the resource was read
// as the caller (so another tenant's resource is a 404 before any action is attempted); image
// questions go to the image service. Every failure is an Error document (api_error.h); nothing
// a client sends can make a handler throw or crash.
//
// With a read cache (read_cache.h), reads of one cluster (also its hosts), infra-env or host,
// and the host list of an infra-env, answer from it when they can: keyed by the caller's
// identity and principal and the request path, so tenancy stays the inventory's decision. Every
// write route invalidates the resources it names (its path ids, and a cluster_id in its JSON
// body: a bind's target cluster) when it returns, success or not, so a client sees its own
// writes at once.

#ifndef ASSISTED_SERVICES_GATEWAY_API_H_
#define ASSISTED_SERVICES_GATEWAY_API_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "lib/http/message.h"
#include "lib/http/router.h"
#include "lib/time/clock.h"
#include "services/gateway/auth.h"
#include "services/gateway/backends.h"
#include "services/gateway/read_cache.h"

namespace assisted::gateway {

inline constexpr char kApiPrefix[] = "/api/assisted-install/v2";

// Artifacts (up to 64 MiB) and log bundles are read from the inventory this many bytes per call
// and spooled to an unlinked temporary file that the response is sent from, so no request holds
// more than one chunk in memory or in one gRPC message.
inline constexpr int64_t kArtifactChunkBytes = 1 << 20;

// One route as documented: the OpenAPI test compares these with the served document.
struct RouteInfo {
  std::string method;  // "GET"
  std::string path;    // "/api/assisted-install/v2/clusters/{cluster_id}"
  Access access;
  std::vector<std::string> query;  // accepted query parameters (besides image_token, api_key)
};

class RestApi {
 public:
  // Everything given must outlive the API (and the server it is registered with).
  // `read_cache` may be null: every read goes to the inventory.
  RestApi(const Backends& backends, const Authenticator& authenticator, const Clock& clock,
          ReadCache* read_cache = nullptr);

  // Every route the API serves.
  static std::vector<RouteInfo> Routes();

  // Adds every route to `router`.
  absl::Status Register(http::Router& router) const;

  // What one handler sees.
  struct Call {
    const http::Request& request;
    const Principal& principal;
  };

 private:
  struct Route;
  static const std::vector<Route>& Table();
  http::Response Serve(const Route& route, const http::Request& request) const;

  // Handlers (one per operation), in the table's order.
  absl::StatusOr<http::Response> RegisterCluster(const Call& call) const;
  absl::StatusOr<http::Response> ListClusters(const Call& call) const;
  absl::StatusOr<http::Response> ClusterDefaultConfig(const Call& call) const;
  // Upstream's v2ImportCluster: an OpenShift cluster installed elsewhere, registered to receive
  // day-2 hosts (AddHostsCluster, imported, adding-hosts).
  absl::StatusOr<http::Response> ImportCluster(const Call& call) const;
  // Upstream's v2RegisterDisconnectedCluster: a DisconnectedCluster, unmonitored.
  absl::StatusOr<http::Response> RegisterDisconnectedCluster(const Call& call) const;
  absl::StatusOr<http::Response> GetCluster(const Call& call) const;
  absl::StatusOr<http::Response> UpdateCluster(const Call& call) const;
  absl::StatusOr<http::Response> DeregisterCluster(const Call& call) const;
  absl::StatusOr<http::Response> InstallCluster(const Call& call) const;
  absl::StatusOr<http::Response> CancelInstallation(const Call& call) const;
  absl::StatusOr<http::Response> ResetCluster(const Call& call) const;
  absl::StatusOr<http::Response> AllowAddWorkers(const Call& call) const;
  absl::StatusOr<http::Response> ListClusterHosts(const Call& call) const;
  absl::StatusOr<http::Response> DownloadClusterFiles(const Call& call) const;
  absl::StatusOr<http::Response> DownloadClusterCredentials(const Call& call) const;
  absl::StatusOr<http::Response> PresignClusterFiles(const Call& call) const;
  absl::StatusOr<http::Response> PresignClusterCredentials(const Call& call) const;
  // The kubeadmin user's password and the console URL (upstream's V2GetCredentials).
  absl::StatusOr<http::Response> GetCredentials(const Call& call) const;
  absl::StatusOr<http::Response> DownloadClusterLogs(const Call& call) const;
  absl::StatusOr<http::Response> RegisterInfraEnv(const Call& call) const;
  absl::StatusOr<http::Response> ListInfraEnvs(const Call& call) const;
  absl::StatusOr<http::Response> GetInfraEnv(const Call& call) const;
  absl::StatusOr<http::Response> UpdateInfraEnv(const Call& call) const;
  absl::StatusOr<http::Response> DeregisterInfraEnv(const Call& call) const;
  absl::StatusOr<http::Response> GetInfraEnvImageUrl(const Call& call) const;
  absl::StatusOr<http::Response> GetInfraEnvPresignedFileUrl(const Call& call) const;
  // Revokes the infra-env's agent tokens: images downloaded afterwards carry new ones.
  absl::StatusOr<http::Response> RegenerateInfraEnvSigningKey(const Call& call) const;
  absl::StatusOr<http::Response> DownloadInfraEnvFiles(const Call& call) const;
  absl::StatusOr<http::Response> ListHosts(const Call& call) const;
  absl::StatusOr<http::Response> GetHost(const Call& call) const;
  absl::StatusOr<http::Response> UpdateHost(const Call& call) const;
  absl::StatusOr<http::Response> DeregisterHost(const Call& call) const;
  absl::StatusOr<http::Response> ResetHost(const Call& call) const;
  absl::StatusOr<http::Response> InstallHost(const Call& call) const;
  absl::StatusOr<http::Response> BindHost(const Call& call) const;
  absl::StatusOr<http::Response> UnbindHost(const Call& call) const;
  // Upstream's ignored validations: JSON text of id lists, replaced whole by PUT.
  absl::StatusOr<http::Response> GetIgnoredValidations(const Call& call) const;
  absl::StatusOr<http::Response> SetIgnoredValidations(const Call& call) const;
  // The install-config the cluster would be installed with now (a JSON string of YAML), and
  // its overrides (a JSON string holding a JSON object), checked by the orchestrator.
  absl::StatusOr<http::Response> GetInstallConfig(const Call& call) const;
  absl::StatusOr<http::Response> UpdateInstallConfig(const Call& call) const;
  // What each role's hosts need (upstream's preflight-hardware-requirements) and the platforms
  // every host of the cluster is compatible with: the orchestrator's answers from the rules its
  // validations apply.
  absl::StatusOr<http::Response> GetPreflightRequirements(const Call& call) const;
  absl::StatusOr<http::Response> GetSupportedPlatforms(const Call& call) const;
  // The UI's per-cluster settings: an opaque JSON string kept by the inventory.
  absl::StatusOr<http::Response> ListClusterManifests(const Call& call) const;
  absl::StatusOr<http::Response> CreateClusterManifest(const Call& call) const;
  absl::StatusOr<http::Response> UpdateClusterManifest(const Call& call) const;
  absl::StatusOr<http::Response> DeleteClusterManifest(const Call& call) const;
  absl::StatusOr<http::Response> DownloadClusterManifest(const Call& call) const;
  absl::StatusOr<http::Response> GetUiSettings(const Call& call) const;
  absl::StatusOr<http::Response> UpdateUiSettings(const Call& call) const;
  // A host's coreos-installer arguments and Ignition override, checked by the orchestrator
  // (only before the host's installation began: 409 after).
  absl::StatusOr<http::Response> ResetHostValidation(const Call& call) const;
  absl::StatusOr<http::Response> UpdateHostInstallerArgs(const Call& call) const;
  absl::StatusOr<http::Response> GetHostIgnition(const Call& call) const;
  absl::StatusOr<http::Response> UpdateHostIgnition(const Call& call) const;
  absl::StatusOr<http::Response> ListManagedDomains(const Call& call) const;
  absl::StatusOr<http::Response> ListEvents(const Call& call) const;
  absl::StatusOr<http::Response> ListOpenshiftVersions(const Call& call) const;
  // Upstream's architecture support levels for ?openshift_version= (support_levels.h), from the
  // image service's base images: the catalog /openshift-versions lists.
  absl::StatusOr<http::Response> GetSupportedArchitectures(const Call& call) const;
  // Upstream's feature support levels (support_levels.h) for ?openshift_version= and
  // ?cpu_architecture=, plain ({id: level}) or detailed (with reasons).
  absl::StatusOr<http::Response> GetSupportedFeatures(const Call& call) const;
  absl::StatusOr<http::Response> GetDetailedSupportedFeatures(const Call& call) const;
  // The operators and bundles a cluster may select (operators.h: none yet).
  absl::StatusOr<http::Response> ListSupportedOperators(const Call& call) const;
  absl::StatusOr<http::Response> ListOperatorProperties(const Call& call) const;
  absl::StatusOr<http::Response> ListBundles(const Call& call) const;
  absl::StatusOr<http::Response> GetBundle(const Call& call) const;
  // The operators the cluster's installation monitors, as the inventory keeps them.
  absl::StatusOr<http::Response> ListMonitoredOperators(const Call& call) const;
  // Upstream's release sources: per OpenShift version, the architectures the image service
  // has base images for.
  absl::StatusOr<http::Response> ListReleaseSources(const Call& call) const;
  // This gateway's release (upstream's component versions, of the one component that answers).
  absl::StatusOr<http::Response> ListComponentVersions(const Call& call) const;
  // Records a user's event on their own cluster, infra-env or host (the inventory refuses
  // anyone else's).
  absl::StatusOr<http::Response> TriggerEvent(const Call& call) const;
  // The infra-env's minimal initrd from the image service; 204 when it would be empty.
  absl::StatusOr<http::Response> DownloadMinimalInitrd(const Call& call) const;
  absl::StatusOr<http::Response> Health(const Call& call) const;
  absl::StatusOr<http::Response> Ready(const Call& call) const;
  absl::StatusOr<http::Response> OpenApi(const Call& call) const;

  // Shared steps.
  absl::StatusOr<types::v1::Cluster> ReadCluster(const Call& call, bool include_hosts) const;
  // `stored`, just created or changed by the caller, as the orchestrator judges it now (status
  // and validations on its new values); `stored` itself when the orchestrator cannot answer.
  types::v1::Cluster Judged(const Call& call, types::v1::Cluster stored) const;
  // Stores `request`'s cluster (the inventory's INVALID_ARGUMENT is 422) and answers 201 with it,
  // as judged.
  absl::StatusOr<http::Response> CreateCluster(
      const Call& call, const inventory::v1::CreateClusterRequest& request) const;
  absl::StatusOr<types::v1::InfraEnv> ReadInfraEnv(const Call& call) const;
  absl::StatusOr<types::v1::Host> ReadHost(const Call& call) const;
  // Changes the one field `path` of the route's host (read as the caller first) to its value
  // in `fields`, through the orchestrator's UpdateHost.
  absl::StatusOr<types::v1::Host> UpdateHostFields(const Call& call, types::v1::Host fields,
                                                   const char* path) const;
  template <typename Request>
  absl::StatusOr<http::Response> ClusterAction(
      const Call& call, grpc::Status (orchestrator::v1::OrchestratorService::Stub::*method)(
                            grpc::ClientContext*, const Request&, types::v1::Cluster*)) const;
  // Reads the route's cluster as the caller (another tenant's is NOT_FOUND), then asks the
  // orchestrator's `method` about it; its answer or its error.
  template <typename Request, typename Answer>
  absl::StatusOr<Answer> AskAboutCluster(
      const Call& call, grpc::Status (orchestrator::v1::OrchestratorService::Stub::*method)(
                            grpc::ClientContext*, const Request&, Answer*)) const;
  // Calls `method` for the route's host (read as the caller first); answers `success_status`.
  template <typename Request>
  absl::StatusOr<http::Response> HostAction(
      const Call& call,
      grpc::Status (orchestrator::v1::OrchestratorService::Stub::*method)(grpc::ClientContext*,
                                                                          const Request&,
                                                                          types::v1::Host*),
      int success_status) const;
  absl::StatusOr<http::Response> ServeArtifact(const Call& call, const std::string& name) const;
  // Every custom manifest of the call's cluster in one file: custom_manifests.json (a list of
  // upstream's manifest model with its content as text) or custom_manifests.yaml (the contents
  // as YAML documents), in the orchestrator's order.
  absl::StatusOr<http::Response> CustomManifestsFile(const Call& call,
                                                     const std::string& name) const;
  // Feature support levels for the call's query (shared by the plain and detailed routes).
  absl::StatusOr<http::Response> FeatureLevels(const Call& call, bool detailed) const;
  // The image service's base image catalog.
  absl::StatusOr<std::vector<image::v1::BaseImage>> BaseImages() const;
  // {url, expires_at} of a link to downloads/<download>?file_name=<name> of the call's cluster
  // (the user's: tenancy first) that needs no other credential: a cluster-download token.
  absl::StatusOr<http::Response> PresignedClusterLink(const Call& call, absl::string_view download,
                                                      const std::string& name) const;
  // Reads artifact `name` of cluster `cluster_id` as the caller, kArtifactChunkBytes per call:
  // hands its metadata (from the first chunk) to `on_info` before any content, then each chunk
  // to `on_bytes`. FAILED_PRECONDITION while it is still being uploaded; ABORTED when it is
  // replaced between two chunks (the reader may retry); the backend's error otherwise.
  absl::Status ReadArtifactChunks(
      const Call& call, const std::string& cluster_id, const std::string& name,
      absl::FunctionRef<absl::Status(const inventory::v1::ArtifactInfo&)> on_info,
      absl::FunctionRef<absl::Status(absl::string_view)> on_bytes) const;
  // A 200 JSON answer from the read cache, or rendered by `fetch` (kept for the next caller).
  absl::StatusOr<http::Response> CachedRead(
      const Call& call, absl::FunctionRef<absl::StatusOr<ReadCache::Fetched>()> fetch) const;
  // After a write: drops cached reads of every resource it names.
  void InvalidateWritten(const http::Request& request) const;

  const Backends& backends_;
  const Authenticator& authenticator_;
  const Clock& clock_;
  ReadCache* const read_cache_;
};

// The OpenAPI 3 document the gateway serves (openapi.yaml, compiled in).
const std::string& OpenApiDocument();

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_API_H_
