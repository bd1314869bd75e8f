// The REST gateway as a real process in front of the real inventory (real PostgreSQL) and the
// real orchestrator, spoken to over loopback HTTP: CRUD flows with the reference's JSON shapes,
// every route against every kind of credential (no unauthorized success), a corpus of malformed
// requests (only 4xx, never a crash), backend outages (503), the served OpenAPI document
// against the routes actually registered, and the read cache (writes through the gateway seen at
// once, writes elsewhere seen through the change log, never an answer across tenants).
#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "lib/auth/token.h"
#include "lib/http/test_client.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/gateway/api.h"
#include "services/gateway/json_model.h"
#include "services/gateway/jwt.h"
#include "services/gateway/web_ui.h"
#include "tests/harness/eventually.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/probes.h"
#include "tests/harness/stack.h"
#include "yaml-cpp/yaml.h"

namespace assisted::testing {
namespace {

namespace inv = ::assisted::inventory::v1;
namespace types = ::assisted::types::v1;
using ::assisted::gateway::Access;
using ::assisted::gateway::FieldRule;
using ::assisted::gateway::Model;
using ::assisted::gateway::RestApi;
using ::assisted::gateway::RouteInfo;
using ::assisted::gateway::WebUi;
using ::assisted::http::test::CurlClient;
using ::assisted::http::test::CurlRequest;
using ::assisted::http::test::CurlResponse;
using Json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kPrefix[] = "/api/assisted-install/v2";
constexpr char kSecret[] = "0123456789abcdef0123456789abcdef-gateway-test-secret";
constexpr char kUrlKey[] = "url-signing-key-for-gateway-tests-0123456789abcdef";
constexpr char kSshKey[] =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl test";
constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}})";

std::string UserToken(const std::string& user, const std::string& org,
                      absl::Duration ttl = absl::Hours(1), const std::string& secret = kSecret) {
  const absl::Time now = absl::Now();
  Json claims = {{"sub", user}, {"username", user}, {"exp", absl::ToUnixSeconds(now + ttl)}};
  if (!org.empty()) claims["org_id"] = org;
  return gateway::SignHs256(secret, claims).value();
}

// A download link's token, as the image service signs it.
std::string DownloadToken(const std::string& infra_env_id) {
  return auth::SignToken({.service = kUrlKey}, auth::TokenPurpose::kDownload, infra_env_id,
                         absl::Now() + absl::Hours(1))
      .value();
}

// A cluster download link's token, as the gateway signs it for files-presigned.
std::string ClusterLinkToken(const std::string& cluster_id) {
  return auth::SignToken({.service = kUrlKey}, auth::TokenPurpose::kClusterDownload, cluster_id,
                         absl::Now() + absl::Hours(1))
      .value();
}

// The members of a ustar archive, by name: their contents.
std::map<std::string, std::string> TarMembers(const std::string& archive) {
  std::map<std::string, std::string> members;
  constexpr size_t kBlock = 512;
  for (size_t offset = 0; offset + kBlock <= archive.size();) {
    const std::string name(archive.c_str() + offset);  // NUL-terminated within its 100 bytes
    if (name.empty()) break;                           // the end: zero blocks
    const size_t size = std::stoul(archive.substr(offset + 124, 12), nullptr, 8);
    members[name] = archive.substr(offset + kBlock, size);
    offset += kBlock + (size + kBlock - 1) / kBlock * kBlock;
  }
  return members;
}

// Checks JSON against the served document's schemas: types, enums, required properties and no
// property a schema with additionalProperties: false does not describe. Each problem found is
// a line naming where.
class SchemaChecker {
 public:
  explicit SchemaChecker(YAML::Node document) : document_(std::move(document)) {}

  YAML::Node Named(const std::string& name) const {
    return document_["components"]["schemas"][name];
  }

  std::vector<std::string> Check(const Json& value, const std::string& schema_name) const {
    std::vector<std::string> problems;
    Check(value, Named(schema_name), schema_name, problems);
    return problems;
  }
  // The same for a schema given as a node of the document (a response's).
  std::vector<std::string> Check(const Json& value, YAML::Node schema,
                                 const std::string& where) const {
    std::vector<std::string> problems;
    Check(value, std::move(schema), where, problems);
    return problems;
  }

  const YAML::Node& document() const { return document_; }

 private:
  // Follows $ref, alone or as the one part of an allOf (which lets a reference carry a
  // description).
  YAML::Node Resolve(YAML::Node schema) const {
    while (schema["$ref"] || (schema["allOf"] && schema["allOf"].size() == 1)) {
      if (!schema["$ref"]) {
        schema = schema["allOf"][0];
        continue;
      }
      const std::string ref = schema["$ref"].as<std::string>();
      schema = Named(ref.substr(ref.rfind('/') + 1));
    }
    return schema;
  }

  static bool HasType(const Json& value, const std::string& type) {
    if (type == "object") return value.is_object();
    if (type == "array") return value.is_array();
    if (type == "string") return value.is_string();
    if (type == "integer") return value.is_number_integer();
    if (type == "number") return value.is_number();
    if (type == "boolean") return value.is_boolean();
    return false;
  }

  void Check(const Json& value, YAML::Node schema, const std::string& where,
             std::vector<std::string>& problems) const {
    schema = Resolve(schema);
    if (!schema) {
      problems.push_back(where + ": no schema");
      return;
    }
    if (schema["type"]) {
      const std::string type = schema["type"].as<std::string>();
      if (!HasType(value, type)) {
        problems.push_back(absl::StrCat(where, ": ", value.dump(), " is not ", type));
        return;
      }
    }
    if (schema["enum"] && value.is_string()) {
      bool listed = false;
      for (const auto& choice : schema["enum"]) listed |= choice.as<std::string>() == value;
      if (!listed) problems.push_back(absl::StrCat(where, ": ", value.dump(), " not in its enum"));
    }
    if (value.is_array() && schema["items"]) {
      for (size_t i = 0; i < value.size(); ++i) {
        Check(value[i], schema["items"], absl::StrCat(where, "[", i, "]"), problems);
      }
    }
    if (!value.is_object()) return;
    for (const auto& required : schema["required"]) {
      if (!value.contains(required.as<std::string>())) {
        problems.push_back(
            absl::StrCat(where, ": required ", required.as<std::string>(), " missing"));
      }
    }
    const YAML::Node properties = schema["properties"];
    const bool closed = schema["additionalProperties"] && !schema["additionalProperties"].IsMap() &&
                        !schema["additionalProperties"].as<bool>();
    for (const auto& [key, item] : value.items()) {
      if (properties && properties[key]) {
        Check(item, properties[key], absl::StrCat(where, ".", key), problems);
      } else if (closed) {
        problems.push_back(absl::StrCat(where, ".", key, ": not described"));
      }
    }
  }

  YAML::Node document_;
};

// The contract every answer the gateway gives these tests is held to: its status is one the
// served document lists for the operation, and a JSON answer matches that status's schema.
// Each breach is a line naming the request.
class ResponseContract {
 public:
  explicit ResponseContract(YAML::Node document) : checker_(std::move(document)) {}

  void Check(const std::string& method, const std::string& url, const CurlResponse& response) {
    std::string path = url.substr(0, url.find('?'));
    if (path.size() > 1 && absl::EndsWith(path, "/")) path.pop_back();
    const std::string where = absl::StrCat(method, " ", path, " -> ", response.status);
    const absl::optional<std::string> route = Route(path);
    if (!route) return;  // not an API route (the web UI's files)
    const YAML::Node operation =
        checker_.document()["paths"][*route][absl::AsciiStrToLower(method)];
    if (!operation) return;  // a method the route does not serve (405 is the router's)
    YAML::Node answer = operation["responses"][absl::StrCat(response.status)];
    if (!answer) {
      problems_.push_back(where + ": status not documented for " + *route);
      return;
    }
    if (answer["$ref"]) {
      const std::string ref = answer["$ref"].as<std::string>();
      answer = checker_.document()["components"]["responses"][ref.substr(ref.rfind('/') + 1)];
    }
    const YAML::Node schema = answer["content"]["application/json"]["schema"];
    if (!schema) return;  // not JSON: YAML, files, event streams
    const Json json = Json::parse(response.body, nullptr, false);
    if (json.is_discarded()) {
      problems_.push_back(where + ": not JSON: " + response.body.substr(0, 200));
      return;
    }
    for (const std::string& problem : checker_.Check(json, schema, where)) {
      problems_.push_back(problem);
    }
  }

  const std::vector<std::string>& problems() const { return problems_; }
  int checked() const { return checked_; }

 private:
  // The documented path `path` is an instance of: literal segments beat parameters.
  absl::optional<std::string> Route(const std::string& path) {
    ++checked_;
    const std::vector<absl::string_view> segments = absl::StrSplit(path, '/');
    absl::optional<std::string> best;
    int best_literals = -1;
    for (const auto& entry : checker_.document()["paths"]) {
      const std::string candidate = entry.first.as<std::string>();
      const std::vector<absl::string_view> parts = absl::StrSplit(candidate, '/');
      if (parts.size() != segments.size()) continue;
      int literals = 0;
      bool matches = true;
      for (size_t i = 0; i < parts.size() && matches; ++i) {
        if (absl::StartsWith(parts[i], "{")) continue;
        matches = parts[i] == segments[i];
        ++literals;
      }
      if (matches && literals > best_literals) {
        best = candidate;
        best_literals = literals;
      }
    }
    return best;
  }

  SchemaChecker checker_;
  std::vector<std::string> problems_;
  int checked_ = 0;
};

class GatewayTest : public StackTest {
 protected:
  // Whether the test needs the real image service (a test ISO is built for it).
  virtual bool WithImageService() const { return false; }

  StackOptions Options() const override {
    return {.image = WithImageService(),
            .gateway = true,
            .gateway_flags = {"--backend-timeout=3s"},
            .jwt_secret = kSecret,
            .url_signing_key = kUrlKey};
  }

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StackTest::SetUp());
    base_ = stack().gateway_http();
    ASSERT_TRUE(absl::SimpleAtoi(base_.substr(base_.rfind(':') + 1), &http_port_)) << base_;
    alice_ = UserToken("alice", "acme");
    bob_ = UserToken("bob", "other");
    CurlResponse document = Fetch("GET", absl::StrCat(kPrefix, "/openapi.yaml"));
    ASSERT_EQ(document.status, 200);
    contract_ = std::make_unique<ResponseContract>(YAML::Load(document.body));
  }

  // Every answer of the test kept the served document's contract.
  void TearDown() override {
    if (contract_) {
      EXPECT_THAT(contract_->problems(), ::testing::IsEmpty())
          << contract_->checked() << " answers checked against the served OpenAPI document";
    }
    StackTest::TearDown();
  }

  // Sends `request` on a connection of its own and returns everything the gateway answers
  // before closing it.
  std::string SendRaw(const std::string& request) {
    absl::StatusOr<assisted::http::test::RawConnection> connection =
        assisted::http::test::RawConnection::Connect(http_port_);
    EXPECT_THAT(connection, IsOk());
    if (!connection.ok()) return "";
    EXPECT_THAT(connection->Send(request), IsOk());
    absl::StatusOr<std::string> answer = connection->ReadUntilClosed(absl::Seconds(10));
    EXPECT_THAT(answer, IsOk());
    return answer.value_or("");
  }

  CurlResponse Fetch(const std::string& method, const std::string& path,
                     std::vector<std::string> headers = {},
                     absl::optional<std::string> body = absl::nullopt) {
    CurlRequest request;
    request.method = method;
    request.headers = std::move(headers);
    request.body = std::move(body);
    absl::StatusOr<CurlResponse> response = client_->Fetch(base_ + path, request);
    EXPECT_THAT(response, IsOk()) << method << " " << path;
    if (response.ok() && contract_) contract_->Check(method, path, *response);
    return response.ok() ? *std::move(response) : CurlResponse{};
  }
  // A JSON request as a user.
  CurlResponse As(const std::string& token, const std::string& method, const std::string& path,
                  absl::optional<std::string> body = absl::nullopt) {
    std::vector<std::string> headers = {"Authorization: Bearer " + token};
    if (body) headers.push_back("Content-Type: application/json");
    return Fetch(method, absl::StrCat(kPrefix, path), headers, std::move(body));
  }

  // Registers a cluster called `name` as alice; returns its id.
  void RegisterCluster(const std::string& name, std::string* id) {
    CurlResponse cluster = As(alice_, "POST", "/clusters",
                              Json{{"name", name},
                                   {"openshift_version", "4.16"},
                                   {"pull_secret", kPullSecret},
                                   {"base_dns_domain", "example.com"}}
                                  .dump());
    ASSERT_EQ(cluster.status, 201) << cluster.body;
    *id = Json::parse(cluster.body)["id"];
  }

  // Registers a cluster and an infra-env bound to it as alice, and stores a host of that
  // infra-env (what the orchestrator does when an agent registers).
  void CreateFixture() {
    ASSERT_NO_FATAL_FAILURE(RegisterCluster("one", &cluster_id_));
    CurlResponse infra_env =
        As(alice_, "POST", "/infra-envs",
           Json{{"name", "discovery"}, {"pull_secret", kPullSecret}, {"cluster_id", cluster_id_}}
               .dump());
    ASSERT_EQ(infra_env.status, 201) << infra_env.body;
    infra_env_id_ = Json::parse(infra_env.body)["id"];
    host_id_ = "8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c";
    ASSERT_NO_FATAL_FAILURE(
        CreateHost(host_id_, infra_env_id_, cluster_id_, types::HOST_STATUS_DISCOVERING));
  }

  // Stores alice's host `id` in `infra_env_id` (and `cluster_id`, unless empty), as its agent's
  // registration would.
  void CreateHost(const std::string& id, const std::string& infra_env_id,
                  const std::string& cluster_id, types::HostStatus status) {
    inv::CreateHostRequest create;
    types::Host& host = *create.mutable_host();
    host.set_id(id);
    host.set_infra_env_id(infra_env_id);
    host.set_cluster_id(cluster_id);
    host.set_status(status);
    host.set_role(types::HOST_ROLE_AUTO_ASSIGN);
    host.mutable_owner()->set_user_name("alice");
    host.mutable_owner()->set_org_id("acme");
    grpc::ClientContext context;
    types::Host created;
    ASSERT_TRUE(stack().inventory_stub().CreateHost(&context, create, &created).ok());
  }

  // Moves the fixture's cluster to `status` with the inventory's compare-and-set, as the state
  // machines would (re-read while the orchestrator's refreshes win the race).
  void StoreClusterStatus(types::ClusterStatus status) {
    EXPECT_TRUE(Eventually(
        [&] {
          inv::GetClusterRequest get;
          get.set_id(cluster_id_);
          types::Cluster current;
          grpc::ClientContext get_context;
          grpc::Status read = stack().inventory_stub().GetCluster(&get_context, get, &current);
          if (!read.ok()) return Observed{false, read.error_message()};
          inv::UpdateClusterStatusRequest request;
          request.set_id(cluster_id_);
          request.set_expected_status(current.status());
          request.set_new_status(status);
          types::Cluster updated;
          grpc::ClientContext context;
          grpc::Status written =
              stack().inventory_stub().UpdateClusterStatus(&context, request, &updated);
          return Observed{written.ok(), written.error_message()};
        },
        absl::Seconds(10), "the cluster's status stored"));
  }
  // The same for the fixture's host.
  void StoreHostStatus(types::HostStatus status) {
    EXPECT_TRUE(Eventually(
        [&] {
          inv::GetHostRequest get;
          get.set_infra_env_id(infra_env_id_);
          get.set_id(host_id_);
          types::Host current;
          grpc::ClientContext get_context;
          grpc::Status read = stack().inventory_stub().GetHost(&get_context, get, &current);
          if (!read.ok()) return Observed{false, read.error_message()};
          inv::UpdateHostStatusRequest request;
          request.set_infra_env_id(infra_env_id_);
          request.set_id(host_id_);
          request.set_expected_status(current.status());
          request.set_new_status(status);
          types::Host updated;
          grpc::ClientContext context;
          grpc::Status written =
              stack().inventory_stub().UpdateHostStatus(&context, request, &updated);
          return Observed{written.ok(), written.error_message()};
        },
        absl::Seconds(10), "the host's status stored"));
  }

  // A route's path with the fixture's ids filled in.
  std::string Fill(std::string path) const {
    return absl::StrReplaceAll(path, {{"{cluster_id}", cluster_id_},
                                      {"{infra_env_id}", infra_env_id_},
                                      {"{host_id}", host_id_},
                                      {"{validation_id}", "container-images-available"},
                                      {"{operator_name}", "lvm"},
                                      {"{id}", "virtualization"}});
  }
  // The same with the query parameters a route requires.
  std::string FillWithQuery(const RouteInfo& route) const {
    std::string path = Fill(route.path);
    if (absl::EndsWith(route.path, "/clusters/{cluster_id}/downloads/files")) {
      return path + "?file_name=master.ign";
    }
    if (absl::EndsWith(route.path, "/downloads/credentials")) return path + "?file_name=kubeconfig";
    if (absl::EndsWith(route.path, "/clusters/{cluster_id}/downloads/files-presigned")) {
      return path + "?file_name=master.ign";
    }
    if (absl::EndsWith(route.path, "/downloads/credentials-presigned")) {
      return path + "?file_name=kubeconfig";
    }
    if (absl::EndsWith(route.path, "/infra-envs/{infra_env_id}/downloads/files-presigned")) {
      return path + "?file_name=discovery.ign";
    }
    if (absl::EndsWith(route.path, "/support-levels/architectures") ||
        absl::StrContains(route.path, "/support-levels/features")) {
      return path + "?openshift_version=4.16";
    }
    if (absl::EndsWith(route.path, "/infra-envs/{infra_env_id}/downloads/files")) {
      return path + "?file_name=discovery.ign";
    }
    if (absl::EndsWith(route.path, "/manifests/files") ||
        (absl::EndsWith(route.path, "/manifests") && route.method == "DELETE")) {
      return path + "?file_name=a.yaml";
    }
    return path;
  }

  // A body a route accepts (so that only authorization can fail it), or none.
  absl::optional<std::string> ValidBody(const RouteInfo& route) const {
    if (route.method == "GET" || route.method == "DELETE") return absl::nullopt;
    if (absl::StrContains(route.path, "/reset-validation/")) return absl::nullopt;
    if (absl::EndsWith(route.path, "/ignored-validations")) return R"({})";
    if (absl::EndsWith(route.path, "/ui-settings")) return R"("{}")";
    if (absl::EndsWith(route.path, "/install-config")) return R"("{\"fips\":true}")";
    if (absl::EndsWith(route.path, "/installer-args")) return R"({"args":[]})";
    if (absl::EndsWith(route.path, "/ignition")) return R"({"config":""})";
    if (absl::EndsWith(route.path, "/manifests")) {  // "kind: A\n" in base64
      if (route.method == "POST") return R"({"file_name":"a.yaml","content":"a2luZDogQQo="})";
      return R"({"folder":"manifests","file_name":"a.yaml","updated_content":"a2luZDogQQo="})";
    }
    if (route.method == "PATCH") {
      if (absl::StrContains(route.path, "{host_id}")) return R"({"host_name":"h1"})";
      return R"({"name":"renamed"})";
    }
    if (route.method != "POST") return absl::nullopt;
    if (absl::EndsWith(route.path, "/clusters")) {
      return Json{{"name", "x"}, {"openshift_version", "4.16"}, {"pull_secret", kPullSecret}}
          .dump();
    }
    if (absl::EndsWith(route.path, "/infra-envs")) {
      return Json{{"name", "x"}, {"pull_secret", kPullSecret}}.dump();
    }
    if (absl::EndsWith(route.path, "/bind")) return Json{{"cluster_id", cluster_id_}}.dump();
    if (absl::EndsWith(route.path, "/events")) {
      return Json{{"cluster_id", cluster_id_}, {"severity", "info"}, {"message", "m"}}.dump();
    }
    return absl::nullopt;
  }

  // A sample without labels of the gateway's metrics; -1 when it has none of that name.
  double GatewayMetric(const std::string& name) {
    return MetricSum(stack().gateway().metrics_url(), name);
  }

  // GETs `path` as `token` until the gateway answers it from its read cache (which stands down
  // until the gateway follows the inventory's change log) and returns that answer.
  CurlResponse CachedGet(const std::string& token, const std::string& path) {
    CurlResponse response;
    EXPECT_TRUE(Eventually(
        [&] {
          const double hits = GatewayMetric(kCacheHits);
          response = As(token, "GET", path);
          return Observed{GatewayMetric(kCacheHits) > hits,
                          absl::StrCat(response.status, " ", response.body)};
        },
        absl::Seconds(30), absl::StrCat("GET ", path, " answered from the read cache")));
    return response;
  }

  // GETs `path` as `token` until `done` holds for its 200 JSON answer or `timeout` passes;
  // returns the last answer.
  Json GetUntil(const std::string& token, const std::string& path,
                const std::function<bool(const Json&)>& done,
                absl::Duration timeout = absl::Seconds(5)) {
    Json json;
    EXPECT_TRUE(Eventually(
        [&] {
          CurlResponse response = As(token, "GET", path);
          json = response.status == 200 ? Json::parse(response.body) : Json();
          return Observed{response.status == 200 && done(json),
                          absl::StrCat(response.status, " ", response.body)};
        },
        timeout, absl::StrCat("GET ", path, " answering as expected")));
    return json;
  }

  static constexpr char kCacheHits[] = "assisted_gateway_read_cache_hits_total";

  // The agent token of an infra-env, as the image service bakes it into the discovery image:
  // signed with the infra-env's signing key too.
  std::string AgentToken(const std::string& infra_env_id) {
    inv::GetInfraEnvSigningKeyRequest request;
    request.set_infra_env_id(infra_env_id);
    inv::GetInfraEnvSigningKeyResponse key;
    grpc::ClientContext context;
    const grpc::Status status =
        stack().inventory_stub().GetInfraEnvSigningKey(&context, request, &key);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return auth::SignToken({.service = kUrlKey, .infra_env = key.signing_key()},
                           auth::TokenPurpose::kAgent, infra_env_id, absl::Now() + absl::Hours(1))
        .value_or("");
  }
  std::unique_ptr<CurlClient> client_ = std::make_unique<CurlClient>();
  std::unique_ptr<ResponseContract> contract_;
  int http_port_ = 0;
  std::string base_, alice_, bob_;
  std::string cluster_id_, infra_env_id_, host_id_;
};

