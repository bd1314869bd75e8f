#include "services/gateway/api.h"

#include <exception>
#include <initializer_list>
#include <limits>
#include <map>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/config/config.h"
#include "lib/enums/spelling.h"
#include "lib/http/body.h"
#include "lib/service/runner.h"
#include "lib/status/status_macros.h"
#include "lib/text/utf8.h"
#include "lib/version/openshift_version.h"
#include "services/gateway/api_error.h"
#include "services/gateway/json_model.h"
#include "services/gateway/operators.h"
#include "services/gateway/support_levels.h"
#include "services/gateway/tar.h"

namespace assisted::gateway {

using Handler = absl::StatusOr<http::Response> (RestApi::*)(const RestApi::Call&) const;

struct RestApi::Route {
  const char* method;
  const char* path;  // below kApiPrefix, or absolute when it starts with "//"
  Access access;
  std::vector<std::string> query;
  Handler handler;

  std::string FullPath() const {
    return absl::StartsWith(path, "//") ? std::string(path + 1) : absl::StrCat(kApiPrefix, path);
  }
};

namespace {

namespace inv = inventory::v1;
namespace orch = orchestrator::v1;
namespace img = image::v1;
namespace types = types::v1;

// Path parameters that carry ids; each is checked to be a UUID before any backend call.
constexpr const char* kIdParams[] = {"cluster_id", "infra_env_id", "host_id"};
// Query parameters any route accepts: image tokens may travel in the URL.
constexpr const char* kAuthQuery[] = {"image_token", "api_key"};

// Upstream's names for every custom manifest of a cluster in one file (not stored artifacts:
// made from the manifests at download).
constexpr char kCustomManifestsJson[] = "custom_manifests.json";
constexpr char kCustomManifestsYaml[] = "custom_manifests.yaml";

constexpr char kInventory[] = "inventory";
constexpr char kOrchestrator[] = "orchestrator";
constexpr char kImage[] = "image";

// Cluster files users may download, besides the per-host Ignition files.
const absl::flat_hash_set<std::string>& ClusterFiles() {
  static const auto* files = new absl::flat_hash_set<std::string>{
      "install-config.yaml", "bootstrap.ign", "master.ign",         "arbiter.ign",
      "worker.ign",          "metadata.json", kCustomManifestsJson, kCustomManifestsYaml};
  return *files;
}
const absl::flat_hash_set<std::string>& CredentialFiles() {
  static const auto* files = new absl::flat_hash_set<std::string>{
      "kubeconfig", "kubeconfig-noingress", "kubeadmin-password"};
  return *files;
}

// "<role>-<host id>.ign" (the brief's host-<id>.ign and the inventory's <role>-<id>.ign).
bool IsHostIgnition(absl::string_view name) {
  for (absl::string_view prefix : {"host-", "master-", "worker-", "arbiter-"}) {
    absl::string_view rest = name;
    if (absl::ConsumePrefix(&rest, prefix) && absl::ConsumeSuffix(&rest, ".ign") &&
        config::Uuid(std::string(rest)).ok()) {
      return true;
    }
  }
  return false;
}

absl::Status Invalid(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", problem));
}

http::Response JsonResponse(int status, const Json& json) {
  return http::Response::Json(status, Dump(json));
}

http::Response Attachment(http::Body body, std::string content_type, absl::string_view filename) {
  http::Response response;
  response.status = 200;
  response.headers.Set("Content-Type", std::move(content_type));
  response.headers.Set("Content-Disposition",
                       absl::StrCat("attachment; filename=\"", filename, "\""));
  response.body = std::move(body);
  return response;
}
http::Response Attachment(std::string content, std::string content_type,
                          absl::string_view filename) {
  return Attachment(http::Body(std::move(content)), std::move(content_type), filename);
}

// The body of a response served from what was spooled (an unlinked temporary file).
absl::StatusOr<http::Body> SpooledBody(http::SpoolFile spool) {
  ASSIGN_OR_RETURN(std::shared_ptr<const http::SharedFile> file, std::move(spool).Finish());
  http::Body body;
  body.Append(http::Segment::WholeFile(std::move(file)));
  return body;
}

bool SameVersion(const inv::ArtifactInfo& a, const inv::ArtifactInfo& b) {
  return a.size_bytes() == b.size_bytes() && a.updated_at().seconds() == b.updated_at().seconds() &&
         a.updated_at().nanos() == b.updated_at().nanos();
}

std::string ClusterHref(absl::string_view id) { return absl::StrCat(kApiPrefix, "/clusters/", id); }
std::string InfraEnvHref(absl::string_view id) {
  return absl::StrCat(kApiPrefix, "/infra-envs/", id);
}
std::string HostHref(const types::Host& host) {
  return absl::StrCat(InfraEnvHref(host.infra_env_id()), "/hosts/", host.id());
}

Json ClusterJson(const types::Cluster& cluster) {
  Json json = ToJson(ClusterModel(), cluster);
  json["href"] = ClusterHref(cluster.id());
  if (json.contains("hosts")) {
    for (size_t i = 0; i < json["hosts"].size(); ++i) {
      json["hosts"][i]["href"] = HostHref(cluster.hosts(static_cast<int>(i)));
    }
  }
  return json;
}
Json InfraEnvJson(const types::InfraEnv& infra_env) {
  Json json = ToJson(InfraEnvModel(), infra_env);
  json["href"] = InfraEnvHref(infra_env.id());
  return json;
}
Json HostJson(const types::Host& host) {
  Json json = ToJson(HostModel(), host);
  json["href"] = HostHref(host);
  return json;
}
Json HostsJson(const google::protobuf::RepeatedPtrField<types::Host>& hosts) {
  Json list = Json::array();
  for (const types::Host& host : hosts) list.push_back(HostJson(host));
  return list;
}

// A JSON answer with `status` of `resource` as `render` shows it, or the read's error.
template <typename Resource, typename Render>
absl::StatusOr<http::Response> Rendered(absl::StatusOr<Resource> resource, Render render,
                                        int status) {
  if (!resource.ok()) return resource.status();
  return JsonResponse(status, render(*resource));
}

// What the read cache keeps of a read of `resource`: its JSON by `render`, and its tags.
template <typename Resource, typename Render>
absl::StatusOr<ReadCache::Fetched> Rendered(absl::StatusOr<Resource> resource, Render render) {
  if (!resource.ok()) return resource.status();
  return ReadCache::Fetched{Dump(render(*resource)), TagsOf(*resource)};
}

// A request body must be there and declared JSON (415 otherwise).
absl::Status CheckJsonBody(const http::Request& request, absl::string_view expected) {
  if (request.body.empty()) return Invalid("body", absl::StrCat("required (", expected, ")"));
  absl::string_view type = request.headers.Get("Content-Type").value_or("");
  if (!absl::StartsWithIgnoreCase(absl::StripAsciiWhitespace(type), "application/json")) {
    return WithHttpStatus(absl::InvalidArgumentError("Content-Type: expected application/json"),
                          415);
  }
  return absl::OkStatus();
}

// The request body as a JSON object: 415 unless it is declared JSON, 400 when it is not one.
absl::StatusOr<Json> BodyObject(const http::Request& request) {
  RETURN_IF_ERROR(CheckJsonBody(request, "a JSON object"));
  return ParseObject(request.body);
}

// The request body as one JSON string (upstream's install-config and ui-settings bodies).
absl::StatusOr<std::string> BodyString(const http::Request& request) {
  RETURN_IF_ERROR(CheckJsonBody(request, "a JSON string"));
  ASSIGN_OR_RETURN(Json json, ParseJson(request.body));
  if (!json.is_string()) {
    return Invalid("body", absl::StrCat("expected a JSON string, got ", json.type_name()));
  }
  return json.get<std::string>();
}

// 400 naming the first field of `body` that is not one of `fields`.
absl::Status OnlyFields(const Json& body, std::initializer_list<absl::string_view> fields,
                        absl::string_view operation) {
  for (const auto& [key, value] : body.items()) {
    if (std::find(fields.begin(), fields.end(), key) == fields.end()) {
      return Invalid(
          key, absl::StrCat("unknown field; ", operation, " takes ", absl::StrJoin(fields, ", ")));
    }
  }
  return absl::OkStatus();
}

// A required string field of `body`.
absl::StatusOr<std::string> StringField(const Json& body, const char* field) {
  auto value = body.find(field);
  if (value == body.end()) return Invalid(field, "required");
  if (!value->is_string()) return Invalid(field, "expected a string");
  return value->get<std::string>();
}

// A field holding JSON text of a list of strings (upstream's ignored validation ids); absent
// or "" is the empty list.
absl::StatusOr<std::vector<std::string>> JsonTextList(const Json& body, const char* field) {
  auto value = body.find(field);
  if (value == body.end()) return std::vector<std::string>();
  if (!value->is_string()) return Invalid(field, "expected a string holding a JSON list");
  const std::string& text = value->get_ref<const std::string&>();
  if (text.empty()) return std::vector<std::string>();
  absl::StatusOr<Json> list = ParseJson(text);
  if (!list.ok() || !list->is_array()) return Invalid(field, "expected a JSON list of strings");
  std::vector<std::string> items;
  for (const Json& item : *list) {
    if (!item.is_string()) return Invalid(field, "expected a JSON list of strings");
    items.push_back(item.get<std::string>());
  }
  return items;
}

// A repeated string field as JSON text of a list, as upstream shows such columns.
std::string JsonTextOf(const google::protobuf::RepeatedPtrField<std::string>& items) {
  return Dump(Json(std::vector<std::string>(items.begin(), items.end())));
}

// Upstream's host-type-hardware-requirements: nothing qualitative here, every requirement is a
// number of the orchestrator's requirements file.
Json HostTypeRequirementsJson(const orch::RoleHardwareRequirements& requirements) {
  return {{"qualitative", Json::array()}, {"quantitative", MessageToJson(requirements)}};
}

Json IgnoredValidationsJson(const types::Cluster& cluster) {
  return {{"host-validation-ids", JsonTextOf(cluster.ignored_host_validations())},
          {"cluster-validation-ids", JsonTextOf(cluster.ignored_cluster_validations())}};
}

// A backend's verdict on values the client sent in a well-formed body: INVALID_ARGUMENT there
// means "understood but unacceptable", 422.
template <typename T>
absl::StatusOr<T> Unprocessable(absl::StatusOr<T> result) {
  if (result.ok() || result.status().code() != absl::StatusCode::kInvalidArgument) return result;
  return WithHttpStatus(result.status(), 422);
}

// Upstream's VerifyClusterUpdatability: a cluster changes while it is being defined or is adding
// hosts; once its installation began (or ended), what it is installed with stays.
absl::Status CheckClusterUpdatable(const types::Cluster& cluster) {
  switch (cluster.status()) {
    case types::CLUSTER_STATUS_PENDING_FOR_INPUT:
    case types::CLUSTER_STATUS_INSUFFICIENT:
    case types::CLUSTER_STATUS_READY:
    case types::CLUSTER_STATUS_ADDING_HOSTS:
      return absl::OkStatus();
    default:
      return absl::FailedPreconditionError(absl::StrCat(
          "cluster ", cluster.id(), " is ", enums::EnumText(cluster.status()),
          ": it can be updated only while pending-for-input, insufficient, ready or adding-hosts"));
  }
}

// Conditional writes that lost to a concurrent one are read and tried again this many times.
constexpr int kConditionalWriteAttempts = 3;

// Action bodies: none, or a JSON object with no fields.
absl::Status NoBody(const http::Request& request) {
  if (absl::StripAsciiWhitespace(request.body).empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(Json body, BodyObject(request));
  if (!body.empty()) return Invalid(body.begin().key(), "unknown field; this action takes no body");
  return absl::OkStatus();
}

// Query parameter helpers: "name: problem" errors, defaults when absent.
absl::StatusOr<bool> QueryBool(const http::Request& request, const char* name,
                               bool fallback = false) {
  absl::optional<absl::string_view> value = request.Query(name);
  if (!value) return fallback;
  if (*value == "true") return true;
  if (*value == "false") return false;
  return Invalid(name, "expected true or false");
}

absl::StatusOr<int> QueryInt(const http::Request& request, const char* name, int fallback, int low,
                             int high) {
  absl::optional<absl::string_view> value = request.Query(name);
  if (!value) return fallback;
  int parsed = 0;
  if (!absl::SimpleAtoi(*value, &parsed) || parsed < low || parsed > high) {
    return Invalid(name, absl::StrCat("expected an integer from ", low, " to ", high));
  }
  return parsed;
}

absl::StatusOr<std::string> QueryId(const http::Request& request, const char* name) {
  absl::optional<absl::string_view> value = request.Query(name);
  if (!value) return std::string();
  std::string id(*value);
  if (absl::Status uuid = config::Uuid(id); !uuid.ok()) return Invalid(name, uuid.message());
  return id;
}

// Every value of a list parameter, given repeated (?a=1&a=2) or comma-separated (?a=1,2).
std::vector<std::string> QueryList(const http::Request& request, const char* name) {
  std::vector<std::string> values;
  for (const auto& [key, value] : request.query) {
    if (key != name) continue;
    for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
      values.emplace_back(absl::StripAsciiWhitespace(item));
    }
  }
  return values;
}

template <typename E>
absl::StatusOr<std::vector<E>> QueryEnums(const http::Request& request, const char* name) {
  std::vector<E> values;
  for (const std::string& text : QueryList(request, name)) {
    ASSIGN_OR_RETURN(int value,
                     EnumFromText(*google::protobuf::GetEnumDescriptor<E>(), text, name));
    values.push_back(static_cast<E>(value));
  }
  return values;
}

// The architecture a catalog question is about: ?cpu_architecture= (upstream's default x86_64).
// ?platform_type= is checked too; the answers here do not depend on it (docs/rest-api.md).
absl::StatusOr<types::CpuArchitecture> CatalogArchitecture(const http::Request& request) {
  if (absl::optional<absl::string_view> platform = request.Query("platform_type")) {
    RETURN_IF_ERROR(
        EnumFromText(*types::PlatformType_descriptor(), *platform, "platform_type").status());
  }
  absl::optional<absl::string_view> text = request.Query("cpu_architecture");
  if (!text) return types::CPU_ARCHITECTURE_X86_64;
  ASSIGN_OR_RETURN(int value,
                   EnumFromText(*types::CpuArchitecture_descriptor(), *text, "cpu_architecture"));
  return static_cast<types::CpuArchitecture>(value);
}

// The host's skip_formatting_disks after upstream's disks_skip_formatting changes: a disk is
// added (it must be one of the host's disks, by id or path) or removed, in the order given.
absl::StatusOr<google::protobuf::RepeatedPtrField<std::string>> SkippedDisks(
    const types::Host& host, const std::vector<std::pair<std::string, bool>>& changes) {
  google::protobuf::RepeatedPtrField<std::string> skipped = host.skip_formatting_disks();
  for (const auto& [disk_id, skip] : changes) {
    auto found = std::find(skipped.begin(), skipped.end(), disk_id);
    if (!skip) {
      if (found != skipped.end()) skipped.erase(found);
      continue;
    }
    if (found != skipped.end()) continue;
    const bool known = absl::c_any_of(host.inventory().disks(), [&](const types::Disk& disk) {
      return disk.id() == disk_id || disk.path() == disk_id;
    });
    if (!known) {
      return Invalid("disks_skip_formatting",
                     absl::StrCat("disk ", disk_id, " is not a disk of host ", host.id()));
    }
    *skipped.Add() = disk_id;
  }
  return skipped;
}

// Upstream's `owner` filter: only what that user registered. The inventory has already kept
// what the caller may see, so this only narrows it.
template <typename Resource>
bool OwnedBy(const Resource& resource, absl::optional<absl::string_view> owner) {
  return !owner || resource.owner().user_name() == *owner;
}

absl::StatusOr<std::string> RequiredQuery(const http::Request& request, const char* name) {
  absl::optional<absl::string_view> value = request.Query(name);
  if (!value || value->empty()) return Invalid(name, "required");
  return std::string(*value);
}

// The file_name of a cluster file download: upstream's names and the per-host Ignition files.
absl::StatusOr<std::string> ClusterFileOf(const http::Request& request) {
  ASSIGN_OR_RETURN(std::string name, RequiredQuery(request, "file_name"));
  if (!ClusterFiles().contains(name) && !IsHostIgnition(name)) {
    return Invalid("file_name",
                   "expected install-config.yaml, bootstrap.ign, master.ign, arbiter.ign, "
                   "worker.ign, metadata.json, custom_manifests.json, custom_manifests.yaml or "
                   "host-<host id>.ign");
  }
  return name;
}

absl::StatusOr<std::string> CredentialFileOf(const http::Request& request) {
  ASSIGN_OR_RETURN(std::string name, RequiredQuery(request, "file_name"));
  if (!CredentialFiles().contains(name)) {
    return Invalid("file_name", "expected kubeconfig, kubeconfig-noingress or kubeadmin-password");
  }
  return name;
}

// The file_name of an infra-env download (and the query that goes with it, checked): upstream's
// three names.
absl::StatusOr<std::string> InfraEnvFileOf(const http::Request& request) {
  ASSIGN_OR_RETURN(std::string name, RequiredQuery(request, "file_name"));
  if (name != "discovery.ign" && name != "ipxe-script" && name != "static-network-config") {
    return Invalid("file_name", "expected discovery.ign, ipxe-script or static-network-config");
  }
  // Upstream picks the ISO an iPXE script boots; here PXE boots the kernel and initrd, the same
  // for every image type, so the value is checked and changes nothing.
  if (absl::optional<absl::string_view> type = request.Query("discovery_iso_type")) {
    RETURN_IF_ERROR(
        EnumFromText(*types::ImageType_descriptor(), *type, "discovery_iso_type").status());
  }
  if (absl::optional<absl::string_view> type = request.Query("ipxe_script_type")) {
    if (name != "ipxe-script") return Invalid("ipxe_script_type", "only for file_name=ipxe-script");
    RETURN_IF_ERROR(
        EnumFromText(*img::IpxeScriptType_descriptor(), *type, "ipxe_script_type").status());
  }
  if (absl::optional<absl::string_view> mac = request.Query("mac")) {
    if (name != "ipxe-script") return Invalid("mac", "only for file_name=ipxe-script");
    const bool hex_and_colons =
        !mac->empty() && mac->size() <= 64 && absl::c_all_of(*mac, [](char c) {
          return absl::ascii_isxdigit(static_cast<unsigned char>(c)) || c == ':';
        });
    if (!hex_and_colons) return Invalid("mac", "expected a MAC address (hex digits and colons)");
  }
  return name;
}

// The address the client reached this gateway at (the Host header; https behind a proxy that
// says X-Forwarded-Proto: https): presigned links must work from where the client stands.
absl::StatusOr<std::string> PublicBaseUrl(const http::Request& request) {
  const absl::string_view host = request.headers.Get("Host").value_or("");
  const bool plain_host = !host.empty() && host.size() <= 255 && absl::c_all_of(host, [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' ||
           c == '[' || c == ']';
  });
  if (!plain_host) return Invalid("Host", "a host name (and port) is needed to make the link");
  const bool https = absl::EqualsIgnoreCase(
      absl::StripAsciiWhitespace(request.headers.Get("X-Forwarded-Proto").value_or("")), "https");
  return absl::StrCat(https ? "https" : "http", "://", host);
}

// Upstream's manifest model: every manifest here is the user's.
Json ManifestJson(const orch::ClusterManifestRef& ref) {
  return {{"folder", ref.folder()}, {"file_name", ref.file_name()}, {"manifest_source", "user"}};
}

// An optional string field of `body`; `fallback` when absent.
absl::StatusOr<std::string> OptionalStringField(const Json& body, const char* field,
                                                std::string fallback = "") {
  if (!body.contains(field)) return fallback;
  return StringField(body, field);
}

// A base64 field of `body` (upstream's manifest content), decoded.
absl::StatusOr<std::string> Base64Field(const Json& body, const char* field) {
  ASSIGN_OR_RETURN(std::string encoded, StringField(body, field));
  std::string decoded;
  if (!absl::Base64Unescape(encoded, &decoded)) return Invalid(field, "not base64");
  return decoded;
}

// The manifest a query names: ?folder= (default "manifests", as upstream) and ?file_name=.
absl::StatusOr<orch::ClusterManifestRef> QueriedManifest(const http::Request& request) {
  orch::ClusterManifestRef ref;
  ref.set_folder(std::string(request.Query("folder").value_or("manifests")));
  ASSIGN_OR_RETURN(*ref.mutable_file_name(), RequiredQuery(request, "file_name"));
  return ref;
}

}  // namespace

RestApi::RestApi(const Backends& backends, const Authenticator& authenticator, const Clock& clock,
                 ReadCache* read_cache)
    : backends_(backends), authenticator_(authenticator), clock_(clock), read_cache_(read_cache) {}

const std::vector<RestApi::Route>& RestApi::Table() {
  using A = Access;
  static const auto* table = new std::vector<Route>{
      {"POST", "/clusters", A::kUser, {"validate_only"}, &RestApi::RegisterCluster},
      {"GET",
       "/clusters",
       A::kUser,
       {"with_hosts", "owner", "openshift_cluster_id", "ams_subscription_ids"},
       &RestApi::ListClusters},
      {"GET", "/clusters/default-config", A::kUser, {}, &RestApi::ClusterDefaultConfig},
      {"POST", "/clusters/import", A::kUser, {}, &RestApi::ImportCluster},
      {"POST", "/clusters/disconnected", A::kUser, {}, &RestApi::RegisterDisconnectedCluster},
      {"GET", "/clusters/{cluster_id}", A::kUser, {"exclude-hosts"}, &RestApi::GetCluster},
      {"PATCH", "/clusters/{cluster_id}", A::kUser, {}, &RestApi::UpdateCluster},
      {"DELETE", "/clusters/{cluster_id}", A::kUser, {}, &RestApi::DeregisterCluster},
      {"POST", "/clusters/{cluster_id}/actions/install", A::kUser, {}, &RestApi::InstallCluster},
      {"POST", "/clusters/{cluster_id}/actions/cancel", A::kUser, {}, &RestApi::CancelInstallation},
      {"POST", "/clusters/{cluster_id}/actions/reset", A::kUser, {}, &RestApi::ResetCluster},
      {"POST",
       "/clusters/{cluster_id}/actions/allow-add-workers",
       A::kUser,
       {},
       &RestApi::AllowAddWorkers},
      {"POST",
       "/clusters/{cluster_id}/actions/allow-add-hosts",
       A::kUser,
       {},
       &RestApi::AllowAddWorkers},
      {"GET",
       "/clusters/{cluster_id}/hosts",
       A::kUser,
       {"role", "status", "with-inventory", "with-connectivity"},
       &RestApi::ListClusterHosts},
      {"GET",
       "/clusters/{cluster_id}/downloads/files",
       A::kClusterLink,
       {"file_name"},
       &RestApi::DownloadClusterFiles},
      {"GET",
       "/clusters/{cluster_id}/downloads/credentials",
       A::kClusterLink,
       {"file_name"},
       &RestApi::DownloadClusterCredentials},
      {"GET",
       "/clusters/{cluster_id}/downloads/files-presigned",
       A::kUser,
       {"file_name"},
       &RestApi::PresignClusterFiles},
      {"GET",
       "/clusters/{cluster_id}/downloads/credentials-presigned",
       A::kUser,
       {"file_name"},
       &RestApi::PresignClusterCredentials},
      {"GET", "/clusters/{cluster_id}/credentials", A::kUser, {}, &RestApi::GetCredentials},
      {"GET",
       "/clusters/{cluster_id}/logs",
       A::kUser,
       {"logs_type", "host_id"},
       &RestApi::DownloadClusterLogs},
      {"GET",
       "/clusters/{cluster_id}/ignored-validations",
       A::kUser,
       {},
       &RestApi::GetIgnoredValidations},
      {"PUT",
       "/clusters/{cluster_id}/ignored-validations",
       A::kUser,
       {},
       &RestApi::SetIgnoredValidations},
      {"GET", "/clusters/{cluster_id}/install-config", A::kUser, {}, &RestApi::GetInstallConfig},
      {"PATCH",
       "/clusters/{cluster_id}/install-config",
       A::kUser,
       {},
       &RestApi::UpdateInstallConfig},
      {"GET",
       "/clusters/{cluster_id}/preflight-requirements",
       A::kUser,
       {},
       &RestApi::GetPreflightRequirements},
      {"GET",
       "/clusters/{cluster_id}/supported-platforms",
       A::kUser,
       {},
       &RestApi::GetSupportedPlatforms},
      {"GET",
       "/clusters/{cluster_id}/manifests",
       A::kUser,
       {"include_system_generated"},
       &RestApi::ListClusterManifests},
      {"POST", "/clusters/{cluster_id}/manifests", A::kUser, {}, &RestApi::CreateClusterManifest},
      {"PATCH", "/clusters/{cluster_id}/manifests", A::kUser, {}, &RestApi::UpdateClusterManifest},
      {"DELETE",
       "/clusters/{cluster_id}/manifests",
       A::kUser,
       {"folder", "file_name"},
       &RestApi::DeleteClusterManifest},
      {"GET",
       "/clusters/{cluster_id}/manifests/files",
       A::kUser,
       {"folder", "file_name"},
       &RestApi::DownloadClusterManifest},
      {"GET", "/clusters/{cluster_id}/ui-settings", A::kUser, {}, &RestApi::GetUiSettings},
      {"PUT", "/clusters/{cluster_id}/ui-settings", A::kUser, {}, &RestApi::UpdateUiSettings},
      {"GET",
       "/clusters/{cluster_id}/monitored-operators",
       A::kUser,
       {"operator_name"},
       &RestApi::ListMonitoredOperators},
      {"POST", "/infra-envs", A::kUser, {"validate_only"}, &RestApi::RegisterInfraEnv},
      {"GET", "/infra-envs", A::kUser, {"cluster_id", "owner"}, &RestApi::ListInfraEnvs},
      {"GET", "/infra-envs/{infra_env_id}", A::kAgentOrImage, {}, &RestApi::GetInfraEnv},
      {"PATCH", "/infra-envs/{infra_env_id}", A::kUser, {}, &RestApi::UpdateInfraEnv},
      {"DELETE", "/infra-envs/{infra_env_id}", A::kUser, {}, &RestApi::DeregisterInfraEnv},
      {"GET",
       "/infra-envs/{infra_env_id}/downloads/files-presigned",
       A::kUser,
       {"file_name", "ipxe_script_type", "mac", "discovery_iso_type"},
       &RestApi::GetInfraEnvPresignedFileUrl},
      {"GET",
       "/infra-envs/{infra_env_id}/downloads/image-url",
       A::kUser,
       {},
       &RestApi::GetInfraEnvImageUrl},
      {"POST",
       "/infra-envs/{infra_env_id}/regenerate-signing-key",
       A::kUser,
       {},
       &RestApi::RegenerateInfraEnvSigningKey},
      {"GET",
       "/infra-envs/{infra_env_id}/downloads/files",
       A::kAgentOrImage,
       {"file_name", "ipxe_script_type", "mac", "discovery_iso_type"},
       &RestApi::DownloadInfraEnvFiles},
      {"GET",
       "/infra-envs/{infra_env_id}/downloads/minimal-initrd",
       A::kAgentOrImage,
       {},
       &RestApi::DownloadMinimalInitrd},
      {"GET", "/infra-envs/{infra_env_id}/hosts", A::kAgent, {}, &RestApi::ListHosts},
      {"GET", "/infra-envs/{infra_env_id}/hosts/{host_id}", A::kUser, {}, &RestApi::GetHost},
      {"PATCH", "/infra-envs/{infra_env_id}/hosts/{host_id}", A::kUser, {}, &RestApi::UpdateHost},
      {"DELETE",
       "/infra-envs/{infra_env_id}/hosts/{host_id}",
       A::kUser,
       {},
       &RestApi::DeregisterHost},
      {"POST",
       "/infra-envs/{infra_env_id}/hosts/{host_id}/actions/reset",
       A::kUser,
       {},
       &RestApi::ResetHost},
      {"POST",
       "/infra-envs/{infra_env_id}/hosts/{host_id}/actions/install",
       A::kUser,
       {},
       &RestApi::InstallHost},
      {"POST",
       "/infra-envs/{infra_env_id}/hosts/{host_id}/actions/bind",
       A::kUser,
       {},
       &RestApi::BindHost},
      {"POST",
       "/infra-envs/{infra_env_id}/hosts/{host_id}/actions/unbind",
       A::kUser,
       {},
       &RestApi::UnbindHost},
      {"PATCH",
       "/infra-envs/{infra_env_id}/hosts/{host_id}/actions/reset-validation/{validation_id}",
       A::kUser,
       {},
       &RestApi::ResetHostValidation},
      {"PATCH",
       "/infra-envs/{infra_env_id}/hosts/{host_id}/installer-args",
       A::kUser,
       {},
       &RestApi::UpdateHostInstallerArgs},
      {"GET",
       "/infra-envs/{infra_env_id}/hosts/{host_id}/ignition",
       A::kUser,
       {},
       &RestApi::GetHostIgnition},
      {"PATCH",
       "/infra-envs/{infra_env_id}/hosts/{host_id}/ignition",
       A::kUser,
       {},
       &RestApi::UpdateHostIgnition},
      {"GET",
       "/events",
       A::kUser,
       {"cluster_id", "host_id", "host_ids", "infra_env_id", "limit", "offset", "order",
        "severities", "message", "deleted_hosts", "cluster_level", "categories"},
       &RestApi::ListEvents},
      {"POST", "/events", A::kUser, {}, &RestApi::TriggerEvent},
      {"GET",
       "/openshift-versions",
       A::kUser,
       {"version", "only_latest"},
       &RestApi::ListOpenshiftVersions},
      {"GET", "/domains", A::kUser, {}, &RestApi::ListManagedDomains},
      {"GET",
       "/support-levels/architectures",
       A::kUser,
       {"openshift_version"},
       &RestApi::GetSupportedArchitectures},
      {"GET",
       "/support-levels/features",
       A::kUser,
       {"openshift_version", "cpu_architecture", "platform_type"},
       &RestApi::GetSupportedFeatures},
      {"GET",
       "/support-levels/features/detailed",
       A::kUser,
       {"openshift_version", "cpu_architecture", "platform_type"},
       &RestApi::GetDetailedSupportedFeatures},
      {"GET", "/supported-operators", A::kUser, {}, &RestApi::ListSupportedOperators},
      {"GET",
       "/supported-operators/{operator_name}",
       A::kUser,
       {},
       &RestApi::ListOperatorProperties},
      {"GET",
       "/operators/bundles",
       A::kUser,
       {"openshift_version", "cpu_architecture", "platform_type"},
       &RestApi::ListBundles},
      {"GET", "/operators/bundles/{id}", A::kUser, {}, &RestApi::GetBundle},
      {"GET", "/release-sources", A::kUser, {}, &RestApi::ListReleaseSources},
      {"GET", "/component-versions", A::kUser, {}, &RestApi::ListComponentVersions},
      {"GET", "/openapi.yaml", A::kPublic, {}, &RestApi::OpenApi},
      {"GET", "//health", A::kPublic, {}, &RestApi::Health},
      {"GET", "//ready", A::kPublic, {}, &RestApi::Ready},
  };
  return *table;
}

std::vector<RouteInfo> RestApi::Routes() {
  std::vector<RouteInfo> routes;
  for (const Route& route : Table()) {
    routes.push_back({route.method, route.FullPath(), route.access, route.query});
  }
  return routes;
}

absl::Status RestApi::Register(http::Router& router) const {
  for (const Route& route : Table()) {
    // Each route also answers with a trailing slash, as upstream's does ("/v2/clusters/" is
    // what its UI requests).
    for (const std::string& path : {route.FullPath(), route.FullPath() + "/"}) {
      RETURN_IF_ERROR(router.Handle(
          route.method, path,
          [this, &route](const http::Request& request) { return Serve(route, request); }));
    }
  }
  return absl::OkStatus();
}

http::Response RestApi::Serve(const Route& route, const http::Request& request) const {
  auto run = [&]() -> absl::StatusOr<http::Response> {
    Principal principal;
    if (route.access != Access::kPublic) {
      ASSIGN_OR_RETURN(principal, authenticator_.Authenticate(request, clock_.Now()));
      RETURN_IF_ERROR(Authenticator::Authorize(principal, route.access, request));
    }
    // Query and path values end up in protobuf string fields, which must hold UTF-8 (a call
    // carrying anything else fails to serialize): refuse them here as the client's mistake.
    for (const auto& [name, value] : request.query) {
      if (!text::IsValidUtf8(name)) return Invalid("query parameter name", "not valid UTF-8");
      const std::string parameter = absl::StrCat("query parameter \"", name, "\"");
      bool known = std::find(route.query.begin(), route.query.end(), name) != route.query.end();
      for (const char* auth : kAuthQuery) known = known || name == auth;
      if (!known) return Invalid(parameter, "unknown");
      if (!text::IsValidUtf8(value)) return Invalid(parameter, "not valid UTF-8");
    }
    for (const auto& [name, value] : request.path_params) {
      if (!text::IsValidUtf8(value)) return Invalid(name, "not valid UTF-8");
    }
    for (const char* param : kIdParams) {
      const std::string value(request.Param(param));
      if (value.empty()) continue;
      if (absl::Status uuid = config::Uuid(value); !uuid.ok())
        return Invalid(param, uuid.message());
    }
    // Writes invalidate what they name once they return, however they end (a failed or
    // timed-out call may still have changed something), before the client hears back.
    absl::Cleanup invalidate = [&] {
      if (absl::string_view(route.method) != "GET") InvalidateWritten(request);
    };
    return (this->*route.handler)(Call{request, principal});
  };
  absl::StatusOr<http::Response> response;
  try {
    response = run();
  } catch (const std::exception& e) {
    // Nothing below is meant to throw (no exceptions across APIs); this is the last guard that
    // keeps a missed case from taking the server down.
    response = absl::InternalError(e.what());
  }
  if (response.ok()) return *std::move(response);
  http::Response error = ErrorResponse(response.status());
  if (error.status == 401) error.headers.Set("WWW-Authenticate", "Bearer");
  return error;
}

// ---- Shared steps ----

absl::StatusOr<types::Cluster> RestApi::ReadCluster(const Call& call, bool include_hosts) const {
  inv::GetClusterRequest request;
  request.set_id(std::string(call.request.Param("cluster_id")));
  request.set_include_hosts(include_hosts);
  return backends_.Call(kInventory, backends_.inventory(), &inv::InventoryService::Stub::GetCluster,
                        request, call.principal.identity);
}

absl::StatusOr<types::InfraEnv> RestApi::ReadInfraEnv(const Call& call) const {
  inv::GetInfraEnvRequest request;
  request.set_id(std::string(call.request.Param("infra_env_id")));
  return backends_.Call(kInventory, backends_.inventory(),
                        &inv::InventoryService::Stub::GetInfraEnv, request,
                        call.principal.identity);
}

absl::StatusOr<types::Host> RestApi::ReadHost(const Call& call) const {
  inv::GetHostRequest request;
  request.set_infra_env_id(std::string(call.request.Param("infra_env_id")));
  request.set_id(std::string(call.request.Param("host_id")));
  return backends_.Call(kInventory, backends_.inventory(), &inv::InventoryService::Stub::GetHost,
                        request, call.principal.identity);
}

template <typename Request>
absl::StatusOr<http::Response> RestApi::ClusterAction(
    const Call& call,
    grpc::Status (orch::OrchestratorService::Stub::*method)(grpc::ClientContext*, const Request&,
                                                            types::Cluster*)) const {
  RETURN_IF_ERROR(NoBody(call.request));
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));  // tenancy first
  Request request;
  request.set_cluster_id(cluster.id());
  ASSIGN_OR_RETURN(types::Cluster updated,
                   backends_.Call(kOrchestrator, backends_.orchestrator(), method, request,
                                  call.principal.identity));
  return JsonResponse(202, ClusterJson(updated));
}

