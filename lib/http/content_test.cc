#include "lib/http/content.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/http/ranges.h"
#include "lib/testing/status_matchers.h"

namespace assisted::http {
namespace {

using ::assisted::testing::IsOkAndHolds;
using ::testing::Optional;

constexpr int64_t kModified = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT

Content TenBytes() {
  Content content;
  content.body.Append(Segment::Memory("01234"));
  content.body.Append(Segment::Memory("56789"));
  content.etag = FormatETag("v1");
  content.last_modified = absl::FromUnixSeconds(kModified) + absl::Milliseconds(500);
  content.content_type = "application/x-iso9660-image";
  return content;
}

struct ContentCase {
  std::string name;
  std::vector<std::pair<std::string, std::string>> headers;
  int status;
  std::string body;
  std::string content_range;  // empty: none expected
};

TEST(ServeContent, ConditionalAndRangeRequestsFollowRfc9110) {
  const std::vector<ContentCase> cases = {
      {"plain GET", {}, 200, "0123456789", ""},
      {"range", {{"Range", "bytes=2-4"}}, 206, "234", "bytes 2-4/10"},
      {"range across segments", {{"Range", "bytes=4-5"}}, 206, "45", "bytes 4-5/10"},
      {"suffix", {{"Range", "bytes=-3"}}, 206, "789", "bytes 7-9/10"},
      {"open end", {{"Range", "bytes=8-"}}, 206, "89", "bytes 8-9/10"},
      {"past the end", {{"Range", "bytes=10-"}}, 416, "range not satisfiable\n", "bytes */10"},
      {"several ranges", {{"Range", "bytes=0-1,3-4"}}, 200, "0123456789", ""},
      {"malformed range", {{"Range", "bytes=x-y"}}, 200, "0123456789", ""},
      {"If-Range tag matches",
       {{"Range", "bytes=0-0"}, {"If-Range", "\"v1\""}},
       206,
       "0",
       "bytes 0-0/10"},
      {"If-Range tag changed",
       {{"Range", "bytes=0-0"}, {"If-Range", "\"v0\""}},
       200,
       "0123456789",
       ""},
      {"If-Range weak tag",
       {{"Range", "bytes=0-0"}, {"If-Range", "W/\"v1\""}},
       200,
       "0123456789",
       ""},
      {"If-Range date matches",
       {{"Range", "bytes=9-"}, {"If-Range", "Sun, 06 Nov 1994 08:49:37 GMT"}},
       206,
       "9",
       "bytes 9-9/10"},
      {"If-Range date differs",
       {{"Range", "bytes=9-"}, {"If-Range", "Sun, 06 Nov 1994 08:49:36 GMT"}},
       200,
       "0123456789",
       ""},
      {"If-Range guards 416 too",
       {{"Range", "bytes=50-"}, {"If-Range", "\"v0\""}},
       200,
       "0123456789",
       ""},
      {"If-None-Match hit", {{"If-None-Match", "\"v0\", \"v1\""}}, 304, "", ""},
      {"If-None-Match weak hit", {{"If-None-Match", "W/\"v1\""}}, 304, "", ""},
      {"If-None-Match star", {{"If-None-Match", "*"}}, 304, "", ""},
      {"If-None-Match miss", {{"If-None-Match", "\"v0\""}}, 200, "0123456789", ""},
      {"If-None-Match beats Range",
       {{"If-None-Match", "\"v1\""}, {"Range", "bytes=0-0"}},
       304,
       "",
       ""},
      {"If-Modified-Since same second",
       {{"If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT"}},
       304,
       "",
       ""},
      {"If-Modified-Since later",
       {{"If-Modified-Since", "Mon, 07 Nov 1994 00:00:00 GMT"}},
       304,
       "",
       ""},
      {"If-Modified-Since earlier",
       {{"If-Modified-Since", "Sun, 06 Nov 1994 08:49:36 GMT"}},
       200,
       "0123456789",
       ""},
      {"If-Modified-Since garbage", {{"If-Modified-Since", "yesterday"}}, 200, "0123456789", ""},
      {"If-None-Match wins over If-Modified-Since",
       {{"If-None-Match", "\"v0\""}, {"If-Modified-Since", "Mon, 07 Nov 1994 00:00:00 GMT"}},
       200,
       "0123456789",
       ""},
  };
  const Content content = TenBytes();
  for (const ContentCase& c : cases) {
    Request request;
    request.method = "GET";
    for (const auto& [name, value] : c.headers) request.headers.Add(name, value);
    const Response response = ServeContent(request, content);
    EXPECT_EQ(response.status, c.status) << c.name;
    EXPECT_THAT(response.body.ReadAll(), IsOkAndHolds(c.body)) << c.name;
    EXPECT_EQ(std::string(response.headers.Get("Content-Range").value_or("")), c.content_range)
        << c.name;
    EXPECT_THAT(response.headers.Get("Accept-Ranges"), Optional(absl::string_view("bytes")))
        << c.name;
    EXPECT_THAT(response.headers.Get("ETag"), Optional(absl::string_view("\"v1\""))) << c.name;
    EXPECT_THAT(response.headers.Get("Last-Modified"),
                Optional(absl::string_view("Sun, 06 Nov 1994 08:49:37 GMT")))
        << c.name;
    if (c.status == 200 || c.status == 206) {
      EXPECT_THAT(response.headers.Get("Content-Type"),
                  Optional(absl::string_view("application/x-iso9660-image")))
          << c.name;
    }
  }
}

TEST(ServeContent, NamesTheDownloadAndWorksWithoutValidators) {
  Content content;
  content.body = Body("data");
  content.filename = "../discovery image.iso";
  Request request;
  request.method = "GET";
  request.headers.Add("If-None-Match", "*");  // no ETag: nothing to match
  request.headers.Add("Range", "bytes=1-2");
  request.headers.Add("If-Range", "Sun, 06 Nov 1994 08:49:37 GMT");  // no date: range ignored
  const Response response = ServeContent(request, content);
  EXPECT_EQ(response.status, 200);
  EXPECT_THAT(response.headers.Get("Content-Disposition"),
              Optional(absl::string_view("attachment; filename=\"discovery image.iso\"")));
  EXPECT_FALSE(response.headers.Has("ETag"));
  EXPECT_FALSE(response.headers.Has("Last-Modified"));
  EXPECT_THAT(response.body.ReadAll(), IsOkAndHolds(std::string("data")));
}

}  // namespace
}  // namespace assisted::http
