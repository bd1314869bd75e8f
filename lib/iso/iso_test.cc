// The embed areas of a CoreOS-like live ISO, checked against the real tools: xorriso for the
// ISO9660 layout and extraction, the system cpio for the archive.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/iso/cpio.h"
#include "lib/iso/embed.h"
#include "lib/iso/iso9660.h"
#include "lib/iso/test_image.h"
#include "lib/testing/status_matchers.h"

namespace assisted::iso {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kConfig[] = R"({"ignition":{"version":"3.2.0"}})";

class IsoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/iso-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir_);
    image_ = dir_ + "/base.iso";
  }

  void Build(TestImageOptions options = {}) {
    ASSERT_THAT(BuildTestImage(runner_, options, dir_, image_), IsOk());
    fd_ = open(image_.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd_, 0);
  }

  void TearDown() override {
    if (fd_ >= 0) close(fd_);
  }

  process::CommandResult Run(std::vector<std::string> argv, const std::string& cwd = "") {
    auto result = runner_.Run({.argv = argv, .working_dir = cwd});
    EXPECT_THAT(result, IsOk());
    return result.ok() ? *result : process::CommandResult{};
  }

  // xorriso's own idea of where a file lies: byte offset and size.
  Extent XorrisoExtent(const std::string& image, const std::string& path) {
    const auto result =
        Run({"xorriso", "-indev", image, "-find", path, "-exec", "report_lba", "--"});
    // "File data lba:  0 ,      35 ,       1 ,    1234 , '/coreos/kargs.json'"
    std::smatch match;
    const std::regex line(R"(File data lba:\s*\d+\s*,\s*(\d+)\s*,\s*\d+\s*,\s*(\d+)\s*,)");
    Extent extent;
    if (std::regex_search(result.stdout_data, match, line)) {
      extent.offset = std::stoull(match[1]) * kSectorSize;
      extent.size = std::stoull(match[2]);
    }
    return extent;
  }

  // The whole image with `patches` applied, written to `path`.
  void Materialise(const IsoReader& iso, const std::vector<Patch>& patches,
                   const std::string& path) {
    auto all = ReadPatched(iso, patches, 0, iso.image_size());
    ASSERT_THAT(all, IsOk());
    std::ofstream(path, std::ios::binary).write(all->data(), all->size());
  }

  process::LocalProcessRunner runner_;
  std::string dir_;
  std::string image_;
  int fd_ = -1;
};