template <typename Request, typename Answer>
absl::StatusOr<Answer> RestApi::AskAboutCluster(
    const Call& call,
    grpc::Status (orch::OrchestratorService::Stub::*method)(grpc::ClientContext*, const Request&,
                                                            Answer*)) const {
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));  // tenancy first
  Request request;
  request.set_cluster_id(cluster.id());
  return backends_.Call(kOrchestrator, backends_.orchestrator(), method, request,
                        call.principal.identity);
}

template <typename Request>
absl::StatusOr<http::Response> RestApi::HostAction(
    const Call& call,
    grpc::Status (orch::OrchestratorService::Stub::*method)(grpc::ClientContext*, const Request&,
                                                            types::Host*),
    int success_status) const {
  RETURN_IF_ERROR(NoBody(call.request));
  ASSIGN_OR_RETURN(types::Host host, ReadHost(call));  // tenancy first
  Request request;
  request.set_infra_env_id(host.infra_env_id());
  request.set_host_id(host.id());
  ASSIGN_OR_RETURN(types::Host updated, backends_.Call(kOrchestrator, backends_.orchestrator(),
                                                       method, request, call.principal.identity));
  return JsonResponse(success_status, HostJson(updated));
}

absl::StatusOr<http::Response> RestApi::CachedRead(
    const Call& call, absl::FunctionRef<absl::StatusOr<ReadCache::Fetched>()> fetch) const {
  if (read_cache_ == nullptr) {
    ASSIGN_OR_RETURN(ReadCache::Fetched fetched, fetch());
    return http::Response::Json(200, std::move(fetched.body));
  }
  // Everything that shapes the answer: who asks (as the inventory sees them, and as this API
  // treats them) and what (the path names the route and the ids; query parameters other than
  // credentials, should a cached route ever take some).
  const std::string kind = absl::StrCat(static_cast<int>(call.principal.kind));
  std::vector<absl::string_view> parts = {kind, call.principal.identity.user,
                                          call.principal.identity.org, call.principal.infra_env_id,
                                          call.request.path};
  for (const auto& [name, value] : call.request.query) {
    if (std::find(std::begin(kAuthQuery), std::end(kAuthQuery), name) != std::end(kAuthQuery)) {
      continue;
    }
    parts.push_back(name);
    parts.push_back(value);
  }
  ASSIGN_OR_RETURN(std::shared_ptr<const std::string> body,
                   read_cache_->GetOrFetch(ReadCacheKey(parts), fetch));
  return http::Response::Json(200, std::move(body));
}

