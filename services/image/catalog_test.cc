#include "services/image/catalog.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/http/router.h"
#include "lib/http/server.h"
#include "lib/iso/iso9660.h"
#include "lib/iso/test_image.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "services/image/minimal_iso.h"

namespace assisted::image {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

class CatalogTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    process::LocalProcessRunner runner;
    ASSERT_THAT(iso::BuildTestImage(runner, {}, Dir() + "/build", Dir() + "/base.iso"), IsOk());
    std::ofstream(Dir() + "/not.iso") << std::string(70000, 'x');
  }

  static std::string Dir() {
    static const std::string dir = [] {
      std::string path = ::testing::TempDir() + "/catalog";
      std::filesystem::create_directories(path);
      return path;
    }();
    return dir;
  }

  std::string Cache() {
    const std::string path =
        Dir() + "/cache-" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    return path;
  }

  OsImage Image(const std::string& url, const std::string& version = "4.16") {
    return {.openshift_version = version,
            .cpu_architecture = "x86_64",
            .url = url,
            .version = "416.94.1"};
  }

  CurlFetcher fetcher_;
  process::LocalProcessRunner runner_;
};

TEST_F(CatalogTest, ParsesTheImageList) {
  auto images = ParseOsImages(
      R"([{"openshift_version":"4.16","cpu_architecture":"x86_64","url":"file:///a.iso",)"
      R"("version":"416.94","sha256":"ABC"}])");
  ASSERT_THAT(images, IsOk());
  ASSERT_EQ(images->size(), 1u);
  EXPECT_EQ((*images)[0].sha256, "abc");
  EXPECT_THAT(ParseOsImages("{}"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseOsImages(R"([{"openshift_version":"4.16","cpu_architecture":"x86_64"}])"),
              StatusIs(absl::StatusCode::kInvalidArgument, "os_images[0].url: required"));
  EXPECT_THAT(ParseOsImages(
                  R"([{"openshift_version":"4.16","cpu_architecture":"x86_64","url":"ftp://x"}])"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("os_images[0].url")));
}

TEST_F(CatalogTest, AnUpstreamArm64EntryIsFoundAsAarch64) {
  // Upstream's OS_IMAGES spells 64-bit ARM "arm64"; every lookup asks for "aarch64"
  // (enums::OsImageArchitecture), so the entry must be stored under that name.
  auto images = ParseOsImages(
      R"([{"openshift_version":"4.16","cpu_architecture":"arm64","url":"file:///a.iso"}])");
  ASSERT_THAT(images, IsOk());
  ASSERT_EQ(images->size(), 1u);
  EXPECT_EQ((*images)[0].cpu_architecture, "aarch64");
}

TEST_F(CatalogTest, FetchesFromFileUrlsVerifiesAndFindsByVersion) {
  Catalog catalog(Cache(), {Image("file://" + Dir() + "/base.iso")}, fetcher_, runner_,
                  log::Logger::Discard());
  EXPECT_FALSE(catalog.ready());
  ASSERT_THAT(catalog.Prepare(), IsOk());
  EXPECT_TRUE(catalog.ready());
  auto exact = catalog.Find("4.16", "x86_64");
  ASSERT_THAT(exact, IsOk());
  EXPECT_EQ((*exact)->areas.ignition.size, 256u * 1024);
  EXPECT_EQ((*exact)->sha256.size(), 64u);
  // The minimal ISO is derived next to it: no rootfs, its own embed areas and ramdisk.
  ASSERT_NE((*exact)->minimal, nullptr);
  auto minimal = iso::IsoReader::Open((*exact)->minimal->fd, "minimal");
  ASSERT_THAT(minimal, IsOk());
  EXPECT_THAT(minimal->Find("images/pxeboot/rootfs.img"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ((*exact)->minimal->ramdisk.size, kMinimalRamdiskBytes);
  EXPECT_EQ((*exact)->minimal->areas.ignition.size, 256u * 1024);
  EXPECT_THAT((*exact)->minimal->areas.default_kargs, Not(HasSubstr("coreos.liveiso")));
  EXPECT_THAT(catalog.Find("4.16.3", "x86_64"), IsOk());  // same major.minor
  EXPECT_THAT(catalog.Find("4.17", "x86_64"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(catalog.Find("4.16", "aarch64"), StatusIs(absl::StatusCode::kNotFound));
  const auto listed = catalog.List();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].state(), v1::BASE_IMAGE_STATE_READY);
  EXPECT_EQ(listed[0].cpu_architecture(), types::v1::CPU_ARCHITECTURE_X86_64);
  EXPECT_TRUE(listed[0].minimal_iso_ready());
}

TEST_F(CatalogTest, FetchesOverHttpOnceAndReusesTheCache) {
  absl::StatusOr<std::string> iso = ReadFile(Dir() + "/base.iso", "test ISO");
  ASSERT_THAT(iso, IsOk());
  // In-process, on a port the kernel picks: listening before Start returns (a python3
  // http.server once took over 5 s to answer on a loaded machine).
  http::Router router;
  ASSERT_THAT(
      router.Handle("GET", "/base.iso",
                    [&iso](const http::Request&) { return http::Response::Text(200, *iso); }),
      IsOk());
  http::HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  auto server =
      http::HttpServer::Start(options, std::move(router), nullptr, log::Logger::Discard());
  ASSERT_THAT(server, IsOk());
  const std::string url = absl::StrCat("http://127.0.0.1:", (*server)->port(), "/base.iso");
  {
    Catalog catalog(Cache(), {Image(url)}, fetcher_, runner_, log::Logger::Discard());
    ASSERT_THAT(catalog.Prepare(), IsOk());
  }
  server->reset();
  Catalog again(Cache(), {Image(url)}, fetcher_, runner_, log::Logger::Discard());
  EXPECT_THAT(again.Prepare(), IsOk());  // served from the cache: the server is gone
  EXPECT_TRUE(again.ready());
}

TEST_F(CatalogTest, RejectsWhatIsNotALiveIsoOrDoesNotMatchItsDigest) {
  Catalog junk(Cache(), {Image("file://" + Dir() + "/not.iso")}, fetcher_, runner_,
               log::Logger::Discard());
  EXPECT_THAT(junk.Prepare(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an ISO9660 image")));
  EXPECT_FALSE(junk.ready());
  EXPECT_EQ(junk.List()[0].state(), v1::BASE_IMAGE_STATE_FAILED);

  OsImage wrong = Image("file://" + Dir() + "/base.iso");
  wrong.sha256 = std::string(64, '0');
  Catalog mismatch(Cache() + "-digest", {wrong}, fetcher_, runner_, log::Logger::Discard());
  EXPECT_THAT(mismatch.Prepare(), StatusIs(absl::StatusCode::kDataLoss, HasSubstr("sha256")));
  // The bad copy is not kept for next time.
  EXPECT_TRUE(std::filesystem::is_empty(Cache() + "-digest"));

  Catalog missing(Cache() + "-missing", {Image("file:///nonexistent/base.iso")}, fetcher_, runner_,
                  log::Logger::Discard());
  EXPECT_THAT(missing.Prepare(), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_TRUE(std::filesystem::is_empty(Cache() + "-missing"));
}

}  // namespace
}  // namespace assisted::image
