#include "services/inventory/change_feed.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/status/status_macros.h"
#include "postgresql/libpq-fe.h"
#include "services/inventory/change_log.h"
#include "services/inventory/store_common.h"
#include "services/inventory/transaction.h"

namespace assisted::inventory {
namespace {

// Arbitrary but fixed: the advisory lock key of the sequencer, taken if free or waited for.
constexpr char kTrySequencerLock[] = "SELECT pg_try_advisory_xact_lock(7301000002)";
constexpr char kWaitSequencerLock[] = "SELECT pg_advisory_xact_lock(7301000002)";
constexpr int kBatch = 5000;
// The highest assigned seq, or the purge watermark when the log is empty.
constexpr char kHeadExpression[] =
    "greatest((SELECT coalesce(max(seq), 0) FROM changes), "
    "(SELECT purged_through FROM change_log_state))";

// Numbers the committed, unnumbered rows within `tx`, which holds the sequencer lock.
absl::StatusOr<Sequenced> NumberPending(pg::Transaction& tx) {
  Sequenced result;
  while (true) {
    ASSIGN_OR_RETURN(
        pg::Result rows,
        tx.Exec(absl::StrCat(
            "WITH pending AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM "
            "(SELECT id FROM changes WHERE seq IS NULL ORDER BY id LIMIT ",
            kBatch,
            ") p), base AS (SELECT greatest((SELECT coalesce(max(seq), 0) FROM changes), "
            "(SELECT purged_through FROM change_log_state)) AS s), "
            "numbered AS (UPDATE changes c SET seq = base.s + pending.n FROM pending, base "
            "WHERE c.id = pending.id RETURNING c.seq) "
            "SELECT count(*), coalesce(max(seq), 0) FROM numbered")));
    const int64_t count = ToInt64(rows.Get(0, 0));
    result.numbered += count;
    result.head = std::max(result.head, ToInt64(rows.Get(0, 1)));
    if (count < kBatch) break;
  }
  if (result.numbered > 0) {
    RETURN_IF_ERROR(tx.Exec("SELECT pg_notify('assisted_seq', '')").status());
  }
  return result;
}

}  // namespace

absl::StatusOr<Sequenced> SequencePending(pg::Pool& pool) {
  return InTransaction(pool, [](pg::Transaction& tx) -> absl::StatusOr<Sequenced> {
    ASSIGN_OR_RETURN(pg::Result locked, tx.Exec(kTrySequencerLock));
    if (locked.Get(0, 0) != "t") return Sequenced{};  // another replica is numbering right now
    return NumberPending(tx);
  });
}

absl::StatusOr<int64_t> SyncedHead(pg::Pool& pool) {
  // The usual case, one statement and one round trip (every cached gateway read waits for it):
  // nothing awaits a number, so the head covers every change this statement's snapshot sees,
  // which includes all committed before it. A statement on its own takes that snapshot as it
  // starts, as it would inside a transaction, so BEGIN and COMMIT would add round trips only.
  ASSIGN_OR_RETURN(
      pg::Result state, ReadOnConnection(pool, [](pg::Connection& connection) {
        return connection.Exec(absl::StrCat(
            "SELECT EXISTS (SELECT 1 FROM changes WHERE seq IS NULL), ", kHeadExpression));
      }));
  if (state.Get(0, 0) != "t") return ToInt64(state.Get(0, 1));
  return InTransaction(pool, [](pg::Transaction& tx) -> absl::StatusOr<int64_t> {
    // Committed rows await a number. A sequencer running elsewhere may have begun before they
    // committed, so wait for it (the lock) and number what is left ourselves.
    RETURN_IF_ERROR(tx.Exec(kWaitSequencerLock).status());
    RETURN_IF_ERROR(NumberPending(tx).status());
    ASSIGN_OR_RETURN(pg::Result head, tx.Exec(absl::StrCat("SELECT ", kHeadExpression)));
    return ToInt64(head.Get(0, 0));
  });
}

absl::Status TrimChangeLog(pg::Pool& pool, int64_t keep) {
  return InTransaction(
             pool,
             [keep](pg::Transaction& tx) -> absl::StatusOr<bool> {
               ASSIGN_OR_RETURN(pg::Result locked, tx.Exec(kTrySequencerLock));
               if (locked.Get(0, 0) != "t") return false;
               RETURN_IF_ERROR(
                   tx.Exec(
                         "WITH cut AS (SELECT coalesce(max(seq), 0) - $1::bigint AS s FROM "
                         "changes), gone AS (DELETE FROM changes WHERE seq <= (SELECT s FROM cut) "
                         "RETURNING seq) UPDATE change_log_state SET purged_through = "
                         "greatest(purged_through, (SELECT coalesce(max(seq), 0) FROM gone))",
                         {absl::StrCat(keep)})
                       .status());
               return true;
             })
      .status();
}

absl::StatusOr<int64_t> PurgeDeleted(pg::Pool& pool, absl::Duration older_than) {
  return InTransaction(pool, [older_than](pg::Transaction& tx) -> absl::StatusOr<int64_t> {
    const std::vector<pg::Param> age = {absl::StrCat(absl::ToInt64Seconds(older_than))};
    constexpr char kCutoff[] = "deleted_at < now() - $1::bigint * interval '1 second'";
    int64_t purged = 0;
    ASSIGN_OR_RETURN(
        pg::Result clusters,
        tx.Exec(absl::StrCat("DELETE FROM clusters WHERE ", kCutoff, " RETURNING id"), age));
    purged += clusters.rows();
    if (clusters.rows() > 0) {
      // Whatever belonged to a purged cluster goes with it.
      RETURN_IF_ERROR(tx.Exec("DELETE FROM artifacts WHERE cluster_id NOT IN "
                              "(SELECT id FROM clusters)")
                          .status());
      RETURN_IF_ERROR(tx.Exec("DELETE FROM events WHERE cluster_id IS NOT NULL AND cluster_id "
                              "NOT IN (SELECT id FROM clusters)")
                          .status());
    }
    for (const char* table : {"hosts", "infra_envs"}) {
      ASSIGN_OR_RETURN(pg::Result rows,
                       tx.Exec(absl::StrCat("DELETE FROM ", table, " WHERE ", kCutoff), age));
      purged += rows.affected_rows();
    }
    return purged;
  });
}

absl::StatusOr<int64_t> HeadSeq(pg::Pool& pool) {
  return InTransaction(pool, [](pg::Transaction& tx) -> absl::StatusOr<int64_t> {
    ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(absl::StrCat("SELECT ", kHeadExpression)));
    return ToInt64(rows.Get(0, 0));
  });
}

