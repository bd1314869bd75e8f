#include "lib/http/ranges.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "lib/text/utf8.h"

namespace assisted::http {
namespace {

constexpr std::array<absl::string_view, 7> kShortDays = {"Mon", "Tue", "Wed", "Thu",
                                                         "Fri", "Sat", "Sun"};
constexpr std::array<absl::string_view, 7> kLongDays = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
constexpr std::array<absl::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// Parses a non-empty run of decimal digits, saturating at the uint64 maximum.
bool ParseDigits(absl::string_view text, uint64_t* out) {
  if (text.empty()) return false;
  uint64_t value = 0;
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    value = value > (kMax - digit) / 10 ? kMax : value * 10 + digit;
  }
  *out = value;
  return true;
}

// Reads an HTTP date field by field; every method consumes only on success.
class DateCursor {
 public:
  explicit DateCursor(absl::string_view text) : rest_(text) {}

  bool Literal(absl::string_view literal) {
    if (!absl::StartsWith(rest_, literal)) return false;
    rest_.remove_prefix(literal.size());
    return true;
  }

  // Exactly `n` digits.
  bool Digits(int n, int* out) {
    if (rest_.size() < static_cast<size_t>(n)) return false;
    int value = 0;
    for (int i = 0; i < n; ++i) {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(rest_[i]))) return false;
      value = value * 10 + (rest_[i] - '0');
    }
    rest_.remove_prefix(n);
    *out = value;
    return true;
  }

  // One of `names` (case-sensitive, as RFC 9110 requires); its index.
  template <size_t N>
  bool Name(const std::array<absl::string_view, N>& names, int* index) {
    for (size_t i = 0; i < N; ++i) {
      if (Literal(names[i])) {
        *index = static_cast<int>(i);
        return true;
      }
    }
    return false;
  }

  // "HH:MM:SS"
  bool Time(int* hour, int* minute, int* second) {
    return Digits(2, hour) && Literal(":") && Digits(2, minute) && Literal(":") &&
           Digits(2, second);
  }

  bool AtEnd() const { return rest_.empty(); }

 private:
  absl::string_view rest_;
};

absl::optional<absl::Time> MakeTime(int year, int month, int day, int hour, int minute,
                                    int second) {
  // The grammar allows second 60 (a leap second); it folds into the next minute.
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) {
    return absl::nullopt;
  }
  const absl::CivilSecond civil(year, month, day, hour, minute, second);
  if (civil.day() != day) return absl::nullopt;  // 31 Feb and friends normalise away
  return absl::FromCivil(civil, absl::UTCTimeZone());
}

absl::optional<absl::Time> ParseImfFixdate(absl::string_view text) {
  DateCursor in(text);
  int weekday, day, month, year, hour, minute, second;
  if (in.Name(kShortDays, &weekday) && in.Literal(", ") && in.Digits(2, &day) && in.Literal(" ") &&
      in.Name(kMonths, &month) && in.Literal(" ") && in.Digits(4, &year) && in.Literal(" ") &&
      in.Time(&hour, &minute, &second) && in.Literal(" GMT") && in.AtEnd()) {
    return MakeTime(year, month + 1, day, hour, minute, second);
  }
  return absl::nullopt;
}

absl::optional<absl::Time> ParseRfc850(absl::string_view text) {
  DateCursor in(text);
  int weekday, day, month, year, hour, minute, second;
  if (in.Name(kLongDays, &weekday) && in.Literal(", ") && in.Digits(2, &day) && in.Literal("-") &&
      in.Name(kMonths, &month) && in.Literal("-") && in.Digits(2, &year) && in.Literal(" ") &&
      in.Time(&hour, &minute, &second) && in.Literal(" GMT") && in.AtEnd()) {
    return MakeTime(year < 70 ? 2000 + year : 1900 + year, month + 1, day, hour, minute, second);
  }
  return absl::nullopt;
}