void ExpectError(const CurlResponse& response, long status, const std::string& reason_part) {
  EXPECT_EQ(response.status, status) << response.body;
  Json error = Json::parse(response.body, nullptr, false);
  ASSERT_TRUE(error.is_object()) << response.body;
  EXPECT_EQ(error["kind"], "Error");
  EXPECT_EQ(error["code"], absl::StrCat(status));
  EXPECT_EQ(error["id"], status);
  EXPECT_THAT(error["reason"].get<std::string>(), HasSubstr(reason_part));
}

TEST_F(GatewayTest, ClusterLifecycleUsesTheReferenceShapes) {
  CurlResponse created = As(alice_, "POST", "/clusters",
                            Json{{"name", "demo"},
                                 {"openshift_version", "4.16"},
                                 {"pull_secret", kPullSecret},
                                 {"base_dns_domain", "example.com"},
                                 {"network_type", "OVNKubernetes"},
                                 {"http_proxy", "http://proxy:3128"},
                                 {"api_vips", {{{"ip", "192.168.1.5"}}}}}
                                .dump());
  ASSERT_EQ(created.status, 201) << created.body;
  Json cluster = Json::parse(created.body);
  const std::string id = cluster["id"];
  EXPECT_EQ(cluster["kind"], "Cluster");
  EXPECT_EQ(cluster["href"], absl::StrCat(kPrefix, "/clusters/", id));
  EXPECT_EQ(cluster["name"], "demo");
  EXPECT_EQ(cluster["network_type"], "OVNKubernetes");
  EXPECT_EQ(cluster["http_proxy"], "http://proxy:3128");
  EXPECT_EQ(cluster["pull_secret_set"], true);
  EXPECT_FALSE(cluster.contains("pull_secret"));
  EXPECT_EQ(cluster["user_name"], "alice");
  EXPECT_EQ(cluster["org_id"], "acme");
  EXPECT_EQ(cluster["high_availability_mode"], "Full");
  EXPECT_EQ(cluster["cluster_networks"][0]["cidr"], "10.128.0.0/14");
  EXPECT_EQ(cluster["cluster_networks"][0]["host_prefix"], 23);
  EXPECT_EQ(cluster["service_networks"][0]["cidr"], "172.30.0.0/16");
  EXPECT_EQ(cluster["api_vips"][0]["ip"], "192.168.1.5");
  EXPECT_TRUE(cluster["status"] == "pending-for-input" || cluster["status"] == "insufficient")
      << cluster["status"];

  CurlResponse got = As(alice_, "GET", "/clusters/" + id);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(Json::parse(got.body)["id"], id);
  CurlResponse list = As(alice_, "GET", "/clusters");
  ASSERT_EQ(list.status, 200);
  ASSERT_EQ(Json::parse(list.body).size(), 1u);
  EXPECT_EQ(Json::parse(As(bob_, "GET", "/clusters").body).size(), 0u);
  ExpectError(As(bob_, "GET", "/clusters/" + id), 404, id);

  CurlResponse patched = As(
      alice_, "PATCH", "/clusters/" + id,
      Json{{"name", "renamed"}, {"no_proxy", "example.com"}, {"ssh_public_key", kSshKey}}.dump());
  ASSERT_EQ(patched.status, 201) << patched.body;
  EXPECT_EQ(Json::parse(patched.body)["ssh_public_key"], kSshKey);
  // Well-formed but unacceptable values: 422 naming the field.
  ExpectError(As(alice_, "PATCH", "/clusters/" + id, R"({"ssh_public_key":"k"})"), 422,
              "ssh_public_key");
  EXPECT_EQ(Json::parse(patched.body)["name"], "renamed");
  EXPECT_EQ(Json::parse(patched.body)["no_proxy"], "example.com");
  EXPECT_EQ(Json::parse(patched.body)["http_proxy"], "http://proxy:3128");
  ExpectError(As(alice_, "PATCH", "/clusters/" + id, R"({"openshift_version":"4.17"})"), 400,
              "openshift_version: cannot be set when updating");
  ExpectError(As(bob_, "PATCH", "/clusters/" + id, R"({"name":"mine"})"), 404, id);

  CurlResponse defaults = As(alice_, "GET", "/clusters/default-config");
  ASSERT_EQ(defaults.status, 200);
  EXPECT_EQ(Json::parse(defaults.body)["cluster_network_cidr"], "10.128.0.0/14");

  ExpectError(As(bob_, "DELETE", "/clusters/" + id), 404, id);
  EXPECT_EQ(As(alice_, "DELETE", "/clusters/" + id).status, 204);
  ExpectError(As(alice_, "GET", "/clusters/" + id), 404, id);
}

// How many of `list` (a JSON array of resources) are called `name`.
size_t Named(const std::string& list, const std::string& name) {
  const Json resources = Json::parse(list);
  return std::count_if(resources.begin(), resources.end(),
                       [&](const Json& r) { return r.value("name", "") == name; });
}

TEST_F(GatewayTest, ValidateOnlyCreatesAnswerAsACreateWouldAndStoreNothing) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  // A cluster draft whose API VIP is `api_vip`.
  const auto cluster_draft = [](const std::string& api_vip) {
    return Json{{"name", "draft"},
                {"openshift_version", "4.16"},
                {"pull_secret", kPullSecret},
                {"base_dns_domain", "example.com"},
                {"machine_networks", {{{"cidr", "192.168.122.0/24"}}}},
                {"api_vips", {{{"ip", api_vip}}}},
                {"ingress_vips", {{{"ip", "192.168.122.11"}}}}}
        .dump();
  };
  // A draft with a VIP outside its machine network: the answer a create gives, word for word.
  const std::string bad_vip = cluster_draft("10.0.0.5");
  CurlResponse checked = As(alice_, "POST", "/clusters?validate_only=true", bad_vip);
  ExpectError(checked, 422, "api_vips[0].ip");
  CurlResponse refused = As(alice_, "POST", "/clusters", bad_vip);
  EXPECT_EQ(checked.status, refused.status);
  EXPECT_EQ(checked.body, refused.body);
  // The gateway's JSON conversion runs too: a wrong type is its 400.
  ExpectError(As(alice_, "POST", "/clusters?validate_only=true",
                 R"({"name":"draft","openshift_version":"4.16","api_vips":"x"})"),
              400, "api_vips");
  ExpectError(As(alice_, "POST", "/clusters?validate_only=yes", bad_vip), 400, "validate_only");

  // A good draft: the cluster as a create would answer it (defaults, owner), never stored.
  CurlResponse good =
      As(alice_, "POST", "/clusters?validate_only=true", cluster_draft("192.168.122.10"));
  ASSERT_EQ(good.status, 201) << good.body;
  const Json draft = Json::parse(good.body);
  EXPECT_EQ(draft["name"], "draft");
  EXPECT_EQ(draft["user_name"], "alice");
  EXPECT_EQ(draft["status"], "pending-for-input");
  EXPECT_EQ(draft["cluster_networks"][0]["cidr"], "10.128.0.0/14");
  EXPECT_EQ(draft["high_availability_mode"], "Full");
  const std::string draft_id = draft["id"];
  ExpectError(As(alice_, "GET", "/clusters/" + draft_id), 404, draft_id);
  EXPECT_EQ(Json::parse(As(alice_, "GET", "/events?cluster_id=" + draft_id).body).size(), 0u);

  // Infra-envs: the discovery image's own checks answer for static networking.
  const std::string original_network =
      Json::parse(As(alice_, "GET", "/infra-envs/" + infra_env_id_).body)
          .value("static_network_config", Json())
          .dump();
  const Json host_network = {
      {"network_yaml", "interfaces:\n  - name: eth0\n    type: ethernet\n    state: up\n"},
      {"mac_interface_map",
       {{{"mac_address", "52:54:00:aa:bb:01"}, {"logical_nic_name", "eth0"}}}}};
  Json bad_host = host_network;
  bad_host["network_yaml"] = "interfaces: [";
  ExpectError(
      As(alice_, "POST", "/infra-envs?validate_only=true",
         Json{
             {"name", "draft"}, {"pull_secret", kPullSecret}, {"static_network_config", {bad_host}}}
             .dump()),
      422, "static_network_config[0].network_yaml");
  CurlResponse good_infra_env = As(alice_, "POST", "/infra-envs?validate_only=true",
                                   Json{{"name", "draft"},
                                        {"pull_secret", kPullSecret},
                                        {"cluster_id", cluster_id_},
                                        {"static_network_config", {host_network}}}
                                       .dump());
  ASSERT_EQ(good_infra_env.status, 201) << good_infra_env.body;
  // An update is checked as the infra-env would be stored, and a refused one changes nothing.
  ExpectError(As(alice_, "PATCH", "/infra-envs/" + infra_env_id_,
                 Json{{"static_network_config", {bad_host}}}.dump()),
              422, "static_network_config[0].network_yaml");
  EXPECT_EQ(Json::parse(As(alice_, "GET", "/infra-envs/" + infra_env_id_).body)
                .value("static_network_config", Json())
                .dump(),
            original_network);
  const std::string draft_infra_env = Json::parse(good_infra_env.body)["id"];
  EXPECT_NE(draft_infra_env, infra_env_id_);
  ExpectError(As(alice_, "GET", "/infra-envs/" + draft_infra_env), 404, draft_infra_env);
  // Tenancy as for a create: bob cannot even draft an infra-env of alice's cluster.
  ExpectError(
      As(bob_, "POST", "/infra-envs?validate_only=true",
         Json{{"name", "draft"}, {"pull_secret", kPullSecret}, {"cluster_id", cluster_id_}}.dump()),
      404, cluster_id_);

  // Nothing was stored, by the bad drafts nor the good ones.
  EXPECT_EQ(Named(As(alice_, "GET", "/clusters").body, "draft"), 0u);
  EXPECT_EQ(Named(As(alice_, "GET", "/infra-envs").body, "draft"), 0u);
}

