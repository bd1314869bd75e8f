#include "services/gateway/cli/rest_client.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/http/server.h"
#include "lib/testing/status_matchers.h"

namespace assisted::cli {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

TEST(StatusFromHttp, MapsStatusesAndKeepsTheServersReason) {
  EXPECT_THAT(StatusFromHttp(201, ""), IsOk());
  EXPECT_THAT(StatusFromHttp(409, R"({"code":"409","kind":"Error","reason":"cluster is ready"})"),
              StatusIs(absl::StatusCode::kFailedPrecondition, "409: cluster is ready"));
  EXPECT_THAT(StatusFromHttp(401, "no token\nmore"),
              StatusIs(absl::StatusCode::kUnauthenticated, "401: no token"));
  EXPECT_THAT(StatusFromHttp(404, ""), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(StatusFromHttp(422, "{}"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(StatusFromHttp(503, ""), StatusIs(absl::StatusCode::kUnavailable));
}

class RestClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    http::Router router;
    const std::string prefix = kApiPrefix;
    ASSERT_THAT(
        router.Handle("POST", prefix + "/echo",
                      [](const http::Request& request) {
                        const std::string auth(request.headers.Get("authorization").value_or(""));
                        return http::Response::Json(
                            201, nlohmann::json{{"body", request.body}, {"auth", auth}}.dump());
                      }),
        IsOk());
    ASSERT_THAT(router.Handle("GET", prefix + "/refused",
                              [](const http::Request&) {
                                return http::Response::Json(
                                    409, R"({"kind":"Error","reason":"wrong state"})");
                              }),
                IsOk());
    ASSERT_THAT(router.Handle("GET", "/file.iso",
                              [](const http::Request&) {
                                return http::Response::Text(200, std::string(300000, 'x'));
                              }),
                IsOk());
    http::HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    auto server =
        http::HttpServer::Start(options, std::move(router), nullptr, log::Logger::Discard());
    ASSERT_THAT(server, IsOk());
    server_ = *std::move(server);
    base_ = "http://127.0.0.1:" + std::to_string(server_->port());
  }

  std::unique_ptr<http::HttpServer> server_;
  std::string base_;
};

TEST_F(RestClientTest, SendsJsonWithTheTokenAndReturnsTheAnswer) {
  RestClient client({.server = base_ + "/", .token = "t0k"});
  auto answer = client.Call("POST", "/echo", nlohmann::json{{"name", "demo"}});
  ASSERT_THAT(answer, IsOk());
  EXPECT_EQ((*answer)["body"], R"({"name":"demo"})");
  EXPECT_EQ((*answer)["auth"], "Bearer t0k");
  EXPECT_THAT(client.Call("GET", "/refused").status(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("wrong state")));
  EXPECT_THAT(client.Call("GET", "/missing").status(), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(RestClientTest, DownloadsWithProgressAndLeavesNothingOnFailure) {
  RestClient client({.server = base_});
  const std::string path = ::testing::TempDir() + "/download.iso";
  int64_t last = 0, total = 0;
  auto bytes = client.Download(base_ + "/file.iso", path, [&](int64_t received, int64_t size) {
    last = received;
    total = size;
  });
  ASSERT_THAT(bytes, IsOk());
  EXPECT_EQ(*bytes, 300000);
  EXPECT_EQ(last, 300000);
  EXPECT_EQ(total, 300000);
  EXPECT_EQ(std::filesystem::file_size(path), 300000u);
  EXPECT_FALSE(std::filesystem::exists(path + ".part"));

  const std::string missing = ::testing::TempDir() + "/missing.iso";
  EXPECT_THAT(client.Download(base_ + "/nothing.iso", missing, nullptr).status(),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_FALSE(std::filesystem::exists(missing));
  EXPECT_FALSE(std::filesystem::exists(missing + ".part"));
}

TEST(RestClient, UnreachableServerIsUnavailable) {
  RestClient client({.server = "http://127.0.0.1:1", .timeout = absl::Seconds(2)});
  EXPECT_THAT(client.Call("GET", "/clusters").status(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("cannot reach")));
}

}  // namespace
}  // namespace assisted::cli
