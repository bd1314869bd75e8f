// Serves a spliced "ISO" — file bytes, an in-memory overlay, more file bytes, an in-memory
// trailer — over real loopback sockets and checks every byte of full and ranged downloads, with
// sendfile and with the read+write path.

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/http/content.h"
#include "lib/http/ranges.h"
#include "lib/http/server.h"
#include "lib/http/test_client.h"
#include "lib/testing/status_matchers.h"

namespace assisted::http {
namespace {

using ::assisted::http::test::CurlClient;
using ::assisted::http::test::CurlRequest;
using ::assisted::http::test::CurlResponse;
using ::assisted::testing::IsOk;
using ::testing::Optional;

// Larger than the server's per-turn sendfile budget (4 MiB), not a multiple of anything.
constexpr uint64_t kFileSize = (6 << 20) + 123;
constexpr uint64_t kOverlayAt = 32768 + 7;
constexpr uint64_t kOverlaySize = 4096;
const char kTrailer[] = "TRAILER\n";

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

// Bytes no two places of which look alike for long, so a misplaced byte shows.
std::string Noise(uint64_t size, uint32_t seed) {
  std::string out(size, '\0');
  uint32_t x = seed;
  for (uint64_t i = 0; i < size; ++i) {
    x = x * 1664525u + 1013904223u;
    out[i] = static_cast<char>(x >> 24);
  }
  return out;
}

struct Spliced {
  std::string path;
  std::string expected;  // what a client must receive for a full GET
  Content content;
};

Spliced MakeSpliced(const std::string& name) {
  Spliced spliced;
  spliced.path = TempPath(name);
  const std::string file = Noise(kFileSize, 7);
  std::ofstream(spliced.path, std::ios::binary) << file;
  absl::StatusOr<std::shared_ptr<const SharedFile>> opened = SharedFile::Open(spliced.path);
  EXPECT_THAT(opened, IsOk());
  const std::shared_ptr<const SharedFile> shared = *opened;
  const std::string overlay = Noise(kOverlaySize, 99);
  Body& body = spliced.content.body;
  body.Append(*Segment::File(shared, 0, kOverlayAt));
  body.Append(Segment::Memory(overlay));
  body.Append(
      *Segment::File(shared, kOverlayAt + kOverlaySize, kFileSize - kOverlayAt - kOverlaySize));
  body.Append(Segment::Memory(kTrailer));
  spliced.expected =
      file.substr(0, kOverlayAt) + overlay + file.substr(kOverlayAt + kOverlaySize) + kTrailer;
  spliced.content.etag = FormatETag("iso-v1");
  spliced.content.last_modified = shared->modified();
  spliced.content.content_type = "application/x-iso9660-image";
  spliced.content.filename = "discovery.iso";
  return spliced;
}

class DownloadTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    spliced_ = MakeSpliced(absl::StrCat("spliced-", GetParam(), ".iso"));
    Router router;
    ASSERT_THAT(router.Handle("GET", "/images/{image_id}/discovery.iso",
                              [this](const Request& request) {
                                return ServeContent(request, spliced_.content);
                              }),
                IsOk());
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    options.io_threads = 2;
    options.use_sendfile = GetParam();
    absl::StatusOr<std::unique_ptr<HttpServer>> server =
        HttpServer::Start(options, std::move(router), nullptr, log::Logger::Discard());
    ASSERT_THAT(server, IsOk());
    server_ = *std::move(server);
    url_ = absl::StrCat("http://127.0.0.1:", server_->port(), "/images/abc/discovery.iso");
  }

  CurlResponse Get(const std::vector<std::string>& headers = {},
                   const std::string& method = "GET") {
    CurlRequest request;
    request.method = method;
    request.headers = headers;
    absl::StatusOr<CurlResponse> response = client_.Fetch(url_, request);
    EXPECT_THAT(response, IsOk());
    return response.ok() ? *std::move(response) : CurlResponse{};
  }

  Spliced spliced_;
  std::unique_ptr<HttpServer> server_;
  std::string url_;
  CurlClient client_;
};

TEST_P(DownloadTest, FullGetIsByteIdentical) {
  const CurlResponse response = Get();
  EXPECT_EQ(response.status, 200);
  EXPECT_THAT(response.Header("content-length"), Optional(absl::StrCat(spliced_.expected.size())));
  EXPECT_THAT(response.Header("accept-ranges"), Optional(std::string("bytes")));
  EXPECT_THAT(response.Header("etag"), Optional(std::string("\"iso-v1\"")));
  EXPECT_THAT(response.Header("content-disposition"),
              Optional(std::string("attachment; filename=\"discovery.iso\"")));
  ASSERT_EQ(response.body.size(), spliced_.expected.size());
  EXPECT_TRUE(response.body == spliced_.expected) << "body differs";
}

struct RangeCase {
  std::string range;
  uint64_t first;
  uint64_t last;
};

