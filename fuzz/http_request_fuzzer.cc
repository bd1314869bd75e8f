// File: fuzz/http_request_fuzzer.cc
//
// A request as the image service's HTTP server takes it apart (lib/http): the bytes a client
// sends are parsed by Boost.Beast (compiled as the server compiles it) with the server's limits,
// arriving in reads of a size the first input byte chooses, the request-target by ParseTarget,
// routed by a Router holding the image service's download routes, and answered by ServeContent,
// which reads Range, If-Range, If-None-Match and If-Modified-Since. Input: the raw request.
//
// Besides "no crash", it checks what the server relies on: a parsed target has no "." or ".."
// segment, and a 206 covers bytes inside the representation.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "fuzz/fuzz_input.h"
#include "lib/http/beast_parser.h"
#include "lib/http/content.h"
#include "lib/http/message.h"
#include "lib/http/ranges.h"
#include "lib/http/router.h"

namespace {

namespace bhttp = boost::beast::http;
using assisted::http::Body;
using assisted::http::Content;
using assisted::http::Request;
using assisted::http::Response;
using assisted::http::Router;

constexpr size_t kHeaderLimit = 16 * 1024;  // HttpServerOptions' default max_header_bytes
constexpr uint64_t kBodyLimit = 64 * 1024;

const Router& TheRouter() {
  static const Router* router = [] {
    auto* r = new Router();
    const Content content{Body(std::string(1000, 'x')), "application/x-iso9660-image",
                          assisted::http::FormatETag("v1"), absl::FromUnixSeconds(1'700'000'000),
                          "discovery.iso"};
    auto serve = [content](const Request& request) {
      return assisted::http::ServeContent(request, content);
    };
    for (const char* pattern :
         {"/images/{token}/discovery.iso", "/pxe/{token}/{file}", "/static/{path...}", "/ready"}) {
      (void)r->Handle("GET", pattern, serve);
    }
    return r;
  }();
  return *router;
}

void CheckPartialContent(const Response& response) {
  if (response.status != 206) return;
  const absl::optional<absl::string_view> range = response.headers.Get("Content-Range");
  if (!range.has_value()) std::abort();
  // "bytes first-last/size"
  std::vector<absl::string_view> parts = absl::StrSplit(range->substr(6), absl::ByAnyChar("-/"));
  uint64_t first = 0, last = 0, size = 0;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &first) ||
      !absl::SimpleAtoi(parts[1], &last) || !absl::SimpleAtoi(parts[2], &size) || first > last ||
      last >= size || response.body.size() != last - first + 1) {
    std::abort();
  }
}

// Feeds `bytes` to `parser` the way Beast's read loop does for a socket delivering `read_size`
// bytes at a time (0: everything at once): the unconsumed bytes are handed back only together
// with newly arrived ones. Small reads found the chunk parser assertion lib/http/beast_parser.h
// turns off.
void Feed(bhttp::request_parser<bhttp::string_body>& parser, absl::string_view bytes,
          size_t read_size) {
  const size_t step = read_size == 0 ? bytes.size() : read_size;
  size_t used = 0;
  size_t arrived = std::min(step, bytes.size());
  while (!parser.is_done()) {
    boost::beast::error_code ec;
    used += parser.put(boost::asio::buffer(bytes.data() + used, arrived - used), ec);
    if (ec && ec != bhttp::error::need_more) return;
    if (ec == bhttp::error::need_more || used == arrived) {
      if (arrived == bytes.size()) return;  // the client sent nothing more
      arrived = std::min(arrived + step, bytes.size());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  assisted::fuzz::FuzzInput in(data, size);
  const size_t read_size = in.Byte() % 64;
  bhttp::request_parser<bhttp::string_body> parser;
  parser.header_limit(kHeaderLimit);
  parser.body_limit(kBodyLimit);
  parser.eager(true);
  Feed(parser, in.Rest(), read_size);
  if (!parser.is_header_done()) return 0;
  const auto& message = parser.get();
  Request request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  absl::StatusOr<assisted::http::Target> target = assisted::http::ParseTarget(request.target);
  if (!target.ok()) return 0;
  for (const std::string& segment : target->segments) {
    if (segment == "." || segment == "..") std::abort();
  }
  request.path = target->path;
  request.query = target->query;
  for (const auto& field : message) {
    request.headers.Add(std::string(field.name_string()), std::string(field.value()));
  }
  Router::Match match = TheRouter().Find(request.method, target->segments);
  if (match.kind != Router::Match::Kind::kFound) return 0;
  request.route = match.pattern;
  request.path_params = std::move(match.params);
  CheckPartialContent((*match.handler)(request));
  return 0;
}
