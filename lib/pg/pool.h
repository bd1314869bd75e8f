// File: lib/pg/pool.h
//
// A bounded pool of PostgreSQL connections and RAII transactions over them.
//
//   ASSIGN_OR_RETURN(pg::Pool::Handle conn, pool.Acquire());
//   ASSIGN_OR_RETURN(pg::Transaction tx, pg::Transaction::Begin(*conn));
//   RETURN_IF_ERROR(tx.Exec(kInsertHost, {id, doc}).status());
//   RETURN_IF_ERROR(tx.Commit());   // a Transaction that is not committed rolls back
//
// Connections open lazily, at most `max_connections` at a time; a caller waits up to
// `acquire_timeout` for one (then RESOURCE_EXHAUSTED, so overload sheds instead of piling up).
// A connection that broke (server restart, network) is dropped when handed back and replaced on
// demand, so the pool heals by itself once the server is back.
//
// A caller holds at most one connection of a pool at a time: one that waits for a second while
// holding a first can, once every connection is held that way, wait forever (or, here, until
// acquire_timeout, for every caller). Pass the connection or transaction you hold down instead.
// Debug and test builds enforce this (PoolOptions::refuse_nested_acquire).

#ifndef ASSISTED_LIB_PG_POOL_H_
#define ASSISTED_LIB_PG_POOL_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/pg/connection.h"

namespace assisted::pg {

#ifdef NDEBUG
inline constexpr bool kRefuseNestedAcquireByDefault = false;
#else
inline constexpr bool kRefuseNestedAcquireByDefault = true;
#endif

struct PoolOptions {
  std::string dsn;
  int max_connections = 16;
  absl::Duration acquire_timeout = absl::Seconds(5);
  ConnectOptions connect;
  // Acquire by a thread that already holds a connection of this pool fails at once with
  // FAILED_PRECONDITION instead of risking the deadlock described above, so tests find such
  // code paths on their first run rather than under load. On in builds without NDEBUG (tests,
  // fastbuild); a test that holds several connections on purpose turns it off.
  bool refuse_nested_acquire = kRefuseNestedAcquireByDefault;
};

class Pool {
 public:
  // A connection on loan; returns itself to the pool when destroyed. It counts as held by the
  // thread that acquired it until then, wherever it is destroyed.
  class Handle {
   public:
    Handle(Handle&& other) noexcept
        : pool_(other.pool_), connection_(std::move(other.connection_)), holder_(other.holder_) {
      other.pool_ = nullptr;
    }
    Handle& operator=(Handle&&) = delete;
    ~Handle();
    Connection& operator*() const { return *connection_; }
    Connection* operator->() const { return connection_.get(); }

   private:
    friend class Pool;
    Handle(Pool* pool, std::unique_ptr<Connection> connection, std::thread::id holder)
        : pool_(pool), connection_(std::move(connection)), holder_(holder) {}
    Pool* pool_;
    std::unique_ptr<Connection> connection_;
    std::thread::id holder_;
  };

  explicit Pool(PoolOptions options) : options_(std::move(options)) {}
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Lends a connection: an idle one, else a new one while below the limit, else waits.
  // UNAVAILABLE when a new connection cannot be opened; RESOURCE_EXHAUSTED after
  // acquire_timeout; FAILED_PRECONDITION when the calling thread already holds one and
  // refuse_nested_acquire is on. Thread-safe.
  absl::StatusOr<Handle> Acquire();

  // Connections currently open (idle + lent).
  int open_connections() const;

 private:
  void Release(std::unique_ptr<Connection> connection, std::thread::id holder);
  // Bookkeeping of which threads hold connections, for refuse_nested_acquire.
  void NoteLent(std::thread::id holder) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void NoteReturned(std::thread::id holder) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const PoolOptions options_;
  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<Connection>> idle_ ABSL_GUARDED_BY(mu_);
  int open_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_set<std::thread::id> holders_ ABSL_GUARDED_BY(mu_);
};

// One database transaction; rolls back on destruction unless Commit() succeeded.
class Transaction {
 public:
  // BEGIN (READ COMMITTED). UNAVAILABLE if the connection is gone.
  static absl::StatusOr<Transaction> Begin(Connection& connection);

  Transaction(Transaction&& other) noexcept : connection_(other.connection_) {
    other.connection_ = nullptr;
  }
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();

  absl::StatusOr<Result> Exec(absl::string_view sql, const std::vector<Param>& params = {}) {
    return connection_->Exec(sql, params);
  }
  absl::StatusOr<Result> ExecScript(absl::string_view sql) { return connection_->ExecScript(sql); }

  // Whether statements may still follow: open, and none of its statements failed.
  bool usable() const { return connection_ != nullptr && connection_->in_usable_transaction(); }
  // The connection it runs on, for code written against a Connection (its statements run in
  // this transaction). Only while the transaction is open.
  Connection& connection() const { return *connection_; }

  // COMMIT. With synchronous_commit on (the server default the project keeps), OK means the
  // change is durable. An error leaves the outcome unknown only for UNAVAILABLE.
  absl::Status Commit();

 private:
  explicit Transaction(Connection* connection) : connection_(connection) {}
  Connection* connection_;  // null once committed or rolled back
};

}  // namespace assisted::pg

#endif  // ASSISTED_LIB_PG_POOL_H_