TEST_F(GatewayTest, InfraEnvsHostsEventsAndDownloads) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  CurlResponse infra_env = As(alice_, "GET", "/infra-envs/" + infra_env_id_);
  ASSERT_EQ(infra_env.status, 200) << infra_env.body;
  Json ie = Json::parse(infra_env.body);
  EXPECT_EQ(ie["kind"], "InfraEnv");
  EXPECT_EQ(ie["type"], "full-iso");
  EXPECT_EQ(ie["cluster_id"], cluster_id_);
  EXPECT_EQ(ie["pull_secret_set"], true);

  CurlResponse patched = As(
      alice_, "PATCH", "/infra-envs/" + infra_env_id_,
      R"({"additional_ntp_sources":"ntp1.example.com, ntp2.example.com","image_type":"minimal-iso"})");
  ASSERT_EQ(patched.status, 201) << patched.body;
  EXPECT_EQ(Json::parse(patched.body)["additional_ntp_sources"],
            "ntp1.example.com,ntp2.example.com");
  EXPECT_EQ(Json::parse(patched.body)["type"], "minimal-iso");
  CurlResponse filtered = As(alice_, "GET", "/infra-envs?cluster_id=" + cluster_id_);
  ASSERT_EQ(filtered.status, 200);
  EXPECT_EQ(Json::parse(filtered.body).size(), 1u);

  // Hosts: listed with the reference's strings, readable by the infra-env's agent too.
  CurlResponse hosts = As(alice_, "GET", "/infra-envs/" + infra_env_id_ + "/hosts");
  ASSERT_EQ(hosts.status, 200) << hosts.body;
  Json host_list = Json::parse(hosts.body);
  ASSERT_EQ(host_list.size(), 1u);
  EXPECT_EQ(host_list[0]["id"], host_id_);
  EXPECT_EQ(host_list[0]["kind"], "Host");
  EXPECT_EQ(host_list[0]["status"], "discovering");
  EXPECT_EQ(host_list[0]["role"], "auto-assign");
  CurlResponse by_agent =
      Fetch("GET", absl::StrCat(kPrefix, "/infra-envs/", infra_env_id_, "/hosts"),
            {"X-Secret-Key: " + AgentToken(infra_env_id_)});
  EXPECT_EQ(by_agent.status, 200) << by_agent.body;
  CurlResponse cluster_hosts = As(alice_, "GET", "/clusters/" + cluster_id_ + "/hosts");
  ASSERT_EQ(cluster_hosts.status, 200);
  EXPECT_EQ(Json::parse(cluster_hosts.body)[0]["id"], host_id_);

  // Host edits and actions go to the orchestrator, which checks them against the host it knows.
  const std::string host_path = "/infra-envs/" + infra_env_id_ + "/hosts/" + host_id_;
  CurlResponse role = As(alice_, "PATCH", host_path, R"({"host_role":"master"})");
  ASSERT_EQ(role.status, 201) << role.body;
  EXPECT_EQ(Json::parse(role.body)["role"], "master");
  // The host has reported no inventory yet, so no disk of it can be chosen.
  ExpectError(As(alice_, "PATCH", host_path,
                 R"({"disks_selected_config":[{"id":"/dev/sda","role":"install"}]})"),
              422, "installation_disk_id");
  // A cluster whose only host is still discovering is not ready to install.
  ExpectError(As(alice_, "POST", "/clusters/" + cluster_id_ + "/actions/install"), 409, "");
  ExpectError(As(alice_, "PATCH", host_path, R"({"host_role":"captain"})"), 400,
              "host_role: must be one of");

  // Events with the reference's filters and count headers.
  for (auto [severity, message] : {std::pair{types::EVENT_SEVERITY_INFO, "cluster registered"},
                                   std::pair{types::EVENT_SEVERITY_WARNING, "disk is slow"}}) {
    inv::AppendEventRequest append;
    types::Event& event = *append.mutable_event();
    event.set_cluster_id(cluster_id_);
    event.set_severity(severity);
    event.set_category(types::EVENT_CATEGORY_USER);
    event.set_message(message);
    event.mutable_owner()->set_user_name("alice");
    event.mutable_owner()->set_org_id("acme");
    grpc::ClientContext context;
    types::Event stored;
    ASSERT_TRUE(stack().inventory_stub().AppendEvent(&context, append, &stored).ok());
  }
  CurlResponse events = As(alice_, "GET", "/events?cluster_id=" + cluster_id_);
  ASSERT_EQ(events.status, 200) << events.body;
  // Ours, plus what the orchestrator recorded for alice's cluster (the role change above).
  const Json listed = Json::parse(events.body);
  std::set<std::string> messages;
  for (const Json& event : listed) messages.insert(event["message"].get<std::string>());
  EXPECT_TRUE(messages.count("cluster registered")) << events.body;
  EXPECT_TRUE(messages.count("disk is slow")) << events.body;
  EXPECT_GE(listed.size(), 2u);
  EXPECT_EQ(events.Header("event-count").value_or(""), absl::StrCat(listed.size()));
  CurlResponse warnings =
      As(alice_, "GET", "/events?cluster_id=" + cluster_id_ + "&severities=warning&order=desc");
  ASSERT_EQ(warnings.status, 200) << warnings.body;
  ASSERT_EQ(Json::parse(warnings.body).size(), 1u);
  EXPECT_EQ(Json::parse(warnings.body)[0]["message"], "disk is slow");
  EXPECT_EQ(Json::parse(warnings.body)[0]["severity"], "warning");
  EXPECT_EQ(Json::parse(As(bob_, "GET", "/events?cluster_id=" + cluster_id_).body).size(), 0u);

  // Cluster files and credentials come from the inventory's artifacts.
  for (auto [name, kind] :
       {std::pair{std::string("kubeconfig"), inv::ARTIFACT_KIND_CREDENTIALS},
        std::pair{std::string("master.ign"), inv::ARTIFACT_KIND_IGNITION},
        std::pair{"logs/host_" + host_id_ + ".tar.gz", inv::ARTIFACT_KIND_LOGS}}) {
    inv::PutArtifactRequest put;
    put.set_cluster_id(cluster_id_);
    put.set_name(name);
    put.set_kind(kind);
    put.set_content_type("application/octet-stream");
    put.set_content(absl::StrCat("content of ", name));
    grpc::ClientContext context;
    inv::ArtifactInfo info;
    ASSERT_TRUE(stack().inventory_stub().PutArtifact(&context, put, &info).ok());
  }
  const std::string downloads = "/clusters/" + cluster_id_ + "/downloads/";
  CurlResponse kubeconfig = As(alice_, "GET", downloads + "credentials?file_name=kubeconfig");
  ASSERT_EQ(kubeconfig.status, 200) << kubeconfig.body;
  EXPECT_EQ(kubeconfig.body, "content of kubeconfig");
  EXPECT_THAT(kubeconfig.Header("content-disposition").value_or(""), HasSubstr("kubeconfig"));
  ExpectError(As(alice_, "GET", downloads + "credentials?file_name=kubeadmin-password"), 404,
              "kubeadmin-password");
  ExpectError(As(bob_, "GET", downloads + "credentials?file_name=kubeconfig"), 404, cluster_id_);
  EXPECT_EQ(As(alice_, "GET", downloads + "files?file_name=master.ign").body,
            "content of master.ign");
  ExpectError(As(alice_, "GET", downloads + "files?file_name=kubeconfig"), 400, "file_name");
  CurlResponse logs =
      As(alice_, "GET", "/clusters/" + cluster_id_ + "/logs?logs_type=host&host_id=" + host_id_);
  ASSERT_EQ(logs.status, 200) << logs.body;
  EXPECT_THAT(logs.body, HasSubstr("content of logs/host_"));
  EXPECT_EQ(logs.Header("content-type").value_or(""), "application/x-tar");

  // The image service is down in this test: its answers are 503, never a crash or a 500.
  ExpectError(As(alice_, "GET", "/infra-envs/" + infra_env_id_ + "/downloads/image-url"), 503,
              "image unavailable");
  EXPECT_EQ(Fetch("GET", "/ready").status, 503);

  // Deleting: an infra-env with hosts is a conflict naming why, then works once they are gone.
  CurlResponse busy = As(alice_, "DELETE", "/infra-envs/" + infra_env_id_);
  EXPECT_EQ(busy.status, 409) << busy.body;
  EXPECT_EQ(As(alice_, "DELETE", host_path).status, 204);
  ExpectError(As(alice_, "GET", host_path), 404, host_id_);
  EXPECT_EQ(As(alice_, "DELETE", "/infra-envs/" + infra_env_id_).status, 204);
}

// ---- Customisations: ignored validations, install-config, UI settings, host overrides ----

TEST_F(GatewayTest, IgnoredValidationsAreTheOrchestratorsToCheckAndTheTenantsOwn) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  const std::string path = "/clusters/" + cluster_id_ + "/ignored-validations";
  CurlResponse none = As(alice_, "GET", path);
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(Json::parse(none.body),
            (Json{{"host-validation-ids", "[]"}, {"cluster-validation-ids", "[]"}}));

  const Json wanted = {{"host-validation-ids", R"(["has-min-cpu-cores","ntp-synced"])"},
                       {"cluster-validation-ids", R"(["all"])"}};
  CurlResponse stored = As(alice_, "PUT", path, wanted.dump());
  ASSERT_EQ(stored.status, 201) << stored.body;
  EXPECT_EQ(Json::parse(stored.body), wanted);
  EXPECT_EQ(Json::parse(As(alice_, "GET", path).body), wanted);
  const Json cluster = Json::parse(As(alice_, "GET", "/clusters/" + cluster_id_).body);
  EXPECT_EQ(cluster["ignored_host_validations"], wanted["host-validation-ids"]);

  // Unknown and non-ignorable ids are refused naming them; nothing is stored then.
  ExpectError(As(alice_, "PUT", path, R"({"host-validation-ids":"[\"no-such-check\"]"})"), 400,
              "\"no-such-check\" is not a known validation id");
  ExpectError(As(alice_, "PUT", path, R"({"host-validation-ids":"[\"hostname-unique\"]"})"), 400,
              "\"hostname-unique\" cannot be ignored");
  ExpectError(As(alice_, "PUT", path, R"({"cluster-validation-ids":"[\"pull-secret-set\"]"})"), 400,
              "\"pull-secret-set\" cannot be ignored");
  ExpectError(As(alice_, "PUT", path, R"({"cluster-validation-ids":"[\"has-min-memory\"]"})"), 400,
              "\"has-min-memory\" is not a known validation id");
  ExpectError(As(alice_, "PUT", path, R"({"host-validation-ids":"has-min-memory"})"), 400,
              "host-validation-ids: expected a JSON list of strings");
  ExpectError(As(alice_, "PUT", path, R"({"host-validation-ids":["has-min-memory"]})"), 400,
              "host-validation-ids: expected a string");
  ExpectError(As(alice_, "PUT", path, R"({"host_validation_ids":"[]"})"), 400,
              "host_validation_ids: unknown field");
  EXPECT_EQ(Json::parse(As(alice_, "GET", path).body), wanted);

  // Another tenant's cluster is not there.
  ExpectError(As(bob_, "GET", path), 404, cluster_id_);
  ExpectError(As(bob_, "PUT", path, wanted.dump()), 404, cluster_id_);

  // Once installing, the list is what the installation was judged with.
  ASSERT_NO_FATAL_FAILURE(StoreClusterStatus(types::CLUSTER_STATUS_INSTALLING));
  ExpectError(As(alice_, "PUT", path, R"({})"), 409, "only before its installation");
}

TEST_F(GatewayTest, InstallConfigOverridesAreCheckedStoredAndApplied) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  const std::string path = "/clusters/" + cluster_id_ + "/install-config";
  // Baremetal without VIPs has no install-config yet: the reason names what is missing.
  ExpectError(As(alice_, "GET", path), 409, "api_vips");
  ASSERT_EQ(
      As(alice_, "PATCH", "/clusters/" + cluster_id_, R"({"user_managed_networking":true})").status,
      201);
  CurlResponse generated = As(alice_, "GET", path);
  ASSERT_EQ(generated.status, 200) << generated.body;
  YAML::Node document = YAML::Load(Json::parse(generated.body).get<std::string>());
  EXPECT_EQ(document["baseDomain"].as<std::string>(), "example.com");
  EXPECT_FALSE(document["fips"]);

  CurlResponse patched = As(alice_, "PATCH", path, Json(R"({"fips":true})").dump());
  ASSERT_EQ(patched.status, 201) << patched.body;
  document = YAML::Load(Json::parse(As(alice_, "GET", path).body).get<std::string>());
  EXPECT_TRUE(document["fips"].as<bool>());
  EXPECT_EQ(
      Json::parse(As(alice_, "GET", "/clusters/" + cluster_id_).body)["install_config_overrides"],
      R"({"fips":true})");

  ExpectError(As(alice_, "PATCH", path, Json(R"({"baseDomain":"other.com"})").dump()), 400,
              "\"baseDomain\" may not be overridden");
  ExpectError(As(alice_, "PATCH", path, Json(R"({"fipz":true})").dump()), 400,
              "\"fipz\" is not an install-config key");
  ExpectError(As(alice_, "PATCH", path, Json("[1]").dump()), 400, "must be a JSON object");
  ExpectError(As(alice_, "PATCH", path, R"({"fips":true})"), 400, "expected a JSON string");
  ExpectError(As(bob_, "GET", path), 404, cluster_id_);
  ExpectError(As(bob_, "PATCH", path, Json("{}").dump()), 404, cluster_id_);
  // "" clears them.
  ASSERT_EQ(As(alice_, "PATCH", path, Json("").dump()).status, 201);
  EXPECT_FALSE(YAML::Load(Json::parse(As(alice_, "GET", path).body).get<std::string>())["fips"]);

  ASSERT_NO_FATAL_FAILURE(StoreClusterStatus(types::CLUSTER_STATUS_INSTALLING));
  ExpectError(As(alice_, "PATCH", path, Json(R"({"fips":true})").dump()), 409,
              "only before its installation");
}

std::string Base64(absl::string_view text) { return absl::Base64Escape(text); }

