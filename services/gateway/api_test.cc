// The REST API's request handling end to end inside one process: the real route table,
// authenticator and gRPC backends client, with a fake inventory on a loopback port standing in
// for the backends. Requests go through lib/http's router exactly as the HTTP server hands them
// over, so what these tests see is what a client would get back.

#include "services/gateway/api.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "lib/grpc/identity.h"
#include "lib/http/router.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/gateway/jwt.h"
#include "services/gateway/tar.h"

namespace assisted::gateway {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

constexpr char kSecret[] = "0123456789abcdef0123456789abcdef";

constexpr char kHostId[] = "00000000-0000-4000-8000-00000000000a";
constexpr char kInfraEnvId[] = "00000000-0000-4000-8000-00000000000e";

// A host of the caller's, as the inventory stores it: a worker with two disks, one of them
// already kept from formatting.
types::v1::Host StoredHost(const std::string& infra_env_id, const std::string& id) {
  types::v1::Host host;
  host.set_id(id);
  host.set_infra_env_id(infra_env_id);
  host.set_status(types::v1::HOST_STATUS_KNOWN);
  host.set_role(types::v1::HOST_ROLE_WORKER);
  host.add_skip_formatting_disks("/dev/sdc");
  for (const char* disk : {"/dev/sdb", "/dev/sdc"}) {
    host.mutable_inventory()->add_disks()->set_id(disk);
  }
  return host;
}

// An inventory whose clusters are `clusters` (and any other id is a cluster of the caller's),
// and which remembers who asked and what.
class FakeInventory final : public inventory::v1::InventoryService::Service {
 public:
  grpc::Status ListClusters(grpc::ServerContext* context,
                            const inventory::v1::ListClustersRequest* request,
                            inventory::v1::ListClustersResponse* response) override {
    absl::MutexLock lock(&mu_);
    callers_.push_back(grpcutil::GetIdentity(*context));
    for (const types::v1::Cluster& cluster : clusters_) {
      if (request->openshift_cluster_id().empty() ||
          cluster.openshift_cluster_id() == request->openshift_cluster_id()) {
        *response->add_clusters() = cluster;
      }
    }
    return grpc::Status::OK;
  }
  grpc::Status ListInfraEnvs(grpc::ServerContext*, const inventory::v1::ListInfraEnvsRequest*,
                             inventory::v1::ListInfraEnvsResponse* response) override {
    for (const char* user : {"alice", "bob"}) {
      types::v1::InfraEnv* infra_env = response->add_infra_envs();
      infra_env->set_id(
          absl::StrCat("00000000-0000-4000-8000-0000000000", user[0] == 'a' ? 1 : 2, "0"));
      infra_env->set_name(user);
      infra_env->mutable_owner()->set_user_name(user);
    }
    return grpc::Status::OK;
  }
  grpc::Status ListEvents(grpc::ServerContext*, const inventory::v1::ListEventsRequest* request,
                          inventory::v1::ListEventsResponse*) override {
    absl::MutexLock lock(&mu_);
    last_events_ = *request;
    return grpc::Status::OK;
  }
  // Any cluster id is a cluster of the caller's, with a pod network other than the default.
  grpc::Status GetCluster(grpc::ServerContext*, const inventory::v1::GetClusterRequest* request,
                          types::v1::Cluster* cluster) override {
    absl::MutexLock lock(&mu_);
    last_get_cluster_ = *request;
    cluster->set_id(request->id());
    cluster->set_name("lab");
    cluster->set_base_dns_domain("example.com");
    cluster->set_status(cluster_status_);
    if (console_status_ != types::v1::OPERATOR_STATUS_UNSPECIFIED) {
      types::v1::MonitoredOperator* console = cluster->add_monitored_operators();
      console->set_name("console");
      console->set_status(console_status_);
    }
    cluster->add_cluster_networks()->set_cidr("10.132.0.0/14");
    cluster->mutable_cluster_networks(0)->set_host_prefix(23);
    if (request->include_hosts()) {
      for (types::v1::HostRole role : {types::v1::HOST_ROLE_MASTER, types::v1::HOST_ROLE_WORKER}) {
        types::v1::Host* host = cluster->add_hosts();
        *host = StoredHost(kInfraEnvId, kHostId);
        host->set_role(role);
        host->mutable_connectivity_report();  // reported, empty
      }
    }
    return grpc::Status::OK;
  }
  grpc::Status UpdateCluster(grpc::ServerContext*,
                             const inventory::v1::UpdateClusterRequest* request,
                             types::v1::Cluster* cluster) override {
    absl::MutexLock lock(&mu_);
    last_update_cluster_ = *request;
    if (install_begins_before_next_update_) {
      // The installation began between the gateway's read and its conditional write.
      install_begins_before_next_update_ = false;
      cluster_status_ = types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION;
      return grpc::Status(grpc::StatusCode::ABORTED, "cluster.resource_version: changed");
    }
    *cluster = request->cluster();
    return grpc::Status::OK;
  }
  grpc::Status UpdateInfraEnv(grpc::ServerContext*,
                              const inventory::v1::UpdateInfraEnvRequest* request,
                              types::v1::InfraEnv* infra_env) override {
    absl::MutexLock lock(&mu_);
    last_update_infra_env_ = *request;
    *infra_env = request->infra_env();
    return grpc::Status::OK;
  }
  grpc::Status GetInfraEnv(grpc::ServerContext*, const inventory::v1::GetInfraEnvRequest* request,
                           types::v1::InfraEnv* infra_env) override {
    infra_env->set_id(request->id());
    infra_env->set_name("discovery");
    infra_env->set_type(types::v1::IMAGE_TYPE_FULL_ISO);
    return grpc::Status::OK;
  }
  grpc::Status GetHost(grpc::ServerContext*, const inventory::v1::GetHostRequest* request,
                       types::v1::Host* host) override {
    *host = StoredHost(request->infra_env_id(), request->id());
    return grpc::Status::OK;
  }
  grpc::Status ListArtifacts(grpc::ServerContext*, const inventory::v1::ListArtifactsRequest*,
                             inventory::v1::ListArtifactsResponse* response) override {
    absl::MutexLock lock(&mu_);
    for (const auto& [name, content] : artifacts_) {
      inventory::v1::ArtifactInfo* info = response->add_artifacts();
      info->set_name(name);
      info->set_size_bytes(static_cast<int64_t>(content.size()));
    }
    return grpc::Status::OK;
  }
  // Serves ranges as the inventory does (offset, length 0 = to the end) and records each read.
  grpc::Status GetArtifact(grpc::ServerContext*, const inventory::v1::GetArtifactRequest* request,
                           inventory::v1::Artifact* artifact) override {
    absl::MutexLock lock(&mu_);
    reads_.push_back(*request);
    auto found = artifacts_.find(request->name());
    if (found == artifacts_.end()) return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such");
    const std::string& content = found->second;
    if (request->offset() < 0 || request->offset() > static_cast<int64_t>(content.size())) {
      return grpc::Status(grpc::StatusCode::OUT_OF_RANGE, "offset");
    }
    artifact->mutable_info()->set_name(found->first);
    artifact->mutable_info()->set_size_bytes(static_cast<int64_t>(content.size()));
    artifact->mutable_info()->set_content_type("application/octet-stream");
    artifact->mutable_info()->mutable_updated_at()->set_seconds(1700000000);
    artifact->set_content(content.substr(
        request->offset(), request->length() > 0 ? request->length() : std::string::npos));
    return grpc::Status::OK;
  }

