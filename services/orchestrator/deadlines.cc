#include "services/orchestrator/deadlines.h"

#include <algorithm>

namespace assisted::orchestrator {

void Deadlines::Set(const std::string& key, absl::Time when) {
  absl::MutexLock lock(&mu_);
  SetLocked(key, when);
}

void Deadlines::SetIfUnset(const std::string& key, absl::Time when) {
  absl::MutexLock lock(&mu_);
  if (!by_key_.contains(key)) SetLocked(key, when);
}

void Deadlines::SetLocked(const std::string& key, absl::Time when) {
  EraseLocked(key);
  by_key_.emplace(key, when);
  by_time_.emplace(when, key);
  if (when < waiting_for_) sooner_ = true;
}

void Deadlines::Cancel(const std::string& key) {
  absl::MutexLock lock(&mu_);
  EraseLocked(key);
}

void Deadlines::EraseLocked(const std::string& key) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return;
  by_time_.erase({it->second, key});
  by_key_.erase(it);
}

bool Deadlines::Has(const std::string& key) const {
  absl::MutexLock lock(&mu_);
  return by_key_.contains(key);
}

std::vector<std::string> Deadlines::TakeDue(absl::Time now) {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> due;
  while (!by_time_.empty() && by_time_.begin()->first <= now) {
    due.push_back(by_time_.begin()->second);
    by_key_.erase(by_time_.begin()->second);
    by_time_.erase(by_time_.begin());
  }
  return due;
}

absl::Time Deadlines::Earliest() const {
  absl::MutexLock lock(&mu_);
  return by_time_.empty() ? absl::InfiniteFuture() : by_time_.begin()->first;
}

size_t Deadlines::size() const {
  absl::MutexLock lock(&mu_);
  return by_key_.size();
}

bool Deadlines::WaitForDue(absl::Duration longest_wait) {
  absl::MutexLock lock(&mu_);
  const absl::Time earliest = by_time_.empty() ? absl::InfiniteFuture() : by_time_.begin()->first;
  const absl::Duration wait =
      std::max(absl::ZeroDuration(), std::min(longest_wait, earliest - clock_.Now()));
  waiting_for_ = earliest;
  sooner_ = false;
  ++waiters_;
  auto woken = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopped_ || sooner_; };
  mu_.AwaitWithTimeout(absl::Condition(&woken), wait);
  --waiters_;
  waiting_for_ = absl::InfiniteFuture();
  return !stopped_;
}

void Deadlines::AwaitWaiter() const {
  absl::MutexLock lock(&mu_);
  auto waiting = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return waiters_ > 0; };
  mu_.Await(absl::Condition(&waiting));
}

void Deadlines::Stop() {
  absl::MutexLock lock(&mu_);
  stopped_ = true;
}

}  // namespace assisted::orchestrator