TEST_F(GatewayTest, CustomManifestsAreStoredPerClusterAndUnblockAThirdPartyNetwork) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  const std::string cluster = "/clusters/" + cluster_id_;
  const std::string path = cluster + "/manifests";
  // Calico needs its manifests: the orchestrator's validation fails until one is uploaded, and
  // an upload has the cluster judged again.
  auto manifests_check = [](const Json& json) {
    const Json info = Json::parse(json.value("validations_info", ""), nullptr, false);
    if (!info.is_object() || !info.contains("configuration")) return std::string();
    for (const Json& check : info["configuration"]) {
      if (check.value("id", "") == "custom-manifests-requirements-satisfied") {
        return check.value("status", "");
      }
    }
    return std::string();
  };
  // An update is judged before it is answered (a cluster whose agents no orchestrator holds
  // kept its old validations).
  CurlResponse patched = As(alice_, "PATCH", cluster, R"({"network_type":"Calico"})");
  ASSERT_EQ(patched.status, 201) << patched.body;
  EXPECT_EQ(manifests_check(Json::parse(patched.body)), "failure");
  GetUntil(
      alice_, cluster, [&](const Json& json) { return manifests_check(json) == "failure"; },
      absl::Seconds(30));

  EXPECT_EQ(Json::parse(As(alice_, "GET", path).body), Json::array());
  const std::string calico = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: calico\n";
  CurlResponse created =
      As(alice_, "POST", path,
         Json{{"folder", "openshift"}, {"file_name", "50-calico.yaml"}, {"content", Base64(calico)}}
             .dump());
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(Json::parse(created.body), (Json{{"folder", "openshift"},
                                             {"file_name", "50-calico.yaml"},
                                             {"manifest_source", "user"}}));
  GetUntil(
      alice_, cluster, [&](const Json& json) { return manifests_check(json) == "success"; },
      absl::Seconds(30));
  // The folder defaults to "manifests", as upstream.
  ASSERT_EQ(As(alice_, "POST", path,
               Json{{"file_name", "b.json"}, {"content", Base64(R"({"kind":"B"})")}}.dump())
                .status,
            201);
  CurlResponse listed = As(alice_, "GET", path + "?include_system_generated=true");
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(Json::parse(listed.body),
            (Json{{{"folder", "manifests"}, {"file_name", "b.json"}, {"manifest_source", "user"}},
                  {{"folder", "openshift"},
                   {"file_name", "50-calico.yaml"},
                   {"manifest_source", "user"}}}));
  CurlResponse file = As(alice_, "GET", path + "/files?folder=openshift&file_name=50-calico.yaml");
  ASSERT_EQ(file.status, 200) << file.body;
  EXPECT_EQ(file.body, calico);

  // Renamed and moved, with new content.
  CurlResponse updated = As(alice_, "PATCH", path,
                            Json{{"folder", "openshift"},
                                 {"file_name", "50-calico.yaml"},
                                 {"updated_folder", "manifests"},
                                 {"updated_file_name", "51-calico.yml"},
                                 {"updated_content", Base64("kind: Calico\n")}}
                                .dump());
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(Json::parse(updated.body)["file_name"], "51-calico.yml");
  EXPECT_EQ(As(alice_, "GET", path + "/files?file_name=51-calico.yml").body, "kind: Calico\n");
  ExpectError(As(alice_, "GET", path + "/files?folder=openshift&file_name=50-calico.yaml"), 404,
              "50-calico.yaml");

  // Bad input names the field.
  ExpectError(As(alice_, "POST", path, Json{{"file_name", "a.yaml"}, {"content", "%%%"}}.dump()),
              400, "content: not base64");
  ExpectError(
      As(alice_, "POST", path, Json{{"file_name", "a.sh"}, {"content", Base64("a: 1")}}.dump()),
      400, "file_name: must end in .yaml, .yml or .json");
  ExpectError(
      As(alice_, "POST", path,
         Json{{"folder", "etc"}, {"file_name", "a.yaml"}, {"content", Base64("a: 1")}}.dump()),
      400, "folder:");
  ExpectError(
      As(alice_, "POST", path, Json{{"file_name", "a.yaml"}, {"content", Base64("a: [")}}.dump()),
      400, "content: not YAML");
  ExpectError(As(alice_, "POST", path,
                 Json{{"file_name", "../a.yaml"}, {"content", Base64("a: 1")}}.dump()),
              400, "file_name:");
  ExpectError(
      As(alice_, "POST", path, Json{{"file_name", "b.json"}, {"content", Base64("{}")}}.dump()),
      409, "already exists");
  ExpectError(As(alice_, "POST", path, Json{{"content", Base64("a: 1")}}.dump()), 400,
              "file_name: required");
  ExpectError(As(alice_, "POST", path, R"({"file_name":"a.yaml","content":"","bogus":1})"), 400,
              "bogus: unknown field");
  ExpectError(As(alice_, "PATCH", path, Json{{"file_name", "b.json"}}.dump()), 400,
              "folder: required");
  ExpectError(As(alice_, "DELETE", path), 400, "file_name: required");

  // Another tenant's cluster is not there, whatever the operation.
  ExpectError(As(bob_, "GET", path), 404, cluster_id_);
  ExpectError(As(bob_, "GET", path + "/files?file_name=b.json"), 404, cluster_id_);
  ExpectError(
      As(bob_, "POST", path, Json{{"file_name", "x.yaml"}, {"content", Base64("a: 1")}}.dump()),
      404, cluster_id_);
  ExpectError(As(bob_, "DELETE", path + "?file_name=b.json"), 404, cluster_id_);
  ExpectError(
      As(bob_, "PATCH", path,
         Json{{"folder", "manifests"}, {"file_name", "b.json"}, {"updated_file_name", "c.json"}}
             .dump()),
      404, cluster_id_);

  // Every manifest in one file, as upstream's cluster downloads name them; also by link.
  const std::string downloads = cluster + "/downloads/files?file_name=";
  CurlResponse bundle = As(alice_, "GET", downloads + "custom_manifests.json");
  ASSERT_EQ(bundle.status, 200) << bundle.body;
  EXPECT_EQ(Json::parse(bundle.body), (Json{{{"folder", "manifests"},
                                             {"file_name", "51-calico.yml"},
                                             {"manifest_source", "user"},
                                             {"content", "kind: Calico\n"}},
                                            {{"folder", "manifests"},
                                             {"file_name", "b.json"},
                                             {"manifest_source", "user"},
                                             {"content", R"({"kind":"B"})"}}}));
  CurlResponse documents = As(alice_, "GET", downloads + "custom_manifests.yaml");
  ASSERT_EQ(documents.status, 200) << documents.body;
  EXPECT_EQ(documents.body, "---\nkind: Calico\n---\n{\"kind\":\"B\"}\n");
  EXPECT_EQ(YAML::LoadAll(documents.body).size(), 2u);
  CurlResponse presigned =
      As(alice_, "GET", cluster + "/downloads/files-presigned?file_name=custom_manifests.yaml");
  ASSERT_EQ(presigned.status, 200) << presigned.body;
  absl::StatusOr<CurlResponse> by_link =
      client_->Fetch(Json::parse(presigned.body)["url"].get<std::string>(), {});
  ASSERT_THAT(by_link, IsOk());
  EXPECT_EQ(by_link->body, documents.body);
  ExpectError(As(bob_, "GET", downloads + "custom_manifests.json"), 404, cluster_id_);

  EXPECT_EQ(As(alice_, "DELETE", path + "?file_name=b.json").status, 200);
  ExpectError(As(alice_, "DELETE", path + "?file_name=b.json"), 404, "b.json");

  // aictl does the same from the command line.
  const std::string extra = ::testing::TempDir() + "/60-extra.yaml";
  { std::ofstream(extra) << "kind: Extra\n"; }
  AictlOutcome added =
      RunAictl(base_, alice_, {"manifests", "create", cluster_id_, extra, "--folder=openshift"});
  EXPECT_EQ(added.code, 0) << added.err;
  EXPECT_EQ(added.Trimmed(), "openshift/60-extra.yaml");
  AictlOutcome aictl_list = RunAictl(base_, alice_, {"manifests", "list", cluster_id_});
  EXPECT_EQ(aictl_list.code, 0) << aictl_list.err;
  EXPECT_THAT(aictl_list.out, HasSubstr("openshift  60-extra.yaml"));
  AictlOutcome shown = RunAictl(
      base_, alice_, {"manifests", "download", cluster_id_, "60-extra.yaml", "--folder=openshift"});
  EXPECT_EQ(shown.code, 0) << shown.err;
  EXPECT_EQ(shown.out, "kind: Extra\n");
  EXPECT_EQ(RunAictl(base_, alice_,
                     {"manifests", "delete", cluster_id_, "60-extra.yaml", "--folder=openshift"})
                .code,
            0);
  AictlOutcome gone = RunAictl(
      base_, alice_, {"manifests", "download", cluster_id_, "60-extra.yaml", "--folder=openshift"});
  EXPECT_EQ(gone.code, 1);
  EXPECT_THAT(gone.err, HasSubstr("404"));
  // A cluster that is not installed cannot take day-2 workers: the gateway's reason is printed.
  AictlOutcome day2 = RunAictl(base_, alice_, {"clusters", "allow-add-workers", cluster_id_});
  EXPECT_EQ(day2.code, 1);
  EXPECT_THAT(day2.err, HasSubstr("409"));

  // Once the installation began, the manifests are what it was prepared with.
  ASSERT_NO_FATAL_FAILURE(StoreClusterStatus(types::CLUSTER_STATUS_INSTALLING));
  ExpectError(As(alice_, "DELETE", path + "?file_name=51-calico.yml"), 409,
              "only before its installation");
  EXPECT_EQ(As(alice_, "GET", path + "/files?file_name=51-calico.yml").status, 200);
}

// A presigned link is the user's to ask for; it opens that cluster's files and credentials
// downloads without any other credential, and nothing else.
TEST_F(GatewayTest, PresignedClusterLinksOpenTheirClustersDownloadsOnly) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  const std::string config = "apiVersion: v1\nbaseDomain: example.com\n";
  {
    inv::PutArtifactRequest put;
    put.set_cluster_id(cluster_id_);
    put.set_name("install-config.yaml");
    put.set_kind(inv::ARTIFACT_KIND_INSTALL_CONFIG);
    put.set_content_type("application/yaml");
    put.set_content(config);
    inv::ArtifactInfo stored;
    grpc::ClientContext context;
    ASSERT_TRUE(stack().inventory_stub().PutArtifact(&context, put, &stored).ok());
  }
  const std::string cluster = "/clusters/" + cluster_id_;
  CurlResponse presigned =
      As(alice_, "GET", cluster + "/downloads/files-presigned?file_name=install-config.yaml");
  ASSERT_EQ(presigned.status, 200) << presigned.body;
  const Json answer = Json::parse(presigned.body);
  const std::string url = answer["url"];
  EXPECT_TRUE(absl::StartsWith(
      url, base_ + kPrefix + cluster + "/downloads/files?file_name=install-config.yaml&api_key="))
      << url;
  EXPECT_TRUE(answer.contains("expires_at"));
  absl::StatusOr<CurlResponse> fetched = client_->Fetch(url, {});
  ASSERT_THAT(fetched, IsOk());
  EXPECT_EQ(fetched->status, 200) << fetched->body;
  EXPECT_EQ(fetched->body, config);
  const std::string token = url.substr(url.find("api_key=") + 8);
  AictlOutcome printed =
      RunAictl(base_, alice_, {"clusters", "download", cluster_id_, "install-config.yaml"});
  EXPECT_EQ(printed.code, 0) << printed.err;
  EXPECT_EQ(printed.out, config);

  // The credentials link authenticates too (the kubeconfig is not there before installing).
  CurlResponse credentials =
      As(alice_, "GET", cluster + "/downloads/credentials-presigned?file_name=kubeconfig");
  ASSERT_EQ(credentials.status, 200) << credentials.body;
  absl::StatusOr<CurlResponse> missing =
      client_->Fetch(Json::parse(credentials.body)["url"].get<std::string>(), {});
  ASSERT_THAT(missing, IsOk());
  ExpectError(*missing, 404, "kubeconfig of cluster");

  // The token opens nothing else: not the cluster itself, not another cluster's files.
  ExpectError(Fetch("GET", absl::StrCat(kPrefix, cluster, "?api_key=", token)), 403,
              "cluster download links may not use this endpoint");
  std::string bobs;
  {
    CurlResponse other = As(bob_, "POST", "/clusters",
                            Json{{"name", "bobs"},
                                 {"openshift_version", "4.16"},
                                 {"pull_secret", kPullSecret},
                                 {"base_dns_domain", "example.com"}}
                                .dump());
    ASSERT_EQ(other.status, 201) << other.body;
    bobs = Json::parse(other.body)["id"];
  }
  ExpectError(
      Fetch("GET", absl::StrCat(kPrefix, "/clusters/", bobs,
                                "/downloads/files?file_name=install-config.yaml&api_key=", token)),
      404, bobs);
  // Only the cluster's owner gets links; names are checked first.
  ExpectError(As(bob_, "GET", cluster + "/downloads/files-presigned?file_name=install-config.yaml"),
              404, cluster_id_);
  ExpectError(As(alice_, "GET", cluster + "/downloads/files-presigned?file_name=kubeconfig"), 400,
              "file_name");
  ExpectError(
      As(alice_, "GET", cluster + "/downloads/credentials-presigned?file_name=install-config.yaml"),
      400, "file_name");
  ExpectError(As(alice_, "GET", cluster + "/downloads/files-presigned"), 400,
              "file_name: required");
  // A forged or altered link is 401, as any bad credential.
  std::string altered = token;
  altered[10] = altered[10] == 'A' ? 'B' : 'A';
  EXPECT_EQ(
      Fetch("GET", absl::StrCat(kPrefix, cluster,
                                "/downloads/files?file_name=install-config.yaml&api_key=", altered))
          .status,
      401);
}

TEST_F(GatewayTest, UiSettingsAreAnOpaqueBoundedStringPerCluster) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  const std::string path = "/clusters/" + cluster_id_ + "/ui-settings";
  EXPECT_EQ(Json::parse(As(alice_, "GET", path).body), "");
  const std::string settings = R"({"addCustomManifests":true})";
  CurlResponse stored = As(alice_, "PUT", path, Json(settings).dump());
  ASSERT_EQ(stored.status, 200) << stored.body;
  EXPECT_EQ(Json::parse(stored.body), settings);
  EXPECT_EQ(Json::parse(As(alice_, "GET", path).body), settings);
  ExpectError(As(alice_, "PUT", path, Json(std::string((64 << 10) + 1, 'x')).dump()), 400,
              "ui_settings");
  ExpectError(As(alice_, "PUT", path, settings), 400, "expected a JSON string");
  ExpectError(As(bob_, "GET", path), 404, cluster_id_);
  ExpectError(As(bob_, "PUT", path, Json("mine").dump()), 404, cluster_id_);
  EXPECT_EQ(Json::parse(As(alice_, "GET", path).body), settings);

  CurlResponse domains = As(alice_, "GET", "/domains");
  ASSERT_EQ(domains.status, 200) << domains.body;
  EXPECT_EQ(Json::parse(domains.body), Json::array());
}

// The orchestrator answers from the requirements file its validations read (4.16's rows here)
// and from the platform rule of compatible-with-cluster-platform; another tenant gets 404.
TEST_F(GatewayTest, PreflightRequirementsAndSupportedPlatformsAreTheValidationsRules) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  const std::string cluster = "/clusters/" + cluster_id_;
  CurlResponse preflight = As(alice_, "GET", cluster + "/preflight-requirements");
  ASSERT_EQ(preflight.status, 200) << preflight.body;
  const Json requirements = Json::parse(preflight.body);
  EXPECT_EQ(requirements["operators"], Json::array());
  EXPECT_EQ(requirements["ocp"]["master"]["qualitative"], Json::array());
  EXPECT_EQ(requirements["ocp"]["master"]["quantitative"],
            (Json{{"cpu_cores", 4},
                  {"ram_mib", 16384},
                  {"disk_size_gb", 100},
                  {"installation_disk_speed_threshold_ms", 10},
                  {"network_latency_threshold_ms", 100.0},
                  {"packet_loss_percentage", 0.0}}));
  EXPECT_EQ(requirements["ocp"]["worker"]["quantitative"]["cpu_cores"], 2);
  EXPECT_EQ(requirements["ocp"]["worker"]["quantitative"]["packet_loss_percentage"], 10.0);
  EXPECT_EQ(requirements["ocp"]["arbiter"]["quantitative"]["disk_size_gb"], 50);

  // Single-node: every role is held to the sno row, without network thresholds or arbiter.
  CurlResponse sno = As(alice_, "POST", "/clusters",
                        Json{{"name", "sno"},
                             {"openshift_version", "4.16"},
                             {"high_availability_mode", "None"},
                             {"pull_secret", kPullSecret},
                             {"base_dns_domain", "example.com"}}
                            .dump());
  ASSERT_EQ(sno.status, 201) << sno.body;
  const std::string sno_path = "/clusters/" + Json::parse(sno.body)["id"].get<std::string>();
  const Json sno_requirements =
      Json::parse(As(alice_, "GET", sno_path + "/preflight-requirements").body);
  EXPECT_EQ(sno_requirements["ocp"]["master"]["quantitative"]["cpu_cores"], 8);
  EXPECT_EQ(sno_requirements["ocp"]["worker"], sno_requirements["ocp"]["master"]);
  EXPECT_FALSE(
      sno_requirements["ocp"]["master"]["quantitative"].contains("network_latency_threshold_ms"));
  EXPECT_FALSE(sno_requirements["ocp"].contains("arbiter"));

  // The fixture's host has no inventory yet: nothing shows it is a VMware or Nutanix machine.
  CurlResponse platforms = As(alice_, "GET", cluster + "/supported-platforms");
  ASSERT_EQ(platforms.status, 200) << platforms.body;
  EXPECT_EQ(Json::parse(platforms.body), (Json{"baremetal", "none", "external"}));
  EXPECT_EQ(Json::parse(As(alice_, "GET", sno_path + "/supported-platforms").body), Json::array());

  for (const char* question : {"/preflight-requirements", "/supported-platforms"}) {
    ExpectError(As(bob_, "GET", cluster + question), 404, cluster_id_);
    ExpectError(
        As(alice_, "GET", "/clusters/0e6c9a52-1d2b-4f7a-8c3e-5b9d0f1a2c4e" + std::string(question)),
        404, "0e6c9a52-1d2b-4f7a-8c3e-5b9d0f1a2c4e");
    ExpectError(As(alice_, "GET", "/clusters/not-a-uuid" + std::string(question)), 400,
                "cluster_id");
  }
}

TEST_F(GatewayTest, AHostValidationIsResetOnlyWhereAMeasurementCanBeRetried) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  const std::string reset =
      "/infra-envs/" + infra_env_id_ + "/hosts/" + host_id_ + "/actions/reset-validation/";
  CurlResponse done = As(alice_, "PATCH", reset + "container-images-available");
  ASSERT_EQ(done.status, 200) << done.body;
  EXPECT_EQ(Json::parse(done.body)["id"], host_id_);
  EXPECT_EQ(As(alice_, "PATCH", reset + "sufficient-installation-disk-speed").status, 200);
  AictlOutcome aictl = RunAictl(base_, alice_,
                                {"hosts", "reset-validation", host_id_,
                                 "container-images-available", "--infra-env=" + infra_env_id_});
  EXPECT_EQ(aictl.code, 0) << aictl.err;
  EXPECT_THAT(aictl.out, HasSubstr("container-images-available will be measured again"));
  ExpectError(As(alice_, "PATCH", reset + "has-min-cpu-cores"), 400,
              "validation_id: \"has-min-cpu-cores\" cannot be reset");
  ExpectError(As(alice_, "PATCH", reset + "container-images-available", R"({"x":1})"), 400,
              "x: unknown field");
  ExpectError(As(bob_, "PATCH", reset + "container-images-available"), 404, host_id_);
  ExpectError(As(alice_, "PATCH",
                 "/infra-envs/" + infra_env_id_ + "/hosts/not-a-uuid/actions/reset-validation/x"),
              400, "host_id");
  ASSERT_NO_FATAL_FAILURE(StoreHostStatus(types::HOST_STATUS_INSTALLING));
  ExpectError(As(alice_, "PATCH", reset + "container-images-available"), 409, "installing");
}

