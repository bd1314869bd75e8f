// File: services/agent/hardware/attributes.cc

#include "services/agent/hardware/attributes.h"

#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"

namespace assisted::agent::hardware {

std::string ReadAttribute(const HostRoot& root, absl::string_view path) {
  absl::StatusOr<std::string> value = root.ReadTrimmed(path);
  return value.ok() ? *std::move(value) : std::string();
}

std::optional<int64_t> ParseDecimal(absl::string_view text) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &value)) return std::nullopt;
  return value;
}

std::optional<uint64_t> ParseHex(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  if (!absl::ConsumePrefix(&text, "0x")) absl::ConsumePrefix(&text, "0X");
  uint64_t value = 0;
  // SimpleHexAtoi accepts a sign and its own "0x"; an attribute has neither.
  if (text.empty() || text[0] == '-' || text[0] == '+' || absl::StartsWithIgnoreCase(text, "0x") ||
      !absl::SimpleHexAtoi(text, &value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<int64_t> ReadDecimal(const HostRoot& root, absl::string_view path) {
  absl::StatusOr<std::string> value = root.ReadFile(path);
  if (!value.ok()) return std::nullopt;
  return ParseDecimal(*value);
}

bool ReadFlag(const HostRoot& root, absl::string_view path) {
  return ReadAttribute(root, path) == "1";
}

std::optional<int64_t> CheckedMultiply(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return std::nullopt;
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) return std::nullopt;
  return a * b;
}

}  // namespace assisted::agent::hardware