  void AddArtifact(const std::string& name, std::string content) {
    absl::MutexLock lock(&mu_);
    artifacts_[name] = std::move(content);
  }
  std::vector<inventory::v1::GetArtifactRequest> reads() {
    absl::MutexLock lock(&mu_);
    return reads_;
  }

  std::vector<grpcutil::Identity> callers() {
    absl::MutexLock lock(&mu_);
    return callers_;
  }
  void SetConsole(types::v1::OperatorStatus status) {
    absl::MutexLock lock(&mu_);
    console_status_ = status;
  }
  void SetClusters(std::vector<types::v1::Cluster> clusters) {
    absl::MutexLock lock(&mu_);
    clusters_ = std::move(clusters);
  }
  inventory::v1::ListEventsRequest last_events() {
    absl::MutexLock lock(&mu_);
    return last_events_;
  }
  inventory::v1::GetClusterRequest last_get_cluster() {
    absl::MutexLock lock(&mu_);
    return last_get_cluster_;
  }
  inventory::v1::UpdateClusterRequest last_update_cluster() {
    absl::MutexLock lock(&mu_);
    return last_update_cluster_;
  }
  void BeginInstallBeforeNextUpdate() {
    absl::MutexLock lock(&mu_);
    install_begins_before_next_update_ = true;
  }
  void set_cluster_status(types::v1::ClusterStatus status) {
    absl::MutexLock lock(&mu_);
    cluster_status_ = status;
  }
  inventory::v1::UpdateInfraEnvRequest last_update_infra_env() {
    absl::MutexLock lock(&mu_);
    return last_update_infra_env_;
  }

