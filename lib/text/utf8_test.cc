#include "lib/text/utf8.h"

#include <string>

#include "gtest/gtest.h"

namespace assisted::text {
namespace {

TEST(Utf8, AcceptsEveryWellFormedSequenceLength) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF, the last code point
}

TEST(Utf8, RefusesWhatRfc3629Forbids) {
  for (const char* bad : {"a\xFF", "\x80", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80",
                          "\xF4\x90\x80\x80", "\xE2\x82", "\xC3", "\xF8\x88\x80\x80\x80"}) {
    EXPECT_FALSE(IsValidUtf8(bad)) << bad;
    EXPECT_FALSE(IsPrintableUtf8(bad)) << bad;
  }
}

TEST(Utf8, ControlCharactersAreNotPrintable) {
  EXPECT_TRUE(IsPrintableUtf8("José Ørsted 用户"));
  for (const std::string& bad : {std::string("a\0b", 3), std::string("line\nbreak"),
                                 std::string("del\x7F"), std::string("c1\xC2\x85")}) {
    EXPECT_TRUE(IsValidUtf8(bad));
    EXPECT_FALSE(IsPrintableUtf8(bad)) << bad;
  }
}

TEST(Utf8, NextCodePointDecodesAndAdvances) {
  const absl::string_view text = "\xC3\xA9x";
  size_t pos = 0;
  uint32_t code_point = 0;
  ASSERT_TRUE(NextCodePoint(text, &pos, &code_point));
  EXPECT_EQ(code_point, 0xE9u);
  EXPECT_EQ(pos, 2u);
  ASSERT_TRUE(NextCodePoint(text, &pos, &code_point));
  EXPECT_EQ(code_point, static_cast<uint32_t>('x'));
  EXPECT_EQ(pos, 3u);
}

}  // namespace
}  // namespace assisted::text
