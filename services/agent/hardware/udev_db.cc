// File: services/agent/hardware/udev_db.cc

#include "services/agent/hardware/udev_db.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace assisted::agent::hardware {

std::string UdevRecord::Get(absl::string_view key) const {
  auto it = properties.find(key);
  return it == properties.end() ? std::string() : it->second;
}

std::string UdevRecord::First(std::initializer_list<absl::string_view> keys) const {
  for (absl::string_view key : keys) {
    if (std::string value = Get(key); !value.empty()) return value;
  }
  return "";
}

UdevRecord ParseUdevRecord(absl::string_view text) {
  UdevRecord record;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripTrailingAsciiWhitespace(line);
    if (absl::ConsumePrefix(&line, "E:")) {
      std::pair<absl::string_view, absl::string_view> kv =
          absl::StrSplit(line, absl::MaxSplits('=', 1));
      if (!kv.first.empty()) record.properties[std::string(kv.first)] = std::string(kv.second);
    } else if (absl::ConsumePrefix(&line, "S:") && !line.empty()) {
      record.links.emplace_back(line);
    }
  }
  return record;
}

UdevRecord ReadBlockUdevRecord(const HostRoot& root, absl::string_view major_minor) {
  if (major_minor.empty()) return {};
  absl::StatusOr<std::string> text = root.ReadFile(absl::StrCat("run/udev/data/b", major_minor));
  return text.ok() ? ParseUdevRecord(*text) : UdevRecord{};
}

}  // namespace assisted::agent::hardware