absl::optional<absl::Time> ParseAsctime(absl::string_view text) {
  DateCursor in(text);
  int weekday, day, month, year, hour, minute, second;
  if (!in.Name(kShortDays, &weekday) || !in.Literal(" ") || !in.Name(kMonths, &month) ||
      !in.Literal(" ")) {
    return absl::nullopt;
  }
  if (!(in.Literal(" ") ? in.Digits(1, &day) : in.Digits(2, &day))) return absl::nullopt;
  if (in.Literal(" ") && in.Time(&hour, &minute, &second) && in.Literal(" ") &&
      in.Digits(4, &year) && in.AtEnd()) {
    return MakeTime(year, month + 1, day, hour, minute, second);
  }
  return absl::nullopt;
}

// Whether `c` may appear unescaped inside a quoted entity tag we generate: etagc minus `%` (our
// escape character) and minus obs-text (kept ASCII).
bool IsETagChar(unsigned char c) { return c == 0x21 || (c >= 0x23 && c <= 0x7e && c != '%'); }

// RFC 8187 attr-char: what a filename*= value may hold unescaped.
bool IsAttrChar(unsigned char c) {
  return absl::ascii_isalnum(c) ||
         absl::string_view("!#$&+-.^_`|~").find(static_cast<char>(c)) != absl::string_view::npos;
}

void AppendPercent(unsigned char c, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('%');
  out->push_back(kHex[c >> 4]);
  out->push_back(kHex[c & 0xf]);
}

// Scans an If-None-Match list; calls `visit` with each entity tag (W/ prefix kept) until it
// returns true. Returns false on a syntax error or when no visit returned true.
template <typename Visit>
bool AnyETagInList(absl::string_view list, Visit visit) {
  size_t i = 0;
  while (i < list.size()) {
    const char c = list[i];
    if (c == ' ' || c == '\t' || c == ',') {
      ++i;
      continue;
    }
    const size_t start = i;
    if (list.substr(i, 2) == "W/") i += 2;
    if (i >= list.size() || list[i] != '"') return false;
    const size_t close = list.find('"', i + 1);
    if (close == absl::string_view::npos) return false;
    if (visit(list.substr(start, close + 1 - start))) return true;
    i = close + 1;
  }
  return false;
}

absl::string_view Opaque(absl::string_view tag) {
  if (absl::StartsWith(tag, "W/")) tag.remove_prefix(2);
  return tag;
}

}  // namespace

RangeSelection ParseRange(absl::string_view range_header, uint64_t size) {
  const RangeSelection ignore;
  absl::string_view header = absl::StripAsciiWhitespace(range_header);
  const size_t equals = header.find('=');
  if (equals == absl::string_view::npos) return ignore;
  if (!absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(header.substr(0, equals)), "bytes")) {
    return ignore;
  }
  const absl::string_view spec = absl::StripAsciiWhitespace(header.substr(equals + 1));
  if (spec.find(',') != absl::string_view::npos) return ignore;  // several ranges
  const size_t dash = spec.find('-');
  if (dash == absl::string_view::npos) return ignore;

  if (dash == 0) {  // bytes=-n: the last n bytes
    uint64_t suffix;
    if (!ParseDigits(spec.substr(1), &suffix)) return ignore;
    if (suffix == 0) return {RangeOutcome::kUnsatisfiable, {}};
    if (size == 0) return ignore;
    return {RangeOutcome::kPartial, {size - std::min(suffix, size), size - 1}};
  }

  uint64_t first;
  if (!ParseDigits(spec.substr(0, dash), &first)) return ignore;
  uint64_t last = std::numeric_limits<uint64_t>::max();
  const absl::string_view last_text = spec.substr(dash + 1);
  if (!last_text.empty() && !ParseDigits(last_text, &last)) return ignore;
  if (last < first) return ignore;
  if (first >= size) return {RangeOutcome::kUnsatisfiable, {}};
  return {RangeOutcome::kPartial, {first, std::min(last, size - 1)}};
}

