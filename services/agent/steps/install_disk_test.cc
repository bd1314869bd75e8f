#include "services/agent/steps/install_disk.h"

#include <fcntl.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/agent/steps/test_util.h"
#include "services/agent/steps/unique_fd.h"

namespace assisted::agent::steps {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kMiB = 1 << 20;

// Runs a shell command line; the test's fixtures come from the tools a user would use
// (sfdisk, mkfs.ext4), so the code under test is checked against them, not against itself.
process::CommandResult Shell(const std::string& line) {
  process::LocalProcessRunner runner;
  absl::StatusOr<process::CommandResult> result = runner.Run({.argv = {"sh", "-c", line}});
  EXPECT_THAT(result, IsOk()) << line;
  EXPECT_EQ(result->exit_code, 0) << line << "\n" << result->stdout_data << result->stderr_data;
  return result.ok() ? *result : process::CommandResult{};
}

class InstallDiskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* tool : {"sfdisk", "mkfs.ext4", "debugfs", "e2fsck"}) {
      if (Shell(absl::StrCat("command -v ", tool, " || echo missing")).stdout_data == "missing\n") {
        GTEST_SKIP() << tool << " is missing (packages fdisk, e2fsprogs)";
      }
    }
    dir_ = ::testing::TempDir() + "/install-disk";
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    image_ = dir_ + "/os.img";
    ASSERT_THAT(testing::MakeOsDiskImage(image_, "root=LABEL=root rw quiet"), IsOk());
  }

  // The image written at the start of a `bytes` disk, as the install step streams it.
  std::string DiskWithImage(int64_t bytes) {
    const std::string disk = dir_ + "/disk.img";
    Shell(absl::StrCat("cp ", image_, " ", disk, " && truncate -s ", bytes, " ", disk));
    return disk;
  }

  std::string dir_, image_;
  process::LocalProcessRunner processes_;
};

TEST_F(InstallDiskTest, ReadsThePartitionsOfTheImage) {
  UniqueFd fd(open(image_.c_str(), O_RDONLY));
  absl::StatusOr<std::vector<GptPartition>> parts = ReadGpt(fd.get());
  ASSERT_THAT(parts, IsOk());
  ASSERT_EQ(parts->size(), 4u);
  EXPECT_EQ((*parts)[2].name, "boot");
  EXPECT_EQ((*parts)[2].number, 3);
  EXPECT_EQ((*parts)[2].offset(), testing::kOsDiskImageBootOffset);
  EXPECT_EQ((*parts)[2].bytes(), 16 * kMiB);
}

TEST_F(InstallDiskTest, MovesTheBackupGptToTheEndOfALargerDisk) {
  const std::string disk = DiskWithImage(256 * kMiB);
  UniqueFd fd(open(disk.c_str(), O_RDWR));
  EXPECT_THAT(CheckGpt(fd.get()), StatusIs(absl::StatusCode::kDataLoss));
  ASSERT_THAT(RelocateBackupGpt(fd.get()), IsOk());
  EXPECT_THAT(CheckGpt(fd.get()), IsOk());
  // sfdisk agrees: no complaint, and the usable area reaches the end of the disk.
  const process::CommandResult verify = Shell(absl::StrCat("sfdisk --verify ", disk, " 2>&1"));
  EXPECT_THAT(verify.stdout_data, Not(HasSubstr("GPT")));
  const nlohmann::json table =
      nlohmann::json::parse(Shell(absl::StrCat("sfdisk -J ", disk)).stdout_data)["partitiontable"];
  EXPECT_EQ(table["lastlba"], 256 * kMiB / 512 - 34) << table.dump();
  EXPECT_EQ(table["partitions"].size(), 4u);
  // Idempotent.
  ASSERT_THAT(RelocateBackupGpt(fd.get()), IsOk());
  EXPECT_THAT(CheckGpt(fd.get()), IsOk());
}

TEST_F(InstallDiskTest, RefusesADiskSmallerThanTheImagesPartitions) {
  const std::string disk = DiskWithImage(40 * kMiB);  // root ends at 47 MiB
  UniqueFd fd(open(disk.c_str(), O_RDWR));
  EXPECT_THAT(RelocateBackupGpt(fd.get()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("too small")));
}

TEST_F(InstallDiskTest, DamagedOrMissingGptIsNamed) {
  const std::string disk = DiskWithImage(64 * kMiB);
  {
    UniqueFd fd(open(disk.c_str(), O_RDWR));
    ASSERT_EQ(pwrite(fd.get(), "X", 1, 512 + 40), 1);  // inside the primary header
    EXPECT_THAT(ReadGpt(fd.get()), StatusIs(absl::StatusCode::kDataLoss, HasSubstr("CRC")));
  }
  const std::string blank = dir_ + "/blank.img";
  Shell("truncate -s 4M " + blank);
  UniqueFd fd(open(blank.c_str(), O_RDONLY));
  EXPECT_THAT(ReadGpt(fd.get()), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(BootPartition::Find(blank, processes_), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(InstallDiskTest, WritesFilesIntoTheBootFileSystemWithoutMounting) {
  const std::string disk = DiskWithImage(128 * kMiB);
  {
    UniqueFd fd(open(disk.c_str(), O_RDWR));
    ASSERT_THAT(RelocateBackupGpt(fd.get()), IsOk());
  }
  absl::StatusOr<BootPartition> boot = BootPartition::Find(disk, processes_);
  ASSERT_THAT(boot, IsOk());
  const std::string ignition = R"({"ignition":{"version":"3.2.0"}})";
  ASSERT_THAT(boot->WriteFile("ignition/config.ign", ignition, 0600), IsOk());
  // Replacing works too (a retried install).
  ASSERT_THAT(boot->WriteFile("ignition/config.ign", ignition + "\n", 0600), IsOk());
  EXPECT_THAT(boot->ReadFile("ignition/config.ign"), IsOkAndHolds(ignition + "\n"));
  EXPECT_THAT(boot->ReadFile("kargs.cfg"),
              IsOkAndHolds("set kargs=\"root=LABEL=root rw quiet\"\n"));
  EXPECT_THAT(boot->ReadFile("missing.cfg"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(boot->WriteFile("../escape", "x"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(boot->WriteFile("a b", "x"), StatusIs(absl::StatusCode::kInvalidArgument));

  // What the installed OS sees: e2fsck finds the file system clean, the Ignition readable by
  // root only, where the initramfs looks (/boot/ignition/config.ign once mounted).
  const std::string fs = absl::StrCat(disk, "?offset=", testing::kOsDiskImageBootOffset);
  Shell(absl::StrCat("e2fsck -fn '", fs, "'"));
  const process::CommandResult stat =
      Shell(absl::StrCat("debugfs -R 'stat ignition/config.ign' '", fs, "'"));
  EXPECT_THAT(stat.stdout_data, HasSubstr("Mode:  0600"));
  EXPECT_THAT(stat.stdout_data, HasSubstr("User:     0"));
}

TEST(EditKargsTest, AppendsAndDeletesLikeCoreosInstaller) {
  EXPECT_THAT(
      EditKargs("# x\nset kargs=\"root=LABEL=root rw quiet\"\n", {"ip=dhcp", "a=b"}, {"quiet"}),
      IsOkAndHolds("# x\nset kargs=\"root=LABEL=root rw ip=dhcp a=b\"\n"));
  EXPECT_THAT(EditKargs("set kargs=\"rw\"\n", {"bad\"quote"}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(EditKargs("linux /vmlinuz\n", {"a"}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no kargs line")));
}

}  // namespace
}  // namespace assisted::agent::steps