TEST_F(GatewayTest, AictlManagesClustersInfraEnvsAndHostsByNameOrId) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  // A cluster by its name: get, update.
  AictlOutcome got = RunAictl(base_, alice_, {"-o", "name", "clusters", "get", "one"});
  ASSERT_EQ(got.code, 0) << got.err;
  EXPECT_EQ(got.out, cluster_id_ + "\n");
  AictlOutcome updated =
      RunAictl(base_, alice_, {"clusters", "update", "one", "--base-domain=other.example.com"});
  ASSERT_EQ(updated.code, 0) << updated.err;
  EXPECT_THAT(updated.out, HasSubstr("one.other.example.com"));
  AictlOutcome missing = RunAictl(base_, alice_, {"clusters", "get", "nobody"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.err, HasSubstr("no cluster named \"nobody\""));
  // Bob's view has no cluster named one.
  EXPECT_THAT(RunAictl(base_, bob_, {"clusters", "get", "one"}).err, HasSubstr("no cluster named"));

  // An infra-env: get, update from a file, as YAML.
  const std::string changes = ::testing::TempDir() + "/infra-env-changes.yaml";
  std::ofstream(changes) << "additional_ntp_sources: ntp.example.com\n";
  AictlOutcome changed =
      RunAictl(base_, alice_, {"infra-envs", "update", infra_env_id_, "--file=" + changes});
  ASSERT_EQ(changed.code, 0) << changed.err;
  AictlOutcome yaml = RunAictl(base_, alice_, {"-o", "yaml", "infra-envs", "get", infra_env_id_});
  ASSERT_EQ(yaml.code, 0) << yaml.err;
  EXPECT_THAT(yaml.out, HasSubstr("additional_ntp_sources: ntp.example.com"));

  // A host: get, update its name and role, then found by that name, then deleted.
  const std::string selector = "--infra-env=" + infra_env_id_;
  AictlOutcome renamed = RunAictl(
      base_, alice_, {"hosts", "update", host_id_, selector, "--name=rack1-a", "--role=master"});
  ASSERT_EQ(renamed.code, 0) << renamed.err;
  AictlOutcome host = RunAictl(base_, alice_, {"-o", "json", "hosts", "get", "rack1-a", selector});
  ASSERT_EQ(host.code, 0) << host.err;
  EXPECT_EQ(Json::parse(host.out)["requested_hostname"], "rack1-a");
  EXPECT_EQ(Json::parse(host.out)["role"], "master");
  EXPECT_EQ(RunAictl(base_, alice_, {"hosts", "update", "rack1-a", selector}).code, 2);
  EXPECT_EQ(RunAictl(base_, bob_, {"hosts", "get", "rack1-a", selector}).code, 1);
  AictlOutcome deleted = RunAictl(base_, alice_, {"hosts", "delete", "rack1-a", selector});
  ASSERT_EQ(deleted.code, 0) << deleted.err;
  EXPECT_EQ(As(alice_, "GET", "/infra-envs/" + infra_env_id_ + "/hosts/" + host_id_).status, 404);

  AictlOutcome gone = RunAictl(base_, alice_, {"infra-envs", "delete", infra_env_id_});
  ASSERT_EQ(gone.code, 0) << gone.err;
  EXPECT_EQ(As(alice_, "GET", "/infra-envs/" + infra_env_id_).status, 404);
}

TEST_F(GatewayTest, AictlBindsAndUnbindsPoolHostsOfItsTenantOnly) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  // A pool: an infra-env without a cluster, with a host its agent registered.
  CurlResponse pool = As(alice_, "POST", "/infra-envs",
                         Json{{"name", "pool"}, {"pull_secret", kPullSecret}}.dump());
  ASSERT_EQ(pool.status, 201) << pool.body;
  const std::string pool_id = Json::parse(pool.body)["id"];
  const std::string host_id = "5e1b7c2d-9a3f-4b6e-8c1d-2f4a6b8c0d1e";
  ASSERT_NO_FATAL_FAILURE(CreateHost(host_id, pool_id, "", types::HOST_STATUS_DISCOVERING_UNBOUND));
  const std::string selector = "--infra-env=" + pool_id;
  const std::string host_path = "/infra-envs/" + pool_id + "/hosts/" + host_id;

  // Another tenant finds no such host (nor alice's cluster), and changes nothing.
  EXPECT_EQ(RunAictl(base_, bob_, {"hosts", "bind", host_id, cluster_id_, selector}).code, 1);
  EXPECT_FALSE(Json::parse(As(alice_, "GET", host_path).body).contains("cluster_id"));
  AictlOutcome not_an_id = RunAictl(base_, alice_, {"hosts", "bind", host_id, "one", selector});
  EXPECT_EQ(not_an_id.code, 1);
  EXPECT_THAT(not_an_id.err, HasSubstr("cluster_id"));

  AictlOutcome bound = RunAictl(base_, alice_, {"hosts", "bind", host_id, cluster_id_, selector});
  ASSERT_EQ(bound.code, 0) << bound.err;
  // The status as the orchestrator judged the host at once (disconnected: no agent here).
  EXPECT_THAT(bound.out,
              HasSubstr(host_id.substr(0, 8) + ": bound to cluster " + cluster_id_ + " ("));
  EXPECT_EQ(Json::parse(As(alice_, "GET", host_path).body)["cluster_id"], cluster_id_);

  EXPECT_EQ(RunAictl(base_, bob_, {"hosts", "unbind", host_id, selector}).code, 1);
  EXPECT_EQ(Json::parse(As(alice_, "GET", host_path).body)["cluster_id"], cluster_id_);
  AictlOutcome unbound = RunAictl(base_, alice_, {"hosts", "unbind", host_id, selector});
  ASSERT_EQ(unbound.code, 0) << unbound.err;
  EXPECT_THAT(unbound.out, HasSubstr(host_id.substr(0, 8) + ": unbound ("));
  EXPECT_FALSE(Json::parse(As(alice_, "GET", host_path).body).contains("cluster_id"));
  // A host of an infra-env that belongs to a cluster has no pool to return to.
  AictlOutcome no_pool =
      RunAictl(base_, alice_, {"hosts", "unbind", host_id_, "--infra-env=" + infra_env_id_});
  EXPECT_EQ(no_pool.code, 1);
  EXPECT_THAT(no_pool.err, HasSubstr("only hosts of an infra-env without a cluster"));
}

TEST_F(GatewayTest, HostInstallerArgsAndIgnitionAreCheckedUntilTheHostInstalls) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  const std::string host = "/infra-envs/" + infra_env_id_ + "/hosts/" + host_id_;
  CurlResponse args = As(alice_, "PATCH", host + "/installer-args",
                         R"({"args":["--append-karg","nosmt","--copy-network"]})");
  ASSERT_EQ(args.status, 201) << args.body;
  EXPECT_EQ(Json::parse(args.body)["installer_args"],
            R"(["--append-karg","nosmt","--copy-network"])");
  ExpectError(As(alice_, "PATCH", host + "/installer-args", R"({"args":["--save-partlabel","x"]})"),
              400, "\"--save-partlabel\" is not supported");
  ExpectError(As(alice_, "PATCH", host + "/installer-args", R"({"args":["--append-karg"]})"), 400,
              "--append-karg needs a value");
  ExpectError(As(alice_, "PATCH", host + "/installer-args", R"({"args":"--copy-network"})"), 400,
              "args: expected a list of strings");
  ExpectError(As(alice_, "PATCH", host + "/installer-args", R"({})"), 400, "args: required");

  EXPECT_EQ(Json::parse(As(alice_, "GET", host + "/ignition").body), (Json{{"config", ""}}));
  const std::string config =
      R"({"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,hi"}}]}})";
  ASSERT_EQ(As(alice_, "PATCH", host + "/ignition", Json{{"config", config}}.dump()).status, 201);
  EXPECT_EQ(Json::parse(As(alice_, "GET", host + "/ignition").body)["config"], config);
  ExpectError(As(alice_, "PATCH", host + "/ignition",
                 Json{{"config", R"({"ignition":{"version":"2.2.0"}})"}}.dump()),
              400, "host.ignition_config_overrides: needs ignition.version");
  ExpectError(As(alice_, "PATCH", host + "/ignition", R"({"config":{"ignition":{}}})"), 400,
              "config: expected a string");
  EXPECT_EQ(Json::parse(As(alice_, "GET", host + "/ignition").body)["config"], config);

  for (const auto& [method, suffix, body] :
       {std::tuple{"PATCH", "/installer-args", R"({"args":[]})"},
        std::tuple{"GET", "/ignition", ""}, std::tuple{"PATCH", "/ignition", R"({"config":""})"}}) {
    ExpectError(As(bob_, method, host + suffix,
                   *body ? absl::make_optional(std::string(body)) : absl::nullopt),
                404, host_id_);
  }

  // Once its installation began, what it is installed with stays.
  ASSERT_NO_FATAL_FAILURE(StoreHostStatus(types::HOST_STATUS_INSTALLING));
  ExpectError(As(alice_, "PATCH", host + "/installer-args", R"({"args":[]})"), 409,
              "installation began");
  ExpectError(As(alice_, "PATCH", host + "/ignition", R"({"config":""})"), 409,
              "installation began");
}

TEST_F(GatewayTest, ReadCacheShowsWritesThroughTheGatewayAtOnce) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  const std::string cluster = "/clusters/" + cluster_id_;
  const std::string host = "/infra-envs/" + infra_env_id_ + "/hosts/" + host_id_;
  ASSERT_EQ(CachedGet(alice_, cluster).status, 200);
  ASSERT_EQ(CachedGet(alice_, cluster + "/hosts").status, 200);
  ASSERT_EQ(CachedGet(alice_, host).status, 200);
  ASSERT_EQ(CachedGet(alice_, "/infra-envs/" + infra_env_id_ + "/hosts").status, 200);

  ASSERT_EQ(As(alice_, "PATCH", cluster, R"({"name":"renamed"})").status, 201);
  CurlResponse got = As(alice_, "GET", cluster);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(Json::parse(got.body)["name"], "renamed");

  // A host edit goes to the orchestrator; every cached read showing the host drops.
  ASSERT_EQ(As(alice_, "PATCH", host, R"({"host_role":"master"})").status, 201);
  for (const std::string& path :
       {host, cluster + "/hosts", "/infra-envs/" + infra_env_id_ + "/hosts"}) {
    CurlResponse read = As(alice_, "GET", path);
    ASSERT_EQ(read.status, 200) << path << " " << read.body;
    const Json json = Json::parse(read.body);
    EXPECT_EQ((json.is_array() ? json[0] : json)["role"], "master") << path;
  }
  CurlResponse with_hosts = As(alice_, "GET", cluster);
  EXPECT_EQ(Json::parse(with_hosts.body)["hosts"][0]["role"], "master");

  // Gone through the gateway: gone at once.
  EXPECT_EQ(As(alice_, "DELETE", host).status, 204);
  ExpectError(As(alice_, "GET", host), 404, host_id_);
  EXPECT_EQ(Json::parse(As(alice_, "GET", cluster + "/hosts").body).size(), 0u);
}

TEST_F(GatewayTest, ReadCacheFollowsWritesMadeElsewhereThroughTheChangeLog) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  std::string other_id;
  ASSERT_NO_FATAL_FAILURE(RegisterCluster("two", &other_id));
  const std::string cluster = "/clusters/" + cluster_id_;
  const std::string host = "/infra-envs/" + infra_env_id_ + "/hosts/" + host_id_;
  ASSERT_EQ(CachedGet(alice_, cluster).status, 200);
  ASSERT_EQ(CachedGet(alice_, host).status, 200);
  ASSERT_EQ(CachedGet(alice_, cluster + "/hosts").status, 200);
  ASSERT_EQ(CachedGet(alice_, "/clusters/" + other_id + "/hosts").status, 200);

  // Another writer (here: a direct inventory call, as another replica or the orchestrator).
  inv::UpdateClusterRequest rename;
  rename.mutable_cluster()->set_id(cluster_id_);
  rename.mutable_cluster()->set_name("elsewhere");
  rename.mutable_update_mask()->add_paths("name");
  grpc::ClientContext rename_context;
  types::Cluster renamed;
  ASSERT_TRUE(stack().inventory_stub().UpdateCluster(&rename_context, rename, &renamed).ok());
  GetUntil(alice_, cluster, [](const Json& json) { return json["name"] == "elsewhere"; });

  // The host moves to the other cluster: both clusters' host lists follow.
  inv::UpdateHostRequest move;
  move.mutable_host()->set_id(host_id_);
  move.mutable_host()->set_infra_env_id(infra_env_id_);
  move.mutable_host()->set_cluster_id(other_id);
  move.mutable_update_mask()->add_paths("cluster_id");
  grpc::ClientContext move_context;
  types::Host moved;
  grpc::Status status = stack().inventory_stub().UpdateHost(&move_context, move, &moved);
  ASSERT_TRUE(status.ok()) << status.error_message();
  GetUntil(alice_, cluster + "/hosts", [](const Json& json) { return json.empty(); });
  GetUntil(alice_, "/clusters/" + other_id + "/hosts",
           [&](const Json& json) { return json.size() == 1 && json[0]["id"] == host_id_; });
  GetUntil(alice_, host, [&](const Json& json) { return json["cluster_id"] == other_id; });
}

TEST_F(GatewayTest, ReadCacheNeverAnswersAnotherTenant) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  const std::vector<std::string> reads = {
      "/clusters/" + cluster_id_, "/clusters/" + cluster_id_ + "/hosts",
      "/infra-envs/" + infra_env_id_, "/infra-envs/" + infra_env_id_ + "/hosts",
      "/infra-envs/" + infra_env_id_ + "/hosts/" + host_id_};
  for (const std::string& path : reads) {
    ASSERT_EQ(CachedGet(alice_, path).status, 200) << path;
    CurlResponse bob = As(bob_, "GET", path);
    EXPECT_EQ(bob.status, 404) << path << " " << bob.body;
    // Another org is another tenant, whatever the user name.
    CurlResponse namesake = As(UserToken("alice", "other"), "GET", path);
    EXPECT_EQ(namesake.status, 404) << path << " " << namesake.body;
  }
}

