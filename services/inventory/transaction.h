// File: services/inventory/transaction.h
//
// InTransaction runs `fn(tx)` in one database transaction borrowed from the pool and commits
// when fn succeeds. A connection found dead at BEGIN (the server restarted since it was pooled)
// is replaced once: nothing was written yet, so the retry is safe. Any other failure is
// returned as is, and the transaction rolls back.

#ifndef ASSISTED_SERVICES_INVENTORY_TRANSACTION_H_
#define ASSISTED_SERVICES_INVENTORY_TRANSACTION_H_

#include <type_traits>
#include <utility>

#include "absl/status/statusor.h"
#include "lib/pg/pool.h"

namespace assisted::inventory {

// `fn` is callable as absl::StatusOr<T>(pg::Transaction&).
template <typename Fn>
auto InTransaction(pg::Pool& pool, Fn&& fn) -> std::invoke_result_t<Fn&, pg::Transaction&> {
  using Result = std::invoke_result_t<Fn&, pg::Transaction&>;
  for (int attempt = 0;; ++attempt) {
    absl::StatusOr<pg::Pool::Handle> connection = pool.Acquire();
    if (!connection.ok()) return Result(connection.status());
    absl::StatusOr<pg::Transaction> tx = pg::Transaction::Begin(**connection);
    if (!tx.ok()) {
      if (tx.status().code() == absl::StatusCode::kUnavailable && attempt == 0) continue;
      return Result(tx.status());
    }
    Result result = fn(*tx);
    if (!result.ok()) return result;
    if (absl::Status committed = tx->Commit(); !committed.ok()) return Result(committed);
    return result;
  }
}

// OnConnection runs `fn(connection)` outside any explicit transaction: each statement commits
// by itself. For operations that are one statement. No retry: a write that failed midway may
// have committed, and only the caller can tell whether repeating it is safe.
template <typename Fn>
auto OnConnection(pg::Pool& pool, Fn&& fn) -> std::invoke_result_t<Fn&, pg::Connection&> {
  using Result = std::invoke_result_t<Fn&, pg::Connection&>;
  absl::StatusOr<pg::Pool::Handle> connection = pool.Acquire();
  if (!connection.ok()) return Result(connection.status());
  return fn(**connection);
}

// ReadOnConnection runs `fn(connection)` for statements that only read, outside any explicit
// transaction. Like InTransaction at BEGIN, a pooled connection found dead by its first
// statement (UNAVAILABLE: the server restarted since it was pooled) is replaced once; a read is
// safe to repeat.
template <typename Fn>
auto ReadOnConnection(pg::Pool& pool, Fn&& fn) -> std::invoke_result_t<Fn&, pg::Connection&> {
  using Result = std::invoke_result_t<Fn&, pg::Connection&>;
  for (int attempt = 0;; ++attempt) {
    absl::StatusOr<pg::Pool::Handle> connection = pool.Acquire();
    if (!connection.ok()) return Result(connection.status());
    Result result = fn(**connection);
    if (result.ok() || !absl::IsUnavailable(result.status()) || attempt > 0) return result;
  }
}

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_TRANSACTION_H_
