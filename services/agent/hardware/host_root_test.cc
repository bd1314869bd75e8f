// File: services/agent/hardware/host_root_test.cc

#include "services/agent/hardware/host_root.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::agent::hardware {
namespace {

namespace fs = std::filesystem;
using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class HostRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    base_ = fs::path(tmp != nullptr ? tmp : "/tmp") /
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(base_);
    root_dir_ = base_ / "root";
    fs::create_directories(root_dir_ / "sys/devices/virtual/net/bond0");
    fs::create_directories(root_dir_ / "sys/class/net");
    Write("sys/devices/virtual/net/bond0/mtu", " 9000\n");
    fs::create_directory_symlink("../../devices/virtual/net/bond0",
                                 root_dir_ / "sys/class/net/bond0");
    // Outside the root: must never be read through a link.
    std::ofstream(base_ / "secret") << "outside";
  }

  void Write(const std::string& path, const std::string& content) {
    fs::create_directories((root_dir_ / path).parent_path());
    std::ofstream(root_dir_ / path, std::ios::binary) << content;
  }

  void Link(const std::string& target, const std::string& path) {
    fs::create_directories((root_dir_ / path).parent_path());
    fs::create_symlink(target, root_dir_ / path);
  }

  HostRoot Root() const { return HostRoot(root_dir_.string()); }

  fs::path base_;
  fs::path root_dir_;
};

TEST_F(HostRootTest, ReadsFilesThroughRelativeLinks) {
  EXPECT_THAT(Root().ReadFile("sys/class/net/bond0/mtu"), IsOkAndHolds(" 9000\n"));
  EXPECT_THAT(Root().ReadTrimmed("/sys/class/net/bond0/mtu"), IsOkAndHolds("9000"));
  EXPECT_THAT(Root().Resolve("sys/class/net/bond0"),
              IsOkAndHolds("/sys/devices/virtual/net/bond0"));
  EXPECT_THAT(Root().ReadLink("sys/class/net/bond0"),
              IsOkAndHolds("../../devices/virtual/net/bond0"));
}

TEST_F(HostRootTest, MissingFilesAreNotFound) {
  EXPECT_THAT(Root().ReadFile("proc/cpuinfo"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(Root().ListDir("sys/block"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(Root().ReadFile("sys/class/net/bond0/mtu/x"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_FALSE(Root().Exists("sys/firmware/efi"));
  EXPECT_TRUE(Root().Exists("sys/class/net/bond0/mtu"));
}

TEST_F(HostRootTest, AbsoluteLinksStartAgainAtTheRoot) {
  Write("usr/share/zoneinfo/UTC", "TZif");
  Link("/usr/share/zoneinfo/UTC", "etc/localtime");
  EXPECT_THAT(Root().ReadFile("etc/localtime"), IsOkAndHolds("TZif"));
  EXPECT_THAT(Root().Resolve("etc/localtime"), IsOkAndHolds("/usr/share/zoneinfo/UTC"));
}

TEST_F(HostRootTest, NeverFollowsALinkOutOfTheRoot) {
  Link("../../secret", "etc/escape");
  EXPECT_THAT(Root().ReadFile("etc/escape"),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("leaves the root")));
  EXPECT_THAT(Root().ReadFile("../secret"), StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_FALSE(Root().Exists("etc/escape"));
  // The link itself may still be inspected.
  EXPECT_THAT(Root().ReadLink("etc/escape"), IsOkAndHolds("../../secret"));
}

TEST_F(HostRootTest, LinkLoopsEndWithAnError) {
  Link("b", "loop/a");
  Link("a", "loop/b");
  EXPECT_THAT(Root().ReadFile("loop/a"), StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST_F(HostRootTest, RefusesOversizedFilesButReadsPrefixes) {
  Write("dev/sda", std::string(5000, 'x'));
  EXPECT_THAT(Root().ReadFile("dev/sda", 4096), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(Root().ReadFile("dev/sda", 5000), IsOk());
  absl::StatusOr<std::string> head = Root().ReadPrefix("dev/sda", 512);
  ASSERT_THAT(head, IsOk());
  EXPECT_EQ(head->size(), 512u);
  EXPECT_THAT(Root().ReadPrefix("sys/class/net/bond0/mtu", 512), IsOkAndHolds(" 9000\n"));
}

TEST_F(HostRootTest, RefusesDirectoriesAndFifos) {
  ASSERT_EQ(mkfifo((root_dir_ / "fifo").c_str(), 0600), 0);
  EXPECT_THAT(Root().ReadFile("fifo"), StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(Root().ReadFile("sys"), StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST_F(HostRootTest, ListsDirectoriesSortedThroughLinks) {
  Write("sys/devices/virtual/net/bond0/address", "aa:bb:cc:dd:ee:ff\n");
  EXPECT_THAT(Root().ListDir("sys/class/net/bond0"), IsOkAndHolds(ElementsAre("address", "mtu")));
  EXPECT_THAT(Root().ListDir("sys/class/net/bond0/mtu"), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(HostRootTest, ReadLinkOfAFileIsAnError) {
  EXPECT_THAT(Root().ReadLink("sys/devices/virtual/net/bond0/mtu"),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(Root().ReadLink("nothing/here"), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(HostRootTest, AMissingRootReadsAsEmpty) {
  HostRoot root((base_ / "does-not-exist").string());
  EXPECT_THAT(root.ReadFile("proc/meminfo"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(root.ListDir(""), StatusIs(absl::StatusCode::kNotFound));
}

TEST(HostRoot, NormalisesTheRootPath) {
  EXPECT_EQ(HostRoot().root(), "/");
  EXPECT_EQ(HostRoot("").root(), "/");
  EXPECT_EQ(HostRoot("/host///").root(), "/host");
}

}  // namespace
}  // namespace assisted::agent::hardware
