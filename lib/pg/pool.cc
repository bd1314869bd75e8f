#include "lib/pg/pool.h"

#include "absl/strings/str_cat.h"

namespace assisted::pg {

Pool::Handle::~Handle() {
  if (pool_ != nullptr && connection_ != nullptr) pool_->Release(std::move(connection_), holder_);
}

absl::StatusOr<Pool::Handle> Pool::Acquire() {
  const std::thread::id self = std::this_thread::get_id();
  {
    absl::MutexLock lock(&mu_);
    if (options_.refuse_nested_acquire && holders_.contains(self)) {
      return absl::FailedPreconditionError(
          "this thread already holds a connection of this pool: taking a second one while "
          "holding it can deadlock the pool under load; pass the one held down instead");
    }
    const auto can_proceed = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return !idle_.empty() || open_ < options_.max_connections;
    };
    if (!mu_.AwaitWithTimeout(absl::Condition(&can_proceed), options_.acquire_timeout)) {
      return absl::ResourceExhaustedError(
          absl::StrCat("all ", options_.max_connections, " database connections are busy"));
    }
    NoteLent(self);
    if (!idle_.empty()) {
      std::unique_ptr<Connection> connection = std::move(idle_.back());
      idle_.pop_back();
      return Handle(this, std::move(connection), self);
    }
    ++open_;  // reserve the slot; connect outside the lock
  }
  absl::StatusOr<std::unique_ptr<Connection>> connection =
      Connection::Open(options_.dsn, options_.connect);
  if (!connection.ok()) {
    absl::MutexLock lock(&mu_);
    --open_;
    NoteReturned(self);
    return connection.status();
  }
  return Handle(this, *std::move(connection), self);
}

void Pool::Release(std::unique_ptr<Connection> connection, std::thread::id holder) {
  // A connection still inside a transaction (a caller bug) is not reused either.
  const bool healthy = connection->healthy() && connection->idle();
  if (!healthy) connection.reset();  // close outside the lock
  absl::MutexLock lock(&mu_);
  NoteReturned(holder);
  if (healthy) {
    idle_.push_back(std::move(connection));
  } else {
    --open_;
  }
}

void Pool::NoteLent(std::thread::id holder) {
  if (options_.refuse_nested_acquire) holders_.insert(holder);
}

void Pool::NoteReturned(std::thread::id holder) {
  if (options_.refuse_nested_acquire) holders_.erase(holder);
}

int Pool::open_connections() const {
  absl::MutexLock lock(&mu_);
  return open_;
}

absl::StatusOr<Transaction> Transaction::Begin(Connection& connection) {
  absl::StatusOr<Result> begun = connection.Exec("BEGIN");
  if (!begun.ok()) return begun.status();
  return Transaction(&connection);
}

Transaction::~Transaction() {
  if (connection_ != nullptr) (void)connection_->Exec("ROLLBACK");
}

absl::Status Transaction::Commit() {
  Connection* connection = connection_;
  connection_ = nullptr;
  absl::StatusOr<Result> committed = connection->Exec("COMMIT");
  if (!committed.ok()) return committed.status();
  // COMMIT of a transaction that already failed "succeeds" with the tag ROLLBACK.
  if (committed->command_tag() == "ROLLBACK") {
    return absl::AbortedError("transaction was rolled back after an earlier error");
  }
  return absl::OkStatus();
}

}  // namespace assisted::pg
