#include "services/gateway/tar.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::gateway {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;

TEST(Tar, WritesUstarHeadersAndPaddedContent) {
  absl::StatusOr<std::string> archive =
      Tar({{"host0/eno1.nmconnection", 0600, "[connection]\n"}, {"empty", 0644, ""}}, 1700000000);
  ASSERT_THAT(archive, IsOk());
  // Two headers, one data block, two end blocks.
  ASSERT_EQ(archive->size(), 5u * 512);
  EXPECT_EQ(archive->substr(0, 23), "host0/eno1.nmconnection");
  EXPECT_EQ(archive->substr(257, 5), "ustar");
  EXPECT_EQ(archive->substr(100, 7), "0000600");
  EXPECT_EQ(archive->substr(124, 11), "00000000015");  // 13 bytes
  EXPECT_EQ(archive->substr(512, 13), "[connection]\n");
  // The checksum is the byte sum with the checksum field read as spaces.
  unsigned sum = 0;
  for (int i = 0; i < 512; ++i) sum += (i >= 148 && i < 156) ? ' ' : (unsigned char)(*archive)[i];
  EXPECT_EQ(std::stoul(archive->substr(148, 6), nullptr, 8), sum);
  EXPECT_EQ(archive->substr(1024, 5), "empty");
}

TEST(Tar, PiecesWrittenOneByOneMakeTheSameArchive) {
  const std::string content(1000, 'x');
  absl::StatusOr<std::string> whole = Tar({{"a.log", 0644, content}}, 1700000000);
  absl::StatusOr<std::string> header = TarHeader("a.log", 0644, content.size(), 1700000000);
  ASSERT_THAT(whole, IsOk());
  ASSERT_THAT(header, IsOk());
  EXPECT_EQ(*whole, *header + content + TarPadding(content.size()) + TarEnd());
  EXPECT_EQ(TarPadding(1024), "");
  EXPECT_THAT(TarHeader("big", 0644, uint64_t{1} << 33, 0),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(Tar, TimesFitTheirFieldAtBothEnds) {
  absl::StatusOr<std::string> before = TarHeader("a", 0644, 0, -5);
  absl::StatusOr<std::string> after = TarHeader("a", 0644, 0, int64_t{1} << 40);
  ASSERT_THAT(before, IsOk());
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(before->substr(136, 12), std::string("00000000000") + '\0');
  EXPECT_EQ(after->substr(136, 12), std::string("77777777777") + '\0');
}

TEST(Tar, RefusesUnsafePaths) {
  for (const std::string& path :
       std::vector<std::string>{"", "/etc/passwd", "../x", std::string(120, 'a')}) {
    EXPECT_THAT(Tar({{path, 0644, "x"}}, 0), StatusIs(absl::StatusCode::kInvalidArgument)) << path;
  }
}

}  // namespace
}  // namespace assisted::gateway
