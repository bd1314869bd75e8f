#include "services/orchestrator/refresh_scheduler.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace assisted::orchestrator {
namespace {

namespace inv = inventory::v1;

std::string JudgedKey(inv::ResourceKind kind, const std::string& id) {
  return absl::StrCat(kind == inv::RESOURCE_KIND_CLUSTER ? "c/" : "h/", id);
}

}  // namespace

std::string RefreshTarget::Key() const {
  return cluster_id.empty() ? HostKey(infra_env_id, host_id) : cluster_id;
}

RefreshScheduler::RefreshScheduler(SchedulerOptions options, Judge judge, Then then,
                                   HubMetrics& metrics, const Clock& clock, log::Logger log)
    : judge_(std::move(judge)),
      then_(std::move(then)),
      metrics_(metrics),
      clock_(clock),
      log_(std::move(log)),
      queue_(options.workers, options.max_backlog, &clock_, options.max_background_wait) {}

bool RefreshScheduler::RunSessionWork(std::function<void()> work) {
  return queue_.Submit(std::move(work), WorkQueue::Lane::kSession);
}

void RefreshScheduler::RefreshNow(const RefreshTarget& target, const types::v1::Host* written) {
  const std::string key = target.Key();
  {
    absl::MutexLock lock(&mu_);
    if (!running_.insert(key).second) {
      again_.insert(key);  // the running refresh goes once more when it ends
      return;
    }
  }
  // Only the first round starts from the write: a round run again re-reads.
  if (!target.cluster_id.empty()) written = nullptr;
  while (true) {
    absl::StatusOr<RefreshOutcome> outcome = judge_(target, std::exchange(written, nullptr));
    if (outcome.ok()) {
      RememberJudged(*outcome);
      then_(*outcome);
    } else {
      log_.Warning("refresh failed", {{"target", key}, {"error", outcome.status().message()}});
    }
    absl::MutexLock lock(&mu_);
    if (again_.erase(key) == 0) {
      running_.erase(key);
      return;
    }
  }
}

void RefreshScheduler::RefreshLater(const RefreshTarget& target,
                                    std::optional<inv::WatchEvent> cause) {
  const std::string key = target.Key();
  {
    absl::MutexLock lock(&mu_);
    if (cause.has_value() && AlreadyJudgedLocked(*cause)) return;
    auto [waiting, first] = waiting_.try_emplace(key);
    if (cause.has_value()) {
      waiting->second.causes.push_back(*std::move(cause));
    } else {
      waiting->second.unconditional = true;
    }
    if (!first) {
      metrics_.Joined();
      return;
    }
  }
  const absl::Time queued = clock_.Now();
  if (!queue_.Submit([this, target, queued] { RunWaiting(target, queued); },
                     WorkQueue::Lane::kBackground)) {
    {
      absl::MutexLock lock(&mu_);
      waiting_.erase(key);
    }
    log_.Warning("refresh dropped: the work queue is full", {{"target", key}});
  }
}

void RefreshScheduler::RunWaiting(const RefreshTarget& target, absl::Time queued) {
  const std::string key = target.Key();
  {
    absl::MutexLock lock(&mu_);
    auto waiting = waiting_.find(key);
    if (waiting == waiting_.end()) return;
    bool needed = waiting->second.unconditional;
    for (const inv::WatchEvent& cause : waiting->second.causes) {
      needed = needed || !AlreadyJudgedLocked(cause);
    }
    waiting_.erase(waiting);
    if (!needed) {
      metrics_.Skipped();
      return;
    }
  }
  const absl::Time started = clock_.Now();
  const absl::Duration waited = started - queued;
  metrics_.Waited(waited);
  RefreshNow(target);
  const absl::Duration took = clock_.Now() - started;
  metrics_.Refreshed(took);
  if (waited + took > absl::Milliseconds(500)) {
    // The work queue is saturated (queued) or the inventory is slow (took).
    log_.Warning("slow refresh", {{"target", key},
                                  {"queued", absl::FormatDuration(waited)},
                                  {"took", absl::FormatDuration(took)},
                                  {"backlog", queue_.backlog()}});
  }
}

void RefreshScheduler::RememberJudged(const RefreshOutcome& outcome) {
  absl::MutexLock lock(&mu_);
  // The version just read, even if lower than one remembered before (a resource deleted and
  // created again starts over): at worst a later event causes one refresh too many.
  if (outcome.cluster.has_value()) {
    judged_versions_[JudgedKey(inv::RESOURCE_KIND_CLUSTER, outcome.cluster->id())] =
        outcome.cluster->resource_version();
  }
  for (const types::v1::Host& host : outcome.hosts) {
    judged_versions_[JudgedKey(inv::RESOURCE_KIND_HOST, host.id())] = host.resource_version();
  }
}

bool RefreshScheduler::AlreadyJudged(const inv::WatchEvent& event) const {
  absl::MutexLock lock(&mu_);
  return AlreadyJudgedLocked(event);
}

bool RefreshScheduler::AlreadyJudgedLocked(const inv::WatchEvent& event) const {
  if (event.resource_version() <= 0) return false;
  if (event.kind() != inv::RESOURCE_KIND_CLUSTER && event.kind() != inv::RESOURCE_KIND_HOST) {
    return false;
  }
  auto it = judged_versions_.find(JudgedKey(event.kind(), event.id()));
  return it != judged_versions_.end() && it->second >= event.resource_version();
}

void RefreshScheduler::Forget(const inv::WatchEvent& deleted) {
  absl::MutexLock lock(&mu_);
  judged_versions_.erase(JudgedKey(deleted.kind(), deleted.id()));
}

}  // namespace assisted::orchestrator
