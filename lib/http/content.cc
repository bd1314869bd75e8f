#include "lib/http/content.h"

#include <utility>

#include "lib/http/ranges.h"

namespace assisted::http {
namespace {

bool NotModified(const Request& request, const Content& content) {
  if (absl::optional<absl::string_view> if_none_match = request.headers.Get("If-None-Match")) {
    return IfNoneMatchMatches(*if_none_match, content.etag);
  }
  const absl::optional<absl::string_view> since = request.headers.Get("If-Modified-Since");
  if (!since.has_value() || !content.last_modified.has_value()) return false;
  const absl::optional<absl::Time> date = ParseHttpDate(*since);
  // Last-Modified went out truncated to the second; compare at that precision.
  return date.has_value() &&
         absl::FromUnixSeconds(absl::ToUnixSeconds(*content.last_modified)) <= *date;
}

void AddValidators(const Content& content, Response* response) {
  response->headers.Set("Accept-Ranges", "bytes");
  if (!content.etag.empty()) response->headers.Set("ETag", content.etag);
  if (content.last_modified.has_value()) {
    response->headers.Set("Last-Modified", FormatHttpDate(*content.last_modified));
  }
}

}  // namespace

Response ServeContent(const Request& request, const Content& content) {
  Response response;
  AddValidators(content, &response);
  if (NotModified(request, content)) {
    response.status = 304;
    return response;
  }
  const uint64_t size = content.body.size();
  RangeSelection selection;
  const absl::optional<absl::string_view> range = request.headers.Get("Range");
  if (range.has_value()) {
    const absl::optional<absl::string_view> if_range = request.headers.Get("If-Range");
    if (!if_range.has_value() || IfRangeMatches(*if_range, content.etag, content.last_modified)) {
      selection = ParseRange(*range, size);
    }
  }
  if (selection.outcome == RangeOutcome::kUnsatisfiable) {
    response = Response::Text(416, "range not satisfiable\n");
    AddValidators(content, &response);
    response.headers.Set("Content-Range", UnsatisfiedContentRange(size));
    return response;
  }
  response.headers.Set("Content-Type", content.content_type);
  if (!content.filename.empty()) {
    response.headers.Set("Content-Disposition", ContentDisposition(content.filename));
  }
  if (selection.outcome == RangeOutcome::kPartial) {
    response.status = 206;
    response.headers.Set("Content-Range", ContentRange(selection.range, size));
    response.body = BodyForRange(content.body, selection.range);
    return response;
  }
  response.status = 200;
  response.body = content.body;
  return response;
}

}  // namespace assisted::http
