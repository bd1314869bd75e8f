// Two replicas of every service on one PostgreSQL, as the chart's Deployments run them
// (StackOptions::replicas): the gateways and the image services each behind one address, every
// internal client dialling both replicas of its peer. What one replica hands out or writes, the
// other honours and shows: download links minted by one image replica download (and resume)
// from the other; a write through either gateway is read back at once through both.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "assisted/image/v1/image_service.grpc.pb.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "lib/http/test_client.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/gateway/jwt.h"
#include "tests/harness/eventually.h"
#include "tests/harness/probes.h"
#include "tests/harness/stack.h"

namespace assisted::testing {
namespace {

namespace img = ::assisted::image::v1;
using ::assisted::http::test::CurlClient;
using ::assisted::http::test::CurlRequest;
using ::assisted::http::test::CurlResponse;
using ::testing::StartsWith;
using Json = nlohmann::json;

constexpr char kSecret[] = "0123456789abcdef0123456789abcdef-replicas-test-secret";
constexpr char kPrefix[] = "/api/assisted-install/v2";
constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}})";

class ReplicasTest : public StackTest {
 protected:
  StackOptions Options() const override {
    return {.replicas = 2, .image = true, .gateway = true, .jwt_secret = kSecret};
  }

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StackTest::SetUp());
    const absl::Time now = absl::Now();
    token_ = gateway::SignHs256(kSecret, Json{{"sub", "alice"},
                                              {"username", "alice"},
                                              {"org_id", "acme"},
                                              {"exp", absl::ToUnixSeconds(now + absl::Hours(1))}})
                 .value();
  }

  // `method` `url` on a connection of its own (through a front, each lands on the next replica).
  static CurlResponse Fetch(const std::string& url, CurlRequest request = {}) {
    CurlClient client;
    absl::StatusOr<CurlResponse> response = client.Fetch(url, request);
    EXPECT_THAT(response, IsOk()) << request.method << " " << url;
    return response.ok() ? *std::move(response) : CurlResponse{};
  }

  // A REST call as alice through the gateway at `base`.
  CurlResponse Rest(const std::string& base, const std::string& method, const std::string& path,
                    absl::optional<std::string> body = absl::nullopt) {
    CurlRequest request{.method = method, .headers = {"Authorization: Bearer " + token_}};
    if (body) request.headers.push_back("Content-Type: application/json");
    request.body = std::move(body);
    return Fetch(absl::StrCat(base, kPrefix, path), request);
  }

  // POSTs cluster `name` through the gateway at `base`; its path ("/clusters/<id>"), or "" (and
  // a failure) when it was not created.
  std::string CreateCluster(const std::string& base, const std::string& name) {
    const CurlResponse created = Rest(base, "POST", "/clusters",
                                      Json{{"name", name},
                                           {"openshift_version", "4.16"},
                                           {"pull_secret", kPullSecret},
                                           {"base_dns_domain", "example.com"}}
                                          .dump());
    EXPECT_EQ(created.status, 201) << created.body;
    if (created.status != 201) return "";
    return "/clusters/" + Json::parse(created.body)["id"].get<std::string>();
  }

  // The download links image replica `replica` mints for `infra_env_id`.
  img::GetImageUrlResponse MintedBy(int replica, const std::string& infra_env_id) {
    auto stub = img::ImageService::NewStub(grpc::CreateChannel(stack().image(replica).grpc_target(),
                                                               grpc::InsecureChannelCredentials()));
    img::GetImageUrlRequest request;
    request.set_infra_env_id(infra_env_id);
    img::GetImageUrlResponse response;
    grpc::ClientContext context;
    const grpc::Status status = stub->GetImageUrl(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  std::string token_;
};

TEST_F(ReplicasTest, DownloadLinksMintedByOneImageReplicaDownloadAndResumeFromTheOther) {
  inventory::v1::CreateInfraEnvRequest create;
  create.mutable_infra_env()->set_name("replicated");
  create.set_pull_secret(kPullSecret);
  types::v1::InfraEnv created;
  grpc::ClientContext context;
  const grpc::Status status = stack().inventory_stub().CreateInfraEnv(&context, create, &created);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const types::v1::InfraEnv* infra_env = &created;
  for (int minter = 0; minter < 2; ++minter) {
    const int other = 1 - minter;
    SCOPED_TRACE(absl::StrCat("minted by image replica ", minter));
    const img::GetImageUrlResponse urls = MintedBy(minter, infra_env->id());
    // The links name the one address in front of the replicas, whichever minted them.
    ASSERT_THAT(urls.url(), StartsWith(stack().image_http() + "/"));
    const std::string path = urls.url().substr(stack().image_http().size());

    const CurlResponse own = Fetch(stack().image_replica_http(minter) + path);
    const CurlResponse there = Fetch(stack().image_replica_http(other) + path);
    ASSERT_EQ(own.status, 200) << own.body.substr(0, 200);
    ASSERT_EQ(there.status, 200) << there.body.substr(0, 200);
    EXPECT_EQ(there.body, own.body);  // the same bytes: the same Ignition, the same agent token
    ASSERT_TRUE(own.Header("etag").has_value());
    EXPECT_EQ(there.Header("etag"), own.Header("etag"));

    // A download begun on one replica resumes on the other (a BMC behind the load balancer).
    const CurlResponse resumed =
        Fetch(stack().image_replica_http(other) + path,
              {.headers = {"Range: bytes=1000-", "If-Range: " + *own.Header("etag")}});
    EXPECT_EQ(resumed.status, 206);
    EXPECT_EQ(resumed.body, own.body.substr(1000));

    const CurlResponse kernel = Fetch(stack().image_replica_http(other) +
                                      urls.kernel_url().substr(stack().image_http().size()));
    EXPECT_EQ(kernel.status, 200);
  }
}

TEST_F(ReplicasTest, AWriteThroughEitherGatewayIsReadBackAtOnceThroughBoth) {
  const std::vector<std::string> gateways = {stack().gateway_replica_http(0),
                                             stack().gateway_replica_http(1)};
  for (int writer = 0; writer < 2; ++writer) {
    const int other = 1 - writer;
    SCOPED_TRACE(absl::StrCat("written through gateway replica ", writer));
    const std::string path = CreateCluster(gateways[writer], absl::StrCat("replicated-", writer));
    ASSERT_FALSE(path.empty());
    // A resource neither gateway has read yet is read from the inventory: at once, both.
    for (const std::string& gateway : gateways) {
      const CurlResponse read = Rest(gateway, "GET", path);
      ASSERT_EQ(read.status, 200) << read.body;
      EXPECT_EQ(Json::parse(read.body)["name"], absl::StrCat("replicated-", writer));
    }

    // Both now hold it in their read caches. A change through one gateway is read back
    // through it as soon as the write returns ...
    const std::string renamed = absl::StrCat("renamed-", writer);
    const CurlResponse patched =
        Rest(gateways[writer], "PATCH", path, Json{{"name", renamed}}.dump());
    ASSERT_EQ(patched.status, 201) << patched.body;
    const CurlResponse read_back = Rest(gateways[writer], "GET", path);
    ASSERT_EQ(read_back.status, 200) << read_back.body;
    EXPECT_EQ(Json::parse(read_back.body)["name"], renamed);
    // ... and through the other at once too: a read sees every write acknowledged before it
    // began, whichever gateway took the write and whatever the other holds in its cache.
    const CurlResponse there = Rest(gateways[other], "GET", path);
    ASSERT_EQ(there.status, 200) << there.body;
    EXPECT_EQ(Json::parse(there.body)["name"], renamed);
  }

  // Behind the one address (each request on a connection of its own goes to the next replica)
  // the API answers alike.
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(Rest(stack().gateway_http(), "GET", "/clusters").status, 200);
  }
}