 private:
  absl::Mutex mu_;
  std::vector<types::v1::Cluster> clusters_ ABSL_GUARDED_BY(mu_);
  bool install_begins_before_next_update_ ABSL_GUARDED_BY(mu_) = false;
  types::v1::ClusterStatus cluster_status_ ABSL_GUARDED_BY(mu_) = types::v1::CLUSTER_STATUS_READY;
  types::v1::OperatorStatus console_status_ ABSL_GUARDED_BY(mu_) =
      types::v1::OPERATOR_STATUS_UNSPECIFIED;
  inventory::v1::ListEventsRequest last_events_ ABSL_GUARDED_BY(mu_);
  inventory::v1::GetClusterRequest last_get_cluster_ ABSL_GUARDED_BY(mu_);
  inventory::v1::UpdateClusterRequest last_update_cluster_ ABSL_GUARDED_BY(mu_);
  inventory::v1::UpdateInfraEnvRequest last_update_infra_env_ ABSL_GUARDED_BY(mu_);
  std::vector<grpcutil::Identity> callers_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> artifacts_ ABSL_GUARDED_BY(mu_);
  std::vector<inventory::v1::GetArtifactRequest> reads_ ABSL_GUARDED_BY(mu_);
};

// An orchestrator whose host actions succeed and which remembers the last host update.
class FakeOrchestrator final : public orchestrator::v1::OrchestratorService::Service {
 public:
  grpc::Status AllowAddWorkers(grpc::ServerContext*,
                               const orchestrator::v1::AllowAddWorkersRequest* request,
                               types::v1::Cluster* cluster) override {
    cluster->set_id(request->cluster_id());
    cluster->set_kind(types::v1::CLUSTER_KIND_ADD_HOSTS_CLUSTER);
    cluster->set_status(types::v1::CLUSTER_STATUS_ADDING_HOSTS);
    return grpc::Status::OK;
  }
  grpc::Status ResetHost(grpc::ServerContext*, const orchestrator::v1::ResetHostRequest* request,
                         types::v1::Host* host) override {
    *host = StoredHost(request->infra_env_id(), request->host_id());
    return grpc::Status::OK;
  }
  grpc::Status InstallHost(grpc::ServerContext*,
                           const orchestrator::v1::InstallHostRequest* request,
                           types::v1::Host* host) override {
    *host = StoredHost(request->infra_env_id(), request->host_id());
    return grpc::Status::OK;
  }
  grpc::Status BindHost(grpc::ServerContext*, const orchestrator::v1::BindHostRequest* request,
                        types::v1::Host* host) override {
    *host = StoredHost(request->infra_env_id(), request->host_id());
    return grpc::Status::OK;
  }
  grpc::Status UnbindHost(grpc::ServerContext*, const orchestrator::v1::UnbindHostRequest* request,
                          types::v1::Host* host) override {
    *host = StoredHost(request->infra_env_id(), request->host_id());
    return grpc::Status::OK;
  }
  grpc::Status UpdateHost(grpc::ServerContext*, const orchestrator::v1::UpdateHostRequest* request,
                          types::v1::Host* host) override {
    absl::MutexLock lock(&mu_);
    last_update_host_ = *request;
    *host = request->host();
    return grpc::Status::OK;
  }
  orchestrator::v1::UpdateHostRequest last_update_host() {
    absl::MutexLock lock(&mu_);
    return last_update_host_;
  }