void RestApi::InvalidateWritten(const http::Request& request) const {
  if (read_cache_ == nullptr) return;
  std::vector<std::string> tags = {ClusterTag(request.Param("cluster_id")),
                                   InfraEnvTag(request.Param("infra_env_id")),
                                   HostTag(request.Param("host_id"))};
  // A bind names its target cluster in the body: that cluster's host list changes too.
  if (!request.body.empty()) {
    if (absl::StatusOr<Json> body = ParseObject(request.body); body.ok()) {
      auto cluster_id = body->find("cluster_id");
      if (cluster_id != body->end() && cluster_id->is_string()) {
        tags.push_back(ClusterTag(cluster_id->get<std::string>()));
      }
    }
  }
  read_cache_->Invalidate(tags);
}

absl::Status RestApi::ReadArtifactChunks(
    const Call& call, const std::string& cluster_id, const std::string& name,
    absl::FunctionRef<absl::Status(const inv::ArtifactInfo&)> on_info,
    absl::FunctionRef<absl::Status(absl::string_view)> on_bytes) const {
  inv::GetArtifactRequest request;
  request.set_cluster_id(cluster_id);
  request.set_name(name);
  request.set_length(kArtifactChunkBytes);
  inv::ArtifactInfo first;
  int64_t offset = 0;
  do {
    request.set_offset(offset);
    ASSIGN_OR_RETURN(inv::Artifact chunk, backends_.Call(kInventory, backends_.inventory(),
                                                         &inv::InventoryService::Stub::GetArtifact,
                                                         request, call.principal.identity));
    if (offset == 0) {
      first = chunk.info();
      if (first.partial()) {
        return absl::FailedPreconditionError(absl::StrCat(name, " is still being written"));
      }
      RETURN_IF_ERROR(on_info(first));
    } else if (!SameVersion(first, chunk.info())) {
      return absl::AbortedError(absl::StrCat(name, " was replaced while being read; try again"));
    }
    // An inventory that predates chunked reads answers the whole artifact at once, which ends
    // the loop just as well; one that answers nothing before the end must not make it spin.
    if (chunk.content().empty() && offset < first.size_bytes()) {
      return absl::InternalError(absl::StrCat("reading ", name, " stopped short at ", offset,
                                              " of ", first.size_bytes(), " bytes"));
    }
    RETURN_IF_ERROR(on_bytes(chunk.content()));
    offset += static_cast<int64_t>(chunk.content().size());
  } while (offset < first.size_bytes());
  return absl::OkStatus();
}

