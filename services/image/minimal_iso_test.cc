#include "services/image/minimal_iso.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/iso/embed.h"
#include "lib/iso/iso9660.h"
#include "lib/iso/test_image.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"

namespace assisted::image {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kRamdisk[] = "/images/assisted_installer_custom.img";

// "<head><area of `size`># COREOS_KARG_EMBED_AREA\n<tail>" and the area's offset.
std::pair<std::string, uint64_t> Config(const std::string& head, const std::string& kargs,
                                        const std::string& tail, size_t size = 64) {
  std::string area = kargs + "\n";
  area.resize(size, '#');
  return {head + area + "# COREOS_KARG_EMBED_AREA\n" + tail, head.size()};
}

TEST(MinimalIso, DropsOnlyTheLiveIsoArgument) {
  EXPECT_EQ(WithoutLiveIsoKarg("coreos.liveiso=rhcos-416 ignition.firstboot  a=b"),
            "ignition.firstboot a=b");
  EXPECT_EQ(WithoutLiveIsoKarg("ignition.firstboot"), "ignition.firstboot");
}

TEST(MinimalIso, GrubLoadsTheRamdiskAndTheAreaKeepsItsPlace) {
  const auto [text, offset] =
      Config("menuentry {\n\tlinux /images/pxeboot/vmlinuz ", "coreos.liveiso=x ignition.firstboot",
             "\tinitrd /images/pxeboot/initrd.img /images/ignition.img\n}\n");
  auto edited = EditBootConfig("EFI/redhat/grub.cfg", text, false, offset, 64, "ignition.firstboot",
                               "\n", '#');
  ASSERT_THAT(edited, IsOk());
  EXPECT_EQ(edited->kargs_offset, offset);
  EXPECT_THAT(edited->text, HasSubstr(absl::StrCat("/images/ignition.img ", kRamdisk, "\n}\n")));
  std::string area = "ignition.firstboot\n";
  area.resize(64, '#');
  EXPECT_EQ(edited->text.substr(offset, 64), area);
  EXPECT_THAT(edited->text, Not(HasSubstr("coreos.liveiso")));
}

TEST(MinimalIso, IsolinuxInitrdListGrowsAndTheAreaMovesWithIt) {
  const auto [text, offset] =
      Config("label linux\n  append initrd=/images/pxeboot/initrd.img,/images/ignition.img ",
             "coreos.liveiso=x", "");
  auto edited =
      EditBootConfig("isolinux/isolinux.cfg", text, true, offset, 64, "rd.debug", "\n", '#');
  ASSERT_THAT(edited, IsOk());
  const std::string added = absl::StrCat(",", kRamdisk);
  EXPECT_EQ(edited->kargs_offset, offset + added.size());
  EXPECT_THAT(edited->text, HasSubstr(absl::StrCat("/images/ignition.img", added, " rd.debug\n#")));
  EXPECT_EQ(edited->text.substr(edited->kargs_offset, 9), "rd.debug\n");
}

TEST(MinimalIso, RefusesConfigsItCannotEdit) {
  const auto [text, offset] = Config("linux /vmlinuz ", "a", "");
  EXPECT_THAT(EditBootConfig("grub.cfg", text, false, offset, 64, "a", "\n", '#'),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no initrd line")));
  EXPECT_THAT(EditBootConfig("grub.cfg", text, false, offset, 64, std::string(64, 'k'), "\n", '#'),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("do not fit")));
  EXPECT_THAT(EditBootConfig("grub.cfg", text, false, text.size(), 64, "a", "\n", '#'),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("outside the file")));
}

TEST(MinimalIso, DerivedFromATestIsoWithoutItsRootfs) {
  const std::string dir = ::testing::TempDir() + "/minimal";
  std::filesystem::create_directories(dir);
  process::LocalProcessRunner runner;
  ASSERT_THAT(
      iso::BuildTestImage(runner, {.rootfs_bytes = 8 << 20}, dir + "/build", dir + "/full.iso"),
      IsOk());
  ASSERT_THAT(BuildMinimalIso(runner, dir + "/full.iso", dir + "/work", dir + "/minimal.iso"),
              IsOk());
  EXPECT_LT(std::filesystem::file_size(dir + "/minimal.iso") + (6 << 20),
            std::filesystem::file_size(dir + "/full.iso"));

  auto listed = runner.Run({.argv = {"xorriso", "-indev", dir + "/minimal.iso", "-find", "/",
                                     "-type", "f", "-exec", "report_lba", "--"}});
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(listed->stdout_data, Not(HasSubstr("rootfs.img")));
  EXPECT_THAT(listed->stdout_data, HasSubstr("1048576 , '/images/assisted_installer_custom.img'"));
  EXPECT_THAT(listed->stdout_data, HasSubstr("'/images/pxeboot/initrd.img'"));

  const int fd = open((dir + "/minimal.iso").c_str(), O_RDONLY | O_CLOEXEC);
  auto reader = iso::IsoReader::Open(fd, "minimal.iso");
  ASSERT_THAT(reader, IsOk());
  EXPECT_EQ(reader->volume_id(), "fedora-coreos-test");
  auto areas = iso::FindEmbedAreas(*reader);
  ASSERT_THAT(areas, IsOk());
  EXPECT_EQ(areas->default_kargs, "ignition.firstboot ignition.platform.id=metal");
  ASSERT_EQ(areas->kargs.size(), 2u);
  for (const iso::KargsArea& area : areas->kargs) {
    // kargs.json's shifted offsets land exactly on the rewritten areas.
    auto text = reader->ReadAt(area.offset, area.size + 24);
    ASSERT_THAT(text, IsOk());
    EXPECT_EQ(text->substr(0, areas->default_kargs.size() + 1), areas->default_kargs + "\n")
        << area.path;
    EXPECT_EQ(text->substr(area.size), "# COREOS_KARG_EMBED_AREA") << area.path;
  }
  auto grub = reader->ReadFile("EFI/redhat/grub.cfg");
  ASSERT_THAT(grub, IsOk());
  EXPECT_THAT(*grub, HasSubstr(absl::StrCat("/images/ignition.img ", kRamdisk, "\n")));
  auto isolinux = reader->ReadFile("isolinux/isolinux.cfg");
  ASSERT_THAT(isolinux, IsOk());
  EXPECT_THAT(*isolinux, HasSubstr(absl::StrCat("/images/ignition.img,", kRamdisk, " ")));
  close(fd);
}

TEST(MinimalIso, AMissingFullIsoIsNotFound) {
  const std::string dir = ::testing::TempDir() + "/minimal-bad";
  std::filesystem::create_directories(dir);
  process::LocalProcessRunner runner;
  EXPECT_THAT(BuildMinimalIso(runner, dir + "/missing.iso", dir + "/work", dir + "/out.iso"),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_FALSE(std::filesystem::exists(dir + "/out.iso"));
}

}  // namespace
}  // namespace assisted::image
