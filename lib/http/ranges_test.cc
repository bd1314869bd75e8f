#include "lib/http/ranges.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::http {
namespace {

using ::assisted::testing::IsOkAndHolds;

constexpr uint64_t kMax = UINT64_MAX;

struct RangeCase {
  std::string header;
  uint64_t size;
  RangeOutcome outcome;
  ByteRange range;  // for kPartial
};

std::string OutcomeName(RangeOutcome outcome) {
  switch (outcome) {
    case RangeOutcome::kIgnore:
      return "ignore";
    case RangeOutcome::kPartial:
      return "partial";
    case RangeOutcome::kUnsatisfiable:
      return "unsatisfiable";
  }
  return "?";
}

TEST(ParseRange, FollowsRfc9110ForSingleRanges) {
  constexpr auto kIgnore = RangeOutcome::kIgnore;
  constexpr auto kPartial = RangeOutcome::kPartial;
  constexpr auto kUnsatisfiable = RangeOutcome::kUnsatisfiable;
  const std::vector<RangeCase> cases = {
      // first-last
      {"bytes=0-0", 100, kPartial, {0, 0}},
      {"bytes=0-99", 100, kPartial, {0, 99}},
      {"bytes=10-19", 100, kPartial, {10, 19}},
      {"bytes=99-99", 100, kPartial, {99, 99}},
      {"bytes=50-1000", 100, kPartial, {50, 99}},  // last clamped to the end
      {"bytes=0-18446744073709551615", 100, kPartial, {0, 99}},
      {"bytes=0-99999999999999999999999", 100, kPartial, {0, 99}},  // saturates
      {"bytes=100-100", 100, kUnsatisfiable, {}},
      {"bytes=100-200", 100, kUnsatisfiable, {}},
      {"bytes=99999999999999999999999-", 100, kUnsatisfiable, {}},
      {"bytes=20-10", 100, kIgnore, {}},  // last before first: invalid, not unsatisfiable
      // first-
      {"bytes=0-", 100, kPartial, {0, 99}},
      {"bytes=42-", 100, kPartial, {42, 99}},
      {"bytes=99-", 100, kPartial, {99, 99}},
      {"bytes=100-", 100, kUnsatisfiable, {}},
      {"bytes=0-", 0, kUnsatisfiable, {}},
      // -suffix
      {"bytes=-1", 100, kPartial, {99, 99}},
      {"bytes=-10", 100, kPartial, {90, 99}},
      {"bytes=-100", 100, kPartial, {0, 99}},
      {"bytes=-1000", 100, kPartial, {0, 99}},
      {"bytes=-18446744073709551615", 100, kPartial, {0, 99}},
      {"bytes=-0", 100, kUnsatisfiable, {}},
      {"bytes=-5", 0, kIgnore, {}},  // no byte to name in Content-Range: serve the empty 200
      // large representations
      {"bytes=1073741823-", 1073741824, kPartial, {1073741823, 1073741823}},
      {"bytes=-1", kMax, kPartial, {kMax - 1, kMax - 1}},
      // spelling
      {"BYTES=1-2", 100, kPartial, {1, 2}},
      {"  bytes = 1-2  ", 100, kPartial, {1, 2}},
      {"bytes=1-2 ", 100, kPartial, {1, 2}},
      // ignored: not a single well-formed byte range
      {"", 100, kIgnore, {}},
      {"bytes", 100, kIgnore, {}},
      {"bytes=", 100, kIgnore, {}},
      {"bytes=-", 100, kIgnore, {}},
      {"bytes=1", 100, kIgnore, {}},
      {"bytes=a-b", 100, kIgnore, {}},
      {"bytes=1-b", 100, kIgnore, {}},
      {"bytes=+1-2", 100, kIgnore, {}},
      {"bytes=1--2", 100, kIgnore, {}},
      {"bytes=1 - 2", 100, kIgnore, {}},
      {"bytes=0x10-20", 100, kIgnore, {}},
      {"items=0-10", 100, kIgnore, {}},
      {"bytes=0-1,5-6", 100, kIgnore, {}},  // multiple ranges: 200 with everything
      {"bytes=0-1,", 100, kIgnore, {}},
      {"bytes=200-300,0-1", 100, kIgnore, {}},
  };
  for (const RangeCase& c : cases) {
    const RangeSelection selection = ParseRange(c.header, c.size);
    EXPECT_EQ(OutcomeName(selection.outcome), OutcomeName(c.outcome))
        << "Range: " << c.header << " size " << c.size;
    if (c.outcome == RangeOutcome::kPartial && selection.outcome == c.outcome) {
      EXPECT_EQ(selection.range.first, c.range.first) << c.header;
      EXPECT_EQ(selection.range.last, c.range.last) << c.header;
    }
  }
}

TEST(ContentRange, FormatsPartialAndUnsatisfied) {
  EXPECT_EQ(ContentRange({0, 0}, 1), "bytes 0-0/1");
  EXPECT_EQ(ContentRange({10, 1073741823}, 1073741824), "bytes 10-1073741823/1073741824");
  EXPECT_EQ(UnsatisfiedContentRange(1073741824), "bytes */1073741824");
  EXPECT_EQ(UnsatisfiedContentRange(0), "bytes */0");
}

struct DateCase {
  std::string text;
  absl::optional<int64_t> unix_seconds;
};

TEST(ParseHttpDate, AcceptsTheThreeFormsAndRejectsTheRest) {
  constexpr int64_t kRfcExample = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT
  const std::vector<DateCase> cases = {
      {"Sun, 06 Nov 1994 08:49:37 GMT", kRfcExample},
      {"Sunday, 06-Nov-94 08:49:37 GMT", kRfcExample},
      {"Sun Nov  6 08:49:37 1994", kRfcExample},
      {"Sun Nov 16 08:49:37 1994", kRfcExample + 10 * 86400},
      {"Thu, 01 Jan 1970 00:00:00 GMT", 0},
      {"Thursday, 01-Jan-70 00:00:00 GMT", 0},
      {"Saturday, 01-Jan-00 00:00:00 GMT", 946684800},  // two-digit year 00 is 2000
      {"Tue, 29 Feb 2028 12:00:00 GMT", 1835438400},    // leap day
      {"Fri, 31 Dec 2027 23:59:59 GMT", 1830297599},
      // weekday names are not cross-checked against the date
      {"Mon, 06 Nov 1994 08:49:37 GMT", kRfcExample},
      // rejected
      {"", absl::nullopt},
      {"Sun, 06 Nov 1994 08:49:37 UTC", absl::nullopt},
      {"Sun, 06 Nov 1994 08:49:37 GMT ", absl::nullopt},
      {" Sun, 06 Nov 1994 08:49:37 GMT", absl::nullopt},
      {"sun, 06 nov 1994 08:49:37 GMT", absl::nullopt},  // case-sensitive
      {"Sun, 6 Nov 1994 08:49:37 GMT", absl::nullopt},
      {"Sun, 06 Nov 94 08:49:37 GMT", absl::nullopt},
      {"Sun, 31 Feb 1994 08:49:37 GMT", absl::nullopt},
      {"Sun, 00 Nov 1994 08:49:37 GMT", absl::nullopt},
      {"Sun, 06 Nov 1994 24:00:00 GMT", absl::nullopt},
      {"Sun, 06 Nov 1994 08:60:00 GMT", absl::nullopt},
      {"Sun, 06 Foo 1994 08:49:37 GMT", absl::nullopt},
      {"Sun Nov 6 08:49:37 1994", absl::nullopt},
      {"1994-11-06T08:49:37Z", absl::nullopt},
      {"784111777", absl::nullopt},
  };
  for (const DateCase& c : cases) {
    const absl::optional<absl::Time> time = ParseHttpDate(c.text);
    ASSERT_EQ(time.has_value(), c.unix_seconds.has_value()) << "\"" << c.text << "\"";
    if (time.has_value()) {
      EXPECT_EQ(absl::ToUnixSeconds(*time), *c.unix_seconds) << c.text;
    }
  }
}

TEST(FormatHttpDate, WritesImfFixdateTruncatedToTheSecond) {
  EXPECT_EQ(FormatHttpDate(absl::FromUnixSeconds(784111777)), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(FormatHttpDate(absl::FromUnixSeconds(0)), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(FormatHttpDate(absl::FromUnixMillis(1835438400999)), "Tue, 29 Feb 2028 12:00:00 GMT");
  for (int64_t seconds :
       {int64_t{0}, int64_t{784111777}, int64_t{1700000000}, int64_t{4102444799}}) {
    EXPECT_EQ(ParseHttpDate(FormatHttpDate(absl::FromUnixSeconds(seconds))),
              absl::FromUnixSeconds(seconds));
  }
}

TEST(FormatETag, QuotesAndEscapesWhatATagCannotHold) {
  EXPECT_EQ(FormatETag("v1"), "\"v1\"");
  EXPECT_EQ(FormatETag(""), "\"\"");
  EXPECT_EQ(FormatETag("4.14-x86_64/abc"), "\"4.14-x86_64/abc\"");
  EXPECT_EQ(FormatETag("a\"b"), "\"a%22b\"");
  EXPECT_EQ(FormatETag("a b"), "\"a%20b\"");
  EXPECT_EQ(FormatETag("100%"), "\"100%25\"");
  EXPECT_EQ(FormatETag("\xc3\xa9\x7f\n"), "\"%C3%A9%7F%0A\"");
  EXPECT_NE(FormatETag("a%22b"), FormatETag("a\"b"));  // escaping stays injective
}

TEST(StrongETagMatch, NeedsTwoIdenticalStrongTags) {
  EXPECT_TRUE(StrongETagMatch("\"v1\"", "\"v1\""));
  EXPECT_FALSE(StrongETagMatch("\"v1\"", "\"v2\""));
  EXPECT_FALSE(StrongETagMatch("W/\"v1\"", "\"v1\""));
  EXPECT_FALSE(StrongETagMatch("\"v1\"", "W/\"v1\""));
  EXPECT_FALSE(StrongETagMatch("W/\"v1\"", "W/\"v1\""));
  EXPECT_FALSE(StrongETagMatch("", ""));
  EXPECT_FALSE(StrongETagMatch("v1", "v1"));
}

struct IfRangeCase {
  std::string if_range;
  bool honour_range;
};

TEST(IfRangeMatches, StrongTagOrExactDate) {
  const std::string etag = FormatETag("v1");
  const absl::Time modified = absl::FromUnixSeconds(784111777) + absl::Milliseconds(250);
  const std::vector<IfRangeCase> cases = {
      {"\"v1\"", true},
      {" \"v1\" ", true},
      {"\"v2\"", false},
      {"W/\"v1\"", false},  // weak tags never match If-Range
      {"Sun, 06 Nov 1994 08:49:37 GMT", true},
      {"Sunday, 06-Nov-94 08:49:37 GMT", true},
      {"Sun, 06 Nov 1994 08:49:38 GMT", false},  // later is not equal
      {"Sun, 06 Nov 1994 08:49:36 GMT", false},
      {"garbage", false},
      {"", false},
  };
  for (const IfRangeCase& c : cases) {
    EXPECT_EQ(IfRangeMatches(c.if_range, etag, modified), c.honour_range) << c.if_range;
  }
  EXPECT_FALSE(IfRangeMatches("Sun, 06 Nov 1994 08:49:37 GMT", etag, absl::nullopt));
  EXPECT_FALSE(IfRangeMatches("\"v1\"", "", modified));
}

TEST(IfNoneMatchMatches, WeakComparisonOverAList) {
  const std::string etag = FormatETag("v1");
  EXPECT_TRUE(IfNoneMatchMatches("\"v1\"", etag));
  EXPECT_TRUE(IfNoneMatchMatches("W/\"v1\"", etag));
  EXPECT_TRUE(IfNoneMatchMatches("\"v0\", W/\"v1\"", etag));
  EXPECT_TRUE(IfNoneMatchMatches("\"a,b\",\"v1\"", etag));  // commas inside tags
  EXPECT_TRUE(IfNoneMatchMatches("*", etag));
  EXPECT_TRUE(IfNoneMatchMatches(" * ", etag));
  EXPECT_FALSE(IfNoneMatchMatches("\"v2\"", etag));
  EXPECT_FALSE(IfNoneMatchMatches("\"v2\", \"v3\"", etag));
  EXPECT_FALSE(IfNoneMatchMatches("v1", etag));
  EXPECT_FALSE(IfNoneMatchMatches("\"v1", etag));
  EXPECT_FALSE(IfNoneMatchMatches("", etag));
  EXPECT_FALSE(IfNoneMatchMatches("*", ""));
}

struct DispositionCase {
  std::string filename;
  std::string header;
};

TEST(ContentDisposition, SafeNamesOnly) {
  const std::vector<DispositionCase> cases = {
      {"discovery.iso", "attachment; filename=\"discovery.iso\""},
      {"cluster-a_x86_64.iso", "attachment; filename=\"cluster-a_x86_64.iso\""},
      {"../../etc/passwd", "attachment; filename=\"passwd\""},
      {"C:\\Windows\\evil.exe", "attachment; filename=\"evil.exe\""},
      {"a\"b\\c.iso", "attachment; filename=\"c.iso\""},  // the backslash is a separator
      {"a\"b.iso", "attachment; filename=\"a_b.iso\""},
      {"line\r\nSet-Cookie: x=1", "attachment; filename=\"lineSet-Cookie: x=1\""},
      {".hidden", "attachment; filename=\"hidden\""},
      {"  name with spaces.iso  ", "attachment; filename=\"name with spaces.iso\""},
      {"", "attachment; filename=\"download\""},
      {".", "attachment; filename=\"download\""},
      {"..", "attachment; filename=\"download\""},
      {"dir/", "attachment; filename=\"download\""},
      {"caf\xc3\xa9.iso", "attachment; filename=\"caf_.iso\"; filename*=UTF-8''caf%C3%A9.iso"},
      {"\xe6\x97\xa5\xe6\x9c\xac 1.iso",
       "attachment; filename=\"_ 1.iso\"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%201.iso"},
      {"bad\xff.iso", "attachment; filename=\"bad_.iso\""},  // invalid UTF-8: no filename*
      {"\xc0\xaf.iso", "attachment; filename=\"_.iso\""},    // overlong encoding
  };
  for (const DispositionCase& c : cases) {
    EXPECT_EQ(ContentDisposition(c.filename), c.header) << c.filename;
  }
}

// Bytes 0..n-1 as a readable pattern, so any misplaced byte shows.
std::string Pattern(size_t n, char base) {
  std::string out(n, ' ');
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<char>(base + i % 23);
  return out;
}

TEST(BodyForRange, CutsAcrossSegmentBoundaries) {
  const std::string a = Pattern(10, 'a'), b = Pattern(5, 'A'), c = Pattern(7, '0');
  Body full;
  full.Append(Segment::Memory(a));
  full.Append(Segment::Memory(b));
  full.Append(Segment::Memory(c));
  const std::string expected = a + b + c;
  ASSERT_EQ(full.size(), expected.size());
  // Every single-range request a client can make, against the concatenation.
  for (uint64_t first = 0; first < expected.size(); ++first) {
    for (uint64_t last = first; last < expected.size(); ++last) {
      const Body part = BodyForRange(full, {first, last});
      EXPECT_EQ(part.size(), last - first + 1);
      EXPECT_THAT(part.ReadAll(), IsOkAndHolds(expected.substr(first, last - first + 1)))
          << first << "-" << last;
    }
  }
  // A range inside one segment yields one segment; one straddling a boundary yields two.
  EXPECT_EQ(BodyForRange(full, {2, 5}).segments().size(), 1u);
  EXPECT_EQ(BodyForRange(full, {9, 10}).segments().size(), 2u);
  EXPECT_EQ(BodyForRange(full, {0, 21}).segments().size(), 3u);
}

}  // namespace
}  // namespace assisted::http
