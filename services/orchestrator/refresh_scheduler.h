// File: services/orchestrator/refresh_scheduler.h
//
// When the agent hub's refreshes run, and on which thread. Every refresh goes through here:
//   * RefreshNow, on the caller's thread: the refresh that follows an agent's own registration,
//     result or progress. That work already runs on the session lane of the work queue
//     (RunSessionWork: an agent's messages and its stream's end), which workers serve before
//     the background lane (once a background item has waited max_background_wait, every other
//     one), so a host's first refresh never waits behind a herd's backlog of echoes.
//   * RefreshLater, on the background lane: refreshes a Watch event, a resync or the monitor
//     asked for. One entry waits per target: a request for a target already waiting joins it
//     (a fleet registering used to queue tens of thousands, most of them the Watch echoes,
//     hint and numbered, of the hub's own writes). A request caused by a Watch event is dropped
//     when a refresh here already judged that version of the resource or a later one, both when
//     it is asked for and when a worker takes it.
//   * Refreshes of one target never run twice at once: one asked for while another runs makes
//     the running one go once more when it ends (bursts coalesce).
//
// The judging itself and what follows it (the hub pushes changed instructions) are the
// caller's (Judge, Then); this class only orders and coalesces. Thread-safe.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_REFRESH_SCHEDULER_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_REFRESH_SCHEDULER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "lib/log/log.h"
#include "lib/time/clock.h"
#include "services/orchestrator/hub_metrics.h"
#include "services/orchestrator/refresher.h"
#include "services/orchestrator/work_queue.h"

namespace assisted::orchestrator {

// What to refresh: a cluster, or a host in no cluster.
struct RefreshTarget {
  std::string infra_env_id;
  std::string host_id;
  std::string cluster_id;
  // The cluster id, or the host's key for a host in no cluster.
  std::string Key() const;
};

struct SchedulerOptions {
  int workers = 8;
  size_t max_backlog = 100000;  // queued work, both lanes, before shedding load
  // How long background refreshes may wait behind session work before they get every other
  // worker (work_queue.h). Short: a user's change arrives as a Watch event, and with 1 s here
  // bench agents' back-to-back pushes waited ~500 ms (p99) behind the fleet's step results.
  // A herd's echoes still cannot delay a host's own work by more than one item per item.
  absl::Duration max_background_wait = absl::Milliseconds(25);
};

class RefreshScheduler {
 public:
  // Judges `target`; `written`, when given, is the target host as an inventory write just
  // returned it (a host in no cluster is judged from it instead of being read again).
  using Judge = std::function<absl::StatusOr<RefreshOutcome>(const RefreshTarget& target,
                                                             const types::v1::Host* written)>;
  // Runs after each successful judgement, on the same thread.
  using Then = std::function<void(const RefreshOutcome& outcome)>;

  // `clock` ages the background lane and times the waits and refreshes reported to `metrics`;
  // both must outlive this.
  RefreshScheduler(SchedulerOptions options, Judge judge, Then then, HubMetrics& metrics,
                   const Clock& clock, log::Logger log);
  // Finishes the queued work, then joins the workers.
  ~RefreshScheduler() = default;

  // Queues an agent's own work on the session lane; false when the backlog is full.
  bool RunSessionWork(std::function<void()> work);

  // Refreshes `target` on the caller's thread (see the file comment).
  void RefreshNow(const RefreshTarget& target, const types::v1::Host* written = nullptr);

  // Queues a refresh of `target` on the background lane, unless one is already waiting: then
  // this one joins it. With `cause` (a Watch event), nothing is queued when that version was
  // already judged here, and the refresh is skipped when, by the time a worker takes it, every
  // cause that joined it was judged.
  void RefreshLater(const RefreshTarget& target,
                    std::optional<inventory::v1::WatchEvent> cause = std::nullopt);

  // Whether a refresh here already judged `event`'s version of its resource (its own write,
  // echoed by the Watch, or a change it read before the event arrived).
  bool AlreadyJudged(const inventory::v1::WatchEvent& event) const;
  // Forgets the judged versions of a deleted resource (one created again starts over).
  void Forget(const inventory::v1::WatchEvent& deleted);

  // Returns once nothing is queued or running; for tests.
  void WaitIdle() const { queue_.WaitIdle(); }
  size_t backlog() const { return queue_.backlog(); }

 private:
  struct Waiting {
    bool unconditional = false;  // asked for without a change to check
    std::vector<inventory::v1::WatchEvent> causes;
  };

  // The background lane's task for `key`: skips a refresh nobody needs any more.
  void RunWaiting(const RefreshTarget& target, absl::Time queued);
  void RememberJudged(const RefreshOutcome& outcome);
  bool AlreadyJudgedLocked(const inventory::v1::WatchEvent& event) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Judge judge_;
  const Then then_;
  HubMetrics& metrics_;
  const Clock& clock_;
  log::Logger log_;

  mutable absl::Mutex mu_;
  // Refreshes running, and those asked for again while running, by RefreshTarget::Key().
  absl::flat_hash_set<std::string> running_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::string> again_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Waiting> waiting_ ABSL_GUARDED_BY(mu_);
  // "c/<cluster id>" or "h/<host id>" -> the newest resource_version a refresh here judged. A
  // refresh writes its hosts and cluster, and the Watch brings every write back: without this,
  // each refresh caused one more per host it wrote (a storm while a fleet discovers).
  absl::flat_hash_map<std::string, int64_t> judged_versions_ ABSL_GUARDED_BY(mu_);

  WorkQueue queue_;  // its threads stop before the state above goes away
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_REFRESH_SCHEDULER_H_