absl::StatusOr<http::Response> RestApi::ServeArtifact(const Call& call,
                                                      const std::string& name) const {
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));  // tenancy first
  ASSIGN_OR_RETURN(http::SpoolFile spool, http::SpoolFile::Create());
  std::string type;
  const absl::Status read = ReadArtifactChunks(
      call, cluster.id(), name,
      [&](const inv::ArtifactInfo& info) {
        type = info.content_type().empty() ? "application/octet-stream" : info.content_type();
        return absl::OkStatus();
      },
      [&](absl::string_view bytes) { return spool.Append(bytes); });
  if (absl::IsNotFound(read)) {
    return absl::NotFoundError(absl::StrCat(name, " of cluster ", cluster.id(),
                                            " is not available (cluster is ",
                                            EnumText(cluster.status()), ")"));
  }
  RETURN_IF_ERROR(read);
  ASSIGN_OR_RETURN(http::Body body, SpooledBody(std::move(spool)));
  return Attachment(std::move(body), std::move(type), name);
}

// ---- Clusters ----

absl::StatusOr<http::Response> RestApi::RegisterCluster(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  inv::CreateClusterRequest request;
  ASSIGN_OR_RETURN(bool validate_only, QueryBool(call.request, "validate_only"));
  request.set_validate_only(validate_only);
  types::Cluster& cluster = *request.mutable_cluster();
  ASSIGN_OR_RETURN(Decoded decoded, FromJson(ClusterModel(), body, kCreate, &cluster));
  request.set_pull_secret(decoded.pull_secret);
  // The reference's defaults for what the user left out.
  if (cluster.cluster_networks().empty()) {
    types::ClusterNetwork& network = *cluster.add_cluster_networks();
    network.set_cidr("10.128.0.0/14");
    network.set_host_prefix(23);
  }
  if (cluster.service_networks().empty()) cluster.add_service_networks()->set_cidr("172.30.0.0/16");
  if (cluster.control_plane_count() == 0) {
    cluster.set_control_plane_count(
        cluster.high_availability_mode() == types::HIGH_AVAILABILITY_MODE_NONE ? 1 : 3);
  }
  if (cluster.high_availability_mode() == types::HIGH_AVAILABILITY_MODE_UNSPECIFIED) {
    cluster.set_high_availability_mode(cluster.control_plane_count() == 1
                                           ? types::HIGH_AVAILABILITY_MODE_NONE
                                           : types::HIGH_AVAILABILITY_MODE_FULL);
  }
  cluster.set_kind(types::CLUSTER_KIND_CLUSTER);
  return CreateCluster(call, request);
}

absl::StatusOr<http::Response> RestApi::CreateCluster(
    const Call& call, const inv::CreateClusterRequest& request) const {
  ASSIGN_OR_RETURN(types::Cluster created,
                   Unprocessable(backends_.Call(kInventory, backends_.inventory(),
                                                &inv::InventoryService::Stub::CreateCluster,
                                                request, call.principal.identity)));
  // A draft that was only checked has nothing the orchestrator could judge.
  return JsonResponse(201, ClusterJson(request.validate_only() ? std::move(created)
                                                               : Judged(call, std::move(created))));
}

absl::StatusOr<http::Response> RestApi::ImportCluster(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  inv::CreateClusterRequest request;
  types::Cluster& cluster = *request.mutable_cluster();
  RETURN_IF_ERROR(FromJson(ImportClusterModel(), body, kCreate, &cluster).status());
  if (absl::Status uuid = config::Uuid(cluster.openshift_cluster_id()); !uuid.ok()) {
    return Invalid("openshift_cluster_id", uuid.message());
  }
  // As upstream: an API name "api.<name>.<base domain>" gives the cluster's name and domain,
  // which its day-2 hosts' names and machine-config URL derive from; the name given is used
  // otherwise.
  std::vector<absl::string_view> labels =
      absl::StrSplit(cluster.api_vip_dns_name(), absl::MaxSplits('.', 2));
  if (labels.size() == 3 && labels[0] == "api" && !labels[1].empty() && !labels[2].empty()) {
    cluster.set_name(std::string(labels[1]));
    cluster.set_base_dns_domain(std::string(labels[2]));
  }
  cluster.set_kind(types::CLUSTER_KIND_ADD_HOSTS_CLUSTER);
  cluster.set_status(types::CLUSTER_STATUS_ADDING_HOSTS);
  cluster.set_imported(true);
  cluster.mutable_platform()->set_type(types::PLATFORM_TYPE_BAREMETAL);
  return CreateCluster(call, request);
}

absl::StatusOr<http::Response> RestApi::RegisterDisconnectedCluster(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  inv::CreateClusterRequest request;
  types::Cluster& cluster = *request.mutable_cluster();
  RETURN_IF_ERROR(FromJson(DisconnectedClusterModel(), body, kCreate, &cluster).status());
  cluster.set_kind(types::CLUSTER_KIND_DISCONNECTED_CLUSTER);
  cluster.set_status(types::CLUSTER_STATUS_UNMONITORED);
  return CreateCluster(call, request);
}

types::Cluster RestApi::Judged(const Call& call, types::Cluster stored) const {
  // The orchestrator's hub judges a changed cluster by itself only where it holds the
  // cluster's agents; a cluster without hosts (or whose agents are all away) kept the
  // validations of its old values. Upstream's update refreshes the status the same way.
  orch::RefreshClusterRequest request;
  request.set_cluster_id(stored.id());
  absl::StatusOr<types::Cluster> judged = backends_.Call(
      kOrchestrator, backends_.orchestrator(), &orch::OrchestratorService::Stub::RefreshCluster,
      request, call.principal.identity);
  // The change itself is stored; only the answer then shows the validations as they were.
  return judged.ok() ? *std::move(judged) : std::move(stored);
}