 private:
  absl::Mutex mu_;
  orchestrator::v1::UpdateHostRequest last_update_host_ ABSL_GUARDED_BY(mu_);
};

// An image service with one base image per version.
class FakeImage final : public image::v1::ImageService::Service {
 public:
  grpc::Status ListBaseImages(grpc::ServerContext*, const image::v1::ListBaseImagesRequest*,
                              image::v1::ListBaseImagesResponse* response) override {
    for (const char* version : {"4.15", "4.16"}) {
      image::v1::BaseImage* image = response->add_images();
      image->set_openshift_version(version);
      image->set_cpu_architecture(types::v1::CPU_ARCHITECTURE_X86_64);
    }
    return grpc::Status::OK;
  }
};

class RestApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&inventory_);
    builder.RegisterService(&orchestrator_);
    builder.RegisterService(&image_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    const std::string address = absl::StrCat("127.0.0.1:", port);
    auto backends = Backends::Connect({.inventory = address,
                                       .orchestrator = address,
                                       .image = address,
                                       .deadline = absl::Seconds(10)});
    ASSERT_TRUE(backends.ok()) << backends.status();
    backends_ = *std::move(backends);
    auto authenticator = Authenticator::Create({.hs256_secret = kSecret});
    ASSERT_TRUE(authenticator.ok()) << authenticator.status();
    authenticator_ = *std::move(authenticator);
    api_ = std::make_unique<RestApi>(*backends_, *authenticator_, clock_);
    ASSERT_TRUE(api_->Register(router_).ok());
  }
  void TearDown() override { server_->Shutdown(); }

  // A bearer token of the local issuer for `user` in `org`, valid for an hour.
  static std::string TokenFor(const std::string& user, const std::string& org) {
    return *SignHs256(kSecret, {{"sub", user},
                                {"org_id", org},
                                {"exp", absl::ToUnixSeconds(absl::Now() + absl::Hours(1))}});
  }

  struct Answer {
    int status = 0;
    Json body;
  };

  // `method` `target` as the HTTP server would hand it to the API, as `user` of org "acme".
  http::Response Handle(const std::string& method, const std::string& target, std::string body = "",
                        const std::string& token = TokenFor("alice", "acme")) {
    return HandleAuthorized(method, target, std::move(body), "Bearer " + token);
  }

  // Handle() with `authorization` as the whole Authorization header.
  http::Response HandleAuthorized(const std::string& method, const std::string& target,
                                  std::string body, const std::string& authorization) {
    absl::StatusOr<http::Target> parsed = http::ParseTarget(target);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    if (!parsed.ok()) return {};
    http::Router::Match match = router_.Find(method, parsed->segments);
    EXPECT_EQ(match.kind, http::Router::Match::Kind::kFound) << method << " " << target;
    if (match.kind != http::Router::Match::Kind::kFound) return {};
    http::Request request;
    request.method = method;
    request.target = target;
    request.path = parsed->path;
    request.query = parsed->query;
    request.route = match.pattern;
    request.path_params = match.params;
    request.headers.Add("Authorization", authorization);
    if (!body.empty()) request.headers.Add("Content-Type", "application/json");
    request.body = std::move(body);
    return (*match.handler)(request);
  }

  // Handle(), with the answer parsed as JSON.
  Answer Send(const std::string& method, const std::string& target, std::string body = "",
              const std::string& token = TokenFor("alice", "acme")) {
    http::Response response = Handle(method, target, std::move(body), token);
    absl::StatusOr<std::string> text = response.body.ReadAll();
    EXPECT_TRUE(text.ok()) << text.status();
    Answer answer{response.status};
    // The answer must be JSON (hence valid UTF-8), whatever the request held.
    answer.body = Json::parse(text.value_or(""), nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(answer.body.is_discarded()) << *text;
    return answer;
  }

  // Expects an Error document with `status` whose reason mentions `reason`.
  static void ExpectError(const Answer& answer, int status, const std::string& reason) {
    EXPECT_EQ(answer.status, status) << answer.body.dump();
    ASSERT_TRUE(answer.body.is_object()) << answer.body.dump();
    EXPECT_EQ(answer.body.value("code", ""), std::to_string(status));
    EXPECT_THAT(answer.body.value("reason", ""), HasSubstr(reason));
  }

  FakeInventory inventory_;
  FakeOrchestrator orchestrator_;
  FakeImage image_;
  std::unique_ptr<grpc::Server> server_;
  RealClock clock_;
  std::unique_ptr<Backends> backends_;
  std::unique_ptr<Authenticator> authenticator_;
  std::unique_ptr<RestApi> api_;
  http::Router router_;
};

// `size` bytes that differ from one position to the next, so a chunk out of place shows.
std::string Pattern(size_t size, char seed) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(seed + i * 7 + i / 251);
  return bytes;
}

// Expects that every artifact read asked for one bounded chunk, and that there were several.
void ExpectChunkedReads(const std::vector<inventory::v1::GetArtifactRequest>& reads) {
  EXPECT_GT(reads.size(), 1u);
  for (const inventory::v1::GetArtifactRequest& read : reads) {
    EXPECT_GT(read.length(), 0) << read.ShortDebugString();
    EXPECT_LE(read.length(), kArtifactChunkBytes) << read.ShortDebugString();
  }
}

constexpr char kClusterPath[] =
    "/api/assisted-install/v2/clusters/00000000-0000-4000-8000-000000000001";

TEST_F(RestApiTest, ALargeArtifactIsServedIntactThroughBoundedChunkReads) {
  const std::string kubeconfig = Pattern(3 * kArtifactChunkBytes + 123, 'k');
  inventory_.AddArtifact("kubeconfig", kubeconfig);
  http::Response response =
      Handle("GET", absl::StrCat(kClusterPath, "/downloads/credentials?file_name=kubeconfig"));
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body.size(), kubeconfig.size());
  absl::StatusOr<std::string> served = response.body.ReadAll();
  ASSERT_TRUE(served.ok()) << served.status();
  EXPECT_TRUE(*served == kubeconfig) << "the served bytes differ from the artifact";
  ExpectChunkedReads(inventory_.reads());
}

