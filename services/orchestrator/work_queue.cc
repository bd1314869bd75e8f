#include "services/orchestrator/work_queue.h"

namespace assisted::orchestrator {

WorkQueue::WorkQueue(int threads, size_t max_backlog) : max_backlog_(max_backlog) {
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
  (lane == Lane::kSession ? session_ : background_).push_back(std::move(work));
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
      std::deque<std::function<void()>>& lane = session_.empty() ? background_ : session_;
      work = std::move(lane.front());
      lane.pop_front();
      ++running_;
    }
    work();
    absl::MutexLock lock(&mu_);
    --running_;
  }
}

}  // namespace assisted::orchestrator