absl::StatusOr<http::Response> RestApi::ListClusters(const Call& call) const {
  ASSIGN_OR_RETURN(bool with_hosts, QueryBool(call.request, "with_hosts"));
  inv::ListClustersRequest request;
  request.set_page_size(1000);
  request.set_include_hosts(with_hosts);
  // The inventory filters by OpenShift cluster id.
  ASSIGN_OR_RETURN(*request.mutable_openshift_cluster_id(),
                   QueryId(call.request, "openshift_cluster_id"));
  // No cluster here has an AMS subscription: asking for some finds none, as upstream would.
  const bool by_subscription = !QueryList(call.request, "ams_subscription_ids").empty();
  const absl::optional<absl::string_view> owner = call.request.Query("owner");
  Json list = Json::array();
  do {
    ASSIGN_OR_RETURN(inv::ListClustersResponse page,
                     backends_.Call(kInventory, backends_.inventory(),
                                    &inv::InventoryService::Stub::ListClusters, request,
                                    call.principal.identity));
    for (const types::Cluster& cluster : page.clusters()) {
      if (by_subscription || !OwnedBy(cluster, owner)) continue;
      list.push_back(ClusterJson(cluster));
    }
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return JsonResponse(200, list);
}

absl::StatusOr<http::Response> RestApi::ClusterDefaultConfig(const Call&) const {
  static const Json* config = new Json{
      {"cluster_network_cidr", "10.128.0.0/14"},
      {"cluster_network_host_prefix", 23},
      {"service_network_cidr", "172.30.0.0/16"},
      {"cluster_networks_ipv4", {{{"cidr", "10.128.0.0/14"}, {"host_prefix", 23}}}},
      {"service_networks_ipv4", {{{"cidr", "172.30.0.0/16"}}}},
      {"cluster_networks_dualstack",
       {{{"cidr", "10.128.0.0/14"}, {"host_prefix", 23}},
        {{"cidr", "fd01::/48"}, {"host_prefix", 64}}}},
      {"service_networks_dualstack", {{{"cidr", "172.30.0.0/16"}}, {{"cidr", "fd02::/112"}}}},
      {"schedulable_masters", false},
      {"network_type", "OVNKubernetes"},
      {"control_plane_count", 3},
  };
  return JsonResponse(200, *config);
}

absl::StatusOr<http::Response> RestApi::GetCluster(const Call& call) const {
  ASSIGN_OR_RETURN(bool exclude_hosts, QueryBool(call.request, "exclude-hosts"));
  return CachedRead(call, [&] { return Rendered(ReadCluster(call, !exclude_hosts), ClusterJson); });
}

absl::StatusOr<http::Response> RestApi::UpdateCluster(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  // Written on condition that the cluster is still the one read, so an installation that begins
  // meanwhile makes the write lose and the next attempt refuses it.
  for (int attempt = 1;; ++attempt) {
    ASSIGN_OR_RETURN(types::Cluster current, ReadCluster(call, false));
    RETURN_IF_ERROR(CheckClusterUpdatable(current));
    inv::UpdateClusterRequest request;
    types::Cluster& cluster = *request.mutable_cluster();
    // Upstream's single-network fields, and olm_operators, keep what they leave out from the
    // stored cluster.
    ASSIGN_OR_RETURN(Decoded decoded, FromJson(ClusterModel(), body, kUpdate, &cluster, &current));
    // Upstream answers an update that changes nothing with the resource as it is.
    if (decoded.mask.paths().empty()) return JsonResponse(201, ClusterJson(current));
    cluster.set_id(current.id());
    *request.mutable_update_mask() = std::move(decoded.mask);
    request.set_pull_secret(decoded.pull_secret);
    request.set_resource_version(current.resource_version());
    absl::StatusOr<types::Cluster> updated = backends_.Call(
        kInventory, backends_.inventory(), &inv::InventoryService::Stub::UpdateCluster, request,
        call.principal.identity);
    if (absl::IsAborted(updated.status()) && attempt < kConditionalWriteAttempts) continue;
    ASSIGN_OR_RETURN(types::Cluster written, Unprocessable(std::move(updated)));
    return JsonResponse(201, ClusterJson(Judged(call, std::move(written))));
  }
}

absl::StatusOr<http::Response> RestApi::DeregisterCluster(const Call& call) const {
  inv::DeleteClusterRequest request;
  request.set_id(std::string(call.request.Param("cluster_id")));
  RETURN_IF_ERROR(backends_
                      .Call(kInventory, backends_.inventory(),
                            &inv::InventoryService::Stub::DeleteCluster, request,
                            call.principal.identity)
                      .status());
  return http::Response{.status = 204};
}

absl::StatusOr<http::Response> RestApi::InstallCluster(const Call& call) const {
  return ClusterAction<orch::InstallClusterRequest>(
      call, &orch::OrchestratorService::Stub::InstallCluster);
}
absl::StatusOr<http::Response> RestApi::CancelInstallation(const Call& call) const {
  return ClusterAction<orch::CancelInstallationRequest>(
      call, &orch::OrchestratorService::Stub::CancelInstallation);
}
absl::StatusOr<http::Response> RestApi::ResetCluster(const Call& call) const {
  return ClusterAction<orch::ResetClusterRequest>(call,
                                                  &orch::OrchestratorService::Stub::ResetCluster);
}

// Serves upstream's allow-add-workers and allow-add-hosts alike: both turn an installed
// cluster into one that accepts day-2 hosts.
absl::StatusOr<http::Response> RestApi::AllowAddWorkers(const Call& call) const {
  return ClusterAction<orch::AllowAddWorkersRequest>(
      call, &orch::OrchestratorService::Stub::AllowAddWorkers);
}

absl::StatusOr<http::Response> RestApi::ListClusterHosts(const Call& call) const {
  // Upstream's filters. Unlike upstream, inventory and connectivity are shown unless left out
  // explicitly (aictl names hosts from their inventory); free_addresses is never shown here.
  types::HostRole role = types::HOST_ROLE_UNSPECIFIED;
  if (absl::optional<absl::string_view> text = call.request.Query("role")) {
    ASSIGN_OR_RETURN(int value, EnumFromText(*types::HostRole_descriptor(), *text, "role"));
    role = static_cast<types::HostRole>(value);
    if (role == types::HOST_ROLE_BOOTSTRAP) {
      return Invalid("role", "expected master, arbiter, worker or auto-assign");
    }
  }
  types::HostStatus status = types::HOST_STATUS_UNSPECIFIED;
  if (absl::optional<absl::string_view> text = call.request.Query("status")) {
    ASSIGN_OR_RETURN(int value, EnumFromText(*types::HostStatus_descriptor(), *text, "status"));
    status = static_cast<types::HostStatus>(value);
  }
  ASSIGN_OR_RETURN(bool with_inventory, QueryBool(call.request, "with-inventory", true));
  ASSIGN_OR_RETURN(bool with_connectivity, QueryBool(call.request, "with-connectivity", true));
  return CachedRead(call, [&] {
    return Rendered(ReadCluster(call, true), [&](const types::Cluster& cluster) {
      Json list = Json::array();
      for (const types::Host& host : cluster.hosts()) {
        if (role != types::HOST_ROLE_UNSPECIFIED && host.role() != role) continue;
        if (status != types::HOST_STATUS_UNSPECIFIED && host.status() != status) continue;
        Json json = HostJson(host);
        json.erase("free_addresses");
        if (!with_inventory) json.erase("inventory");
        if (!with_connectivity) json.erase("connectivity");
        list.push_back(std::move(json));
      }
      return list;
    });
  });
}

absl::StatusOr<http::Response> RestApi::DownloadClusterFiles(const Call& call) const {
  ASSIGN_OR_RETURN(std::string name, ClusterFileOf(call.request));
  if (name == kCustomManifestsJson || name == kCustomManifestsYaml) {
    return CustomManifestsFile(call, name);
  }
  return ServeArtifact(call, name);
}

absl::StatusOr<http::Response> RestApi::CustomManifestsFile(const Call& call,
                                                            const std::string& name) const {
  // The orchestrator owns the manifests (and reads them as the caller: tenancy first).
  ASSIGN_OR_RETURN(orch::ListClusterManifestsResponse listed,
                   AskAboutCluster(call, &orch::OrchestratorService::Stub::ListClusterManifests));
  Json json = Json::array();
  std::string yaml;
  for (orch::ClusterManifestRef ref : listed.manifests()) {
    ASSIGN_OR_RETURN(orch::ClusterManifest manifest,
                     backends_.Call(kOrchestrator, backends_.orchestrator(),
                                    &orch::OrchestratorService::Stub::GetClusterManifest, ref,
                                    call.principal.identity));
    // Each manifest as one YAML document (a JSON manifest is YAML too).
    absl::StrAppend(&yaml, "---\n", manifest.content(),
                    absl::EndsWith(manifest.content(), "\n") ? "" : "\n");
    Json entry = ManifestJson(manifest.ref());
    entry["content"] = manifest.content();
    json.push_back(std::move(entry));
  }
  if (name == kCustomManifestsYaml) return Attachment(std::move(yaml), "application/yaml", name);
  return Attachment(Dump(json), "application/json", name);
}

absl::StatusOr<http::Response> RestApi::DownloadClusterCredentials(const Call& call) const {
  ASSIGN_OR_RETURN(std::string name, CredentialFileOf(call.request));
  return ServeArtifact(call, name);
}

absl::StatusOr<http::Response> RestApi::PresignClusterFiles(const Call& call) const {
  ASSIGN_OR_RETURN(std::string name, ClusterFileOf(call.request));
  return PresignedClusterLink(call, "files", name);
}

absl::StatusOr<http::Response> RestApi::PresignClusterCredentials(const Call& call) const {
  ASSIGN_OR_RETURN(std::string name, CredentialFileOf(call.request));
  return PresignedClusterLink(call, "credentials", name);
}

absl::StatusOr<http::Response> RestApi::PresignedClusterLink(const Call& call,
                                                             absl::string_view download,
                                                             const std::string& name) const {
  ASSIGN_OR_RETURN(std::string base, PublicBaseUrl(call.request));
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));  // tenancy first
  ASSIGN_OR_RETURN(Authenticator::ClusterLink link,
                   authenticator_.SignClusterLink(cluster.id(), clock_.Now()));
  // The name was checked against the fixed list above: nothing in it needs escaping.
  Json json = {
      {"url", absl::StrCat(base, ClusterHref(cluster.id()), "/downloads/", download,
                           "?file_name=", name, "&api_key=", link.token)},
      {"expires_at", absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", link.expires_at, absl::UTCTimeZone())}};
  return JsonResponse(200, json);
}

absl::StatusOr<http::Response> RestApi::GetCredentials(const Call& call) const {
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));  // tenancy first
  // As upstream: while the console operator is reported but not available, its URL does not
  // answer yet.
  for (const types::MonitoredOperator& op : cluster.monitored_operators()) {
    if (op.name() == "console" && op.status() != types::OPERATOR_STATUS_AVAILABLE) {
      return absl::FailedPreconditionError(
          "the console URL is not available yet: the console operator is not available (it "
          "becomes so while the cluster is finalizing)");
    }
  }
  // The password is a few dozen bytes; anything much larger is not one.
  constexpr size_t kMaxPasswordBytes = 4096;
  std::string password;
  const absl::Status read = ReadArtifactChunks(
      call, cluster.id(), "kubeadmin-password",
      [](const inv::ArtifactInfo&) { return absl::OkStatus(); },
      [&](absl::string_view bytes) {
        if (password.size() + bytes.size() > kMaxPasswordBytes) {
          return absl::InternalError("kubeadmin-password is larger than a password");
        }
        password.append(bytes.data(), bytes.size());
        return absl::OkStatus();
      });
  if (absl::IsNotFound(read)) {
    return absl::FailedPreconditionError(
        absl::StrCat("kubeadmin-password of cluster ", cluster.id(),
                     " is not available yet (cluster is ", EnumText(cluster.status()), ")"));
  }
  RETURN_IF_ERROR(read);
  Json credentials = {{"username", "kubeadmin"}, {"password", std::move(password)}};
  if (!cluster.name().empty() && !cluster.base_dns_domain().empty()) {
    // The console route OpenShift creates for every cluster.
    credentials["console_url"] = absl::StrCat("https://console-openshift-console.apps.",
                                              cluster.name(), ".", cluster.base_dns_domain());
  }
  return JsonResponse(200, credentials);
}

absl::StatusOr<http::Response> RestApi::DownloadClusterLogs(const Call& call) const {
  const std::string type(call.request.Query("logs_type").value_or("all"));
  if (type != "host" && type != "controller" && type != "all") {
    return Invalid("logs_type", "expected host, controller or all");
  }
  ASSIGN_OR_RETURN(std::string host_id, QueryId(call.request, "host_id"));
  if (type == "host" && host_id.empty()) return Invalid("host_id", "required for host logs");
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));  // tenancy first
  inv::ListArtifactsRequest list;
  list.set_cluster_id(cluster.id());
  list.add_kinds(inv::ARTIFACT_KIND_LOGS);
  ASSIGN_OR_RETURN(
      inv::ListArtifactsResponse logs,
      backends_.Call(kInventory, backends_.inventory(), &inv::InventoryService::Stub::ListArtifacts,
                     list, call.principal.identity));
  // Each bundle goes into the archive chunk by chunk: the archive is spooled to disk, never
  // held in memory (a cluster's bundles reach 64 MiB per host).
  ASSIGN_OR_RETURN(http::SpoolFile spool, http::SpoolFile::Create());
  const int64_t mtime = absl::ToUnixSeconds(clock_.Now());
  int files = 0;
  for (const inv::ArtifactInfo& info : logs.artifacts()) {
    const bool wanted = type == "all" ||
                        (type == "host" && absl::StrContains(info.name(), host_id)) ||
                        (type == "controller" && absl::StrContains(info.name(), "controller"));
    if (!wanted || info.partial()) continue;
    const std::string path(absl::StripPrefix(info.name(), "logs/"));
    uint64_t size = 0;
    RETURN_IF_ERROR(ReadArtifactChunks(
        call, cluster.id(), info.name(),
        [&](const inv::ArtifactInfo& current) -> absl::Status {
          size = static_cast<uint64_t>(current.size_bytes());
          ASSIGN_OR_RETURN(std::string header, TarHeader(path, 0644, size, mtime));
          return spool.Append(header);
        },
        [&](absl::string_view bytes) { return spool.Append(bytes); }));
    RETURN_IF_ERROR(spool.Append(TarPadding(size)));
    ++files;
  }
  if (files == 0) {
    return absl::NotFoundError(absl::StrCat("no ", type == "all" ? "" : type + " ",
                                            "logs collected for cluster ", cluster.id()));
  }
  RETURN_IF_ERROR(spool.Append(TarEnd()));
  ASSIGN_OR_RETURN(http::Body archive, SpooledBody(std::move(spool)));
  return Attachment(
      std::move(archive), "application/x-tar",
      absl::StrCat(cluster.name().empty() ? cluster.id() : cluster.name(), "_logs.tar"));
}

// ---- Infra-envs ----

absl::StatusOr<http::Response> RestApi::RegisterInfraEnv(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  inv::CreateInfraEnvRequest request;
  ASSIGN_OR_RETURN(bool validate_only, QueryBool(call.request, "validate_only"));
  request.set_validate_only(validate_only);
  types::InfraEnv& infra_env = *request.mutable_infra_env();
  ASSIGN_OR_RETURN(Decoded decoded, FromJson(InfraEnvModel(), body, kCreate, &infra_env));
  request.set_pull_secret(decoded.pull_secret);
  if (!infra_env.cluster_id().empty()) {
    if (absl::Status uuid = config::Uuid(infra_env.cluster_id()); !uuid.ok()) {
      return Invalid("cluster_id", uuid.message());
    }
    // Binding to a cluster needs access to it: another tenant's cluster is not found.
    inv::GetClusterRequest get;
    get.set_id(infra_env.cluster_id());
    RETURN_IF_ERROR(backends_
                        .Call(kInventory, backends_.inventory(),
                              &inv::InventoryService::Stub::GetCluster, get,
                              call.principal.identity)
                        .status());
  }
  if (infra_env.type() == types::IMAGE_TYPE_UNSPECIFIED) {
    infra_env.set_type(types::IMAGE_TYPE_FULL_ISO);
  }
  ASSIGN_OR_RETURN(types::InfraEnv created,
                   Unprocessable(backends_.Call(kInventory, backends_.inventory(),
                                                &inv::InventoryService::Stub::CreateInfraEnv,
                                                request, call.principal.identity)));
  return JsonResponse(201, InfraEnvJson(created));
}

