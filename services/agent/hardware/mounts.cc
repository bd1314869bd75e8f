// File: services/agent/hardware/mounts.cc

#include "services/agent/hardware/mounts.h"

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace assisted::agent::hardware {
namespace {

bool IsOctal(char c) { return c >= '0' && c <= '7'; }

std::string Unescape(absl::string_view field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size() && IsOctal(field[i + 1]) &&
        IsOctal(field[i + 2]) && IsOctal(field[i + 3])) {
      out.push_back(static_cast<char>(((field[i + 1] - '0') << 6) | ((field[i + 2] - '0') << 3) |
                                      (field[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(field[i]);
    }
  }
  return out;
}

}  // namespace

std::vector<Mount> ParseMounts(absl::string_view text) {
  std::vector<Mount> mounts;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (fields.size() < 3 || absl::StartsWith(fields[0], "#")) continue;
    mounts.push_back({Unescape(fields[0]), Unescape(fields[1]), Unescape(fields[2])});
  }
  return mounts;
}

std::vector<Mount> ReadMounts(const HostRoot& root) {
  for (absl::string_view path : {"proc/mounts", "etc/mtab"}) {
    if (absl::StatusOr<std::string> text = root.ReadFile(path); text.ok()) {
      return ParseMounts(*text);
    }
  }
  return {};
}

std::string KernelArgument(absl::string_view cmdline, absl::string_view key) {
  std::string value;
  for (absl::string_view arg :
       absl::StrSplit(cmdline, absl::ByAnyChar(" \t\n"), absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(arg, absl::MaxSplits('=', 1));
    if (kv.first == key) value = std::string(kv.second);
  }
  return value;
}

}  // namespace assisted::agent::hardware