TEST_F(RestApiTest, TheLogBundleIsBuiltFromBoundedChunkReads) {
  const std::string host_logs = Pattern(2 * kArtifactChunkBytes + 5, 'h');
  const std::string controller_logs = Pattern(1000, 'c');
  inventory_.AddArtifact("logs/host_1.tar.gz", host_logs);
  inventory_.AddArtifact("logs/controller_logs.tar.gz", controller_logs);
  http::Response response = Handle("GET", absl::StrCat(kClusterPath, "/logs?logs_type=all"));
  EXPECT_EQ(response.status, 200);
  absl::StatusOr<std::string> served = response.body.ReadAll();
  ASSERT_TRUE(served.ok()) << served.status();
  absl::StatusOr<std::string> expected = Tar(
      {{"controller_logs.tar.gz", 0644, controller_logs}, {"host_1.tar.gz", 0644, host_logs}}, 0);
  ASSERT_TRUE(expected.ok());
  ASSERT_EQ(served->size(), expected->size());
  // The archives differ only in their headers' mtime (and so checksum): compare the contents.
  EXPECT_TRUE(served->substr(512, controller_logs.size()) == controller_logs);
  const size_t host_at = 512 + 1024 + 512;  // header, 1000 bytes padded to 1024, header
  EXPECT_TRUE(served->substr(host_at, host_logs.size()) == host_logs);
  ExpectChunkedReads(inventory_.reads());
}

TEST_F(RestApiTest, UsersWithNonAsciiNamesAreServedAndForwardedIntact) {
  const Answer answer =
      Send("GET", "/api/assisted-install/v2/clusters", "", TokenFor("José", "Société Générale"));
  EXPECT_EQ(answer.status, 200) << answer.body.dump();
  const std::vector<grpcutil::Identity> callers = inventory_.callers();
  ASSERT_EQ(callers.size(), 1u);
  EXPECT_EQ(callers[0].user, "José");
  EXPECT_EQ(callers[0].org, "Société Générale");
}

TEST_F(RestApiTest, UserClaimsWithControlCharactersAreRefusedWith401) {
  ExpectError(Send("GET", "/api/assisted-install/v2/clusters", "", TokenFor("mallory\r\nx", "o")),
              401, "control character");
  ExpectError(Send("GET", "/api/assisted-install/v2/clusters", "", TokenFor("bob", "org\x01")), 401,
              "control character");
  EXPECT_TRUE(inventory_.callers().empty());
}

TEST_F(RestApiTest, InvalidUtf8InAQueryValueIs400) {
  ExpectError(Send("GET", "/api/assisted-install/v2/events?message=%FF%FE"), 400, "message");
  ExpectError(Send("GET", "/api/assisted-install/v2/clusters?with_hosts=tr%C3"), 400, "with_hosts");
}

TEST_F(RestApiTest, InvalidUtf8InAQueryNameIs400) {
  const Answer answer = Send("GET", "/api/assisted-install/v2/events?mess%E9ge=x");
  EXPECT_EQ(answer.status, 400) << answer.body.dump();
  EXPECT_EQ(answer.body.value("code", ""), "400");
}

TEST_F(RestApiTest, InvalidUtf8InABodyStringIs400) {
  ExpectError(Send("POST", "/api/assisted-install/v2/clusters",
                   "{\"name\": \"bad\xff\xfe\", \"openshift_version\": \"4.14\"}"),
              400, "UTF-8");
  ExpectError(Send("POST", "/api/assisted-install/v2/clusters",
                   "{\"na\xc3me\": \"x\", \"openshift_version\": \"4.14\"}"),
              400, "UTF-8");
}

// What aicli sends: the token without "Bearer ".
TEST_F(RestApiTest, ABareTokenInAuthorizationIsAccepted) {
  http::Response response =
      HandleAuthorized("GET", "/api/assisted-install/v2/clusters", "", TokenFor("alice", "acme"));
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(HandleAuthorized("GET", "/api/assisted-install/v2/clusters", "", "not-a-token").status,
            401);
}

// What upstream's UI requests.
TEST_F(RestApiTest, TrailingSlashesReachTheSameRoutes) {
  EXPECT_EQ(Send("GET", "/api/assisted-install/v2/clusters/").status, 200);
  EXPECT_EQ(Send("GET", absl::StrCat(kClusterPath, "/")).status, 200);
  EXPECT_EQ(Send("GET", absl::StrCat(kClusterPath, "/hosts/")).status, 200);
}

TEST_F(RestApiTest, HostActionsAnswerUpstreamsStatusCodes) {
  const std::string host =
      absl::StrCat("/api/assisted-install/v2/infra-envs/", kInfraEnvId, "/hosts/", kHostId);
  EXPECT_EQ(Send("POST", host + "/actions/reset").status, 200);
  EXPECT_EQ(Send("POST", host + "/actions/unbind").status, 200);
  EXPECT_EQ(Send("POST", host + "/actions/bind",
                 R"({"cluster_id":"00000000-0000-4000-8000-000000000001"})")
                .status,
            200);
  EXPECT_EQ(Send("POST", host + "/actions/install").status, 202);
}

