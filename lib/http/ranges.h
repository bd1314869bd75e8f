// File: lib/http/ranges.h
//
// Pure helpers for serving downloads the way browsers, curl, BMC virtual media and PXE firmware
// expect (RFC 9110): single byte ranges (`Range`, `206`, `Content-Range`, `416`), `If-Range`,
// strong entity tags, HTTP dates for `Last-Modified`, and a safe `Content-Disposition`. No I/O,
// no clock: every function maps its inputs to its output, so each is tested as a table.
//
//   RangeSelection selection = ParseRange(range_header, body.size());
//   if (selection.outcome == RangeOutcome::kPartial) {
//     response.status = 206;
//     response.headers.Set("Content-Range", ContentRange(selection.range, body.size()));
//     response.body = BodyForRange(body, selection.range);
//   }
//
// lib/http/content.h combines them into whole GET/HEAD answers.

#ifndef ASSISTED_LIB_HTTP_RANGES_H_
#define ASSISTED_LIB_HTTP_RANGES_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/optional.h"
#include "lib/http/body.h"

namespace assisted::http {

// Bytes first..last of a representation, both included (as in Content-Range). Never empty.
struct ByteRange {
  uint64_t first = 0;
  uint64_t last = 0;

  uint64_t length() const { return last - first + 1; }
  friend bool operator==(const ByteRange& a, const ByteRange& b) {
    return a.first == b.first && a.last == b.last;
  }
};

enum class RangeOutcome {
  // No usable single range: serve the full representation with 200. Covers an absent or empty
  // header, a unit other than bytes, syntax errors and multiple ranges (which RFC 9110 lets a
  // server ignore; no client we serve needs multipart/byteranges).
  kIgnore,
  // Serve `range` with 206 and Content-Range: bytes first-last/size.
  kPartial,
  // Serve 416 with Content-Range: bytes */size: the range starts at or past the end, or asks
  // for the last 0 bytes.
  kUnsatisfiable,
};

struct RangeSelection {
  RangeOutcome outcome = RangeOutcome::kIgnore;
  ByteRange range;  // meaningful for kPartial only
};

// Evaluates a `Range` header value against a representation of `size` bytes:
//   bytes=a-b  first a, last min(b, size-1); a > b is a syntax error (ignored)
//   bytes=a-   from a to the end
//   bytes=-n   the last n bytes (all of them when n >= size)
// The unit is case-insensitive and whitespace around the range is allowed. Positions too large
// for 64 bits saturate (so they lie past the end). A suffix range of an empty representation is
// ignored, since there is no byte to put in a Content-Range.
RangeSelection ParseRange(absl::string_view range_header, uint64_t size);

// Decides whether a Range request may be honoured given its `If-Range` value (RFC 9110
// §13.1.5), for a representation whose current validators are `etag` (formatted, e.g. "\"v1\"";
// empty if none) and `last_modified`. An entity tag matches only by strong comparison (a weak
// tag never does); an HTTP date only when it equals Last-Modified exactly. When this returns
// false, the caller serves the full representation with 200.
bool IfRangeMatches(absl::string_view if_range, absl::string_view etag,
                    absl::optional<absl::Time> last_modified);

// Formats a strong entity tag from an opaque version string: `"` + opaque + `"`. Bytes an
// entity tag may not hold (controls, space, DEL, `"`, non-ASCII) and `%` are written as %XX, so
// distinct inputs always give distinct tags.
std::string FormatETag(absl::string_view opaque);

// Strong comparison (RFC 9110 §8.8.3.2): both tags strong and byte-identical.
bool StrongETagMatch(absl::string_view a, absl::string_view b);

// Whether an `If-None-Match` value ("*" or a comma-separated list of tags, weak ones allowed)
// matches `etag` by weak comparison. False when `etag` is empty.
bool IfNoneMatchMatches(absl::string_view if_none_match, absl::string_view etag);

// Formats `time` (truncated to the second) as an IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
std::string FormatHttpDate(absl::Time time);

// Parses an HTTP-date in any of the three forms RFC 9110 §5.6.7 says recipients accept:
// IMF-fixdate, obsolete RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT"; two-digit years below 70
// are 20xx) and asctime ("Sun Nov  6 08:49:37 1994"). nullopt when the text is none of them or
// names an impossible date.
absl::optional<absl::Time> ParseHttpDate(absl::string_view text);

// "bytes first-last/size", for a 206.
std::string ContentRange(const ByteRange& range, uint64_t size);
// "bytes */size", for a 416.
std::string UnsatisfiedContentRange(uint64_t size);

// A `Content-Disposition: attachment` value that makes a browser save the download under
// `filename`, stripped of any directory part and of bytes that could break the header or the
// user's file system (controls, quotes, backslashes; "." and ".." become "download"). Non-ASCII
// names get an ASCII fallback plus an RFC 8187 `filename*=UTF-8''…` parameter.
std::string ContentDisposition(absl::string_view filename);

// The part of a full body that `range` selects, as segments sharing the body's storage:
// memory segments are cut, file segments become narrower file ranges, nothing is copied.
// `range` must lie within the body (ParseRange guarantees it).
Body BodyForRange(const Body& full, const ByteRange& range);

}  // namespace assisted::http

#endif  // ASSISTED_LIB_HTTP_RANGES_H_