TEST_F(GatewayTest, EveryRouteRefusesEveryWrongCredential) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  // Another infra-env: its agent and download tokens are genuine, just not for alice's routes.
  std::string other_infra_env;
  {
    inv::CreateInfraEnvRequest create;
    create.mutable_infra_env()->set_name("elsewhere");
    types::InfraEnv created;
    grpc::ClientContext context;
    ASSERT_TRUE(stack().inventory_stub().CreateInfraEnv(&context, create, &created).ok());
    other_infra_env = created.id();
  }
  struct Credential {
    std::string name;
    std::vector<std::string> headers;
  };
  const std::vector<Credential> wrong = {
      {"no token", {}},
      {"bad signature",
       {"Authorization: Bearer " +
        UserToken("alice", "acme", absl::Hours(1), "another-secret-another-secret-0123456789")}},
      {"expired", {"Authorization: Bearer " + UserToken("alice", "acme", -absl::Hours(2))}},
      {"garbage bearer", {"Authorization: Bearer not.a.jwt"}},
      {"alg none",
       {"Authorization: Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSIsImV4cCI6OTk5OTk5OTk5OX0."}},
      {"forged agent token", {"X-Secret-Key: " + std::string(50, 'A')}},
  };
  int checked = 0;
  for (const RouteInfo& route : RestApi::Routes()) {
    const std::string path = FillWithQuery(route);
    const absl::optional<std::string> body = ValidBody(route);
    auto fetch = [&](std::vector<std::string> headers) {
      if (body) headers.push_back("Content-Type: application/json");
      ++checked;
      return Fetch(route.method, path, headers, body);
    };
    SCOPED_TRACE(route.method + " " + route.path);
    if (route.access == Access::kPublic) {
      EXPECT_NE(fetch({}).status, 401);
      continue;
    }
    for (const Credential& credential : wrong) {
      CurlResponse response = fetch(credential.headers);
      EXPECT_EQ(response.status, 401) << credential.name << ": " << response.body;
      EXPECT_EQ(response.Header("www-authenticate").value_or(""), "Bearer") << credential.name;
    }
    // Another tenant never sees or changes alice's resources.
    CurlResponse other = fetch({"Authorization: Bearer " + bob_});
    // Operator names and bundle ids are the service's catalog, not anyone's resources.
    const bool names_alices = absl::StrContains(route.path, "{") &&
                              !absl::StrContains(route.path, "{operator_name}") &&
                              !absl::StrContains(route.path, "/bundles/{id}");
    if (names_alices) {
      EXPECT_EQ(other.status, 404) << "other tenant: " << other.body;
    } else {
      for (const std::string& id : {cluster_id_, infra_env_id_, host_id_}) {
        EXPECT_THAT(other.body, Not(HasSubstr(id))) << "other tenant sees " << id;
      }
    }
    // Agent and image tokens: only their own infra-env's routes of their kind.
    for (const bool agent : {true, false}) {
      const std::string header = agent ? "X-Secret-Key: " : "Image-Token: ";
      auto token = [agent, this](const std::string& id) {
        return agent ? AgentToken(id) : DownloadToken(id);
      };
      CurlResponse own = fetch({header + token(infra_env_id_)});
      const bool allowed =
          route.access == Access::kAgentOrImage || (agent && route.access == Access::kAgent);
      if (allowed) {
        EXPECT_NE(own.status, 401) << header << own.body;
        EXPECT_NE(own.status, 403) << header << own.body;
        CurlResponse foreign = fetch({header + token(other_infra_env)});
        EXPECT_EQ(foreign.status, 404) << header << "foreign infra-env: " << foreign.body;
      } else {
        EXPECT_EQ(own.status, 403) << header << own.body;
      }
    }
    // Cluster download links: only the two download routes of their own cluster.
    CurlResponse link = fetch({"Image-Token: " + ClusterLinkToken(cluster_id_)});
    if (route.access == Access::kClusterLink) {
      EXPECT_NE(link.status, 401) << "cluster link: " << link.body;
      EXPECT_NE(link.status, 403) << "cluster link: " << link.body;
      CurlResponse foreign = fetch({"Image-Token: " + ClusterLinkToken(other_infra_env)});
      EXPECT_EQ(foreign.status, 404) << "another cluster's link: " << foreign.body;
    } else {
      EXPECT_EQ(link.status, 403) << "cluster link: " << link.body;
    }
    // The image token in the URL, as download links carry it.
    if (route.access == Access::kAgentOrImage) {
      CurlResponse in_url =
          Fetch(route.method, path + (absl::StrContains(path, "?") ? "&" : "?") +
                                  "image_token=" + DownloadToken(other_infra_env));
      EXPECT_EQ(in_url.status, 404) << in_url.body;
    }
  }
  // The user token works on every non-destructive route (backends may say 409/501/503).
  for (const RouteInfo& route : RestApi::Routes()) {
    if (route.method == "DELETE" || route.access == Access::kPublic) continue;
    SCOPED_TRACE(route.method + " " + route.path);
    const absl::optional<std::string> body = ValidBody(route);
    std::vector<std::string> headers = {"Authorization: Bearer " + alice_};
    if (body) headers.push_back("Content-Type: application/json");
    CurlResponse response = Fetch(route.method, FillWithQuery(route), headers, body);
    EXPECT_NE(response.status, 401) << response.body;
    EXPECT_NE(response.status, 403) << response.body;
    EXPECT_TRUE(response.status < 500 || response.status == 501 || response.status == 503)
        << response.body;
    ++checked;
  }
  EXPECT_GT(checked, 300);
}

// The operator routes answer from the operator table (lib/operators/catalog.h): lso and lvm
// can be installed, upstream's others are refused by name, there are no bundles. A selection is
// kept as the cluster's monitored operators (with the builtin ones the installation reports),
// and the preflight requirements show what the selected operators add.
TEST_F(GatewayTest, OperatorRoutesAnswerFromTheTableAndSelectionsBecomeMonitoredOperators) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  CurlResponse supported = As(alice_, "GET", "/supported-operators");
  ASSERT_EQ(supported.status, 200) << supported.body;
  EXPECT_EQ(supported.body, R"(["lso","lvm"])");
  for (const char* path :
       {"/operators/bundles", "/operators/bundles?openshift_version=4.16&cpu_architecture=arm64"}) {
    CurlResponse list = As(alice_, "GET", path);
    EXPECT_EQ(list.status, 200) << path << " " << list.body;
    EXPECT_EQ(list.body, "[]") << path;
  }
  EXPECT_EQ(As(alice_, "GET", "/supported-operators/lvm").body, "[]");  // no properties
  ExpectError(As(alice_, "GET", "/supported-operators/odf"), 404,
              "operator_name: \"odf\" is not supported by this service yet");
  ExpectError(As(alice_, "GET", "/operators/bundles/virtualization"), 404,
              "id: \"virtualization\"");
  ExpectError(As(alice_, "GET", "/operators/bundles?cpu_architecture=sparc"), 400,
              "cpu_architecture");
  ExpectError(As(alice_, "GET", "/operators/bundles?platform_type=aws"), 400, "platform_type");
  ExpectError(As(alice_, "POST", "/clusters",
                 Json{{"name", "ops"},
                      {"openshift_version", "4.16"},
                      {"pull_secret", kPullSecret},
                      {"olm_operators", {{{"name", "lvm"}}, {{"name", "odf"}}}}}
                     .dump()),
              400, "olm_operators[1].name: \"odf\" is not supported by this service yet");
  ExpectError(As(alice_, "PATCH", "/clusters/" + cluster_id_,
                 R"({"operator_bundles":[{"id":"virtualization"}]})"),
              400, "operator_bundles[0].id");
  ExpectError(As(alice_, "PATCH", "/clusters/" + cluster_id_, R"({"olm_operators":["lvm"]})"), 400,
              "olm_operators[0]");
  EXPECT_EQ(As(alice_, "PATCH", "/clusters/" + cluster_id_, R"({"olm_operators":[]})").status, 201);

  const std::string monitored = "/clusters/" + cluster_id_ + "/monitored-operators";
  CurlResponse none = As(alice_, "GET", monitored);
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(none.body, "[]");
  {  // The installation reports the console operator (as the controller does).
    inv::UpdateClusterRequest update;
    update.mutable_cluster()->set_id(cluster_id_);
    types::MonitoredOperator* console = update.mutable_cluster()->add_monitored_operators();
    console->set_name("console");
    console->set_operator_type(types::OPERATOR_TYPE_BUILTIN);
    console->set_status(types::OPERATOR_STATUS_PROGRESSING);
    update.mutable_update_mask()->add_paths("monitored_operators");
    types::Cluster updated;
    grpc::ClientContext context;
    ASSERT_TRUE(stack().inventory_stub().UpdateCluster(&context, update, &updated).ok());
  }
  const Json operators =
      GetUntil(alice_, monitored, [](const Json& json) { return !json.empty(); });
  ASSERT_EQ(operators.size(), 1u) << operators;
  EXPECT_EQ(operators[0]["name"], "console");
  EXPECT_EQ(operators[0]["status"], "progressing");
  EXPECT_EQ(operators[0]["cluster_id"], cluster_id_);
  EXPECT_EQ(As(alice_, "GET", monitored + "?operator_name=console").body, operators.dump());
  EXPECT_EQ(As(alice_, "GET", monitored + "?operator_name=lvm").body, "[]");
  ExpectError(As(bob_, "GET", monitored), 404, cluster_id_);

  // Selecting lvm keeps the console entry and adds lvm's, not reported yet.
  CurlResponse selected =
      As(alice_, "PATCH", "/clusters/" + cluster_id_, R"({"olm_operators":[{"name":"lvm"}]})");
  ASSERT_EQ(selected.status, 201) << selected.body;
  const Json both = Json::parse(As(alice_, "GET", monitored).body);
  ASSERT_EQ(both.size(), 2u) << both;
  EXPECT_EQ(both[0]["name"], "console");
  EXPECT_EQ(both[1]["name"], "lvm");
  EXPECT_EQ(both[1]["operator_type"], "olm");
  EXPECT_EQ(both[1]["namespace"], "openshift-storage");
  EXPECT_EQ(both[1]["subscription_name"], "lvms-operator");
  const Json preflight =
      Json::parse(As(alice_, "GET", "/clusters/" + cluster_id_ + "/preflight-requirements").body);
  ASSERT_EQ(preflight["operators"].size(), 1u) << preflight;
  EXPECT_EQ(preflight["operators"][0]["operator_name"], "lvm");
  EXPECT_EQ(preflight["operators"][0]["requirements"]["master"]["quantitative"]["cpu_cores"], 1);
  // The cluster's validations report it.
  const Json cluster = GetUntil(alice_, "/clusters/" + cluster_id_, [](const Json& json) {
    return json.value("validations_info", "").find("lvm-requirements-satisfied") !=
           std::string::npos;
  });
  EXPECT_NE(cluster.value("validations_info", "").find("\"operators\""), std::string::npos)
      << cluster.value("validations_info", "");
}

// Upstream's component versions: the release of the gateway that answers.
TEST_F(GatewayTest, ComponentVersionsNameTheGatewaysRelease) {
  CurlResponse versions = As(alice_, "GET", "/component-versions");
  ASSERT_EQ(versions.status, 200) << versions.body;
  const Json json = Json::parse(versions.body);
  EXPECT_EQ(json["versions"].size(), 1u) << json;
  const std::string release = json["versions"].value("assisted-gateway", "");
  EXPECT_FALSE(release.empty()) << json;
  EXPECT_EQ(json["release_tag"], release);
  // The same release the binary prints for --version.
  AictlOutcome none = RunAictl(base_, "", {"version"});
  EXPECT_THAT(none.out + none.err, HasSubstr(release));
}

// Upstream's v2TriggerEvent, for users: an event on the caller's own cluster, infra-env or
// host is stored and listed; naming another tenant's is 404 and stores nothing.
TEST_F(GatewayTest, UsersTriggerEventsOnTheirOwnResourcesOnly) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  CurlResponse created = As(alice_, "POST", "/events",
                            Json{{"cluster_id", cluster_id_},
                                 {"host_id", host_id_},
                                 {"severity", "warning"},
                                 {"name", "user_note"},
                                 {"message", "rack 4 is being rewired"},
                                 {"props", R"({"ticket":"OPS-1"})"}}
                                .dump());
  ASSERT_EQ(created.status, 201) << created.body;
  const Json event = Json::parse(created.body);
  EXPECT_EQ(event["message"], "rack 4 is being rewired");
  EXPECT_EQ(event["severity"], "warning");
  EXPECT_EQ(event["cluster_id"], cluster_id_);
  EXPECT_TRUE(event.contains("event_time"));
  const std::string listed = "/events?cluster_id=" + cluster_id_ + "&message=rewired";
  EXPECT_EQ(GetUntil(alice_, listed, [](const Json& json) { return json.size() == 1; }).size(), 1u);

  // The attack: bob writes into alice's cluster, infra-env and host.
  for (const Json& target : {Json{{"cluster_id", cluster_id_}},
                             Json{{"infra_env_id", infra_env_id_}}, Json{{"host_id", host_id_}}}) {
    Json body = target;
    body["severity"] = "critical";
    body["message"] = "your cluster was deleted, call 555-0100";
    CurlResponse attack = As(bob_, "POST", "/events", body.dump());
    ExpectError(attack, 404, "no such resource");
    EXPECT_THAT(attack.body, Not(HasSubstr(cluster_id_)));
  }
  CurlResponse alices = As(alice_, "GET", "/events?cluster_id=" + cluster_id_ + "&message=555");
  ASSERT_EQ(alices.status, 200) << alices.body;
  EXPECT_EQ(alices.body, "[]");
  CurlResponse bobs = As(bob_, "GET", "/events?message=555");
  ASSERT_EQ(bobs.status, 200) << bobs.body;
  EXPECT_EQ(bobs.body, "[]");

  // Bad input names the field.
  const std::string ok_cluster = Json{{"cluster_id", cluster_id_}}.dump();
  for (const auto& [body, reason] : std::vector<std::pair<std::string, std::string>>{
           {R"({"severity":"info"})", "message"},
           {R"({"message":"m"})", "severity"},
           {R"({"severity":"info","message":"m"})", "cluster_id"},
           {R"({"severity":"loud","message":"m","cluster_id":")" + cluster_id_ + R"("})",
            "severity"},
           {R"({"severity":"info","message":"m","cluster_id":"nope"})", "cluster_id"},
           {R"({"severity":"info","message":"m","props":"[1]","cluster_id":")" + cluster_id_ +
                R"("})",
            "props"},
           {R"({"severity":"info","message":"m","id":7,"cluster_id":")" + cluster_id_ + R"("})",
            "id"}}) {
    ExpectError(As(alice_, "POST", "/events", body), 400, reason);
  }
  ExpectError(
      Fetch("POST", absl::StrCat(kPrefix, "/events"),
            {"X-Secret-Key: " + AgentToken(infra_env_id_), "Content-Type: application/json"},
            ok_cluster),
      403, "agent tokens may not use this endpoint");
}

// Sizes no server should honour, announced or sent, get 413 or 400 with the API's Error
// document: never a 500, a crash or a hang, and the gateway carries on.
TEST_F(GatewayTest, AbsurdSizesGet413Or400WithAnErrorDocument) {
  const std::string post =
      absl::StrCat("POST ", kPrefix, "/clusters HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ",
                   alice_, "\r\nContent-Type: application/json\r\n");
  const std::string over_a_mib(1100 * 1024, 'x');
  const std::vector<std::pair<std::string, int>> cases = {
      {post + "Content-Length: 1073741824\r\n\r\n", 413},
      {post + "Content-Length: 18446744073709551615\r\n\r\n", 413},
      {post + "Content-Length: 99999999999999999999999999\r\n\r\n", 400},
      {post + "Content-Length: -1\r\n\r\n", 400},
      {post + "Content-Length: 12, 13\r\n\r\n", 400},
      {post + "Transfer-Encoding: chunked\r\n\r\nfffffffffffffffffffffff\r\n", 400},
      {post + "Transfer-Encoding: chunked\r\n\r\n40000000\r\n", 413},
      {absl::StrCat(post, "Transfer-Encoding: chunked\r\n\r\n", absl::Hex(over_a_mib.size()),
                    "\r\n", over_a_mib, "\r\n0\r\n\r\n"),
       413},
  };
  for (const auto& [request, status] : cases) {
    const std::string shown = request.substr(request.find("Content-Type"), 120);
    const std::string answer = SendRaw(request);
    EXPECT_TRUE(absl::StartsWith(answer, absl::StrCat("HTTP/1.1 ", status, " ")))
        << shown << " -> " << answer.substr(0, 200);
    const size_t body_at = answer.find("\r\n\r\n");
    if (body_at == std::string::npos) {
      ADD_FAILURE() << "no answer: " << shown;
      continue;
    }
    EXPECT_THAT(answer.substr(0, body_at), HasSubstr("Content-Type: application/json"));
    const Json error = Json::parse(answer.substr(body_at + 4), nullptr, false);
    if (!error.is_object()) {
      ADD_FAILURE() << "not an Error document: " << shown << " -> " << answer;
      continue;
    }
    EXPECT_EQ(error.value("code", ""), absl::StrCat(status)) << shown;
    EXPECT_FALSE(error.value("reason", "").empty()) << shown;
  }
  EXPECT_EQ(Fetch("GET", "/health").status, 200);
}