TEST_F(ReplicasTest, EveryWriteThroughOneGatewayIsReadAtOnceThroughTheOtherManyTimesOver) {
  const std::vector<std::string> gateways = {stack().gateway_replica_http(0),
                                             stack().gateway_replica_http(1)};
  const std::string path = CreateCluster(gateways[0], "read-your-writes");
  ASSERT_FALSE(path.empty());
  int stale = 0;
  for (int round = 0; round < 40; ++round) {
    const int writer = round % 2;
    const int reader = 1 - writer;
    // Both gateways hold the cluster in their caches before the write.
    for (const std::string& gateway : gateways) {
      ASSERT_EQ(Rest(gateway, "GET", path).status, 200);
    }
    const std::string name = absl::StrCat("round-", round);
    const CurlResponse patched = Rest(gateways[writer], "PATCH", path, Json{{"name", name}}.dump());
    ASSERT_EQ(patched.status, 201) << patched.body;
    const CurlResponse read = Rest(gateways[reader], "GET", path);
    ASSERT_EQ(read.status, 200) << read.body;
    const std::string seen = Json::parse(read.body).value("name", "");
    if (seen != name) ++stale;
    EXPECT_EQ(seen, name) << "round " << round << ": written through gateway " << writer
                          << ", read through gateway " << reader;
  }
  EXPECT_EQ(stale, 0);
  // Without giving up the cache: the reads before each write found the answer cached and could
  // confirm that it was current (the change log had passed the inventory's head).
  double hits = 0, unconfirmed = 0;
  for (int replica = 0; replica < 2; ++replica) {
    const std::string metrics = stack().gateway(replica).metrics_url();
    hits += MetricSum(metrics, "assisted_gateway_read_cache_hits_total");
    unconfirmed += MetricSum(metrics, "assisted_gateway_read_cache_unconfirmed_total");
  }
  EXPECT_GT(hits, 0) << unconfirmed << " cached answers could not be confirmed current";
}

// The services name both replicas of each peer in one gRPC target ("ipv4:///A,B"), as they
// would a headless Kubernetes Service with dns:///, and gRPC balances the calls itself.
class ReplicasByGrpcTargetTest : public ReplicasTest {
 protected:
  StackOptions Options() const override {
    StackOptions options = ReplicasTest::Options();
    options.peers_by_grpc_target = true;
    return options;
  }

  // ListClusters calls inventory replica `replica` has handled.
  double ListClustersHandledBy(int replica) const {
    return MetricSum(stack().inventory(replica).metrics_url(), "grpc_server_handled_total",
                     "grpc_method=\"ListClusters\"");
  }
};

TEST_F(ReplicasByGrpcTargetTest, OneGatewaySpreadsItsCallsOverBothInventoriesAndOutlivesOne) {
  const std::string gateway = stack().gateway_replica_http(0);
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(Rest(gateway, "GET", "/clusters").status, 200);
  }
  // round_robin: both replicas took a share (pick_first would have sent all 20 to one).
  const double first = std::max(ListClustersHandledBy(0), 0.0);
  const double second = std::max(ListClustersHandledBy(1), 0.0);
  EXPECT_GT(first, 0);
  EXPECT_GT(second, 0);
  EXPECT_GE(first + second, 20);

  // One replica dies: gRPC drops it from the rotation and every call goes to the other.
  stack().inventory(0).Kill();
  ASSERT_TRUE(Eventually([&] { return Rest(gateway, "GET", "/clusters").status == 200; },
                         absl::Seconds(30), "the gateway answers with one inventory left"));
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(Rest(gateway, "GET", "/clusters").status, 200) << "call " << i;
  }
}

}  // namespace
}  // namespace assisted::testing
