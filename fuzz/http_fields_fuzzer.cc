// File: fuzz/http_fields_fuzzer.cc
//
// The header values downloads are answered by (lib/http/ranges.h) and the percent-decoding of
// request-targets (lib/http/router.h), one field at a time so the fuzzer spends no effort on
// request framing. A first byte chooses the representation size (0, 1, 1000, 2^63, 2^64-1);
// the rest is the field value, used as Range, If-Range, If-None-Match, HTTP-date, entity-tag
// opaque, download file name and percent-encoded text.
//
// Properties checked besides "no crash": a partial range lies inside the representation; an
// HTTP-date parsed, formatted and parsed again is the same second; a formatted ETag matches
// itself strongly and by If-None-Match; Content-Disposition never carries CR, LF or other
// controls into a header.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <string>

#include "absl/time/time.h"
#include "fuzz/fuzz_input.h"
#include "lib/http/ranges.h"
#include "lib/http/router.h"

namespace {

namespace http = assisted::http;

constexpr uint64_t kSizes[] = {0, 1, 1000, uint64_t{1} << 63, std::numeric_limits<uint64_t>::max()};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  assisted::fuzz::FuzzInput in(data, size);
  const uint64_t body_size = kSizes[in.Byte() % std::size(kSizes)];
  const absl::string_view value = in.Rest();

  const http::RangeSelection selection = http::ParseRange(value, body_size);
  if (selection.outcome == http::RangeOutcome::kPartial &&
      (selection.range.first > selection.range.last || selection.range.last >= body_size)) {
    std::abort();
  }
  if (selection.outcome == http::RangeOutcome::kPartial) {
    (void)http::ContentRange(selection.range, body_size);
  }

  const absl::optional<absl::Time> date = http::ParseHttpDate(value);
  if (date.has_value()) {
    const std::string formatted = http::FormatHttpDate(*date);
    const absl::optional<absl::Time> again = http::ParseHttpDate(formatted);
    if (!again.has_value() || absl::ToUnixSeconds(*again) != absl::ToUnixSeconds(*date)) {
      std::abort();
    }
  }
  (void)http::IfRangeMatches(value, "\"v1\"", absl::FromUnixSeconds(1'700'000'000));
  (void)http::IfRangeMatches(value, "", absl::nullopt);

  const std::string etag = http::FormatETag(value);
  if (!http::StrongETagMatch(etag, etag) || !http::IfNoneMatchMatches(etag, etag)) std::abort();
  (void)http::IfNoneMatchMatches(value, etag);

  for (const char c : http::ContentDisposition(value)) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) std::abort();
  }
  (void)http::PercentDecode(value, /*plus_is_space=*/true);
  (void)http::PercentDecode(value, /*plus_is_space=*/false);
  return 0;
}
