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

bool WorkQueue::Submit(std::function<void()> work) {
  absl::MutexLock lock(&mu_);
  if (stopping_ || queue_.size() >= max_backlog_) return false;
  queue_.push_back(std::move(work));
  return true;
}

size_t WorkQueue::backlog() const {
  absl::MutexLock lock(&mu_);
  return queue_.size();
}

void WorkQueue::WaitIdle() const {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](const WorkQueue* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
        return self->queue_.empty() && self->running_ == 0;
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
            return self->stopping_ || !self->queue_.empty();
          },
          this));
      if (queue_.empty()) return;  // stopping, and everything submitted is done
      work = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    work();
    absl::MutexLock lock(&mu_);
    --running_;
  }
}

}  // namespace assisted::orchestrator