absl::StatusOr<http::Response> RestApi::ListInfraEnvs(const Call& call) const {
  inv::ListInfraEnvsRequest request;
  request.set_page_size(1000);
  ASSIGN_OR_RETURN(std::string cluster_id, QueryId(call.request, "cluster_id"));
  request.set_cluster_id(cluster_id);
  Json list = Json::array();
  do {
    ASSIGN_OR_RETURN(inv::ListInfraEnvsResponse page,
                     backends_.Call(kInventory, backends_.inventory(),
                                    &inv::InventoryService::Stub::ListInfraEnvs, request,
                                    call.principal.identity));
    for (const types::InfraEnv& infra_env : page.infra_envs()) {
      if (OwnedBy(infra_env, call.request.Query("owner"))) list.push_back(InfraEnvJson(infra_env));
    }
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return JsonResponse(200, list);
}

absl::StatusOr<http::Response> RestApi::GetInfraEnv(const Call& call) const {
  return CachedRead(call, [&] { return Rendered(ReadInfraEnv(call), InfraEnvJson); });
}

absl::StatusOr<http::Response> RestApi::UpdateInfraEnv(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  inv::UpdateInfraEnvRequest request;
  types::InfraEnv& infra_env = *request.mutable_infra_env();
  ASSIGN_OR_RETURN(Decoded decoded, FromJson(InfraEnvModel(), body, kUpdate, &infra_env));
  if (decoded.mask.paths().empty()) return Rendered(ReadInfraEnv(call), InfraEnvJson, 201);
  infra_env.set_id(std::string(call.request.Param("infra_env_id")));
  *request.mutable_update_mask() = std::move(decoded.mask);
  request.set_pull_secret(decoded.pull_secret);
  ASSIGN_OR_RETURN(types::InfraEnv updated,
                   Unprocessable(backends_.Call(kInventory, backends_.inventory(),
                                                &inv::InventoryService::Stub::UpdateInfraEnv,
                                                request, call.principal.identity)));
  return JsonResponse(201, InfraEnvJson(updated));
}

absl::StatusOr<http::Response> RestApi::DeregisterInfraEnv(const Call& call) const {
  inv::DeleteInfraEnvRequest request;
  request.set_id(std::string(call.request.Param("infra_env_id")));
  RETURN_IF_ERROR(backends_
                      .Call(kInventory, backends_.inventory(),
                            &inv::InventoryService::Stub::DeleteInfraEnv, request,
                            call.principal.identity)
                      .status());
  return http::Response{.status = 204};
}

absl::StatusOr<http::Response> RestApi::RegenerateInfraEnvSigningKey(const Call& call) const {
  RETURN_IF_ERROR(NoBody(call.request));
  // The inventory decides tenancy (another tenant's infra-env is NOT_FOUND) and keeps the key.
  inv::RegenerateInfraEnvSigningKeyRequest request;
  request.set_infra_env_id(std::string(call.request.Param("infra_env_id")));
  RETURN_IF_ERROR(backends_
                      .Call(kInventory, backends_.inventory(),
                            &inv::InventoryService::Stub::RegenerateInfraEnvSigningKey, request,
                            call.principal.identity)
                      .status());
  return http::Response{.status = 204};
}

absl::StatusOr<http::Response> RestApi::GetInfraEnvPresignedFileUrl(const Call& call) const {
  ASSIGN_OR_RETURN(std::string name, InfraEnvFileOf(call.request));
  ASSIGN_OR_RETURN(std::string base, PublicBaseUrl(call.request));
  ASSIGN_OR_RETURN(types::InfraEnv infra_env, ReadInfraEnv(call));  // tenancy first
  img::GetImageUrlRequest request;
  request.set_infra_env_id(infra_env.id());
  ASSIGN_OR_RETURN(img::GetImageUrlResponse signed_urls,
                   backends_.Call(kImage, backends_.image(), &img::ImageService::Stub::GetImageUrl,
                                  request, {}));
  // The download route itself, with the image service's download token (an image token, which
  // opens this infra-env's files and nothing else) and the query the caller's link needs; every
  // value was checked above, so none needs escaping.
  std::string url =
      absl::StrCat(base, InfraEnvHref(infra_env.id()), "/downloads/files?file_name=", name);
  for (const char* passed : {"ipxe_script_type", "mac", "discovery_iso_type"}) {
    if (absl::optional<absl::string_view> value = call.request.Query(passed)) {
      absl::StrAppend(&url, "&", passed, "=", *value);
    }
  }
  absl::StrAppend(&url, "&api_key=", signed_urls.download_token());
  Json json = {{"url", url}};
  if (signed_urls.has_expires_at()) json["expires_at"] = MessageToJson(signed_urls)["expires_at"];
  return JsonResponse(200, json);
}

absl::StatusOr<http::Response> RestApi::GetInfraEnvImageUrl(const Call& call) const {
  ASSIGN_OR_RETURN(types::InfraEnv infra_env, ReadInfraEnv(call));  // tenancy first
  img::GetImageUrlRequest request;
  request.set_infra_env_id(infra_env.id());
  ASSIGN_OR_RETURN(img::GetImageUrlResponse url,
                   backends_.Call(kImage, backends_.image(), &img::ImageService::Stub::GetImageUrl,
                                  request, {}));
  Json json = {{"url", url.url()}};
  if (url.has_expires_at()) json["expires_at"] = MessageToJson(url)["expires_at"];
  return JsonResponse(200, json);
}

absl::StatusOr<http::Response> RestApi::DownloadInfraEnvFiles(const Call& call) const {
  ASSIGN_OR_RETURN(std::string name, InfraEnvFileOf(call.request));
  ASSIGN_OR_RETURN(types::InfraEnv infra_env, ReadInfraEnv(call));  // tenancy first
  if (name == "discovery.ign") {
    img::GetDiscoveryIgnitionRequest request;
    request.set_infra_env_id(infra_env.id());
    ASSIGN_OR_RETURN(img::GetDiscoveryIgnitionResponse ignition,
                     backends_.Call(kImage, backends_.image(),
                                    &img::ImageService::Stub::GetDiscoveryIgnition, request, {}));
    return Attachment(std::move(*ignition.mutable_ignition_json()), "application/json", name);
  }
  if (name == "ipxe-script") {
    img::GetIpxeScriptRequest request;
    request.set_infra_env_id(infra_env.id());
    if (absl::optional<absl::string_view> type = call.request.Query("ipxe_script_type")) {
      ASSIGN_OR_RETURN(int value,
                       EnumFromText(*img::IpxeScriptType_descriptor(), *type, "ipxe_script_type"));
      request.set_script_type(static_cast<img::IpxeScriptType>(value));
    }
    request.set_mac(std::string(call.request.Query("mac").value_or("")));
    if (request.script_type() == img::IPXE_SCRIPT_TYPE_BOOT_ORDER_CONTROL &&
        request.mac().empty()) {
      return Invalid("mac", "required for boot-order-control scripts");
    }
    ASSIGN_OR_RETURN(img::GetIpxeScriptResponse script,
                     backends_.Call(kImage, backends_.image(),
                                    &img::ImageService::Stub::GetIpxeScript, request, {}));
    return Attachment(std::move(*script.mutable_script()), "text/plain", "ipxe-script");
  }
  img::GetStaticNetworkConfigRequest request;
  request.set_infra_env_id(infra_env.id());
  ASSIGN_OR_RETURN(img::GetStaticNetworkConfigResponse config,
                   backends_.Call(kImage, backends_.image(),
                                  &img::ImageService::Stub::GetStaticNetworkConfig, request, {}));
  std::vector<TarEntry> entries;
  for (img::GeneratedFile& file : *config.mutable_files()) {
    entries.push_back({file.path(), file.mode(), std::move(*file.mutable_content())});
  }
  ASSIGN_OR_RETURN(std::string archive, Tar(entries, absl::ToUnixSeconds(clock_.Now())));
  // Upstream's name; a tar with no member when the infra-env has no static networking.
  return Attachment(std::move(archive), "application/x-tar",
                    absl::StrCat(infra_env.id(), "-static-network-config.tar"));
}

absl::StatusOr<http::Response> RestApi::DownloadMinimalInitrd(const Call& call) const {
  ASSIGN_OR_RETURN(types::InfraEnv infra_env, ReadInfraEnv(call));  // tenancy first
  img::GetMinimalInitrdRequest request;
  request.set_infra_env_id(infra_env.id());
  ASSIGN_OR_RETURN(img::GetMinimalInitrdResponse initrd,
                   backends_.Call(kImage, backends_.image(),
                                  &img::ImageService::Stub::GetMinimalInitrd, request, {}));
  // As upstream: no static networking and no proxy means nothing to add to the boot.
  if (initrd.initrd().empty()) {
    http::Response none;
    none.status = 204;
    return none;
  }
  return Attachment(std::move(*initrd.mutable_initrd()), "application/octet-stream", "initrd.img");
}

// ---- Hosts ----

absl::StatusOr<http::Response> RestApi::ListHosts(const Call& call) const {
  return CachedRead(call, [&]() -> absl::StatusOr<ReadCache::Fetched> {
    inv::ListHostsRequest request;
    request.set_page_size(1000);
    request.set_infra_env_id(std::string(call.request.Param("infra_env_id")));
    google::protobuf::RepeatedPtrField<types::Host> hosts;
    do {
      ASSIGN_OR_RETURN(
          inv::ListHostsResponse page,
          backends_.Call(kInventory, backends_.inventory(), &inv::InventoryService::Stub::ListHosts,
                         request, call.principal.identity));
      for (types::Host& host : *page.mutable_hosts()) *hosts.Add() = std::move(host);
      request.set_page_token(page.next_page_token());
    } while (!request.page_token().empty());
    // The inventory filters hosts by tenant, so an empty list may hide another tenant's (or a
    // missing) infra-env: read it to answer 404 then. Agents were checked against their token.
    if (hosts.empty() && call.principal.kind != Principal::Kind::kAgent) {
      RETURN_IF_ERROR(ReadInfraEnv(call).status());
    }
    // Any host joining, leaving or changing is a change of the infra-env's hosts.
    std::vector<std::string> tags = TagsOf(hosts);
    tags.push_back(InfraEnvTag(request.infra_env_id()));
    return ReadCache::Fetched{Dump(HostsJson(hosts)), std::move(tags)};
  });
}

absl::StatusOr<http::Response> RestApi::GetHost(const Call& call) const {
  return CachedRead(call, [&] { return Rendered(ReadHost(call), HostJson); });
}

absl::StatusOr<http::Response> RestApi::UpdateHost(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  orch::UpdateHostRequest request;
  ASSIGN_OR_RETURN(Decoded decoded, FromJson(HostModel(), body, kUpdate, request.mutable_host()));
  if (decoded.mask.paths().empty() && decoded.skip_formatting.empty()) {
    return Rendered(ReadHost(call), HostJson, 201);
  }
  ASSIGN_OR_RETURN(types::Host host, ReadHost(call));  // tenancy first
  if (!decoded.skip_formatting.empty()) {
    ASSIGN_OR_RETURN(*request.mutable_host()->mutable_skip_formatting_disks(),
                     SkippedDisks(host, decoded.skip_formatting));
    decoded.mask.add_paths("skip_formatting_disks");
  }
  request.set_infra_env_id(host.infra_env_id());
  request.set_host_id(host.id());
  request.mutable_host()->set_infra_env_id(host.infra_env_id());
  request.mutable_host()->set_id(host.id());
  *request.mutable_update_mask() = std::move(decoded.mask);
  ASSIGN_OR_RETURN(types::Host updated,
                   Unprocessable(backends_.Call(kOrchestrator, backends_.orchestrator(),
                                                &orch::OrchestratorService::Stub::UpdateHost,
                                                request, call.principal.identity)));
  return JsonResponse(201, HostJson(updated));
}

absl::StatusOr<http::Response> RestApi::DeregisterHost(const Call& call) const {
  inv::DeleteHostRequest request;
  request.set_infra_env_id(std::string(call.request.Param("infra_env_id")));
  request.set_id(std::string(call.request.Param("host_id")));
  RETURN_IF_ERROR(backends_
                      .Call(kInventory, backends_.inventory(),
                            &inv::InventoryService::Stub::DeleteHost, request,
                            call.principal.identity)
                      .status());
  return http::Response{.status = 204};
}

// Upstream answers reset, bind and unbind with 200 and a day-2 install with 202.
absl::StatusOr<http::Response> RestApi::ResetHost(const Call& call) const {
  return HostAction<orch::ResetHostRequest>(call, &orch::OrchestratorService::Stub::ResetHost, 200);
}
absl::StatusOr<http::Response> RestApi::InstallHost(const Call& call) const {
  return HostAction<orch::InstallHostRequest>(call, &orch::OrchestratorService::Stub::InstallHost,
                                              202);
}
absl::StatusOr<http::Response> RestApi::UnbindHost(const Call& call) const {
  return HostAction<orch::UnbindHostRequest>(call, &orch::OrchestratorService::Stub::UnbindHost,
                                             200);
}

absl::StatusOr<http::Response> RestApi::BindHost(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  RETURN_IF_ERROR(OnlyFields(body, {"cluster_id"}, "bind"));
  ASSIGN_OR_RETURN(const std::string cluster_id, StringField(body, "cluster_id"));
  if (absl::Status uuid = config::Uuid(cluster_id); !uuid.ok()) {
    return Invalid("cluster_id", uuid.message());
  }
  ASSIGN_OR_RETURN(types::Host host, ReadHost(call));  // tenancy of both, first
  inv::GetClusterRequest get;
  get.set_id(cluster_id);
  RETURN_IF_ERROR(backends_
                      .Call(kInventory, backends_.inventory(),
                            &inv::InventoryService::Stub::GetCluster, get, call.principal.identity)
                      .status());
  orch::BindHostRequest request;
  request.set_infra_env_id(host.infra_env_id());
  request.set_host_id(host.id());
  request.set_cluster_id(cluster_id);
  ASSIGN_OR_RETURN(types::Host bound, backends_.Call(kOrchestrator, backends_.orchestrator(),
                                                     &orch::OrchestratorService::Stub::BindHost,
                                                     request, call.principal.identity));
  return JsonResponse(200, HostJson(bound));
}

// ---- Customisations: ignored validations, install-config, UI settings, host overrides ----

absl::StatusOr<http::Response> RestApi::GetIgnoredValidations(const Call& call) const {
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));
  return JsonResponse(200, IgnoredValidationsJson(cluster));
}

