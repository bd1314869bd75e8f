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

// An inventory that lists no clusters and remembers who asked.
class FakeInventory final : public inventory::v1::InventoryService::Service {
 public:
  grpc::Status ListClusters(grpc::ServerContext* context, const inventory::v1::ListClustersRequest*,
                            inventory::v1::ListClustersResponse*) override {
    absl::MutexLock lock(&mu_);
    callers_.push_back(grpcutil::GetIdentity(*context));
    return grpc::Status::OK;
  }
  grpc::Status ListEvents(grpc::ServerContext*, const inventory::v1::ListEventsRequest*,
                          inventory::v1::ListEventsResponse*) override {
    return grpc::Status::OK;
  }
  // Any cluster id is a cluster of the caller's.
  grpc::Status GetCluster(grpc::ServerContext*, const inventory::v1::GetClusterRequest* request,
                          types::v1::Cluster* cluster) override {
    cluster->set_id(request->id());
    cluster->set_name("lab");
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

 private:
  absl::Mutex mu_;
  std::vector<grpcutil::Identity> callers_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> artifacts_ ABSL_GUARDED_BY(mu_);
  std::vector<inventory::v1::GetArtifactRequest> reads_ ABSL_GUARDED_BY(mu_);
};

class RestApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&inventory_);
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
    request.headers.Add("Authorization", "Bearer " + token);
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

}  // namespace
}  // namespace assisted::gateway
