// File: services/orchestrator/work_queue.h
//
// A fixed pool of threads with a bounded backlog. gRPC reactor callbacks must never block, so
// anything that waits on the database or the inventory service is handed to a WorkQueue; when
// the backlog is full, Submit says no and the caller sheds the load (RESOURCE_EXHAUSTED)
// instead of letting work pile up without bound.
//
// Two lanes: a worker always takes session work (an agent's own messages and stream end) before
// background work (refreshes a Watch event or the monitor asked for), so a herd's background
// echoes cannot make a host's own registration wait behind them. Within a lane, first in, first
// out. The backlog bound counts both lanes.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_WORK_QUEUE_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_WORK_QUEUE_H_

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace assisted::orchestrator {

class WorkQueue {
 public:
  enum class Lane { kSession, kBackground };

  WorkQueue(int threads, size_t max_backlog);
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
  void Run();

  const size_t max_backlog_;
  mutable absl::Mutex mu_;
  size_t queued() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return session_.size() + background_.size();
  }

  std::deque<std::function<void()>> session_ ABSL_GUARDED_BY(mu_);
  std::deque<std::function<void()>> background_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::thread> threads_;
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_WORK_QUEUE_H_