absl::StatusOr<http::Response> RestApi::SetIgnoredValidations(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  RETURN_IF_ERROR(
      OnlyFields(body, {"host-validation-ids", "cluster-validation-ids"}, "ignored-validations"));
  orch::SetIgnoredValidationsRequest request;
  ASSIGN_OR_RETURN(std::vector<std::string> host_ids, JsonTextList(body, "host-validation-ids"));
  ASSIGN_OR_RETURN(std::vector<std::string> cluster_ids,
                   JsonTextList(body, "cluster-validation-ids"));
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));  // tenancy first
  request.set_cluster_id(cluster.id());
  for (std::string& id : host_ids) request.add_ignored_host_validations(std::move(id));
  for (std::string& id : cluster_ids) request.add_ignored_cluster_validations(std::move(id));
  ASSIGN_OR_RETURN(types::Cluster updated,
                   backends_.Call(kOrchestrator, backends_.orchestrator(),
                                  &orch::OrchestratorService::Stub::SetIgnoredValidations, request,
                                  call.principal.identity));
  return JsonResponse(201, IgnoredValidationsJson(updated));
}

absl::StatusOr<http::Response> RestApi::GetInstallConfig(const Call& call) const {
  ASSIGN_OR_RETURN(orch::GetInstallConfigResponse document,
                   AskAboutCluster(call, &orch::OrchestratorService::Stub::GetInstallConfig));
  // Upstream answers the YAML document as one JSON string.
  return JsonResponse(200, Json(document.install_config()));
}

absl::StatusOr<http::Response> RestApi::UpdateInstallConfig(const Call& call) const {
  ASSIGN_OR_RETURN(std::string overrides, BodyString(call.request));
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));  // tenancy first
  orch::UpdateInstallConfigRequest request;
  request.set_cluster_id(cluster.id());
  request.set_install_config_overrides(std::move(overrides));
  RETURN_IF_ERROR(backends_
                      .Call(kOrchestrator, backends_.orchestrator(),
                            &orch::OrchestratorService::Stub::UpdateInstallConfig, request,
                            call.principal.identity)
                      .status());
  return http::Response{.status = 201};
}

// ---- Questions about a cluster, answered by the orchestrator from its validations' rules ----

absl::StatusOr<http::Response> RestApi::GetPreflightRequirements(const Call& call) const {
  ASSIGN_OR_RETURN(
      orch::PreflightRequirements rows,
      AskAboutCluster(call, &orch::OrchestratorService::Stub::GetPreflightRequirements));
  Json ocp = {{"master", HostTypeRequirementsJson(rows.master())},
              {"worker", HostTypeRequirementsJson(rows.worker())}};
  if (rows.has_arbiter()) ocp["arbiter"] = HostTypeRequirementsJson(rows.arbiter());
  // What the cluster's operators add, from the table the orchestrator's checks read.
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));
  return JsonResponse(
      200, Json{{"ocp", std::move(ocp)}, {"operators", OperatorPreflightRequirements(cluster)}});
}

absl::StatusOr<http::Response> RestApi::GetSupportedPlatforms(const Call& call) const {
  ASSIGN_OR_RETURN(orch::GetSupportedPlatformsResponse supported,
                   AskAboutCluster(call, &orch::OrchestratorService::Stub::GetSupportedPlatforms));
  Json platforms = Json::array();
  for (int platform : supported.platforms()) {
    platforms.push_back(enums::EnumText(static_cast<types::PlatformType>(platform)));
  }
  return JsonResponse(200, platforms);
}

// ---- User manifests: kept by the inventory, checked and written by the orchestrator ----

absl::StatusOr<http::Response> RestApi::ListClusterManifests(const Call& call) const {
  // Every manifest here is the user's: there are no system-generated ones to include.
  RETURN_IF_ERROR(QueryBool(call.request, "include_system_generated").status());
  ASSIGN_OR_RETURN(orch::ListClusterManifestsResponse listed,
                   AskAboutCluster(call, &orch::OrchestratorService::Stub::ListClusterManifests));
  Json list = Json::array();
  for (const orch::ClusterManifestRef& ref : listed.manifests()) list.push_back(ManifestJson(ref));
  return JsonResponse(200, list);
}

absl::StatusOr<http::Response> RestApi::CreateClusterManifest(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  RETURN_IF_ERROR(OnlyFields(body, {"folder", "file_name", "content"}, "create-manifest"));
  orch::ClusterManifest manifest;
  ASSIGN_OR_RETURN(*manifest.mutable_ref()->mutable_folder(),
                   OptionalStringField(body, "folder", "manifests"));
  ASSIGN_OR_RETURN(*manifest.mutable_ref()->mutable_file_name(), StringField(body, "file_name"));
  ASSIGN_OR_RETURN(*manifest.mutable_content(), Base64Field(body, "content"));
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));  // tenancy first
  manifest.mutable_ref()->set_cluster_id(cluster.id());
  ASSIGN_OR_RETURN(orch::ClusterManifest created,
                   backends_.Call(kOrchestrator, backends_.orchestrator(),
                                  &orch::OrchestratorService::Stub::CreateClusterManifest, manifest,
                                  call.principal.identity));
  return JsonResponse(201, ManifestJson(created.ref()));
}

absl::StatusOr<http::Response> RestApi::UpdateClusterManifest(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  RETURN_IF_ERROR(OnlyFields(
      body, {"folder", "file_name", "updated_folder", "updated_file_name", "updated_content"},
      "update-manifest"));
  orch::UpdateClusterManifestRequest request;
  ASSIGN_OR_RETURN(*request.mutable_ref()->mutable_folder(), StringField(body, "folder"));
  ASSIGN_OR_RETURN(*request.mutable_ref()->mutable_file_name(), StringField(body, "file_name"));
  ASSIGN_OR_RETURN(*request.mutable_updated_folder(), OptionalStringField(body, "updated_folder"));
  ASSIGN_OR_RETURN(*request.mutable_updated_file_name(),
                   OptionalStringField(body, "updated_file_name"));
  if (body.contains("updated_content")) {
    ASSIGN_OR_RETURN(*request.mutable_updated_content(), Base64Field(body, "updated_content"));
  }
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));  // tenancy first
  request.mutable_ref()->set_cluster_id(cluster.id());
  ASSIGN_OR_RETURN(orch::ClusterManifest updated,
                   backends_.Call(kOrchestrator, backends_.orchestrator(),
                                  &orch::OrchestratorService::Stub::UpdateClusterManifest, request,
                                  call.principal.identity));
  return JsonResponse(200, ManifestJson(updated.ref()));
}

absl::StatusOr<http::Response> RestApi::DeleteClusterManifest(const Call& call) const {
  RETURN_IF_ERROR(NoBody(call.request));
  ASSIGN_OR_RETURN(orch::ClusterManifestRef ref, QueriedManifest(call.request));
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));  // tenancy first
  ref.set_cluster_id(cluster.id());
  RETURN_IF_ERROR(backends_
                      .Call(kOrchestrator, backends_.orchestrator(),
                            &orch::OrchestratorService::Stub::DeleteClusterManifest, ref,
                            call.principal.identity)
                      .status());
  return http::Response{.status = 200};
}

absl::StatusOr<http::Response> RestApi::DownloadClusterManifest(const Call& call) const {
  ASSIGN_OR_RETURN(orch::ClusterManifestRef ref, QueriedManifest(call.request));
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));  // tenancy first
  ref.set_cluster_id(cluster.id());
  ASSIGN_OR_RETURN(orch::ClusterManifest manifest,
                   backends_.Call(kOrchestrator, backends_.orchestrator(),
                                  &orch::OrchestratorService::Stub::GetClusterManifest, ref,
                                  call.principal.identity));
  return Attachment(std::move(*manifest.mutable_content()), "application/octet-stream",
                    ref.file_name());
}

absl::StatusOr<http::Response> RestApi::GetUiSettings(const Call& call) const {
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));
  return JsonResponse(200, Json(cluster.ui_settings()));
}

absl::StatusOr<http::Response> RestApi::UpdateUiSettings(const Call& call) const {
  ASSIGN_OR_RETURN(std::string settings, BodyString(call.request));
  // Plain data: the inventory decides tenancy and bounds the size.
  inv::UpdateClusterRequest request;
  request.mutable_cluster()->set_id(std::string(call.request.Param("cluster_id")));
  request.mutable_cluster()->set_ui_settings(std::move(settings));
  request.mutable_update_mask()->add_paths("ui_settings");
  ASSIGN_OR_RETURN(
      types::Cluster updated,
      backends_.Call(kInventory, backends_.inventory(), &inv::InventoryService::Stub::UpdateCluster,
                     request, call.principal.identity));
  return JsonResponse(200, Json(updated.ui_settings()));
}

absl::StatusOr<types::Host> RestApi::UpdateHostFields(const Call& call, types::Host fields,
                                                      const char* path) const {
  ASSIGN_OR_RETURN(types::Host host, ReadHost(call));  // tenancy first
  orch::UpdateHostRequest request;
  request.set_infra_env_id(host.infra_env_id());
  request.set_host_id(host.id());
  fields.set_infra_env_id(host.infra_env_id());
  fields.set_id(host.id());
  *request.mutable_host() = std::move(fields);
  request.mutable_update_mask()->add_paths(path);
  return backends_.Call(kOrchestrator, backends_.orchestrator(),
                        &orch::OrchestratorService::Stub::UpdateHost, request,
                        call.principal.identity);
}

absl::StatusOr<http::Response> RestApi::ResetHostValidation(const Call& call) const {
  RETURN_IF_ERROR(NoBody(call.request));
  ASSIGN_OR_RETURN(types::Host host, ReadHost(call));  // tenancy first
  orch::ResetHostValidationRequest request;
  request.set_infra_env_id(host.infra_env_id());
  request.set_host_id(host.id());
  request.set_validation_id(std::string(call.request.Param("validation_id")));
  ASSIGN_OR_RETURN(types::Host reset,
                   backends_.Call(kOrchestrator, backends_.orchestrator(),
                                  &orch::OrchestratorService::Stub::ResetHostValidation, request,
                                  call.principal.identity));
  return JsonResponse(200, HostJson(reset));
}

