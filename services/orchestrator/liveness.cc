// File: services/orchestrator/liveness.cc

#include "services/orchestrator/liveness.h"

#include "absl/strings/str_cat.h"

namespace assisted::orchestrator {

std::string HostKey(const std::string& infra_env_id, const std::string& host_id) {
  return absl::StrCat(infra_env_id, "/", host_id);
}

std::optional<absl::Time> LivenessTracker::LastHeard(const std::string& host_key) const {
  absl::MutexLock lock(&mu_);
  auto it = hosts_.find(host_key);
  if (it == hosts_.end()) return std::nullopt;
  return it->second.last_heard;
}

bool LivenessTracker::Heard(const std::string& host_key) {
  const absl::Time now = clock_.Now();
  absl::MutexLock lock(&mu_);
  Entry& entry = hosts_[host_key];
  entry.last_heard = now;
  const bool was_silent = entry.reported_silent;
  entry.reported_silent = false;
  return was_silent;
}

std::optional<absl::Time> LivenessTracker::Forget(const std::string& host_key) {
  absl::MutexLock lock(&mu_);
  auto it = hosts_.find(host_key);
  if (it == hosts_.end()) return std::nullopt;
  const absl::Time last = it->second.last_heard;
  hosts_.erase(it);
  return last;
}

std::vector<std::string> LivenessTracker::NewlySilent(absl::Duration silence) {
  const absl::Time now = clock_.Now();
  std::vector<std::string> silent;
  absl::MutexLock lock(&mu_);
  for (auto& [key, entry] : hosts_) {
    if (!entry.reported_silent && now - entry.last_heard > silence) {
      entry.reported_silent = true;
      silent.push_back(key);
    }
  }
  return silent;
}

size_t LivenessTracker::size() const {
  absl::MutexLock lock(&mu_);
  return hosts_.size();
}

}  // namespace assisted::orchestrator
