#include "services/inventory/group_commit.h"

#include <algorithm>
#include <vector>

#include "services/inventory/transaction.h"

namespace assisted::inventory {

absl::Status GroupCommitter::Run(std::string order, const Write& write) {
  Pending me{.order = std::move(order), .write = &write};
  absl::MutexLock lock(&mu_);
  waiting_.push_back(&me);
  auto answered_or_room = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return me.done || (!me.taken && in_flight_ < options_.max_batches_in_flight);
  };
  while (true) {
    mu_.Await(absl::Condition(&answered_or_room));
    if (me.done) return me.status;
    // Lead a batch of what waits, oldest first (ours among them unless more than max_batch
    // arrived before it; then ours goes in a later batch).
    std::vector<Pending*> batch;
    while (!waiting_.empty() && static_cast<int>(batch.size()) < options_.max_batch) {
      batch.push_back(waiting_.front());
      waiting_.pop_front();
      batch.back()->taken = true;
    }
    ++in_flight_;
    mu_.Unlock();
    RunBatch(batch);
    mu_.Lock();
    --in_flight_;
    for (Pending* pending : batch) pending->done = true;
  }
}

absl::Status GroupCommitter::RunAlone(const Write& write) {
  return OnConnection(pool_, [&](pg::Connection& db) { return write(db); });
}

void GroupCommitter::RunBatch(std::vector<Pending*>& batch) {
  if (batch.size() == 1) {
    batch[0]->status = RunAlone(*batch[0]->write);
    absl::MutexLock lock(&mu_);
    ++counts_.transactions;
    ++counts_.writes;
    return;
  }
  std::stable_sort(batch.begin(), batch.end(),
                   [](const Pending* a, const Pending* b) { return a->order < b->order; });
  bool all_written = false;      // every write ran and left the transaction usable
  bool broken_by_write = false;  // a write's statement failed: the transaction is void
  const absl::Status committed = InTransaction(pool_, [&](pg::Transaction& tx) -> absl::Status {
    for (Pending* pending : batch) {
      pending->status = (*pending->write)(tx.connection());
      if (!tx.usable()) {
        broken_by_write = true;
        return pending->status.ok() ? absl::InternalError("a write broke its transaction")
                                    : pending->status;
      }
    }
    all_written = true;
    return absl::OkStatus();
  });
  int64_t retried = 0;
  if (committed.ok()) {
    // Each write's own status stands.
  } else if (broken_by_write || (all_written && !absl::IsUnavailable(committed))) {
    // Nothing of the batch committed; whose write was at fault is not known. Each runs alone
    // and gets its own answer.
    for (Pending* pending : batch) pending->status = RunAlone(*pending->write);
    retried = static_cast<int64_t>(batch.size());
  } else {
    // The transaction never began, or its COMMIT was lost: every write gets what kept it from
    // committing (a write that refused keeps its refusal: it wrote nothing).
    for (Pending* pending : batch) {
      if (pending->status.ok()) pending->status = committed;
    }
  }
  absl::MutexLock lock(&mu_);
  if (committed.ok()) {
    ++counts_.transactions;
    counts_.writes += static_cast<int64_t>(batch.size());
  }
  counts_.retried_alone += retried;
}

GroupCommitCounts GroupCommitter::counts() const {
  absl::MutexLock lock(&mu_);
  return counts_;
}

int GroupCommitter::waiting() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(waiting_.size());
}

}  // namespace assisted::inventory
