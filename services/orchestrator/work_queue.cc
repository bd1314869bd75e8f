#include "services/orchestrator/work_queue.h"

namespace assisted::orchestrator {

WorkQueue::WorkQueue(int threads, size_t max_backlog, const Clock* clock,
                     absl::Duration max_background_wait)
    : max_backlog_(max_backlog),
      clock_(clock != nullptr ? *clock : real_clock_),
      max_background_wait_(max_background_wait) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

WorkQueue::~WorkQueue() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& thread : threads_) thread.join();
}

bool WorkQueue::Submit(std::function<void()> work, Lane lane) {
  absl::MutexLock lock(&mu_);
  if (stopping_ || queued() >= max_backlog_) return false;
  (lane == Lane::kSession ? session_ : background_).push_back({std::move(work), clock_.Now()});
  return true;
}

size_t WorkQueue::backlog() const {
  absl::MutexLock lock(&mu_);
  return queued();
}

void WorkQueue::WaitIdle() const {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](const WorkQueue* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
        return self->queued() == 0 && self->running_ == 0;
      },
      this));
}

std::deque<WorkQueue::Item>& WorkQueue::NextLane() {
  if (session_.empty()) return background_;
  if (background_.empty()) return session_;
  const bool overdue = clock_.Now() - background_.front().queued >= max_background_wait_;
  took_background_ = overdue && !took_background_;
  return took_background_ ? background_ : session_;
}

void WorkQueue::Run() {
  while (true) {
    std::function<void()> work;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](WorkQueue* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return self->stopping_ || self->queued() > 0;
          },
          this));
      if (queued() == 0) return;  // stopping, and everything submitted is done
      std::deque<Item>& lane = NextLane();
      work = std::move(lane.front().work);
      lane.pop_front();
      ++running_;
    }
    work();
    absl::MutexLock lock(&mu_);
    --running_;
  }
}

}  // namespace assisted::orchestrator