absl::StatusOr<int64_t> PurgedThrough(pg::Pool& pool) {
  return InTransaction(pool, [](pg::Transaction& tx) -> absl::StatusOr<int64_t> {
    ASSIGN_OR_RETURN(pg::Result rows, tx.Exec("SELECT purged_through FROM change_log_state"));
    return ToInt64(rows.Get(0, 0));
  });
}

absl::StatusOr<std::vector<v1::WatchEvent>> ReadChanges(pg::Pool& pool, int64_t after, int64_t upto,
                                                        const v1::WatchFilter& filter, int limit) {
  Query q;
  std::string sql = absl::StrCat(
      "SELECT seq, kind, resource_id, infra_env_id, cluster_id, resource_version, change_type, "
      "status, (extract(epoch from changed_at) * 1000000)::bigint FROM changes WHERE seq > ",
      q.Add(absl::StrCat(after)), "::bigint AND seq <= ", q.Add(absl::StrCat(upto)), "::bigint");
  if (filter.kinds_size() > 0) {
    std::vector<std::string> kinds;
    for (int kind : filter.kinds())
      kinds.push_back(v1::ResourceKind_Name(static_cast<v1::ResourceKind>(kind)));
    absl::StrAppend(&sql, " AND kind = ANY(",
                    q.Add(absl::StrCat("{", absl::StrJoin(kinds, ","), "}")), "::text[])");
  }
  if (!filter.cluster_id().empty()) {
    absl::StrAppend(&sql, " AND cluster_id = ", q.Add(filter.cluster_id()));
  }
  if (!filter.infra_env_id().empty()) {
    absl::StrAppend(&sql, " AND infra_env_id = ", q.Add(filter.infra_env_id()));
  }
  absl::StrAppend(&sql, " ORDER BY seq LIMIT ", limit);
  return InTransaction(
      pool, [&](pg::Transaction& tx) -> absl::StatusOr<std::vector<v1::WatchEvent>> {
        ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(sql, q.params()));
        std::vector<v1::WatchEvent> events;
        events.reserve(rows.rows());
        for (int row = 0; row < rows.rows(); ++row) {
          v1::ResourceKind kind = v1::RESOURCE_KIND_UNSPECIFIED;
          (void)v1::ResourceKind_Parse(std::string(rows.Get(row, 1)), &kind);
          v1::ChangeType type = v1::CHANGE_TYPE_UNSPECIFIED;
          (void)v1::ChangeType_Parse(std::string(rows.Get(row, 6)), &type);
          v1::WatchEvent& event = events.emplace_back(
              EventOf({kind, std::string(rows.Get(row, 2)), std::string(rows.Get(row, 3)),
                       std::string(rows.Get(row, 4)), ToInt64(rows.Get(row, 5)), type,
                       std::string(rows.Get(row, 7))}));
          event.set_seq(ToInt64(rows.Get(row, 0)));
          SetTimestamp(rows.Get(row, 8), *event.mutable_changed_at());
        }
        return events;
      });
}