TEST_F(RestApiTest, UpstreamQueryParametersAreHonoured) {
  std::vector<types::v1::Cluster> clusters(3);
  for (size_t i = 0; i < clusters.size(); ++i) {
    clusters[i].set_id(absl::StrCat("00000000-0000-4000-8000-00000000010", i));
    clusters[i].mutable_owner()->set_user_name(i == 0 ? "bob" : "alice");
  }
  clusters[2].set_openshift_cluster_id("00000000-0000-4000-8000-0000000000ff");
  inventory_.SetClusters(clusters);
  Answer owned = Send("GET", "/api/assisted-install/v2/clusters?owner=alice");
  ASSERT_EQ(owned.status, 200) << owned.body.dump();
  EXPECT_EQ(owned.body.size(), 2u);
  Answer imported = Send("GET",
                         "/api/assisted-install/v2/clusters?openshift_cluster_id="
                         "00000000-0000-4000-8000-0000000000ff");
  ASSERT_EQ(imported.status, 200) << imported.body.dump();
  ASSERT_EQ(imported.body.size(), 1u);
  EXPECT_EQ(imported.body[0]["id"], clusters[2].id());
  // No cluster here has an AMS subscription.
  Answer subscribed = Send("GET", "/api/assisted-install/v2/clusters?ams_subscription_ids=x,y");
  ASSERT_EQ(subscribed.status, 200) << subscribed.body.dump();
  EXPECT_EQ(subscribed.body.size(), 0u);

  Answer without_hosts = Send("GET", absl::StrCat(kClusterPath, "?exclude-hosts=true"));
  ASSERT_EQ(without_hosts.status, 200) << without_hosts.body.dump();
  EXPECT_FALSE(inventory_.last_get_cluster().include_hosts());
  EXPECT_EQ(without_hosts.body["hosts"], Json::array());

  // Filters by role and status; inventory and connectivity are left out when asked to (here
  // they are shown by default: docs/rest-api.md).
  Answer masters = Send("GET", absl::StrCat(kClusterPath, "/hosts?role=master"));
  ASSERT_EQ(masters.status, 200) << masters.body.dump();
  ASSERT_EQ(masters.body.size(), 1u);
  EXPECT_EQ(masters.body[0]["role"], "master");
  EXPECT_TRUE(masters.body[0].contains("inventory"));
  EXPECT_TRUE(masters.body[0].contains("connectivity"));
  Answer lean = Send("GET", absl::StrCat(kClusterPath,
                                         "/hosts?status=known&with-inventory=false&"
                                         "with-connectivity=false"));
  ASSERT_EQ(lean.status, 200) << lean.body.dump();
  ASSERT_EQ(lean.body.size(), 2u);
  EXPECT_FALSE(lean.body[0].contains("inventory"));
  EXPECT_FALSE(lean.body[0].contains("connectivity"));
  EXPECT_EQ(Send("GET", absl::StrCat(kClusterPath, "/hosts?status=installed")).body.size(), 0u);
  ExpectError(Send("GET", absl::StrCat(kClusterPath, "/hosts?role=captain")), 400, "role");

  EXPECT_EQ(Send("GET", "/api/assisted-install/v2/events?order=descending").status, 200);
  EXPECT_EQ(inventory_.last_events().order(), inventory::v1::SORT_ORDER_DESC);
  EXPECT_EQ(Send("GET", "/api/assisted-install/v2/events?order=ascending").status, 200);
  EXPECT_EQ(inventory_.last_events().order(), inventory::v1::SORT_ORDER_ASC);

  Answer infra_envs = Send("GET", "/api/assisted-install/v2/infra-envs?owner=alice");
  ASSERT_EQ(infra_envs.status, 200) << infra_envs.body.dump();
  ASSERT_EQ(infra_envs.body.size(), 1u);
  EXPECT_EQ(infra_envs.body[0]["name"], "alice");

  Answer versions =
      Send("GET", "/api/assisted-install/v2/openshift-versions?version=4.16&only_latest=true");
  ASSERT_EQ(versions.status, 200) << versions.body.dump();
  EXPECT_EQ(versions.body.size(), 1u);
  EXPECT_TRUE(versions.body.contains("4.16")) << versions.body.dump();

  // A parameter upstream does not know either is still refused, naming it.
  ExpectError(Send("GET", "/api/assisted-install/v2/clusters?bogus=1"), 400, "bogus");
}

