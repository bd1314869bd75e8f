// File: services/inventory/change_feed.h
//
// The change log's moving parts, and the inventory's periodic maintenance (log retention,
// purging soft-deleted rows), which runs on the same thread under the same lock. Writers append
// rows with no sequence number in their own transactions (change_log.h). The
// ChangeFeed of every inventory replica LISTENs for those appends; one replica at a time (whoever
// wins a transaction-level advisory lock) numbers the committed rows in order, and everyone learns
// the new head through NOTIFY. Because only committed rows get numbers, a watcher that has seen seq
// N has seen every change numbered up to N, and can resume from N after any disconnect or restart.
// The feed also passes on hints (change_hints.h): changes this replica committed, ahead of their
// numbers, for the Watch streams served here that asked for them.

#ifndef ASSISTED_SERVICES_INVENTORY_CHANGE_FEED_H_
#define ASSISTED_SERVICES_INVENTORY_CHANGE_FEED_H_

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "lib/log/log.h"
#include "lib/pg/pool.h"
#include "services/inventory/change_hints.h"

namespace assisted::inventory {

struct Sequenced {
  int64_t numbered = 0;  // rows numbered by this call
  int64_t head = 0;      // the highest seq it assigned (0 when it numbered nothing)
};

// Numbers the committed, unnumbered change rows, if this caller wins the sequencer lock
// (otherwise another replica is doing it and this returns {0, 0}).
absl::StatusOr<Sequenced> SequencePending(pg::Pool& pool);

// The seq a watcher must reach to have seen every change committed before this call: the head,
// after numbering what is committed and not yet numbered (waiting for another replica's sequencer
// if it holds the lock). One short query when nothing awaits a number.
absl::StatusOr<int64_t> SyncedHead(pg::Pool& pool);

// Deletes all but the newest `keep` numbered entries and records the cut as purged_through.
absl::Status TrimChangeLog(pg::Pool& pool, int64_t keep);

// Hard-deletes resources soft-deleted more than `older_than` ago, with the artifacts and events
// of purged clusters. Returns how many resource rows it removed.
absl::StatusOr<int64_t> PurgeDeleted(pg::Pool& pool, absl::Duration older_than);

// The highest assigned seq (or the purge watermark when the log is empty).
absl::StatusOr<int64_t> HeadSeq(pg::Pool& pool);

// Every seq at or below this was deleted by retention.
absl::StatusOr<int64_t> PurgedThrough(pg::Pool& pool);

// Changes with after < seq <= upto that match `filter`, in seq order, at most `limit`.
absl::StatusOr<std::vector<v1::WatchEvent>> ReadChanges(pg::Pool& pool, int64_t after, int64_t upto,
                                                        const v1::WatchFilter& filter, int limit);

struct ChangeFeedOptions {
  std::string dsn;
  // Sequencing also runs this often without a notification (a safety net for lost NOTIFYs and
  // for rows left unnumbered by a replica that died).
  absl::Duration poll_interval = absl::Seconds(1);
  // Change-log entries kept for resuming watchers, trimmed every trim_interval.
  int64_t keep_changes = 1'000'000;
  absl::Duration trim_interval = absl::Minutes(1);
  // Soft-deleted resources are purged this long after deletion (checked every trim_interval).
  absl::Duration purge_after = absl::Hours(72);
  // Numbering passes are at least this far apart, so a busy log is numbered in batches
  // rather than one transaction per write (watchers see changes at most this much later).
  absl::Duration batch_interval = absl::Milliseconds(5);
  // Hints kept for streams that fall behind (see HintRing).
  size_t hint_capacity = 4096;
};

class ChangeFeed {
 public:
  // Starts the background thread (LISTEN, sequence, publish the head).
  static absl::StatusOr<std::unique_ptr<ChangeFeed>> Start(ChangeFeedOptions options,
                                                           pg::Pool& pool, log::Logger log);
  ~ChangeFeed();

  // The newest head this replica knows.
  int64_t head() const;

  // The `hint` position of a stream that did not ask for hints: WaitBeyond ignores hints.
  static constexpr uint64_t kNoHints = UINT64_MAX;

  // Blocks until head() > seq, or a hint numbered above `hint` exists, or `deadline`; returns
  // head(). Thread-safe.
  int64_t WaitBeyond(int64_t seq, absl::Time deadline, uint64_t hint = kNoHints) const;

  // Passes on a change this replica has just committed, to the streams waiting here.
  void Hint(const Change& change);
  // The newest hint's number: a stream starts reading hints after it.
  uint64_t last_hint() const;
  // The hints numbered above `*after` that match `filter`; moves `*after` to the newest.
  std::vector<v1::WatchEvent> HintsAfter(uint64_t* after, const v1::WatchFilter& filter) const;

 private:
  ChangeFeed(ChangeFeedOptions options, pg::Pool& pool, log::Logger log, int wake_fd, int64_t head);
  void Run();
  // One listening session; returns when the connection breaks or on stop.
  absl::Status Listen();
  void Publish(int64_t head);
  void SequenceAndPublish();
  void MaintainIfDue();
  bool stopping() const;

  const ChangeFeedOptions options_;
  pg::Pool& pool_;
  log::Logger log_;
  const int wake_fd_;  // eventfd: wakes the thread's poll() on shutdown
  mutable absl::Mutex mu_;
  int64_t head_ ABSL_GUARDED_BY(mu_);
  HintRing hints_ ABSL_GUARDED_BY(mu_);
  absl::Time last_trim_ = absl::InfinitePast();      // feed thread only
  absl::Time last_numbered_ = absl::InfinitePast();  // feed thread only
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_CHANGE_FEED_H_