absl::StatusOr<std::unique_ptr<ChangeFeed>> ChangeFeed::Start(ChangeFeedOptions options,
                                                              pg::Pool& pool, log::Logger log) {
  (void)SequencePending(pool);  // number what earlier runs left behind
  ASSIGN_OR_RETURN(int64_t head, HeadSeq(pool));
  const int wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd < 0) return absl::InternalError("eventfd failed");
  return std::unique_ptr<ChangeFeed>(
      new ChangeFeed(std::move(options), pool, std::move(log), wake_fd, head));
}

ChangeFeed::ChangeFeed(ChangeFeedOptions options, pg::Pool& pool, log::Logger log, int wake_fd,
                       int64_t head)
    : options_(std::move(options)),
      pool_(pool),
      log_(std::move(log)),
      wake_fd_(wake_fd),
      head_(head),
      hints_(options_.hint_capacity),
      thread_([this] { Run(); }) {}

ChangeFeed::~ChangeFeed() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
  thread_.join();
  close(wake_fd_);
}

int64_t ChangeFeed::head() const {
  absl::MutexLock lock(&mu_);
  return head_;
}

int64_t ChangeFeed::WaitBeyond(int64_t seq, absl::Time deadline, uint64_t hint) const {
  absl::MutexLock lock(&mu_);
  auto beyond = [this, seq, hint]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return head_ > seq || (hint != kNoHints && hints_.last() > hint) || stop_;
  };
  mu_.AwaitWithDeadline(absl::Condition(&beyond), deadline);
  return head_;
}

void ChangeFeed::Hint(const Change& change) {
  absl::MutexLock lock(&mu_);
  hints_.Add(change);
}

uint64_t ChangeFeed::last_hint() const {
  absl::MutexLock lock(&mu_);
  return hints_.last();
}

std::vector<v1::WatchEvent> ChangeFeed::HintsAfter(uint64_t* after,
                                                   const v1::WatchFilter& filter) const {
  absl::MutexLock lock(&mu_);
  std::vector<v1::WatchEvent> hints = hints_.After(*after, filter);
  *after = hints_.last();
  return hints;
}

bool ChangeFeed::stopping() const {
  absl::MutexLock lock(&mu_);
  return stop_;
}

void ChangeFeed::Publish(int64_t head) {
  absl::MutexLock lock(&mu_);
  if (head > head_) head_ = head;
}

