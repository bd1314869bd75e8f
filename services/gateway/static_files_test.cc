// The web UI's files as the gateway serves them: content types, the index.html fallback for the
// UI's own routes, 404s for missing files and API paths, caching, the security headers, and
// refusals of directories that are not a UI build.

#include "services/gateway/static_files.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::gateway {
namespace {

namespace fs = std::filesystem;
using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

class StaticFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/ui-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/assets");
    Write("index.html", "<!doctype html><title>assisted</title>");
    Write("assets/app-ABC123.js", "console.log(1)");
    Write("assets/app-ABC123.css", "body{}");
    Write("assets/font.woff2", "wOF2");
  }
  void Write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << content;
  }
  std::unique_ptr<StaticFiles> Load() {
    auto files = StaticFiles::Load(dir_);
    EXPECT_THAT(files, IsOk());
    return files.ok() ? *std::move(files) : nullptr;
  }
  static std::string Body(const http::Response& response) {
    return response.body.ReadAll().value_or("<unreadable>");
  }
  std::string dir_;
};

TEST_F(StaticFilesTest, ServesEachFileWithTheTypeOfItsExtension) {
  auto files = Load();
  ASSERT_NE(files, nullptr);
  http::Response js = files->Serve("/assets/app-ABC123.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.headers.Get("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(Body(js), "console.log(1)");
  EXPECT_EQ(files->Serve("/assets/app-ABC123.css").headers.Get("Content-Type"),
            "text/css; charset=utf-8");
  EXPECT_EQ(files->Serve("/assets/font.woff2").headers.Get("Content-Type"), "font/woff2");
  http::Response root = files->Serve("/");
  EXPECT_EQ(root.headers.Get("Content-Type"), "text/html; charset=utf-8");
  EXPECT_THAT(Body(root), HasSubstr("<title>assisted</title>"));
}

TEST_F(StaticFilesTest, HashedAssetsAreImmutableAndEverythingElseRevalidated) {
  auto files = Load();
  ASSERT_NE(files, nullptr);
  EXPECT_EQ(files->Serve("/assets/app-ABC123.js").headers.Get("Cache-Control"),
            "public, max-age=31536000, immutable");
  EXPECT_EQ(files->Serve("/").headers.Get("Cache-Control"), "no-cache");
}

TEST_F(StaticFilesTest, ClientRoutesGetIndexHtmlAndMissingFilesGet404) {
  auto files = Load();
  ASSERT_NE(files, nullptr);
  http::Response route = files->Serve("/clusters/0b6c7f4e-3f7c-4a43-9d3f-7f1b1d6e2a10");
  EXPECT_EQ(route.status, 200);
  EXPECT_THAT(Body(route), HasSubstr("<title>assisted</title>"));
  http::Response missing = files->Serve("/assets/gone-123.js");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.headers.Get("Content-Type"), "application/json");
}

TEST_F(StaticFilesTest, ApiPathsNeverAnswerWithTheUi) {
  auto files = Load();
  ASSERT_NE(files, nullptr);
  http::Response typo = files->Serve("/api/assisted-install/v2/clustrs");
  EXPECT_EQ(typo.status, 404);
  EXPECT_THAT(Body(typo), HasSubstr("\"kind\":\"Error\""));
}

TEST_F(StaticFilesTest, EveryAnswerCarriesTheStrictContentSecurityPolicy) {
  auto files = Load();
  ASSERT_NE(files, nullptr);
  for (const char* path : {"/", "/clusters/x", "/assets/app-ABC123.js", "/nope.png"}) {
    http::Response response = files->Serve(path);
    EXPECT_EQ(response.headers.Get("Content-Security-Policy"), UiContentSecurityPolicy()) << path;
    EXPECT_EQ(response.headers.Get("X-Content-Type-Options"), "nosniff") << path;
    EXPECT_EQ(response.headers.Get("X-Frame-Options"), "DENY") << path;
  }
  // No inline script, no eval, no framing, no other origin.
  const std::string policy = UiContentSecurityPolicy();
  EXPECT_THAT(policy, HasSubstr("script-src 'self';"));
  EXPECT_THAT(policy, HasSubstr("connect-src 'self';"));
  EXPECT_THAT(policy, ::testing::Not(HasSubstr("unsafe")));
  EXPECT_THAT(policy, HasSubstr("frame-ancestors 'none'"));
}

// With OIDC sign-in the page may post the code to the provider's token endpoint, and reach
// nothing else of the provider's (no script, style or frame from there).
TEST_F(StaticFilesTest, WithOidcSignInThePolicyAddsTheTokenEndpointsOriginToConnectOnly) {
  const std::string policy = UiContentSecurityPolicy("https://sso.example.com:8443");
  auto files = StaticFiles::Load(dir_, policy);
  ASSERT_THAT(files, IsOk());
  EXPECT_EQ((*files)->Serve("/").headers.Get("Content-Security-Policy"), policy);
  EXPECT_EQ((*files)->Serve("/nope.png").headers.Get("Content-Security-Policy"), policy);
  EXPECT_THAT(policy, HasSubstr("connect-src 'self' https://sso.example.com:8443;"));
  EXPECT_THAT(policy, HasSubstr("script-src 'self';"));
  EXPECT_EQ(policy.find("sso.example.com"), policy.rfind("sso.example.com"));
}

TEST_F(StaticFilesTest, SymlinksOutOfTheDirectoryAreNotServed) {
  const std::string secret = ::testing::TempDir() + "/secret.txt";
  std::ofstream(secret) << "top secret";
  fs::create_symlink(secret, dir_ + "/secret.txt");
  auto files = Load();
  ASSERT_NE(files, nullptr);
  EXPECT_EQ(files->Serve("/secret.txt").status, 404);
}

TEST_F(StaticFilesTest, RefusesADirectoryWithoutIndexHtml) {
  fs::remove(dir_ + "/index.html");
  EXPECT_THAT(StaticFiles::Load(dir_),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no index.html")));
}

TEST_F(StaticFilesTest, RefusesAPathThatIsNotADirectory) {
  EXPECT_THAT(StaticFiles::Load(dir_ + "/index.html"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--ui-dir")));
  EXPECT_THAT(StaticFiles::Load(dir_ + "/missing"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a directory")));
}

}  // namespace
}  // namespace assisted::gateway
