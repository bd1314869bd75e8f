// File: services/orchestrator/work_queue.h
//
// A fixed pool of threads with a bounded backlog. gRPC reactor callbacks must never block, so
// anything that waits on the database or the inventory service is handed to a WorkQueue; when
// the backlog is full, Submit says no and the caller sheds the load (RESOURCE_EXHAUSTED)
// instead of letting work pile up without bound.
//
// Two lanes: a worker takes session work (an agent's own messages and stream end) before
// background work (refreshes a Watch event or the monitor asked for), so a herd's background
// echoes cannot make a host's own registration wait behind them. Background work is not starved
// for ever though: once the oldest background item has waited `max_background_wait`, workers
// alternate between the lanes until it is caught up (a user's change still reaches the agents
// while a fleet discovers). Within a lane, first in, first out. The backlog bound counts both
// lanes.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_WORK_QUEUE_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_WORK_QUEUE_H_

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/time/clock.h"

namespace assisted::orchestrator {

class WorkQueue {
 public:
  enum class Lane { kSession, kBackground };

  // `clock` (null: the real one) ages background work; it must outlive the queue.
  WorkQueue(int threads, size_t max_backlog, const Clock* clock = nullptr,
            absl::Duration max_background_wait = absl::Milliseconds(25));
  // Finishes what was submitted, then joins the threads.
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `work` in `lane`; false when the backlog is full or the queue is shutting down.
  bool Submit(std::function<void()> work, Lane lane = Lane::kSession);

  size_t backlog() const;

  // Returns once nothing is queued or running (work submitted meanwhile included): tests wait
  // for the consequences of what they did without sleeping.
  void WaitIdle() const;

 private:
  struct Item {
    std::function<void()> work;
    absl::Time queued;
  };

  void Run();
  // The lane the next worker takes from; at least one lane is not empty.
  std::deque<Item>& NextLane() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t max_backlog_;
  RealClock real_clock_;
  const Clock& clock_;
  const absl::Duration max_background_wait_;
  mutable absl::Mutex mu_;
  size_t queued() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return session_.size() + background_.size();
  }

  std::deque<Item> session_ ABSL_GUARDED_BY(mu_);
  std::deque<Item> background_ ABSL_GUARDED_BY(mu_);
  // Whether the last item taken while the background lane was overdue came from it.
  bool took_background_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::thread> threads_;
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_WORK_QUEUE_H_