void ChangeFeed::SequenceAndPublish() {
  absl::StatusOr<Sequenced> sequenced = SequencePending(pool_);
  last_numbered_ = absl::Now();
  if (!sequenced.ok()) {
    log_.Warning("cannot number changes", {{"error", sequenced.status().message()}});
    return;
  }
  if (sequenced->numbered > 0) {
    Publish(sequenced->head);
  } else if (absl::StatusOr<int64_t> head = HeadSeq(pool_); head.ok()) {
    Publish(*head);  // another replica numbered them
  }
  MaintainIfDue();
}

void ChangeFeed::MaintainIfDue() {
  if (absl::Now() - last_trim_ < options_.trim_interval) return;
  last_trim_ = absl::Now();
  const absl::Time started = absl::Now();
  if (absl::Status trimmed = TrimChangeLog(pool_, options_.keep_changes); !trimmed.ok()) {
    log_.Warning("cannot trim the change log", {{"error", trimmed.message()}});
  }
  absl::StatusOr<int64_t> purged = PurgeDeleted(pool_, options_.purge_after);
  if (!purged.ok()) {
    log_.Warning("cannot purge deleted resources", {{"error", purged.status().message()}});
  } else if (*purged > 0) {
    log_.Info("purged deleted resources", {{"rows", *purged}});
  }
  // Numbering waits while this runs: a slow pass delays every watcher.
  const absl::Duration took = absl::Now() - started;
  if (took > absl::Milliseconds(200)) {
    log_.Warning("change log maintenance was slow", {{"took", absl::FormatDuration(took)}});
  }
}

void ChangeFeed::Run() {
  absl::Duration retry = absl::Milliseconds(200);
  while (!stopping()) {
    const absl::Status status = Listen();
    if (stopping()) break;
    log_.Warning("change notifications interrupted, reconnecting",
                 {{"error", status.message()}, {"retry_in", absl::FormatDuration(retry)}});
    pollfd wake{wake_fd_, POLLIN, 0};
    poll(&wake, 1, static_cast<int>(absl::ToInt64Milliseconds(retry)));
    retry = std::min(retry * 2, absl::Seconds(5));
  }
}

absl::Status ChangeFeed::Listen() {
  ASSIGN_OR_RETURN(
      std::unique_ptr<pg::Connection> connection,
      pg::Connection::Open(options_.dsn, pg::ConnectOptions{.connect_timeout = absl::Seconds(5),
                                                            .application_name = "assisted-feed"}));
  RETURN_IF_ERROR(connection->Exec("LISTEN assisted_change").status());
  RETURN_IF_ERROR(connection->Exec("LISTEN assisted_seq").status());
  SequenceAndPublish();  // catch up with whatever happened while not listening
  pg_conn* raw = connection->raw();
  while (!stopping()) {
    pollfd fds[2] = {{PQsocket(raw), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    const int ready =
        poll(fds, 2, static_cast<int>(absl::ToInt64Milliseconds(options_.poll_interval)));
    if (ready < 0 && errno != EINTR) return absl::InternalError("poll failed");
    if (stopping()) break;
    if (PQconsumeInput(raw) == 0) {
      return absl::UnavailableError(PQerrorMessage(raw));
    }
    bool appended = ready == 0;  // timeout: sequence anyway (safety net)
    bool numbered = false;
    while (PGnotify* notify = PQnotifies(raw)) {
      const std::string channel = notify->relname;
      PQfreemem(notify);
      appended = appended || channel == "assisted_change";
      numbered = numbered || channel == "assisted_seq";
    }
    if (appended) {
      // Let a burst of commits gather into one numbering pass.
      const absl::Duration since = absl::Now() - last_numbered_;
      if (since < options_.batch_interval) absl::SleepFor(options_.batch_interval - since);
      SequenceAndPublish();
    } else if (numbered) {
      if (absl::StatusOr<int64_t> head = HeadSeq(pool_); head.ok()) Publish(*head);
    }
  }
  return absl::OkStatus();
}

}  // namespace assisted::inventory
