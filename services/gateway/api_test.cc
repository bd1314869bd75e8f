// The REST API's request handling end to end inside one process: the real route table,
// authenticator and gRPC backends client, with a fake inventory on a loopback port standing in
// for the backends. Requests go through lib/http's router exactly as the HTTP server hands them
// over, so what these tests see is what a client would get back.

#include "services/gateway/api.h"

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

  std::vector<grpcutil::Identity> callers() {
    absl::MutexLock lock(&mu_);
    return callers_;
  }

 private:
  absl::Mutex mu_;
  std::vector<grpcutil::Identity> callers_ ABSL_GUARDED_BY(mu_);
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
  Answer Send(const std::string& method, const std::string& target, std::string body = "",
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
    http::Response response = (*match.handler)(request);
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