TEST_F(GatewayTest, MalformedRequestsGetA4xxAndNeverACrash) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  struct Case {
    std::string method, path, body, content_type = "application/json";
  };
  std::vector<Case> cases;
  // Bad ids in every route that takes one.
  for (const RouteInfo& route : RestApi::Routes()) {
    if (!absl::StrContains(route.path, "{")) continue;
    for (const std::string bad : {"abc", "12345678-1234-1234-1234-12345678901", "%2e%2e",
                                  "8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2cX", "%00", "%ZZ"}) {
      std::string path = absl::StrReplaceAll(
          route.path, {{"{cluster_id}", bad}, {"{infra_env_id}", bad}, {"{host_id}", bad}});
      cases.push_back({route.method, path, ValidBody(route).value_or("")});
    }
  }
  // Bad bodies for every route that takes one.
  const std::string huge_name(2 << 20, 'x');
  const std::vector<std::pair<std::string, std::string>> bad_bodies = {
      {"", "application/json"},
      {"{", "application/json"},
      {"[]", "application/json"},
      {"null", "application/json"},
      {"42", "application/json"},
      {"\"text\"", "application/json"},
      {"{\"name\":", "application/json"},
      {"{\"name\": \"a\",}", "application/json"},
      {"{\"no_such_field\": 1}", "application/json"},
      {"{\"name\": 123}", "application/json"},
      {"{\"name\": \"\xff\xfe\"}", "application/json"},
      {std::string(200, '[') + std::string(200, ']'), "application/json"},
      {"{\"name\": \"" + huge_name + "\"}", "application/json"},
      {"{\"name\": \"a\"}", "text/plain"},
      {"name=a", "application/x-www-form-urlencoded"},
      {"{\"cluster_networks\": \"10.0.0.0/8\"}", "application/json"},
      {"{\"cluster_networks\": [{\"cidr\": 1}]}", "application/json"},
      {"{\"cluster_networks\": [{\"host_prefix\": 1e400}]}", "application/json"},
      {"{\"control_plane_count\": \"3\"}", "application/json"},
      {"{\"control_plane_count\": 3.5}", "application/json"},
      {"{\"control_plane_count\": 99999999999999}", "application/json"},
      {"{\"api_vips\": [1]}", "application/json"},
      {"{\"high_availability_mode\": \"Half\"}", "application/json"},
      {"{\"platform\": {\"type\": \"moon\"}}", "application/json"},
      {"{\"pull_secret\": 5}", "application/json"},
      {"{\"pull_secret\": \"\"}", "application/json"},
      {"{\"host_role\": [\"master\"]}", "application/json"},
      {"{\"disks_selected_config\": [{\"id\": \"/dev/sda\", \"role\": \"boot\"}]}",
       "application/json"},
      {"{\"node_labels\": {\"a\": \"b\"}}", "application/json"},
      {"{\"cluster_id\": \"not-a-uuid\"}", "application/json"},
      {"{\"kernel_arguments\": [{\"operation\": \"explode\"}]}", "application/json"},
      {"{\"status\": \"installed\"}", "application/json"},
      {"{\"id\": \"8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c\"}", "application/json"},
  };
  for (const RouteInfo& route : RestApi::Routes()) {
    if (route.method != "POST" && route.method != "PATCH") continue;
    for (const auto& [body, type] : bad_bodies) {
      // Actions without a body accept an empty one: only the rest is malformed for them.
      if (body.empty() && !ValidBody(route)) continue;
      // Upstream's V2UpdateCluster takes "" as "unset the pull secret", its UpdateInfraEnv as
      // "no change".
      if (body == "{\"pull_secret\": \"\"}" && route.method == "PATCH" &&
          (absl::EndsWith(route.path, "/clusters/{cluster_id}") ||
           absl::EndsWith(route.path, "/infra-envs/{infra_env_id}"))) {
        continue;
      }
      cases.push_back({route.method, Fill(route.path), body, type});
    }
  }
  // Bad query parameters.
  for (const std::string query :
       {"/clusters?with_hosts=1",
        "/clusters?unknown=1",
        "/clusters/default-config?x=y",
        "/events?limit=abc",
        "/events?limit=-5",
        "/events?offset=-1",
        "/events?order=up",
        "/events?severities=loud",
        "/events?categories=spam",
        "/events?cluster_level=maybe",
        "/events?cluster_level=true",
        "/events?host_ids=x,y",
        "/events?cluster_id=abc",
        "/events?limit=99999999999999999999",
        "/infra-envs?cluster_id=../x",
        "/clusters/{cluster_id}/downloads/files",
        "/clusters/{cluster_id}/downloads/files?file_name=",
        "/clusters/{cluster_id}/downloads/files?file_name=../../etc/passwd",
        "/clusters/{cluster_id}/downloads/credentials?file_name=master.ign",
        "/clusters/{cluster_id}/logs?logs_type=everything",
        "/clusters/{cluster_id}/logs?logs_type=host",
        "/clusters/{cluster_id}/logs?host_id=nope",
        "/infra-envs/{infra_env_id}/downloads/files",
        "/infra-envs/{infra_env_id}/downloads/files?file_name=discovery.iso",
        "/infra-envs/{infra_env_id}/downloads/files?file_name=ipxe-script&ipxe_script_type=x",
        "/infra-envs/{infra_env_id}/downloads/files?file_name=ipxe-script&"
        "ipxe_script_type=boot-order-control",
        "/infra-envs/{infra_env_id}/hosts?page=2",
        "/infra-envs/{infra_env_id}/downloads/files-presigned",
        "/infra-envs/{infra_env_id}/downloads/files-presigned?file_name=discovery.iso",
        "/infra-envs/{infra_env_id}/downloads/files-presigned?file_name=ipxe-script&mac=a&b",
        "/infra-envs/{infra_env_id}/downloads/files-presigned?file_name=discovery.ign&mac=aa",
        "/clusters/{cluster_id}/manifests?include_system_generated=maybe",
        "/clusters/{cluster_id}/manifests/files",
        "/clusters/{cluster_id}/manifests/files?file_name=../../etc/passwd",
        "/clusters/{cluster_id}/manifests/files?folder=etc&file_name=a.yaml"}) {
    cases.push_back({"GET", Fill(absl::StrCat(kPrefix, query)), ""});
  }
  ASSERT_GE(cases.size(), 200u);
  for (const Case& c : cases) {
    std::vector<std::string> headers = {"Authorization: Bearer " + alice_};
    if (!c.body.empty()) headers.push_back("Content-Type: " + c.content_type);
    CurlResponse response = Fetch(c.method, c.path, headers,
                                  c.body.empty() ? absl::nullopt : absl::make_optional(c.body));
    const std::string shown = c.body.size() > 80 ? c.body.substr(0, 80) + "..." : c.body;
    EXPECT_GE(response.status, 400)
        << c.method << " " << c.path << " " << shown << " -> " << response.body;
    EXPECT_LT(response.status, 500)
        << c.method << " " << c.path << " " << shown << " -> " << response.body;
    client_ = std::make_unique<CurlClient>();  // a fresh connection: the server may have closed it
  }
  // Still alive and well.
  EXPECT_EQ(Fetch("GET", "/health").status, 200);
  EXPECT_EQ(As(alice_, "GET", "/clusters/" + cluster_id_).status, 200);
}

TEST_F(GatewayTest, BackendOutagesAre503WithRetryAfter) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  orchestrator().Stop();
  CurlResponse install = As(alice_, "POST", "/clusters/" + cluster_id_ + "/actions/install");
  ExpectError(install, 503, "orchestrator unavailable");
  EXPECT_EQ(install.Header("retry-after").value_or(""), "1");
  inventory().Stop();
  ExpectError(As(alice_, "GET", "/clusters/" + cluster_id_), 503, "inventory unavailable");
  CurlResponse ready = Fetch("GET", "/ready");
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(Json::parse(ready.body)["ready"], false);
  EXPECT_EQ(Fetch("GET", "/health").status, 200);
}

TEST_F(GatewayTest, ImportedAndDisconnectedClustersAreRegisteredInTheirOwnStatus) {
  CurlResponse served = Fetch("GET", absl::StrCat(kPrefix, "/openapi.yaml"));
  ASSERT_EQ(served.status, 200);
  const SchemaChecker checker(YAML::Load(served.body));
  constexpr char kOpenshiftClusterId[] = "0b7c3f3e-5a1d-4c2e-9f6b-2d4e8a1c7b90";
  // As upstream's UI sends it: a name with a prefix, which the API's name overrides.
  const Json import = {{"name", "scale-up-prod"},
                       {"api_vip_dnsname", "api.prod.example.com"},
                       {"openshift_version", "4.16"},
                       {"openshift_cluster_id", kOpenshiftClusterId}};
  CurlResponse imported = As(alice_, "POST", "/clusters/import", import.dump());
  ASSERT_EQ(imported.status, 201) << imported.body;
  EXPECT_THAT(checker.Check(Json::parse(imported.body), "cluster"), ::testing::IsEmpty());
  const Json cluster = Json::parse(imported.body);
  const std::string id = cluster["id"];
  EXPECT_EQ(cluster["kind"], "AddHostsCluster");
  EXPECT_EQ(cluster["status"], "adding-hosts");
  EXPECT_EQ(cluster["imported"], true);
  EXPECT_EQ(cluster["name"], "prod");
  EXPECT_EQ(cluster["base_dns_domain"], "example.com");
  EXPECT_EQ(cluster["api_vip_dns_name"], "api.prod.example.com");
  EXPECT_EQ(cluster["openshift_cluster_id"], kOpenshiftClusterId);
  EXPECT_EQ(cluster["openshift_version"], "4.16");
  EXPECT_EQ(cluster["platform"]["type"], "baremetal");
  EXPECT_EQ(cluster["user_name"], "alice");
  // The tenant's own, like any cluster: found by its OpenShift id, invisible to others, a
  // target for the tenant's infra-envs only.
  CurlResponse found =
      As(alice_, "GET", absl::StrCat("/clusters?openshift_cluster_id=", kOpenshiftClusterId));
  ASSERT_EQ(found.status, 200) << found.body;
  ASSERT_EQ(Json::parse(found.body).size(), 1u);
  EXPECT_EQ(Json::parse(found.body)[0]["id"], id);
  ExpectError(As(bob_, "GET", "/clusters/" + id), 404, id);
  EXPECT_EQ(Json::parse(As(bob_, "GET",
                           absl::StrCat("/clusters?openshift_cluster_id=", kOpenshiftClusterId))
                            .body)
                .size(),
            0u);
  const Json day2_infra_env = {{"name", "day2"}, {"pull_secret", kPullSecret}, {"cluster_id", id}};
  EXPECT_EQ(As(alice_, "POST", "/infra-envs", day2_infra_env.dump()).status, 201);
  ExpectError(As(bob_, "POST", "/infra-envs", day2_infra_env.dump()), 404, id);
  // Nothing to install as a whole: it is day-2 only.
  ExpectError(As(alice_, "POST", "/clusters/" + id + "/actions/install", ""), 409, "adding-hosts");

  // Bad input names the field.
  Json missing = import;
  missing.erase("api_vip_dnsname");
  ExpectError(As(alice_, "POST", "/clusters/import", missing.dump()), 400,
              "api_vip_dnsname: required when registering a cluster import");
  Json bad_id = import;
  bad_id["openshift_cluster_id"] = "not-a-uuid";
  ExpectError(As(alice_, "POST", "/clusters/import", bad_id.dump()), 400, "openshift_cluster_id");
  Json extra = import;
  extra["pull_secret"] = kPullSecret;
  ExpectError(As(alice_, "POST", "/clusters/import", extra.dump()), 400,
              "pull_secret: unknown field of cluster import");
  Json bad_name = import;
  bad_name["api_vip_dnsname"] = "api..example.com";
  ExpectError(As(alice_, "POST", "/clusters/import", bad_name.dump()), 422,
              "cluster.api_vip_dns_name");

  // A disconnected cluster holds its configuration, unmonitored, and installs nothing here.
  CurlResponse disconnected = As(alice_, "POST", "/clusters/disconnected",
                                 R"({"name":"offline","openshift_version":"4.16"})");
  ASSERT_EQ(disconnected.status, 201) << disconnected.body;
  EXPECT_THAT(checker.Check(Json::parse(disconnected.body), "cluster"), ::testing::IsEmpty());
  const Json offline = Json::parse(disconnected.body);
  EXPECT_EQ(offline["kind"], "DisconnectedCluster");
  EXPECT_EQ(offline["status"], "unmonitored");
  EXPECT_EQ(offline["name"], "offline");
  ExpectError(As(bob_, "GET", "/clusters/" + offline["id"].get<std::string>()), 404,
              offline["id"].get<std::string>());
  ExpectError(
      As(alice_, "POST", "/clusters/" + offline["id"].get<std::string>() + "/actions/install", ""),
      409, "unmonitored");
  ExpectError(As(alice_, "POST", "/clusters/disconnected", R"({"name":"offline"})"), 400,
              "openshift_version: required when registering a disconnected cluster");
  ExpectError(
      As(alice_, "POST", "/clusters/disconnected", R"({"name":"x","openshift_version":4.16})"), 400,
      "openshift_version");
}

TEST_F(GatewayTest, OpenApiDocumentsExactlyTheServedRoutes) {
  CurlResponse response = Fetch("GET", absl::StrCat(kPrefix, "/openapi.yaml"));
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.Header("content-type").value_or(""), "application/yaml");
  YAML::Node document = YAML::Load(response.body);
  EXPECT_EQ(document["openapi"].as<std::string>().substr(0, 2), "3.");
  std::set<std::string> documented, served;
  std::map<std::string, std::set<std::string>> documented_query;
  for (const auto& path : document["paths"]) {
    for (const auto& operation : path.second) {
      const std::string method = absl::AsciiStrToUpper(operation.first.as<std::string>());
      if (method == "PARAMETERS") continue;
      const std::string key = method + " " + path.first.as<std::string>();
      documented.insert(key);
      for (const auto& parameter : operation.second["parameters"]) {
        if (parameter["in"] && parameter["in"].as<std::string>() == "query") {
          documented_query[key].insert(parameter["name"].as<std::string>());
        }
      }
    }
  }
  // The web UI's routes (the change stream among them) register themselves beside the REST table.
  std::vector<RouteInfo> routes = RestApi::Routes();
  for (const WebUi::Route& route : WebUi::Routes()) {
    routes.push_back({.method = route.method, .path = route.path, .query = route.query});
  }
  for (const RouteInfo& route : routes) {
    const std::string key = route.method + " " + route.path;
    served.insert(key);
    for (const std::string& query : route.query) {
      EXPECT_TRUE(documented_query[key].count(query)) << key << " query " << query;
    }
  }
  EXPECT_EQ(documented, served);
  // And every served route answers (not 404/405) at the documented path.
  for (const std::string& key : documented) {
    const std::string method = key.substr(0, key.find(' '));
    std::string path = key.substr(key.find(' ') + 1);
    path = absl::StrReplaceAll(path, {{"{cluster_id}", "8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c"},
                                      {"{infra_env_id}", "8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c"},
                                      {"{host_id}", "8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c"},
                                      {"{validation_id}", "container-images-available"},
                                      {"{operator_name}", "lvm"},
                                      {"{id}", "virtualization"}});
    CurlResponse answer = Fetch(method, path);
    EXPECT_NE(answer.status, 405) << key;
    if (answer.status == 404) {
      EXPECT_THAT(answer.body, HasSubstr("\"kind\":\"Error\"")) << key;  // a resource, not a route
    }
  }
}

