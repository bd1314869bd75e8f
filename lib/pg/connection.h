// File: lib/pg/connection.h
//
// A thin, status-returning wrapper over one libpq connection. Parameters always travel
// separately from SQL text ($1, $2, …), never spliced in. Errors map to absl codes by SQLSTATE
// so callers can tell a lost race (ABORTED) from bad input (INVALID_ARGUMENT) from a database
// that is down (UNAVAILABLE). The inventory service builds its pool and transactions on this.

#ifndef ASSISTED_LIB_PG_CONNECTION_H_
#define ASSISTED_LIB_PG_CONNECTION_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

struct pg_conn;
struct pg_result;

namespace assisted::pg {

// A query parameter: text, or SQL NULL.
using Param = std::optional<std::string>;

// The rows of a finished statement, as text.
class Result {
 public:
  Result(Result&&) noexcept;
  Result& operator=(Result&&) noexcept;
  ~Result();

  int rows() const;
  int columns() const;
  // Number of rows an UPDATE/DELETE/INSERT touched.
  int64_t affected_rows() const;
  bool IsNull(int row, int column) const;
  // The value as text ("" for NULL). Valid while this Result lives.
  absl::string_view Get(int row, int column) const;
  // The command tag, e.g. "INSERT 0 1", "COMMIT", "ROLLBACK".
  absl::string_view command_tag() const;

 private:
  friend class Connection;
  explicit Result(pg_result* result) : result_(result) {}
  pg_result* result_;
};

struct ConnectOptions {
  absl::Duration connect_timeout = absl::Seconds(10);
  // Server-side cap on every statement (0: none); a statement that runs longer fails with
  // DEADLINE_EXCEEDED instead of holding a connection forever.
  absl::Duration statement_timeout = absl::ZeroDuration();
  // Reported in pg_stat_activity.
  std::string application_name = "assisted";
  // Whether COMMIT waits for the WAL to reach disk. On by default, whatever the server's own
  // default: an acknowledged write must survive a crash.
  bool synchronous_commit = true;
};

class Connection {
 public:
  // Connects with a libpq connection string ("host=/tmp/x dbname=app user=app") or URI.
  // UNAVAILABLE when the server cannot be reached; the message never contains the password.
  static absl::StatusOr<std::unique_ptr<Connection>> Open(const std::string& dsn,
                                                          const ConnectOptions& options);
  static absl::StatusOr<std::unique_ptr<Connection>> Open(
      const std::string& dsn, absl::Duration connect_timeout = absl::Seconds(10)) {
    return Open(dsn, ConnectOptions{.connect_timeout = connect_timeout});
  }

  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one statement with positional parameters. Statements with parameters are prepared
  // once per connection and reused (the server parses and plans each text once), up to
  // kMaxPrepared distinct texts; later ones run unprepared.
  absl::StatusOr<Result> Exec(absl::string_view sql, const std::vector<Param>& params = {});

  // Runs a script of several statements separated by ';' (no parameters), e.g. a migration.
  // Returns the last statement's result.
  absl::StatusOr<Result> ExecScript(absl::string_view sql);

  // Whether the connection is still usable (false after the server went away).
  bool healthy() const;

  // Whether no transaction is open (what a pooled connection must be).
  bool idle() const;

  // Whether a transaction is open and none of its statements failed, so more may follow (false
  // once one failed: the server then refuses everything but ROLLBACK; false when the connection
  // is gone).
  bool in_usable_transaction() const;

  // The server's version number, e.g. 150018 for 15.18.
  int server_version() const;

  // The libpq handle, for LISTEN/NOTIFY plumbing (lib/pg/listener).
  pg_conn* raw() const { return conn_; }

 private:
  static constexpr size_t kMaxPrepared = 512;
  explicit Connection(pg_conn* conn) : conn_(conn) {}
  // Wraps a libpq result, turning failures into statuses.
  absl::StatusOr<Result> Check(pg_result* raw);
  pg_conn* conn_;
  // SQL text -> name of its prepared statement on this connection.
  absl::flat_hash_map<std::string, std::string> prepared_;
};

// Quotes `name` as an SQL identifier ("my db" -> "\"my db\""), for the rare statements that take
// no parameters in identifier positions (CREATE DATABASE).
std::string QuoteIdentifier(absl::string_view name);

}  // namespace assisted::pg

#endif  // ASSISTED_LIB_PG_CONNECTION_H_