bool IfRangeMatches(absl::string_view if_range, absl::string_view etag,
                    absl::optional<absl::Time> last_modified) {
  const absl::string_view value = absl::StripAsciiWhitespace(if_range);
  if (absl::StartsWith(value, "\"") || absl::StartsWith(value, "W/")) {
    return StrongETagMatch(value, etag);
  }
  const absl::optional<absl::Time> date = ParseHttpDate(value);
  if (!date.has_value() || !last_modified.has_value()) return false;
  // Last-Modified went out truncated to the second; compare what the client saw.
  return *date == absl::FromUnixSeconds(absl::ToUnixSeconds(*last_modified));
}

std::string FormatETag(absl::string_view opaque) {
  std::string tag = "\"";
  for (char c : opaque) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (IsETagChar(byte)) {
      tag.push_back(c);
    } else {
      AppendPercent(byte, &tag);
    }
  }
  tag.push_back('"');
  return tag;
}

bool StrongETagMatch(absl::string_view a, absl::string_view b) {
  const auto strong = [](absl::string_view tag) {
    return tag.size() >= 2 && tag.front() == '"' && tag.back() == '"';
  };
  return strong(a) && strong(b) && a == b;
}

bool IfNoneMatchMatches(absl::string_view if_none_match, absl::string_view etag) {
  if (etag.empty()) return false;
  const absl::string_view value = absl::StripAsciiWhitespace(if_none_match);
  if (value == "*") return true;
  return AnyETagInList(value, [&](absl::string_view tag) { return Opaque(tag) == Opaque(etag); });
}

std::string FormatHttpDate(absl::Time time) {
  const absl::CivilSecond civil = absl::ToCivilSecond(time, absl::UTCTimeZone());
  const int weekday = static_cast<int>(absl::GetWeekday(absl::CivilDay(civil)));  // Monday = 0
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%s, %02d %s %04d %02d:%02d:%02d GMT",
                kShortDays[weekday].data(), civil.day(), kMonths[civil.month() - 1].data(),
                static_cast<int>(civil.year()), civil.hour(), civil.minute(), civil.second());
  return buffer;
}

absl::optional<absl::Time> ParseHttpDate(absl::string_view text) {
  if (absl::optional<absl::Time> time = ParseImfFixdate(text)) return time;
  if (absl::optional<absl::Time> time = ParseRfc850(text)) return time;
  return ParseAsctime(text);
}

std::string ContentRange(const ByteRange& range, uint64_t size) {
  return absl::StrCat("bytes ", range.first, "-", range.last, "/", size);
}

std::string UnsatisfiedContentRange(uint64_t size) { return absl::StrCat("bytes */", size); }

std::string ContentDisposition(absl::string_view filename) {
  const size_t slash = filename.find_last_of("/\\");
  if (slash != absl::string_view::npos) filename.remove_prefix(slash + 1);

  // The name without controls; dots at the start would hide the file on Unix.
  std::string name;
  for (char c : filename) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) name.push_back(c);
  }
  absl::string_view view = name;
  while (!view.empty() && (view.front() == '.' || view.front() == ' ')) view.remove_prefix(1);
  view = absl::StripTrailingAsciiWhitespace(view);
  name = view.empty() ? "download" : std::string(view);

  std::string ascii;
  bool non_ascii = false;
  bool in_non_ascii_run = false;
  for (char c : name) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (byte >= 0x80) {
      // One '_' per run of non-ASCII bytes, not one per byte.
      if (!in_non_ascii_run) ascii.push_back('_');
      non_ascii = in_non_ascii_run = true;
      continue;
    }
    in_non_ascii_run = false;
    ascii.push_back(c == '"' || c == '\\' ? '_' : c);
  }
  std::string value = absl::StrCat("attachment; filename=\"", ascii, "\"");
  if (non_ascii && text::IsValidUtf8(name)) {
    value += "; filename*=UTF-8''";
    for (char c : name) {
      const unsigned char byte = static_cast<unsigned char>(c);
      if (IsAttrChar(byte)) {
        value.push_back(c);
      } else {
        AppendPercent(byte, &value);
      }
    }
  }
  return value;
}

Body BodyForRange(const Body& full, const ByteRange& range) {
  return full.Slice(range.first, range.length());
}

}  // namespace assisted::http
