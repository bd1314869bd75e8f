#include "lib/log/log.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"

namespace assisted::log {
namespace {

constexpr absl::string_view kTimeFormat = "%Y-%m-%dT%H:%M:%E3SZ";

// Quotes a text-format value when it would otherwise be ambiguous to read back.
void AppendTextValue(std::string& out, absl::string_view value) {
  bool plain = !value.empty();
  for (char c : value) {
    if (c == ' ' || c == '"' || c == '=' || static_cast<unsigned char>(c) < 0x20) {
      plain = false;
      break;
    }
  }
  if (plain) {
    out.append(value.data(), value.size());
    return;
  }
  // JSON string escaping is a well-defined quoting that log tooling understands.
  out += nlohmann::json(std::string(value))
             .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

template <typename Fn>
void ForEachField(const Record& record, Fn fn) {
  for (const Field& field : record.context) fn(field);
  for (const Field& field : record.fields) fn(field);
  if (!record.request_id.empty()) fn(Field("request_id", record.request_id));
}

// The id of the innermost RequestIdScope of this thread (null: none). Per thread, so no lock;
// each scope restores its outer one.
thread_local const std::string* current_request_id = nullptr;

}  // namespace

absl::string_view LevelName(Level level) {
  switch (level) {
    case Level::kDebug:
      return "debug";
    case Level::kInfo:
      return "info";
    case Level::kWarning:
      return "warning";
    case Level::kError:
      return "error";
  }
  return "unknown";
}

absl::StatusOr<Level> ParseLevel(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "debug") return Level::kDebug;
  if (lower == "info") return Level::kInfo;
  if (lower == "warning" || lower == "warn") return Level::kWarning;
  if (lower == "error") return Level::kError;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown log level \"", name, "\" (want debug, info, warning or error)"));
}

absl::StatusOr<Format> ParseFormat(absl::string_view name) {
  if (name == "text") return Format::kText;
  if (name == "json") return Format::kJson;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown log format \"", name, "\" (want text or json)"));
}

std::string FormatText(const Record& record) {
  std::string line = absl::FormatTime(kTimeFormat, record.time, absl::UTCTimeZone());
  line += ' ';
  line += absl::AsciiStrToUpper(LevelName(record.level));
  line += ' ';
  line.append(record.component.data(), record.component.size());
  line += ": ";
  line.append(record.message.data(), record.message.size());
  ForEachField(record, [&line](const Field& field) {
    line += ' ';
    line += field.key;
    line += '=';
    AppendTextValue(line, field.value);
  });
  return line;
}

std::string FormatJson(const Record& record) {
  nlohmann::ordered_json json;
  json["ts"] = absl::FormatTime(kTimeFormat, record.time, absl::UTCTimeZone());
  json["level"] = std::string(LevelName(record.level));
  json["component"] = std::string(record.component);
  json["msg"] = std::string(record.message);
  ForEachField(record, [&json](const Field& field) {
    nlohmann::ordered_json number;
    if (field.numeric) number = nlohmann::ordered_json::parse(field.value, nullptr, false);
    json[field.key] = number.is_number() ? std::move(number) : nlohmann::ordered_json(field.value);
  });
  // Replace invalid UTF-8 rather than throw: a log line must never take the process down.
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void StreamSink::Write(const Record& record) {
  std::string line = format_ == Format::kJson ? FormatJson(record) : FormatText(record);
  line += '\n';
  absl::MutexLock lock(&mu_);
  std::fwrite(line.data(), 1, line.size(), stream_);
  std::fflush(stream_);
}

RequestIdScope::RequestIdScope(std::string id) : id_(std::move(id)), outer_(current_request_id) {
  current_request_id = &id_;
}

RequestIdScope::~RequestIdScope() { current_request_id = outer_; }

absl::string_view CurrentRequestId() {
  return current_request_id == nullptr ? absl::string_view() : *current_request_id;
}

bool IsWellFormedRequestId(absl::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && !absl::StrContains("-_.:/+=", c)) {
      return false;
    }
  }
  return true;
}

Logger Logger::Discard() { return Logger(nullptr, ""); }

Logger Logger::Child(absl::string_view name) const {
  Logger child = *this;
  child.component_ = component_.empty() ? std::string(name) : absl::StrCat(component_, ".", name);
  return child;
}

Logger Logger::With(std::string key, const absl::AlphaNum& value) const {
  Logger child = *this;
  child.context_.emplace_back(std::move(key), value);
  return child;
}

void Logger::Emit(Level level, absl::string_view message,
                  std::initializer_list<Field> fields) const {
  if (sink_ == nullptr || !sink_->Enabled(level)) return;
  sink_->Write(
      Record{absl::Now(), level, component_, message, context_, fields, CurrentRequestId()});
}

}  // namespace assisted::log