TEST_F(IsoTest, FindsFilesWhereXorrisoSaysTheyAre) {
  Build();
  auto iso = IsoReader::Open(fd_, image_);
  ASSERT_THAT(iso, IsOk());
  EXPECT_EQ(iso->volume_id(), "fedora-coreos-test");
  for (const char* path : {"images/ignition.img", "coreos/kargs.json", "coreos/igninfo.json",
                           "EFI/redhat/grub.cfg", "images/pxeboot/initrd.img"}) {
    auto extent = iso->Find(path);
    ASSERT_THAT(extent, IsOk()) << path;
    const Extent expected = XorrisoExtent(image_, std::string("/") + path);
    EXPECT_EQ(extent->offset, expected.offset) << path;
    EXPECT_EQ(extent->size, expected.size) << path;
  }
  EXPECT_THAT(iso->Find("images/missing.img"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(iso->Find("images"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(IsoTest, FindsFilesByTheirShortNamesWithoutRockRidge) {
  Build({.rock_ridge = false});
  auto iso = IsoReader::Open(fd_, image_);
  ASSERT_THAT(iso, IsOk());
  auto areas = FindEmbedAreas(*iso);
  ASSERT_THAT(areas, IsOk());
  EXPECT_EQ(areas->ignition.size, 256u * 1024);
  EXPECT_EQ(areas->kargs.size(), 2u);
}

TEST_F(IsoTest, RefusesFilesThatAreNotIsoImages) {
  const std::string path = dir_ + "/not.iso";
  std::ofstream(path) << std::string(100000, 'x');
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_THAT(IsoReader::Open(fd, path),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an ISO9660 image")));
  close(fd);
}

TEST_F(IsoTest, LocatesTheIgnitionAndKargsAreas) {
  Build();
  auto iso = IsoReader::Open(fd_, image_);
  auto areas = FindEmbedAreas(*iso);
  ASSERT_THAT(areas, IsOk());
  EXPECT_EQ(areas->ignition.size, 256u * 1024);
  EXPECT_EQ(areas->ignition.offset, XorrisoExtent(image_, "/images/ignition.img").offset);
  ASSERT_EQ(areas->kargs.size(), 2u);
  EXPECT_EQ(areas->default_kargs, TestImageOptions().default_kargs);
  for (const KargsArea& area : areas->kargs) {
    auto bytes = iso->ReadAt(area.offset, area.size);
    ASSERT_THAT(bytes, IsOk());
    EXPECT_EQ(bytes->substr(0, areas->default_kargs.size()), areas->default_kargs);
    EXPECT_EQ(bytes->back(), '#');
  }
}

TEST_F(IsoTest, PatchedImageIsTheBaseOutsideTheAreasAndToolsReadItsContent) {
  Build();
  auto iso = IsoReader::Open(fd_, image_);
  auto areas = FindEmbedAreas(*iso);
  ASSERT_THAT(areas, IsOk());
  auto archive = IgnitionArchive(kConfig);
  ASSERT_THAT(archive, IsOk());
  auto ignition = IgnitionPatch(areas->ignition, *archive);
  ASSERT_THAT(ignition, IsOk());
  auto kargs = KargsPatches(*areas, "ip=dhcp rd.neednet=1");
  ASSERT_THAT(kargs, IsOk());
  std::vector<Patch> patches = *kargs;
  patches.push_back(*ignition);
  const std::string patched = dir_ + "/patched.iso";
  Materialise(*iso, patches, patched);

  // Byte-identical outside the areas, same length.
  const std::string base_bytes = ReadFile(image_, "test file").value_or("");
  std::string patched_bytes = ReadFile(patched, "test file").value_or("");
  ASSERT_EQ(patched_bytes.size(), base_bytes.size());
  for (const Patch& patch : patches) {
    patched_bytes.replace(patch.offset, patch.bytes.size(),
                          base_bytes.substr(patch.offset, patch.bytes.size()));
  }
  EXPECT_TRUE(patched_bytes == base_bytes);

  // xorriso still lists and extracts it.
  const auto listing = Run({"xorriso", "-indev", patched, "-ls", "/images"});
  EXPECT_THAT(listing.stdout_data, HasSubstr("ignition.img"));
  const std::string extracted = dir_ + "/extracted";
  std::filesystem::create_directories(extracted);
  Run({"xorriso", "-osirrox", "on", "-indev", patched, "-extract", "/images/ignition.img",
       extracted + "/ignition.img", "-extract", "/EFI/redhat/grub.cfg", extracted + "/grub.cfg",
       "-extract", "/isolinux/isolinux.cfg", extracted + "/isolinux.cfg"});

  // The embed area decompresses with the system tools to our config.ign.
  auto cpio = Gunzip(ReadFile(extracted + "/ignition.img", "test file").value_or(""));
  ASSERT_THAT(cpio, IsOk());
  std::ofstream(extracted + "/ignition.cpio", std::ios::binary) << *cpio;
  const auto unpacked =
      Run({"sh", "-c", "cpio -idm --quiet < ignition.cpio && cat config.ign"}, extracted);
  EXPECT_EQ(unpacked.exit_code, 0) << unpacked.stderr_data;
  EXPECT_EQ(unpacked.stdout_data, kConfig);

  // ...and with our own reader, which is how a simulated host boots a downloaded image.
  const int patched_fd = open(patched.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(patched_fd, 0);
  auto patched_iso = IsoReader::Open(patched_fd, patched);
  ASSERT_THAT(patched_iso, IsOk());
  EXPECT_THAT(ReadEmbeddedIgnition(*patched_iso), IsOkAndHolds(std::string(kConfig)));
  close(patched_fd);
  EXPECT_THAT(ReadEmbeddedIgnition(*iso), StatusIs(absl::StatusCode::kNotFound));

  // The kargs appear in both boot loader configs with their padding and marker kept.
  for (const char* config : {"grub.cfg", "isolinux.cfg"}) {
    const std::string text = ReadFile(extracted + "/" + config, "test file").value_or("");
    EXPECT_THAT(text, HasSubstr("ignition.platform.id=metal ip=dhcp rd.neednet=1\n###")) << config;
    EXPECT_THAT(text, HasSubstr("#### COREOS_KARG_EMBED_AREA")) << config;
    EXPECT_EQ(text.size(),
              XorrisoExtent(image_, std::string("/") + (std::string(config) == "grub.cfg"
                                                            ? "EFI/redhat/grub.cfg"
                                                            : "isolinux/isolinux.cfg"))
                  .size);
  }
}

TEST_F(IsoTest, RefusesContentLargerThanItsArea) {
  EXPECT_THAT(IgnitionPatch({.offset = 0, .size = 10}, std::string(11, 'x')),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       "content length (11) exceeds embed area size (10)"));
  EmbedAreas areas;
  areas.default_kargs = "a";
  areas.kargs.push_back({.path = "grub.cfg", .offset = 0, .size = 8});
  EXPECT_THAT(KargsPatches(areas, "012345"),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       "kernel arguments need 9 bytes with their line end; the area in grub.cfg "
                       "has 8"));
  EXPECT_THAT(KargsPatches(areas, "01234"), IsOk());
  EXPECT_THAT(KargsPatches(EmbedAreas(), "x"), StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST_F(IsoTest, CpioArchivesUnpackWithTheSystemCpio) {
  CpioWriter writer;
  writer.AddDirectory("etc");
  writer.AddFile("etc/hello", "hello\n", 0600);
  writer.AddFile("empty", "", 0644);
  std::ofstream(dir_ + "/test.cpio", std::ios::binary) << writer.Finish();
  const auto listing = Run({"sh", "-c", "cpio -itv < test.cpio"}, dir_);
  EXPECT_EQ(listing.exit_code, 0) << listing.stderr_data;
  EXPECT_THAT(listing.stdout_data, HasSubstr("-rw-------"));
  EXPECT_THAT(listing.stdout_data, HasSubstr("etc/hello"));
  EXPECT_THAT(listing.stdout_data, HasSubstr("empty"));
}

TEST_F(IsoTest, ReadCpioReturnsWhatTheWriterWrote) {
  CpioWriter writer;
  writer.AddDirectory("etc");
  writer.AddFile("etc/hello", "hello\n", 0600);
  writer.AddSymlink("link", "etc/hello");
  const std::string archive = writer.Finish();
  auto members = ReadCpio(archive);
  ASSERT_THAT(members, IsOk());
  ASSERT_EQ(members->size(), 3u);
  EXPECT_EQ((*members)[0].path, "etc");
  EXPECT_EQ((*members)[0].mode, 040755u);
  EXPECT_EQ((*members)[1].path, "etc/hello");
  EXPECT_EQ((*members)[1].mode, 0100600u);
  EXPECT_EQ((*members)[1].content, "hello\n");
  EXPECT_EQ((*members)[2].content, "etc/hello");

  // Every truncation and a corrupted header are errors, never reads past the end.
  for (size_t length = 1; length < archive.size(); length += 7) {
    auto truncated = ReadCpio(archive.substr(0, length));
    if (!truncated.ok()) {
      EXPECT_THAT(truncated, StatusIs(absl::StatusCode::kInvalidArgument));
    }
  }
  std::string corrupt = archive;
  corrupt[20] = 'z';
  EXPECT_THAT(ReadCpio(corrupt),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not hexadecimal")));
  EXPECT_THAT(ReadCpio("garbage"), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace assisted::iso
