#include "lib/pg/connection.h"

// Debian puts libpq under /usr/include/postgresql; its own includes are relative to it.
#include "postgresql/libpq-fe.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/status/status_macros.h"

namespace assisted::pg {
namespace {

// Maps a SQLSTATE (https://www.postgresql.org/docs/15/errcodes-appendix.html) to the code a
// caller can act on.
absl::StatusCode CodeForSqlState(absl::string_view state) {
  if (state == "23505") return absl::StatusCode::kAlreadyExists;                // unique_violation
  if (state == "40001" || state == "40P01") return absl::StatusCode::kAborted;  // retry
  if (state == "57014") return absl::StatusCode::kDeadlineExceeded;  // query_canceled/timeout
  if (absl::StartsWith(state, "08") || absl::StartsWith(state, "57P")) {
    return absl::StatusCode::kUnavailable;  // connection exception, admin shutdown
  }
  if (absl::StartsWith(state, "22")) return absl::StatusCode::kInvalidArgument;  // data exception
  if (absl::StartsWith(state, "23")) return absl::StatusCode::kFailedPrecondition;  // integrity
  if (state == "53300") return absl::StatusCode::kResourceExhausted;  // too_many_connections
  return absl::StatusCode::kInternal;
}

std::string Trimmed(const char* message) {
  return std::string(absl::StripTrailingAsciiWhitespace(message == nullptr ? "" : message));
}

}  // namespace

Result::Result(Result&& other) noexcept : result_(other.result_) { other.result_ = nullptr; }

Result& Result::operator=(Result&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr) PQclear(result_);
    result_ = other.result_;
    other.result_ = nullptr;
  }
  return *this;
}

Result::~Result() {
  if (result_ != nullptr) PQclear(result_);
}

int Result::rows() const { return PQntuples(result_); }
int Result::columns() const { return PQnfields(result_); }

int64_t Result::affected_rows() const {
  const char* tuples = PQcmdTuples(result_);
  return tuples == nullptr || *tuples == '\0' ? 0 : std::strtoll(tuples, nullptr, 10);
}

absl::string_view Result::command_tag() const { return PQcmdStatus(result_); }

bool Result::IsNull(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }

absl::string_view Result::Get(int row, int column) const {
  return absl::string_view(PQgetvalue(result_, row, column), PQgetlength(result_, row, column));
}

absl::StatusOr<std::unique_ptr<Connection>> Connection::Open(const std::string& dsn,
                                                             const ConnectOptions& options) {
  const std::string timeout =
      absl::StrCat(std::max<int64_t>(1, absl::ToInt64Seconds(options.connect_timeout)));
  const std::string server_options =
      absl::StrCat("-c statement_timeout=", absl::ToInt64Milliseconds(options.statement_timeout),
                   " -c synchronous_commit=", options.synchronous_commit ? "on" : "off");
  // Keys after "dbname" override what the dsn says, so the dsn can't turn these off.
  const char* keys[] = {"dbname", "connect_timeout", "options", "application_name", nullptr};
  const char* values[] = {dsn.c_str(), timeout.c_str(), server_options.c_str(),
                          options.application_name.c_str(), nullptr};
  // expand_dbname=1: the dsn may be a full connection string or URI.
  pg_conn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (conn == nullptr)
    return absl::ResourceExhaustedError("out of memory connecting to PostgreSQL");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = Trimmed(PQerrorMessage(conn));
    PQfinish(conn);
    return absl::UnavailableError(absl::StrCat("cannot connect to PostgreSQL: ", message));
  }
  return std::unique_ptr<Connection>(new Connection(conn));
}

Connection::~Connection() { PQfinish(conn_); }

absl::StatusOr<Result> Connection::Exec(absl::string_view sql, const std::vector<Param>& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const Param& param : params) values.push_back(param ? param->c_str() : nullptr);
  const int count = static_cast<int>(params.size());
  std::string text(sql);
  auto prepared = prepared_.find(text);
  if (prepared == prepared_.end() && count > 0 && prepared_.size() < kMaxPrepared) {
    std::string name = absl::StrCat("assisted_", prepared_.size());
    RETURN_IF_ERROR(Check(PQprepare(conn_, name.c_str(), text.c_str(), count, nullptr)).status());
    prepared = prepared_.emplace(std::move(text), std::move(name)).first;
  }
  if (prepared != prepared_.end()) {
    return Check(PQexecPrepared(conn_, prepared->second.c_str(), count, values.data(),
                                /*paramLengths=*/nullptr, /*paramFormats=*/nullptr,
                                /*resultFormat=*/0));
  }
  return Check(PQexecParams(conn_, text.c_str(), count, /*paramTypes=*/nullptr, values.data(),
                            /*paramLengths=*/nullptr, /*paramFormats=*/nullptr,
                            /*resultFormat=*/0));
}

absl::StatusOr<Result> Connection::ExecScript(absl::string_view sql) {
  return Check(PQexec(conn_, std::string(sql).c_str()));
}

absl::StatusOr<Result> Connection::Check(pg_result* raw) {
  Result result(raw);
  if (result.result_ == nullptr) {
    return absl::UnavailableError(absl::StrCat("PostgreSQL: ", Trimmed(PQerrorMessage(conn_))));
  }
  const ExecStatusType status = PQresultStatus(result.result_);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
  const char* state = PQresultErrorField(result.result_, PG_DIAG_SQLSTATE);
  // Errors without a SQLSTATE come from libpq itself: the connection failed mid-statement.
  const absl::StatusCode code =
      state != nullptr ? CodeForSqlState(state) : absl::StatusCode::kUnavailable;
  return absl::Status(code,
                      absl::StrCat("PostgreSQL: ", Trimmed(PQresultErrorMessage(result.result_))));
}

bool Connection::healthy() const { return PQstatus(conn_) == CONNECTION_OK; }

bool Connection::idle() const { return PQtransactionStatus(conn_) == PQTRANS_IDLE; }

bool Connection::in_usable_transaction() const {
  return PQtransactionStatus(conn_) == PQTRANS_INTRANS;
}

int Connection::server_version() const { return PQserverVersion(conn_); }

std::string QuoteIdentifier(absl::string_view name) {
  std::string quoted = "\"";
  for (char c : name) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

}  // namespace assisted::pg