TEST_P(DownloadTest, RangesAtEveryBoundaryAreByteIdentical) {
  const uint64_t n = spliced_.expected.size();
  const uint64_t overlay_end = kOverlayAt + kOverlaySize;  // first byte after the overlay
  const uint64_t trailer_at = n - (sizeof kTrailer - 1);
  const auto range = [](uint64_t first, uint64_t last) {
    return RangeCase{absl::StrCat("bytes=", first, "-", last), first, last};
  };
  const std::vector<RangeCase> cases = {
      range(0, 0),                                         // first byte
      range(n - 1, n - 1),                                 // last byte
      range(0, n - 1),                                     // everything, as a range
      range(kOverlayAt - 1, kOverlayAt),                   // file -> overlay
      range(overlay_end - 1, overlay_end),                 // overlay -> file
      range(kOverlayAt, overlay_end - 1),                  // exactly the overlay
      range(kOverlayAt + 1, overlay_end - 2),              // inside the overlay
      range(kOverlayAt - 10, overlay_end + 10),            // file, overlay, file
      range(trailer_at - 1, trailer_at),                   // file -> trailer
      range(trailer_at, n - 1),                            // the trailer only
      range(5 << 20, (5 << 20) + 4095),                    // deep in the second file segment
      {absl::StrCat("bytes=100-", n + 1000), 100, n - 1},  // last clamped to the end
      {absl::StrCat("bytes=", kOverlayAt, "-"), kOverlayAt, n - 1},  // open-ended
      {"bytes=-1", n - 1, n - 1},                                    // suffix: last byte
      {"bytes=-8", trailer_at, n - 1},                               // suffix: the trailer
      {"bytes=-9", trailer_at - 1, n - 1},                           // suffix: file + trailer
      {absl::StrCat("bytes=-", n), 0, n - 1},                        // suffix: all
      {absl::StrCat("bytes=-", n + 100), 0, n - 1},                  // suffix: more than all
  };
  for (const RangeCase& c : cases) {
    const CurlResponse response = Get({"Range: " + c.range});
    const uint64_t length = c.last - c.first + 1;
    EXPECT_EQ(response.status, 206) << c.range;
    EXPECT_THAT(response.Header("content-range"),
                Optional(absl::StrCat("bytes ", c.first, "-", c.last, "/", n)))
        << c.range;
    EXPECT_THAT(response.Header("content-length"), Optional(absl::StrCat(length))) << c.range;
    EXPECT_TRUE(response.body == spliced_.expected.substr(c.first, length))
        << c.range << ": body differs";
  }
}

TEST_P(DownloadTest, UnsatisfiableIgnoredAndGuardedRanges) {
  const uint64_t n = spliced_.expected.size();
  for (const std::string& range :
       {absl::StrCat("bytes=", n, "-"), absl::StrCat("bytes=", n, "-", n + 5),
        std::string("bytes=-0")}) {
    const CurlResponse response = Get({"Range: " + range});
    EXPECT_EQ(response.status, 416) << range;
    EXPECT_THAT(response.Header("content-range"), Optional(absl::StrCat("bytes */", n))) << range;
  }
  // Several ranges, or an If-Range for another version: the whole thing with 200.
  for (const std::vector<std::string>& headers :
       {std::vector<std::string>{"Range: bytes=0-1,5-6"},
        std::vector<std::string>{"Range: bytes=0-1", "If-Range: \"iso-v0\""}}) {
    const CurlResponse response = Get(headers);
    EXPECT_EQ(response.status, 200);
    EXPECT_TRUE(response.body == spliced_.expected);
  }
  const CurlResponse resumed = Get({"Range: bytes=10-19", "If-Range: \"iso-v1\""});
  EXPECT_EQ(resumed.status, 206);
  EXPECT_EQ(resumed.body, spliced_.expected.substr(10, 10));
  EXPECT_EQ(Get({"If-None-Match: \"iso-v1\""}).status, 304);
}

TEST_P(DownloadTest, HeadOfARangeHasItsHeadersAndNoBody) {
  const CurlResponse head = Get({"Range: bytes=100-199"}, "HEAD");
  EXPECT_EQ(head.status, 206);
  EXPECT_THAT(head.Header("content-length"), Optional(std::string("100")));
  EXPECT_THAT(head.Header("content-range"),
              Optional(absl::StrCat("bytes 100-199/", spliced_.expected.size())));
  EXPECT_EQ(head.body, "");
  const CurlResponse full = Get({}, "HEAD");
  EXPECT_EQ(full.status, 200);
  EXPECT_THAT(full.Header("content-length"), Optional(absl::StrCat(spliced_.expected.size())));
  // The connection is still good for a GET afterwards.
  EXPECT_EQ(Get({"Range: bytes=0-3"}).body, spliced_.expected.substr(0, 4));
}

TEST_P(DownloadTest, ConcurrentClientsEachGetEveryByte) {
  constexpr int kClients = 8;
  std::vector<CurlResponse> responses(kClients);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([this, &responses, i]() {
      CurlClient client;
      absl::StatusOr<CurlResponse> response = client.Fetch(url_);
      if (response.ok()) responses[i] = *std::move(response);
    });
  }
  for (std::thread& client : clients) client.join();
  for (const CurlResponse& response : responses) {
    EXPECT_EQ(response.status, 200);
    EXPECT_TRUE(response.body == spliced_.expected) << "body differs";
  }
}

TEST_P(DownloadTest, AFileThatShrinksUnderTheServerEndsTheConnectionNotTheServer) {
  ASSERT_EQ(::truncate(spliced_.path.c_str(), 1000), 0);
  CurlClient client;
  absl::StatusOr<CurlResponse> cut = client.Fetch(url_);
  EXPECT_FALSE(cut.ok());  // curl: transfer closed with bytes remaining
  const CurlResponse head = Get({"Range: bytes=0-99"});  // still within the file
  EXPECT_EQ(head.status, 206);
  EXPECT_EQ(head.body, spliced_.expected.substr(0, 100));
}

INSTANTIATE_TEST_SUITE_P(SendfileAndCopy, DownloadTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Sendfile" : "ReadWrite";
                         });

}  // namespace
}  // namespace assisted::http