TEST_F(RestApiTest, AnEmptyPullSecretInAPatchFollowsUpstream) {
  Answer infra_env =
      Send("PATCH", absl::StrCat("/api/assisted-install/v2/infra-envs/", kInfraEnvId),
           R"({"pull_secret":"","name":"renamed"})");
  ASSERT_EQ(infra_env.status, 201) << infra_env.body.dump();
  EXPECT_THAT(inventory_.last_update_infra_env().update_mask().paths(),
              ::testing::ElementsAre("name"));
  Answer cluster = Send("PATCH", kClusterPath, R"({"pull_secret":""})");
  ASSERT_EQ(cluster.status, 201) << cluster.body.dump();
  EXPECT_THAT(inventory_.last_update_cluster().update_mask().paths(),
              ::testing::ElementsAre("pull_secret"));
  EXPECT_EQ(inventory_.last_update_cluster().pull_secret(), "");
}

TEST_F(RestApiTest, ALegacyHostPrefixPatchKeepsTheStoredPodNetwork) {
  Answer patched = Send("PATCH", kClusterPath, R"({"cluster_network_host_prefix":25})");
  ASSERT_EQ(patched.status, 201) << patched.body.dump();
  const inventory::v1::UpdateClusterRequest request = inventory_.last_update_cluster();
  EXPECT_THAT(request.update_mask().paths(), ::testing::ElementsAre("cluster_networks"));
  ASSERT_EQ(request.cluster().cluster_networks_size(), 1);
  EXPECT_EQ(request.cluster().cluster_networks(0).cidr(), "10.132.0.0/14");
  EXPECT_EQ(request.cluster().cluster_networks(0).host_prefix(), 25);
  EXPECT_EQ(patched.body["cluster_network_host_prefix"], 25);
}

TEST_F(RestApiTest, SkipFormattingChangesApplyToTheHostsStoredList) {
  const std::string host =
      absl::StrCat("/api/assisted-install/v2/infra-envs/", kInfraEnvId, "/hosts/", kHostId);
  Answer patched = Send("PATCH", host, R"({"disks_skip_formatting":[
      {"disk_id":"/dev/sdb","skip_formatting":true},{"disk_id":"/dev/sdc","skip_formatting":false}]})");
  ASSERT_EQ(patched.status, 201) << patched.body.dump();
  const orchestrator::v1::UpdateHostRequest request = orchestrator_.last_update_host();
  EXPECT_THAT(request.update_mask().paths(), ::testing::ElementsAre("skip_formatting_disks"));
  EXPECT_THAT(request.host().skip_formatting_disks(), ::testing::ElementsAre("/dev/sdb"));
  EXPECT_EQ(patched.body["skip_formatting_disks"], "/dev/sdb");
  ExpectError(Send("PATCH", host,
                   R"({"disks_skip_formatting":[{"disk_id":"/dev/nope","skip_formatting":true}]})"),
              400, "/dev/nope");
}

// Upstream's TransformClusterToDay2 and TransformClusterToAddingHosts: both open an installed
// cluster for day-2 hosts.
TEST_F(RestApiTest, AllowAddWorkersAndAllowAddHostsOpenTheClusterForDay2Hosts) {
  for (const char* action : {"allow-add-workers", "allow-add-hosts"}) {
    Answer answer = Send("POST", absl::StrCat(kClusterPath, "/actions/", action));
    EXPECT_EQ(answer.status, 202) << action << " " << answer.body.dump();
    EXPECT_EQ(answer.body["kind"], "AddHostsCluster") << action;
    EXPECT_EQ(answer.body["status"], "adding-hosts") << action;
  }
}

// Upstream answers an update that changes nothing (an empty object, or only fields accepted
// empty) with 201 and the resource as it is; nothing is written.
TEST_F(RestApiTest, AnUpdateThatChangesNothingAnswersTheResourceUnchanged) {
  for (const char* body : {"{}", R"({"operator_bundles":[]})"}) {
    Answer cluster = Send("PATCH", kClusterPath, body);
    EXPECT_EQ(cluster.status, 201) << body << " " << cluster.body.dump();
    EXPECT_EQ(cluster.body["name"], "lab") << body;
  }
  EXPECT_FALSE(inventory_.last_update_cluster().has_cluster());
  Answer infra_env =
      Send("PATCH", absl::StrCat("/api/assisted-install/v2/infra-envs/", kInfraEnvId),
           R"({"pull_secret":""})");
  EXPECT_EQ(infra_env.status, 201) << infra_env.body.dump();
  EXPECT_FALSE(inventory_.last_update_infra_env().has_infra_env());
  Answer host =
      Send("PATCH",
           absl::StrCat("/api/assisted-install/v2/infra-envs/", kInfraEnvId, "/hosts/", kHostId),
           R"({"ignition_endpoint_http_headers":[]})");
  EXPECT_EQ(host.status, 201) << host.body.dump();
  EXPECT_EQ(host.body["id"], kHostId);
  EXPECT_FALSE(orchestrator_.last_update_host().has_host());
}

