#include "lib/iso/layout.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::iso {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;

// Materialises a layout over a base made of 'b' bytes, to compare with expectations.
std::string Render(const std::vector<Piece>& pieces) {
  std::string out;
  for (const Piece& piece : pieces) {
    out += piece.patch == nullptr ? std::string(piece.length, 'b')
                                  : piece.patch->bytes.substr(piece.patch_offset, piece.length);
  }
  return out;
}

TEST(Layout, InterleavesBaseRunsAndPatchesInOrder) {
  const std::vector<Patch> patches = {{6, "PP"}, {0, "Q"}, {9, "R"}};
  auto pieces = Layout(10, patches);
  ASSERT_THAT(pieces, IsOk());
  EXPECT_EQ(Render(*pieces), "QbbbbbPPbR");
  EXPECT_EQ(pieces->size(), 5u);
  uint64_t at = 0;
  for (const Piece& piece : *pieces) {
    EXPECT_EQ(piece.offset, at);
    at += piece.length;
  }
}

TEST(Layout, WithoutPatchesIsOneBaseRun) {
  auto pieces = Layout(4096, {});
  ASSERT_THAT(pieces, IsOk());
  ASSERT_EQ(pieces->size(), 1u);
  EXPECT_EQ((*pieces)[0].length, 4096u);
}

TEST(Layout, RefusesPatchesOutsideTheImageOrOverlapping) {
  EXPECT_THAT(Layout(10, {{8, "xyz"}}), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Layout(10, {{2, "xyz"}, {4, "a"}}), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ContentDigest, NamesTheContent) {
  const std::string a = ContentDigest("base1", {{0, "x"}});
  EXPECT_EQ(a, ContentDigest("base1", {{0, "x"}}));
  EXPECT_NE(a, ContentDigest("base2", {{0, "x"}}));
  EXPECT_NE(a, ContentDigest("base1", {{1, "x"}}));
  EXPECT_NE(a, ContentDigest("base1", {{0, "y"}}));
  EXPECT_EQ(ContentDigest("b", {{0, "x"}, {5, "y"}}), ContentDigest("b", {{5, "y"}, {0, "x"}}));
}

}  // namespace
}  // namespace assisted::iso
