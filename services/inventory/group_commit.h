// File: services/inventory/group_commit.h
//
// Group commit: writes from many callers that arrive together share one transaction, so N
// concurrent writers cost one COMMIT (one WAL flush, one NOTIFY of the sequencers) instead of N.
// Every change-log writer NOTIFYs (change_log.h), and PostgreSQL commits notifying transactions
// one at a time, each with its own WAL flush; batching is what lets durable writes keep up with
// a server that would otherwise flush once per write.
//
// How a write is batched: a caller that finds fewer than max_batches_in_flight batches running
// starts one at once with every write waiting (up to max_batch), its own included; so a lone
// caller never waits for company, and a batch of one runs as it would without this class: its
// statement commits by itself, no BEGIN or COMMIT round trip. Callers that arrive while the
// limit is reached wait, and the next of them to find room takes them all into one transaction.
// Each caller is answered only after the commit holding its write (durable, with
// synchronous_commit on), with its own result.
//
// Failure of one caller's write does not fail the others': when a write breaks the transaction
// (an SQL error) or COMMIT is refused, the batch rolls back and every write in it runs again
// alone, and each caller gets that run's answer. Only when COMMIT itself was lost (UNAVAILABLE:
// the outcome is unknown) does every caller get that error, as it would have alone.

#ifndef ASSISTED_SERVICES_INVENTORY_GROUP_COMMIT_H_
#define ASSISTED_SERVICES_INVENTORY_GROUP_COMMIT_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "lib/pg/pool.h"

namespace assisted::inventory {

struct GroupCommitOptions {
  // Most writes one transaction carries: bounds how long its row locks are held and how much
  // one failed batch costs to run again alone.
  int max_batch = 64;
  // Batches running at once. While they all are, arriving writes wait and then go together.
  int max_batches_in_flight = 2;
};

// What a GroupCommitter has done since it was made.
struct GroupCommitCounts {
  int64_t transactions = 0;   // commits of batches (a batch of one: its statement's own)
  int64_t writes = 0;         // writes in those batches
  int64_t retried_alone = 0;  // writes run again alone after their batch failed
};

class GroupCommitter {
 public:
  // A caller's write, and the caller's answer: ONE statement that writes, then reads if it
  // likes (to explain a refusal), on `db`. Alone, that statement commits by itself; in a batch,
  // `db` is inside the batch's transaction. It may run twice (alone, after its batch failed).
  // When it returns an error and left the transaction usable, it must have written nothing (a
  // refusal decided by what it read: a lost compare-and-set, a conflicting row), so the other
  // writes of the batch still commit.
  using Write = std::function<absl::Status(pg::Connection& db)>;

  GroupCommitter(pg::Pool& pool, GroupCommitOptions options = {})
      : pool_(pool), options_(options) {}
  GroupCommitter(const GroupCommitter&) = delete;
  GroupCommitter& operator=(const GroupCommitter&) = delete;

  // Runs `write` in a transaction shared with the writes that arrive meanwhile, and returns once
  // that transaction committed: the write's own status, or the error that kept it from
  // committing. `order` sorts the writes of a batch (give the key of the row it locks), so that
  // batches open at once lock rows in one order and never deadlock each other; writes with the
  // same order keep their order of arrival. The caller must hold no connection of the pool.
  absl::Status Run(std::string order, const Write& write);

  // Run for a write that answers a value: `fn` is callable as absl::StatusOr<T>(pg::Connection&).
  template <typename T, typename Fn>
  absl::StatusOr<T> Commit(std::string order, Fn&& fn) {
    absl::StatusOr<T> result = absl::UnknownError("never ran");
    absl::Status status = Run(std::move(order), [&](pg::Connection& db) {
      result = fn(db);
      return result.status();
    });
    if (!status.ok()) return status;
    return result;
  }

  GroupCommitCounts counts() const;
  // Writes waiting for a transaction (not yet in one).
  int waiting() const;

 private:
  struct Pending {
    std::string order;
    const Write* write;
    absl::Status status;
    bool taken = false;  // in a batch
    bool done = false;   // answered
  };
  // Runs `batch` in one transaction, falling back to running each write alone; sets each
  // write's status.
  void RunBatch(std::vector<Pending*>& batch);
  absl::Status RunAlone(const Write& write);

  pg::Pool& pool_;
  const GroupCommitOptions options_;
  mutable absl::Mutex mu_;
  std::deque<Pending*> waiting_ ABSL_GUARDED_BY(mu_);
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  GroupCommitCounts counts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_GROUP_COMMIT_H_
