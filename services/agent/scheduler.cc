#include "services/agent/scheduler.h"

#include "absl/time/clock.h"

namespace assisted::agent {

TimerThread::TimerThread() : thread_([this] { Loop(); }) {}

TimerThread::~TimerThread() { Stop(); }

void TimerThread::After(absl::Duration delay, std::function<void()> callback) {
  absl::MutexLock lock(&mu_);
  if (!stopping_) due_.emplace(absl::Now() + delay, std::move(callback));
}

void TimerThread::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    due_.clear();
  }
  if (thread_.joinable()) thread_.join();
}

void TimerThread::Loop() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    if (due_.empty()) {
      auto ready = [this]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !due_.empty(); };
      mu_.Await(absl::Condition(&ready));
      continue;
    }
    const absl::Time next = due_.begin()->first;
    if (absl::Now() < next) {
      // Wakes early when a callback is added (it may be due sooner) or on Stop.
      const size_t pending = due_.size();
      auto changed = [this, pending]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || due_.size() != pending;
      };
      mu_.AwaitWithDeadline(absl::Condition(&changed), next);
      continue;
    }
    std::function<void()> callback = std::move(due_.begin()->second);
    due_.erase(due_.begin());
    mu_.Unlock();
    callback();
    mu_.Lock();
  }
}

}  // namespace assisted::agent
