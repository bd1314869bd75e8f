// File: lib/log/log.h
//
// The one logging facade of the project: leveled, structured (key=value fields), tagged with a
// component, written to a Sink chosen in main(). No global logger exists; components receive a
// Logger and derive children from it:
//
//   Logger log = root.Child("watch").With("cluster_id", id);
//   log.Info("change applied", {{"seq", seq}, {"status", "ready"}});
//
// Secrets (pull secrets, tokens, private keys) must never be passed as messages or fields.

#ifndef ASSISTED_LIB_LOG_LOG_H_
#define ASSISTED_LIB_LOG_LOG_H_

#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace assisted::log {

enum class Level { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

// "debug", "info", "warning", "error".
absl::string_view LevelName(Level level);

// Parses a level name as printed by LevelName (also "warn"); INVALID_ARGUMENT otherwise.
absl::StatusOr<Level> ParseLevel(absl::string_view name);

enum class Format { kText, kJson };

// "text" or "json"; INVALID_ARGUMENT otherwise.
absl::StatusOr<Format> ParseFormat(absl::string_view name);

// One structured field. Numbers and strings convert implicitly: {"port", 9091}.
struct Field {
  Field(std::string k, const absl::AlphaNum& v) : key(std::move(k)), value(v.Piece()) {}
  std::string key;
  std::string value;
};

// What a sink receives. Views stay valid only during Sink::Write.
struct Record {
  absl::Time time;
  Level level;
  absl::string_view component;
  absl::string_view message;
  const std::vector<Field>& context;    // fields bound with Logger::With
  std::initializer_list<Field> fields;  // fields of this call
};

class Sink {
 public:
  virtual ~Sink() = default;
  // Returns whether records of `level` are written at all (lets callers skip formatting).
  virtual bool Enabled(Level level) const = 0;
  virtual void Write(const Record& record) = 0;
};

// Writes one line per record to a stdio stream (stderr in services), as text or JSON lines.
// Thread-safe: lines from concurrent writers never interleave.
class StreamSink final : public Sink {
 public:
  StreamSink(std::FILE* stream, Level min_level, Format format)
      : stream_(stream), min_level_(min_level), format_(format) {}

  bool Enabled(Level level) const override { return level >= min_level_; }
  void Write(const Record& record) override;

 private:
  absl::Mutex mu_;
  std::FILE* const stream_ ABSL_PT_GUARDED_BY(mu_);
  const Level min_level_;
  const Format format_;
};

// Formats `record` as one text line without the trailing newline:
// `2026-11-22T02:29:40.123Z INFO inventory: started listen=0.0.0.0:9091`.
std::string FormatText(const Record& record);

// Formats `record` as one JSON object without the trailing newline.
std::string FormatJson(const Record& record);

class Logger {
 public:
  Logger(std::shared_ptr<Sink> sink, std::string component)
      : sink_(std::move(sink)), component_(std::move(component)) {}

  // A logger that writes nothing; for tests and optional collaborators.
  static Logger Discard();

  // A logger for a sub-component: "inventory" -> "inventory.watch".
  Logger Child(absl::string_view name) const;

  // A logger whose every record carries the field key=value.
  Logger With(std::string key, const absl::AlphaNum& value) const;

  const std::string& component() const { return component_; }

  void Debug(absl::string_view message, std::initializer_list<Field> fields = {}) const {
    Emit(Level::kDebug, message, fields);
  }
  void Info(absl::string_view message, std::initializer_list<Field> fields = {}) const {
    Emit(Level::kInfo, message, fields);
  }
  void Warning(absl::string_view message, std::initializer_list<Field> fields = {}) const {
    Emit(Level::kWarning, message, fields);
  }
  void Error(absl::string_view message, std::initializer_list<Field> fields = {}) const {
    Emit(Level::kError, message, fields);
  }

 private:
  void Emit(Level level, absl::string_view message, std::initializer_list<Field> fields) const;

  std::shared_ptr<Sink> sink_;  // null: discard everything
  std::string component_;
  std::vector<Field> context_;
};

}  // namespace assisted::log

#endif  // ASSISTED_LIB_LOG_LOG_H_
