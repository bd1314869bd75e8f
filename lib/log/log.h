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

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
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

// One structured field. Numbers and strings convert implicitly: {"port", 9091}. A number stays
// a number in JSON lines ("port":9091), so log tooling can compare and sum it.
struct Field {
  Field(std::string k, const absl::AlphaNum& v) : key(std::move(k)), value(v.Piece()) {}
  template <typename Number, typename = std::enable_if_t<std::is_arithmetic_v<Number> &&
                                                         !std::is_same_v<Number, bool> &&
                                                         !std::is_same_v<Number, char>>>
  Field(std::string k, Number v)
      : key(std::move(k)), value(absl::AlphaNum(v).Piece()), numeric(std::isfinite(double(v))) {}
  std::string key;
  std::string value;
  bool numeric = false;  // `value` is a finite number's decimal text
};

// What a sink receives. Views stay valid only during Sink::Write.
struct Record {
  absl::Time time;
  Level level;
  absl::string_view component;
  absl::string_view message;
  const std::vector<Field>& context;    // fields bound with Logger::With
  std::initializer_list<Field> fields;  // fields of this call
  // The request this thread works for (RequestIdScope), empty outside one; written as the
  // field request_id.
  absl::string_view request_id = {};
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

// Names the request the current thread works for until it is destroyed: every record logged
// on this thread meanwhile carries request_id=<id>, and lib/grpc's ContextWithin forwards it to
// the services called (metadata x-request-id), whose servers open a scope of their own. Scopes
// nest (the inner one wins, the outer one is back after it); a scope must end on the thread that
// opened it. An empty id opens a scope without one.
class RequestIdScope {
 public:
  explicit RequestIdScope(std::string id);
  ~RequestIdScope();
  RequestIdScope(const RequestIdScope&) = delete;
  RequestIdScope& operator=(const RequestIdScope&) = delete;

 private:
  std::string id_;
  const std::string* outer_;
};

// The id of the innermost RequestIdScope open on this thread; empty when there is none.
absl::string_view CurrentRequestId();

// Whether `id` may serve as a request id taken from a client: 1 to 128 characters of letters,
// digits and "-_.:/+=" (UUIDs, trace ids, base64), nothing a log line or header could misread.
bool IsWellFormedRequestId(absl::string_view id);

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