// Upstream's V2GetCredentials: the kubeadmin password stored at installation and the console
// URL OpenShift gives the cluster, once the console operator (when reported) is available.
TEST_F(RestApiTest, CredentialsCarryThePasswordAndTheConsoleUrl) {
  ExpectError(Send("GET", absl::StrCat(kClusterPath, "/credentials")), 409, "kubeadmin-password");
  inventory_.AddArtifact("kubeadmin-password", "s3cr3t-Pass");
  Answer credentials = Send("GET", absl::StrCat(kClusterPath, "/credentials"));
  ASSERT_EQ(credentials.status, 200) << credentials.body.dump();
  EXPECT_EQ(credentials.body,
            Json({{"username", "kubeadmin"},
                  {"password", "s3cr3t-Pass"},
                  {"console_url", "https://console-openshift-console.apps.lab.example.com"}}));
  inventory_.SetConsole(types::v1::OPERATOR_STATUS_PROGRESSING);
  ExpectError(Send("GET", absl::StrCat(kClusterPath, "/credentials")), 409, "console");
  inventory_.SetConsole(types::v1::OPERATOR_STATUS_AVAILABLE);
  EXPECT_EQ(Send("GET", absl::StrCat(kClusterPath, "/credentials")).status, 200);
}

TEST_F(RestApiTest, UpstreamFieldsNotSupportedYetAre501NamingTheField) {
  ExpectError(Send("POST", "/api/assisted-install/v2/clusters",
                   R"({"name":"c","openshift_version":"4.16","pull_secret":"{}",
                       "ntp_sources":"ntp.example.com"})"),
              501, "ntp_sources");
}

// Upstream's rule: a cluster changes while it is being defined or adding hosts; once its
// installation began, what it is installed with stays (409 naming the status).
TEST_F(RestApiTest, AClusterIsUpdatedOnlyBeforeItsInstallationOrWhileAddingHosts) {
  inventory_.set_cluster_status(types::v1::CLUSTER_STATUS_INSTALLED);
  for (const char* body : {R"({"olm_operators":[{"name":"lvm"}]})", R"({"name":"renamed"})"}) {
    ExpectError(Send("PATCH", kClusterPath, body), 409,
                "is installed: it can be updated only while pending-for-input, insufficient, "
                "ready or adding-hosts");
  }
  EXPECT_FALSE(inventory_.last_update_cluster().has_cluster());
  inventory_.set_cluster_status(types::v1::CLUSTER_STATUS_READY);
  Answer selected = Send("PATCH", kClusterPath, R"({"olm_operators":[{"name":"lvm"}]})");
  EXPECT_EQ(selected.status, 201) << selected.body.dump();
  const inventory::v1::UpdateClusterRequest update = inventory_.last_update_cluster();
  EXPECT_THAT(update.update_mask().paths(), ::testing::ElementsAre("monitored_operators"));
  ASSERT_EQ(update.cluster().monitored_operators_size(), 1);
  EXPECT_EQ(update.cluster().monitored_operators(0).name(), "lvm");
  inventory_.set_cluster_status(types::v1::CLUSTER_STATUS_ADDING_HOSTS);
  EXPECT_EQ(Send("PATCH", kClusterPath, R"({"name":"renamed"})").status, 201);
}

// The write is conditional on the cluster read: an installation that begins between the two makes
// it lose, and the retry refuses the update instead of changing a cluster being installed.
TEST_F(RestApiTest, AnUpdateRacingTheInstallationStartIsRefused) {
  inventory_.BeginInstallBeforeNextUpdate();
  ExpectError(Send("PATCH", kClusterPath, R"({"name":"renamed"})"), 409,
              "is preparing-for-installation");
}

// Selecting an operator this service does not install is the client's mistake, never dropped.
TEST_F(RestApiTest, SelectingAnUnsupportedOperatorIsRefusedWith400NamingTheEntry) {
  ExpectError(Send("POST", "/api/assisted-install/v2/clusters",
                   R"({"name":"c","openshift_version":"4.16","pull_secret":"{}",
                       "olm_operators":[{"name":"lvm"},{"name":"cnv"}]})"),
              400, "olm_operators[1].name: \"cnv\" is not supported by this service yet");
  ExpectError(Send("PATCH", kClusterPath, R"({"operator_bundles":[{"id":"virtualization"}]})"), 400,
              "operator_bundles[0].id");
  EXPECT_FALSE(inventory_.last_update_cluster().has_cluster());
}

}  // namespace
}  // namespace assisted::gateway
