#include "services/image/artifacts.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/iso/cpio.h"
#include "lib/iso/embed.h"
#include "lib/iso/iso9660.h"
#include "lib/iso/test_image.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"

namespace assisted::image {
namespace {

using ::assisted::testing::IsOk;
using ::testing::HasSubstr;

constexpr char kConfig[] = R"({"ignition":{"version":"3.2.0"}})";

class ArtifactsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(::testing::TempDir() + "/artifacts");
    std::filesystem::create_directories(*dir_);
    static process::LocalProcessRunner runner;
    ASSERT_THAT(iso::BuildTestImage(runner, {}, *dir_ + "/build", *dir_ + "/base.iso"), IsOk());
    catalog_ = new Catalog(*dir_ + "/cache",
                           {{.openshift_version = "4.16",
                             .cpu_architecture = "x86_64",
                             .url = "file://" + *dir_ + "/base.iso"}},
                           Fetcher(), runner, log::Logger::Discard());
    ASSERT_THAT(catalog_->Prepare(), IsOk());
  }

  static CurlFetcher& Fetcher() {
    static CurlFetcher fetcher;
    return fetcher;
  }

  const CachedImage& Base() { return **catalog_->Find("4.16", "x86_64"); }

  std::string Cpio(const std::string& archive, const std::string& command) {
    const std::string work = *dir_ + "/unpack";
    std::filesystem::remove_all(work);
    std::filesystem::create_directories(work);
    auto cpio = iso::Gunzip(archive);
    EXPECT_THAT(cpio, IsOk());
    std::ofstream(work + "/archive.cpio", std::ios::binary) << *cpio;
    process::LocalProcessRunner runner;
    auto result = runner.Run({.argv = {"sh", "-c", command}, .working_dir = work});
    EXPECT_THAT(result, IsOk());
    return result.ok() ? result->stdout_data : "";
  }

  static std::string* dir_;
  static Catalog* catalog_;
};
std::string* ArtifactsTest::dir_ = nullptr;
Catalog* ArtifactsTest::catalog_ = nullptr;

TEST_F(ArtifactsTest, FullIsoIsTheBaseWithTheAreasFilled) {
  auto download = FullIso(Base(), kConfig, "rd.neednet=1");
  ASSERT_THAT(download, IsOk());
  EXPECT_EQ((*download)->size, Base().size);
  EXPECT_EQ((*download)->filename, "discovery.iso");
  auto reader = iso::IsoReader::Open(Base().fd, Base().path);
  ASSERT_THAT(reader, IsOk());
  auto expected = iso::ReadPatched(*reader, (*download)->generated, 0, Base().size);
  auto served = ReadDownload(**download, 0, Base().size);
  ASSERT_THAT(served, IsOk());
  EXPECT_TRUE(*served == *expected);
  // A different config is different content.
  auto other = FullIso(Base(), R"({"ignition":{"version":"3.2.0"},"x":1})", "");
  EXPECT_NE((*other)->digest, (*download)->digest);
}

TEST_F(ArtifactsTest, PxeInitrdIsTheOriginalFollowedByTheIgnitionArchive) {
  auto initrd = PxeInitrd(Base(), kConfig, "");
  ASSERT_THAT(initrd, IsOk());
  auto bytes = ReadDownload(**initrd, 0, (*initrd)->size);
  ASSERT_THAT(bytes, IsOk());
  const std::string original = iso::TestInitrd();
  ASSERT_GT(bytes->size(), original.size());
  EXPECT_EQ(bytes->substr(0, original.size()), original);
  // The original unpacks as before, and what follows unpacks to config.ign.
  EXPECT_THAT(Cpio(original, "cpio -it < archive.cpio"), HasSubstr("etc/os-release"));
  const size_t tail = (original.size() + 3) / 4 * 4;
  EXPECT_EQ(Cpio(bytes->substr(tail), "cpio -idm --quiet < archive.cpio && cat config.ign"),
            kConfig);
}

TEST_F(ArtifactsTest, KernelAndRootfsComeStraightFromTheImage) {
  auto kernel = PxeKernel(Base());
  ASSERT_THAT(kernel, IsOk());
  EXPECT_EQ(*ReadDownload(**kernel, 0, (*kernel)->size), "test kernel\n");
  auto rootfs = PxeRootfs(Base());
  ASSERT_THAT(rootfs, IsOk());
  EXPECT_EQ((*rootfs)->size, iso::TestImageOptions().rootfs_bytes);
}

TEST_F(ArtifactsTest, IpxeScriptBootsTheArtifactsAndNamesOnlyTheRootfsOnTheKernelLine) {
  const std::string script = IpxeScript({.kernel = "http://images.example/pxe/abc/vmlinuz",
                                         .initrd = "http://images.example/pxe/abc/initrd",
                                         .rootfs = "http://images.example/rootfs/xyz/rootfs.img"},
                                        "ip=dhcp");
  EXPECT_THAT(script, HasSubstr("#!ipxe\n"));
  EXPECT_THAT(script, HasSubstr("initrd --name initrd http://images.example/pxe/abc/initrd\n"));
  EXPECT_THAT(script,
              HasSubstr("\nkernel http://images.example/pxe/abc/vmlinuz initrd=initrd "
                        "coreos.live.rootfs_url=http://images.example/rootfs/xyz/rootfs.img "
                        "ignition.firstboot ignition.platform.id=metal ip=dhcp\nboot\n"));
}

}  // namespace
}  // namespace assisted::image