absl::StatusOr<http::Response> RestApi::UpdateHostInstallerArgs(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  RETURN_IF_ERROR(OnlyFields(body, {"args"}, "installer-args"));
  auto args = body.find("args");
  if (args == body.end()) return Invalid("args", "required (a list of coreos-installer arguments)");
  if (!args->is_array()) return Invalid("args", "expected a list of strings");
  types::Host fields;
  for (const Json& arg : *args) {
    if (!arg.is_string()) return Invalid("args", "expected a list of strings");
    fields.add_installer_args(arg.get<std::string>());
  }
  ASSIGN_OR_RETURN(types::Host updated,
                   UpdateHostFields(call, std::move(fields), "installer_args"));
  return JsonResponse(201, HostJson(updated));
}

absl::StatusOr<http::Response> RestApi::GetHostIgnition(const Call& call) const {
  ASSIGN_OR_RETURN(types::Host host, ReadHost(call));
  return JsonResponse(200, Json{{"config", host.ignition_config_overrides()}});
}

absl::StatusOr<http::Response> RestApi::UpdateHostIgnition(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  RETURN_IF_ERROR(OnlyFields(body, {"config"}, "ignition"));
  types::Host fields;
  ASSIGN_OR_RETURN(*fields.mutable_ignition_config_overrides(), StringField(body, "config"));
  RETURN_IF_ERROR(UpdateHostFields(call, std::move(fields), "ignition_config_overrides").status());
  return http::Response{.status = 201};
}

absl::StatusOr<http::Response> RestApi::ListManagedDomains(const Call&) const {
  // No DNS provider manages base domains here: upstream's answer without one.
  return JsonResponse(200, Json::array());
}

// ---- Events, versions, health ----

absl::StatusOr<http::Response> RestApi::ListEvents(const Call& call) const {
  const http::Request& q = call.request;
  inv::ListEventsRequest request;
  ASSIGN_OR_RETURN(*request.mutable_cluster_id(), QueryId(q, "cluster_id"));
  ASSIGN_OR_RETURN(*request.mutable_host_id(), QueryId(q, "host_id"));
  ASSIGN_OR_RETURN(*request.mutable_infra_env_id(), QueryId(q, "infra_env_id"));
  for (const std::string& id : QueryList(q, "host_ids")) {
    if (absl::Status uuid = config::Uuid(id); !uuid.ok())
      return Invalid("host_ids", uuid.message());
    request.add_host_ids(id);
  }
  // Any limit is accepted, as upstream does; the inventory returns at most one page (5000).
  ASSIGN_OR_RETURN(int limit, QueryInt(q, "limit", 5000, -1, std::numeric_limits<int>::max()));
  request.set_limit(limit);
  ASSIGN_OR_RETURN(int offset, QueryInt(q, "offset", 0, 0, 1 << 30));
  request.set_offset(offset);
  // Upstream's spelling is ascending/descending; asc/desc are kept for earlier clients.
  const std::string order(q.Query("order").value_or("ascending"));
  const bool ascending = order == "ascending" || order == "asc";
  if (!ascending && order != "descending" && order != "desc") {
    return Invalid("order", "expected ascending or descending");
  }
  request.set_order(ascending ? inv::SORT_ORDER_ASC : inv::SORT_ORDER_DESC);
  ASSIGN_OR_RETURN(std::vector<types::EventSeverity> severities,
                   QueryEnums<types::EventSeverity>(q, "severities"));
  for (types::EventSeverity severity : severities) request.add_severities(severity);
  ASSIGN_OR_RETURN(std::vector<types::EventCategory> categories,
                   QueryEnums<types::EventCategory>(q, "categories"));
  for (types::EventCategory category : categories) request.add_categories(category);
  request.set_message(std::string(q.Query("message").value_or("")));
  ASSIGN_OR_RETURN(bool deleted_hosts, QueryBool(q, "deleted_hosts"));
  request.set_deleted_hosts(deleted_hosts);
  ASSIGN_OR_RETURN(bool cluster_level, QueryBool(q, "cluster_level"));
  request.set_cluster_level(cluster_level);
  if (cluster_level && request.cluster_id().empty()) {
    return Invalid("cluster_level", "needs cluster_id");
  }
  ASSIGN_OR_RETURN(
      inv::ListEventsResponse events,
      backends_.Call(kInventory, backends_.inventory(), &inv::InventoryService::Stub::ListEvents,
                     request, call.principal.identity));
  Json list = Json::array();
  for (const types::Event& event : events.events()) list.push_back(ToJson(EventModel(), event));
  http::Response response = JsonResponse(200, list);
  response.headers.Set("Event-Count", absl::StrCat(events.total_count()));
  for (const inv::SeverityCount& count : events.severity_counts()) {
    std::string severity = EnumText(count.severity());
    if (severity.empty()) continue;
    severity[0] = absl::ascii_toupper(severity[0]);
    response.headers.Set(absl::StrCat("Severity-Count-", severity), absl::StrCat(count.count()));
  }
  return response;
}

absl::StatusOr<http::Response> RestApi::ListOpenshiftVersions(const Call& call) const {
  // only_latest: there is one entry per version here, which is its latest.
  RETURN_IF_ERROR(QueryBool(call.request, "only_latest").status());
  const std::string wanted(call.request.Query("version").value_or(""));
  ASSIGN_OR_RETURN(
      img::ListBaseImagesResponse images,
      backends_.Call(kImage, backends_.image(), &img::ImageService::Stub::ListBaseImages,
                     img::ListBaseImagesRequest(), {}));
  Json versions = Json::object();
  for (const img::BaseImage& image : images.images()) {
    if (!absl::StartsWith(image.openshift_version(), wanted)) continue;
    Json& version = versions[image.openshift_version()];
    if (version.is_null()) {
      version = {{"display_name", image.openshift_version()},
                 {"support_level", "production"},
                 {"cpu_architectures", Json::array()},
                 {"default", versions.size() == 1}};
    }
    version["cpu_architectures"].push_back(EnumText(image.cpu_architecture()));
  }
  return JsonResponse(200, versions);
}

absl::StatusOr<http::Response> RestApi::GetSupportedArchitectures(const Call& call) const {
  ASSIGN_OR_RETURN(std::string version, RequiredQuery(call.request, "openshift_version"));
  ASSIGN_OR_RETURN(
      img::ListBaseImagesResponse images,
      backends_.Call(kImage, backends_.image(), &img::ImageService::Stub::ListBaseImages,
                     img::ListBaseImagesRequest(), {}));
  return JsonResponse(
      200, ArchitectureSupportLevels({images.images().begin(), images.images().end()}, version));
}

absl::StatusOr<std::vector<img::BaseImage>> RestApi::BaseImages() const {
  ASSIGN_OR_RETURN(
      img::ListBaseImagesResponse images,
      backends_.Call(kImage, backends_.image(), &img::ImageService::Stub::ListBaseImages,
                     img::ListBaseImagesRequest(), {}));
  return std::vector<img::BaseImage>(images.images().begin(), images.images().end());
}

absl::StatusOr<http::Response> RestApi::FeatureLevels(const Call& call, bool detailed) const {
  ASSIGN_OR_RETURN(std::string version, RequiredQuery(call.request, "openshift_version"));
  ASSIGN_OR_RETURN(types::CpuArchitecture architecture, CatalogArchitecture(call.request));
  ASSIGN_OR_RETURN(std::vector<img::BaseImage> images, BaseImages());
  return JsonResponse(200, FeatureSupportLevels(images, version, architecture, detailed));
}

absl::StatusOr<http::Response> RestApi::GetSupportedFeatures(const Call& call) const {
  return FeatureLevels(call, false);
}

absl::StatusOr<http::Response> RestApi::GetDetailedSupportedFeatures(const Call& call) const {
  return FeatureLevels(call, true);
}

absl::StatusOr<http::Response> RestApi::ListSupportedOperators(const Call&) const {
  return JsonResponse(200, Json(SupportedOperatorNames()));
}

absl::StatusOr<http::Response> RestApi::ListOperatorProperties(const Call& call) const {
  RETURN_IF_ERROR(CheckSupportedOperator(call.request.Param("operator_name")));
  // A supported operator has no properties a user sets here.
  return JsonResponse(200, Json::array());
}

absl::StatusOr<http::Response> RestApi::ListBundles(const Call& call) const {
  RETURN_IF_ERROR(CatalogArchitecture(call.request).status());
  // No bundles yet (operators.h).
  return JsonResponse(200, Json::array());
}

absl::StatusOr<http::Response> RestApi::GetBundle(const Call& call) const {
  const std::string id(call.request.Param("id"));
  RETURN_IF_ERROR(CheckOperatorBundle(id));
  return JsonResponse(200, Json{{"id", id}});
}

absl::StatusOr<http::Response> RestApi::ListMonitoredOperators(const Call& call) const {
  ASSIGN_OR_RETURN(types::Cluster cluster, ReadCluster(call, false));  // tenancy first
  const absl::optional<absl::string_view> name = call.request.Query("operator_name");
  Json operators = Json::array();
  for (const types::MonitoredOperator& op : cluster.monitored_operators()) {
    if (name && op.name() != *name) continue;
    Json json = MessageToJson(op);
    json["cluster_id"] = cluster.id();
    operators.push_back(std::move(json));
  }
  return JsonResponse(200, operators);
}

absl::StatusOr<http::Response> RestApi::ListReleaseSources(const Call&) const {
  ASSIGN_OR_RETURN(std::vector<img::BaseImage> images, BaseImages());
  // One source per minor version, in the catalog's order; no upgrade channel is followed here
  // (versions are what the image service is configured with), so each architecture's channel
  // list is empty.
  Json sources = Json::array();
  std::map<std::string, size_t> index;
  for (const img::BaseImage& image : images) {
    if (image.state() == img::BASE_IMAGE_STATE_FAILED) continue;
    const std::string version = version::MinorVersion(image.openshift_version());
    auto [at, added] = index.emplace(version, sources.size());
    if (added) {
      sources.push_back({{"openshift_version", version},
                         {"multi_cpu_architectures", Json::array()},
                         {"upgrade_channels", Json::array()}});
    }
    Json& source = sources[at->second];
    const std::string architecture = EnumText(image.cpu_architecture());
    bool listed = false;
    for (const Json& known : source["multi_cpu_architectures"]) listed |= known == architecture;
    if (listed) continue;
    source["multi_cpu_architectures"].push_back(architecture);
    source["upgrade_channels"].push_back(
        {{"cpu_architecture", architecture}, {"channels", Json::array()}});
  }
  return JsonResponse(200, sources);
}

absl::StatusOr<http::Response> RestApi::ListComponentVersions(const Call&) const {
  // What this process is; the other services report theirs only in their build-info metrics
  // and --version, so they are not claimed here.
  return JsonResponse(200, Json{{"versions", {{"assisted-gateway", service::kVersion}}},
                                {"release_tag", service::kVersion}});
}

absl::StatusOr<http::Response> RestApi::TriggerEvent(const Call& call) const {
  ASSIGN_OR_RETURN(Json body, BodyObject(call.request));
  inv::AppendEventRequest request;
  types::Event& event = *request.mutable_event();
  RETURN_IF_ERROR(FromJson(EventModel(), body, kCreate, &event).status());
  if (event.cluster_id().empty() && event.infra_env_id().empty() && event.host_id().empty()) {
    return Invalid("cluster_id", "an event names a cluster_id, an infra_env_id or a host_id");
  }
  if (!event.props().empty()) {
    ASSIGN_OR_RETURN(Json props, ParseJson(event.props()));
    if (!props.is_object()) return Invalid("props", "expected JSON text of an object");
  }
  // The inventory stores it as the caller's, and only on the caller's own resources.
  ASSIGN_OR_RETURN(types::Event stored, backends_.Call(kInventory, backends_.inventory(),
                                                       &inv::InventoryService::Stub::AppendEvent,
                                                       request, call.principal.identity));
  return JsonResponse(201, ToJson(EventModel(), stored));
}

absl::StatusOr<http::Response> RestApi::Health(const Call&) const {
  return JsonResponse(200, Json{{"status", "ok"}});
}

absl::StatusOr<http::Response> RestApi::Ready(const Call&) const {
  Backends::Readiness readiness = backends_.CheckReady(absl::Seconds(1));
  return JsonResponse(readiness.ready ? 200 : 503, Json{{"ready", readiness.ready},
                                                        {"inventory", readiness.inventory},
                                                        {"orchestrator", readiness.orchestrator},
                                                        {"image", readiness.image}});
}

absl::StatusOr<http::Response> RestApi::OpenApi(const Call&) const {
  http::Response response = http::Response::Text(200, OpenApiDocument());
  response.headers.Set("Content-Type", "application/yaml");
  return response;
}

}  // namespace assisted::gateway
