// File: services/orchestrator/liveness.cc

#include "services/orchestrator/liveness.h"

#include "absl/strings/str_cat.h"

namespace assisted::orchestrator {

std::string HostKey(const std::string& infra_env_id, const std::string& host_id) {
  return absl::StrCat(infra_env_id, "/", host_id);
}

std::optional<absl::Time> LivenessTracker::LastHeard(const std::string& host_key) const {
  absl::MutexLock lock(&mu_);
  if (!open_.contains(host_key)) return std::nullopt;
  return clock_.Now();
}

void LivenessTracker::Opened(const std::string& host_key) {
  absl::MutexLock lock(&mu_);
  open_.insert(host_key);
}

absl::Time LivenessTracker::Closed(const std::string& host_key) {
  absl::MutexLock lock(&mu_);
  open_.erase(host_key);
  return clock_.Now();
}

size_t LivenessTracker::size() const {
  absl::MutexLock lock(&mu_);
  return open_.size();
}

}  // namespace assisted::orchestrator