// Every field a model table reads or shows is described by the schema of that use, and the
// schemas describe nothing else; every response the gateway gives for the fixture matches its
// schema (which admits no undescribed property).
TEST_F(GatewayTest, OpenApiDescribesEveryFieldTheModelsReadAndShow) {
  CurlResponse served = Fetch("GET", absl::StrCat(kPrefix, "/openapi.yaml"));
  ASSERT_EQ(served.status, 200);
  const SchemaChecker checker(YAML::Load(served.body));
  for (const gateway::DocumentedModel& uses : gateway::DocumentedModels()) {
    const Model& model = *uses.model;
    for (const auto& [schema, use] : {std::pair{std::string(uses.shown), gateway::kOut},
                                      std::pair{std::string(uses.created), gateway::kCreate},
                                      std::pair{std::string(uses.updated), gateway::kUpdate}}) {
      if (schema.empty()) continue;
      SCOPED_TRACE(schema);
      std::set<std::string> in_model, in_document;
      for (const FieldRule& rule : model.fields) {
        if (rule.use & use) in_model.insert(rule.json);
      }
      if (use == gateway::kOut) {
        if (uses.linked) in_model.insert("href");  // added by the API
        if (model.default_kind != nullptr) in_model.insert("kind");
      }
      for (const auto& property : checker.Named(schema)["properties"]) {
        in_document.insert(property.first.as<std::string>());
      }
      EXPECT_EQ(in_model, in_document);
    }
  }

  // Real answers, with as many fields set as a fresh fixture has.
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  auto expect_valid = [&](const CurlResponse& response, const std::string& schema, bool list) {
    SCOPED_TRACE(schema + ": " + response.body.substr(0, 300));
    ASSERT_LT(response.status, 300);
    const Json json = Json::parse(response.body);
    for (const Json& item : list ? json : Json::array({json})) {
      EXPECT_THAT(checker.Check(item, schema), ::testing::IsEmpty());
    }
  };
  const Json rich = {
      {"name", "rich"},
      {"openshift_version", "4.16"},
      {"pull_secret", kPullSecret},
      {"base_dns_domain", "example.com"},
      {"cluster_network_cidr", "10.132.0.0/14"},
      {"service_network_cidr", "172.31.0.0/16"},
      {"machine_network_cidr", "192.168.1.0/24"},
      {"api_vips", {{{"ip", "192.168.1.5"}}}},
      {"ingress_vips", {{{"ip", "192.168.1.6"}}}},
      {"http_proxy", "http://proxy:3128"},
      {"disk_encryption", {{"enable_on", "masters"}, {"mode", "tpmv2"}}},
      {"olm_operators", Json::array()},
      {"ocp_release_image", "quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64"},
      {"tags", "a,b"}};
  CurlResponse created = As(alice_, "POST", "/clusters", rich.dump());
  expect_valid(created, "cluster", false);
  const std::string rich_id = Json::parse(created.body).value("id", "");
  expect_valid(As(alice_, "GET", "/clusters/" + cluster_id_), "cluster", false);
  expect_valid(As(alice_, "GET", "/clusters/" + rich_id), "cluster", false);
  // As upstream's UI sends an update: entries with their cluster_id; an older client's VIP.
  CurlResponse ui_patch =
      As(alice_, "PATCH", "/clusters/" + rich_id,
         Json{{"cluster_networks",
               {{{"cidr", "10.128.0.0/14"}, {"host_prefix", 23}, {"cluster_id", rich_id}}}},
              {"ingress_vip", "192.168.1.7"}}
             .dump());
  expect_valid(ui_patch, "cluster", false);
  EXPECT_EQ(Json::parse(ui_patch.body)["ingress_vips"][0]["ip"], "192.168.1.7");
  EXPECT_EQ(Json::parse(ui_patch.body)["cluster_network_cidr"], "10.128.0.0/14");
  expect_valid(As(alice_, "GET", "/clusters?with_hosts=true"), "cluster", true);
  expect_valid(As(alice_, "GET", "/clusters/" + cluster_id_ + "/hosts"), "host", true);
  const std::string host = "/infra-envs/" + infra_env_id_ + "/hosts/" + host_id_;
  expect_valid(
      As(alice_, "PATCH", host, R"({"host_name":"h1","node_labels":[{"key":"zone","value":"a"}]})"),
      "host", false);
  expect_valid(As(alice_, "GET", host), "host", false);
  expect_valid(As(alice_, "PATCH", "/infra-envs/" + infra_env_id_,
                  R"({"rendezvous_ip":"192.168.1.10","pull_secret":"",
                      "kernel_arguments":[{"operation":"append","value":"console=ttyS0"}],
                      "proxy":{"http_proxy":"http://proxy:3128"}})"),
               "infra-env", false);
  expect_valid(As(alice_, "GET", "/infra-envs"), "infra-env", true);
  expect_valid(As(alice_, "GET", "/events?cluster_id=" + cluster_id_), "event", true);
  ExpectError(As(alice_, "GET", "/clusters/" + cluster_id_ + "/credentials"), 409,
              "kubeadmin-password");
  {
    inv::PutArtifactRequest put;
    put.set_cluster_id(cluster_id_);
    put.set_name("kubeadmin-password");
    put.set_kind(inv::ARTIFACT_KIND_CREDENTIALS);
    put.set_content("s3cr3t-Pass");
    grpc::ClientContext context;
    inv::ArtifactInfo info;
    ASSERT_TRUE(stack().inventory_stub().PutArtifact(&context, put, &info).ok());
  }
  CurlResponse credentials = As(alice_, "GET", "/clusters/" + cluster_id_ + "/credentials");
  expect_valid(credentials, "credentials", false);
  EXPECT_EQ(Json::parse(credentials.body)["password"], "s3cr3t-Pass");
  EXPECT_EQ(Json::parse(credentials.body)["console_url"],
            "https://console-openshift-console.apps.one.example.com");
  expect_valid(As(alice_, "GET", "/clusters/default-config"), "cluster-default-config", false);
  expect_valid(As(alice_, "PATCH", "/clusters/" + rich_id, "{}"), "cluster", false);
  expect_valid(Fetch("GET", "/health"), "health", false);
  CurlResponse ready = Fetch("GET", "/ready");  // 503 here: no image service
  EXPECT_THAT(checker.Check(Json::parse(ready.body), "readiness"), ::testing::IsEmpty());
  CurlResponse missing = As(alice_, "GET", "/clusters/8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2d");
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(checker.Check(Json::parse(missing.body), "error"), ::testing::IsEmpty());
}

class GatewayWithImageTest : public GatewayTest {
 protected:
  bool WithImageService() const override { return true; }
};

TEST_F(GatewayWithImageTest, DiscoveryFilesReachUsersAgentsAndImageTokensOfTheirInfraEnvOnly) {
  ASSERT_NO_FATAL_FAILURE(CreateFixture());
  CurlResponse ready = Fetch("GET", "/ready");
  EXPECT_EQ(ready.status, 200) << ready.body;

  CurlResponse url = As(alice_, "GET", "/infra-envs/" + infra_env_id_ + "/downloads/image-url");
  ASSERT_EQ(url.status, 200) << url.body;
  EXPECT_THAT(Json::parse(url.body)["url"].get<std::string>(), HasSubstr("/images/"));
  EXPECT_TRUE(Json::parse(url.body).contains("expires_at"));

  const std::string files =
      absl::StrCat(kPrefix, "/infra-envs/", infra_env_id_, "/downloads/files");
  const std::string token = DownloadToken(infra_env_id_);
  for (const std::vector<std::string>& headers :
       std::vector<std::vector<std::string>>{{"Authorization: Bearer " + alice_},
                                             {"Image-Token: " + token},
                                             {"X-Secret-Key: " + AgentToken(infra_env_id_)}}) {
    CurlResponse ignition = Fetch("GET", files + "?file_name=discovery.ign", headers);
    ASSERT_EQ(ignition.status, 200) << headers[0] << ignition.body;
    EXPECT_TRUE(Json::parse(ignition.body)["ignition"].is_object()) << ignition.body;
  }
  CurlResponse in_url = Fetch("GET", files + "?file_name=discovery.ign&image_token=" + token);
  EXPECT_EQ(in_url.status, 200) << in_url.body;
  CurlResponse ipxe = Fetch("GET", files + "?file_name=ipxe-script", {"Image-Token: " + token});
  ASSERT_EQ(ipxe.status, 200) << ipxe.body;
  EXPECT_THAT(ipxe.body, ::testing::StartsWith("#!ipxe"));
  // The static-network files: none without static networking, else the image service's
  // keyfiles and MAC maps, one folder per host.
  CurlResponse network =
      Fetch("GET", files + "?file_name=static-network-config", {"Image-Token: " + token});
  ASSERT_EQ(network.status, 200) << network.body;
  EXPECT_EQ(network.Header("content-type").value_or(""), "application/x-tar");
  EXPECT_EQ(network.Header("content-disposition").value_or(""),
            "attachment; filename=\"" + infra_env_id_ + "-static-network-config.tar\"");
  EXPECT_THAT(TarMembers(network.body), ::testing::IsEmpty());
  const Json static_network = {
      {"static_network_config",
       {{{"network_yaml",
          "interfaces:\n- name: eth0\n  type: ethernet\n  state: up\n  ipv4:\n"
          "    enabled: true\n    dhcp: false\n    address:\n    - ip: 192.168.126.30\n"
          "      prefix-length: 24\n"},
         {"mac_interface_map",
          {{{"mac_address", "02:00:00:2c:23:a5"}, {"logical_nic_name", "eth0"}}}}}}}};
  ASSERT_EQ(As(alice_, "PATCH", "/infra-envs/" + infra_env_id_, static_network.dump()).status, 201);
  for (const std::vector<std::string>& headers : std::vector<std::vector<std::string>>{
           {"Authorization: Bearer " + alice_}, {"X-Secret-Key: " + AgentToken(infra_env_id_)}}) {
    network = Fetch("GET", files + "?file_name=static-network-config", headers);
    ASSERT_EQ(network.status, 200) << network.body;
    const std::map<std::string, std::string> members = TarMembers(network.body);
    EXPECT_EQ(members.size(), 2u);
    EXPECT_THAT(members.at("host0/eth0.nmconnection"), HasSubstr("address1=192.168.126.30/24"));
    EXPECT_EQ(members.at("host0/mac_interface.ini"), "02:00:00:2C:23:A5=eth0\n");
  }
  ExpectError(
      As(bob_, "GET",
         "/infra-envs/" + infra_env_id_ + "/downloads/files?file_name=static-network-config"),
      404, infra_env_id_);
  ASSERT_EQ(
      As(alice_, "PATCH", "/infra-envs/" + infra_env_id_, R"({"static_network_config":[]})").status,
      201);

  // The same token reaches nothing else: not the cluster's credentials, not other infra-envs.
  ExpectError(Fetch("GET",
                    absl::StrCat(kPrefix, "/clusters/", cluster_id_,
                                 "/downloads/credentials?file_name=kubeconfig"),
                    {"Image-Token: " + token}),
              403, "image tokens may not use this endpoint");
  ExpectError(
      Fetch("GET", absl::StrCat(kPrefix, "/infra-envs/", infra_env_id_, "/downloads/image-url"),
            {"X-Secret-Key: " + AgentToken(infra_env_id_)}),
      403, "agent tokens may not use this endpoint");
  // A download token is no agent credential, even on its own infra-env's agent routes.
  ExpectError(Fetch("GET", absl::StrCat(kPrefix, "/infra-envs/", infra_env_id_, "/hosts"),
                    {"X-Secret-Key: " + token}),
              401, "wrong kind of token");

  // aictl prints an infra-env's files.
  AictlOutcome script =
      RunAictl(base_, alice_, {"infra-envs", "download", infra_env_id_, "ipxe-script"});
  EXPECT_EQ(script.code, 0) << script.err;
  EXPECT_THAT(script.out, ::testing::StartsWith("#!ipxe"));

  // A presigned link opens the one file without any other credential, from where the client
  // reached the gateway; it is the user's to ask for, of their own infra-env only.
  CurlResponse presigned =
      As(alice_, "GET",
         "/infra-envs/" + infra_env_id_ + "/downloads/files-presigned?file_name=ipxe-script");
  ASSERT_EQ(presigned.status, 200) << presigned.body;
  const std::string link = Json::parse(presigned.body)["url"];
  EXPECT_TRUE(absl::StartsWith(link, base_ + kPrefix + "/infra-envs/" + infra_env_id_)) << link;
  EXPECT_TRUE(Json::parse(presigned.body).contains("expires_at"));
  absl::StatusOr<CurlResponse> followed = client_->Fetch(link, {});
  ASSERT_THAT(followed, IsOk());
  EXPECT_EQ(followed->status, 200) << followed->body;
  EXPECT_THAT(followed->body, ::testing::StartsWith("#!ipxe"));
  CurlResponse https = Fetch("GET",
                             absl::StrCat(kPrefix, "/infra-envs/", infra_env_id_,
                                          "/downloads/files-presigned?file_name=discovery.ign"),
                             {"Authorization: Bearer " + alice_, "X-Forwarded-Proto: https"});
  ASSERT_EQ(https.status, 200) << https.body;
  EXPECT_TRUE(absl::StartsWith(Json::parse(https.body)["url"].get<std::string>(), "https://"));
  ExpectError(
      As(bob_, "GET",
         "/infra-envs/" + infra_env_id_ + "/downloads/files-presigned?file_name=ipxe-script"),
      404, infra_env_id_);
  ExpectError(As(alice_, "GET", "/infra-envs/" + infra_env_id_ + "/downloads/files-presigned"), 400,
              "file_name: required");
  ExpectError(Fetch("GET",
                    absl::StrCat(kPrefix, "/infra-envs/", infra_env_id_,
                                 "/downloads/files-presigned?file_name=ipxe-script"),
                    {"Image-Token: " + token}),
              403, "image tokens may not use this endpoint");

  CurlResponse versions = As(alice_, "GET", "/openshift-versions");
  ASSERT_EQ(versions.status, 200) << versions.body;
  EXPECT_EQ(Json::parse(versions.body)["4.16"]["cpu_architectures"][0], "x86_64");
  // The same catalog answers the architecture support levels.
  CurlResponse architectures =
      As(alice_, "GET", "/support-levels/architectures?openshift_version=4.16.3");
  ASSERT_EQ(architectures.status, 200) << architectures.body;
  const Json levels = Json::parse(architectures.body)["architectures"];
  EXPECT_EQ(levels["X86_64_ARCHITECTURE"], "supported");
  EXPECT_EQ(levels["PPC64LE_ARCHITECTURE"], "unavailable");
  EXPECT_EQ(levels.size(), 5u);
  ExpectError(As(alice_, "GET", "/support-levels/architectures"), 400, "openshift_version");

  // Feature support levels and release sources answer from the same catalog.
  CurlResponse features = As(alice_, "GET", "/support-levels/features?openshift_version=4.16");
  ASSERT_EQ(features.status, 200) << features.body;
  const Json feature_levels = Json::parse(features.body);
  EXPECT_EQ(feature_levels["features"]["SNO"], "supported");
  EXPECT_EQ(feature_levels["features"]["VSPHERE_INTEGRATION"], "unavailable");
  EXPECT_EQ(feature_levels["operators"]["LVM"], "supported");
  EXPECT_EQ(feature_levels["operators"]["ODF"], "unavailable");
  CurlResponse on_power = As(alice_, "GET",
                             "/support-levels/features/detailed?openshift_version=4.16&"
                             "cpu_architecture=ppc64le&platform_type=baremetal");
  ASSERT_EQ(on_power.status, 200) << on_power.body;
  for (const Json& feature : Json::parse(on_power.body)["features"]) {
    EXPECT_EQ(feature["support_level"], "unavailable") << feature;
    EXPECT_THAT(feature["reason"].get<std::string>(), HasSubstr("no base OS image")) << feature;
  }
  ExpectError(As(alice_, "GET", "/support-levels/features"), 400, "openshift_version: required");
  ExpectError(
      As(alice_, "GET", "/support-levels/features?openshift_version=4.16&cpu_architecture=z80"),
      400, "cpu_architecture");
  CurlResponse sources = As(alice_, "GET", "/release-sources");
  ASSERT_EQ(sources.status, 200) << sources.body;
  EXPECT_EQ(Json::parse(sources.body),
            Json::parse(R"([{"openshift_version":"4.16","multi_cpu_architectures":["x86_64"],
                             "upgrade_channels":[{"cpu_architecture":"x86_64","channels":[]}]}])"));

  // The minimal initrd: nothing to add without static networking or a proxy (204), else the
  // archive the minimal ISO's ramdisk area carries; agents and image tokens of the infra-env
  // may fetch it, other tenants may not.
  const std::string initrd = "/infra-envs/" + infra_env_id_ + "/downloads/minimal-initrd";
  CurlResponse empty = As(alice_, "GET", initrd);
  EXPECT_EQ(empty.status, 204) << empty.body;
  EXPECT_TRUE(empty.body.empty());
  ASSERT_EQ(As(alice_, "PATCH", "/infra-envs/" + infra_env_id_,
               R"({"proxy":{"http_proxy":"http://proxy.example.com:3128"}})")
                .status,
            201);
  CurlResponse archive = Fetch("GET", kPrefix + initrd, {"Image-Token: " + token});
  ASSERT_EQ(archive.status, 200) << archive.body;
  ASSERT_GT(archive.body.size(), 2u);
  EXPECT_EQ(archive.body.substr(0, 2), "\x1f\x8b");  // gzip
  EXPECT_EQ(archive.Header("content-disposition").value_or(""),
            "attachment; filename=\"initrd.img\"");
  EXPECT_EQ(Fetch("GET", kPrefix + initrd, {"X-Secret-Key: " + AgentToken(infra_env_id_)}).status,
            200);
  const std::string saved = ::testing::TempDir() + "/initrd.img";
  AictlOutcome fetched = RunAictl(
      base_, alice_,
      {"infra-envs", "download", infra_env_id_, "minimal-initrd", "--output-file=" + saved});
  EXPECT_EQ(fetched.code, 0) << fetched.err;
  std::ifstream saved_file(saved, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(saved_file), {}), archive.body);
  ExpectError(As(bob_, "GET", initrd), 404, infra_env_id_);
}

}  // namespace
}  // namespace assisted::testing
