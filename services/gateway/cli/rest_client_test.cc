#include "services/gateway/cli/rest_client.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/http/content.h"
#include "lib/http/ranges.h"
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
    // Ranges and If-Range as the image service answers them; the ETag follows `version_`.
    ASSERT_THAT(
        router.Handle("GET", "/resumable.iso",
                      [this](const http::Request& request) {
                        ranges_.push_back(std::string(request.headers.Get("range").value_or("")));
                        http::Content content;
                        content.body = http::Body(Resumable());
                        content.etag = http::FormatETag(absl::StrCat("v", version_));
                        return http::ServeContent(request, content);
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

  // Downloads `url` into `path` and expects 300,000 bytes, with progress reaching them.
  void ExpectWholeDownload(RestClient& client, const std::string& url, const std::string& path) {
    int64_t last = 0, total = 0;
    auto bytes = client.Download(url, path, [&](int64_t received, int64_t size) {
      last = received;
      total = size;
    });
    ASSERT_THAT(bytes, IsOk());
    EXPECT_EQ(*bytes, 300000);
    EXPECT_EQ(last, 300000);
    EXPECT_EQ(total, 300000);
  }

  static std::string Contents(const std::string& path) {
    std::stringstream written;
    written << std::ifstream(path).rdbuf();
    return written.str();
  }

  // 300,000 bytes that differ per version and position.
  std::string Resumable() const {
    std::string text;
    for (int i = 0; i < 300000; ++i)
      text.push_back(static_cast<char>('a' + (i * 7 + version_) % 26));
    return text;
  }
  // What an interrupted download left: the first `bytes` of version `version`, and its ETag.
  void LeavePart(const std::string& path, size_t bytes, int version) {
    const int current = version_;
    version_ = version;
    std::ofstream(path + ".part") << Resumable().substr(0, bytes);
    std::ofstream(path + ".part.etag") << http::FormatETag(absl::StrCat("v", version)) << "\n";
    version_ = current;
  }

  std::unique_ptr<http::HttpServer> server_;
  std::string base_;
  int version_ = 1;
  std::vector<std::string> ranges_;  // the Range header of each /resumable.iso request
};

TEST_F(RestClientTest, AnInterruptedDownloadResumesWhereItStopped) {
  RestClient client({.server = base_});
  const std::string path = ::testing::TempDir() + "/resumed.iso";
  LeavePart(path, 120000, version_);
  ASSERT_NO_FATAL_FAILURE(ExpectWholeDownload(client, base_ + "/resumable.iso", path));
  EXPECT_THAT(ranges_, ::testing::ElementsAre("bytes=120000-"));
  EXPECT_EQ(Contents(path), Resumable());
  EXPECT_FALSE(std::filesystem::exists(path + ".part"));
  EXPECT_FALSE(std::filesystem::exists(path + ".part.etag"));
}

TEST_F(RestClientTest, APartOfContentThatChangedSinceIsReplacedByTheWholeNewContent) {
  RestClient client({.server = base_});
  const std::string path = ::testing::TempDir() + "/changed.iso";
  LeavePart(path, 120000, version_ - 1);  // the image was rebuilt since
  auto bytes = client.Download(base_ + "/resumable.iso", path, nullptr);
  ASSERT_THAT(bytes, IsOk());
  EXPECT_EQ(*bytes, 300000);
  EXPECT_EQ(Contents(path), Resumable());
}

TEST_F(RestClientTest, APartWithoutItsETagIsNotTrustedAndStartsOver) {
  RestClient client({.server = base_});
  const std::string path = ::testing::TempDir() + "/unknown.iso";
  std::ofstream(path + ".part") << std::string(1000, '?');
  ASSERT_THAT(client.Download(base_ + "/resumable.iso", path, nullptr), IsOk());
  EXPECT_THAT(ranges_, ::testing::ElementsAre(""));
  EXPECT_EQ(Contents(path), Resumable());
}

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
  ASSERT_NO_FATAL_FAILURE(ExpectWholeDownload(client, base_ + "/file.iso", path));
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
