#include "services/orchestrator/refresh_scheduler.h"

#include <algorithm>
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

void RefreshScheduler::Request::Join(Request other) {
  if (!unconditional.has_value()) unconditional = other.unconditional;
  for (inv::WatchEvent& cause : other.causes) causes.push_back(std::move(cause));
}

RefreshScheduler::RefreshScheduler(SchedulerOptions options, Judge judge, HubMetrics& metrics,
                                   const Clock& clock, log::Logger log)
    : judge_(std::move(judge)),
      metrics_(metrics),
      clock_(clock),
      log_(std::move(log)),
      queue_(options.workers, options.max_backlog, &clock_, options.max_background_wait) {}

bool RefreshScheduler::RunSessionWork(std::function<void()> work) {
  return queue_.Submit(std::move(work), WorkQueue::Lane::kSession);
}

void RefreshScheduler::RefreshNow(const RefreshTarget& target, const types::v1::Host* written) {
  {
    absl::MutexLock lock(&mu_);
    // Another refresh of the target asked for here runs: it goes once more when it ends. One
    // that runs elsewhere (an action's) may have read before this agent's write: this one runs.
    if (!claimed_.insert(target.Key()).second) {
      DeferLocked({.target = target, .unconditional = RefreshCause::kAgent});
      return;
    }
  }
  RunClaimed(target, written, RefreshCause::kAgent);
}

void RefreshScheduler::RunClaimed(const RefreshTarget& target, const types::v1::Host* written,
                                  RefreshCause cause) {
  const std::string key = target.Key();
  // Only the first round starts from the write: a round run again re-reads.
  if (!target.cluster_id.empty()) written = nullptr;
  while (true) {
    absl::StatusOr<RefreshOutcome> outcome = judge_(target, std::exchange(written, nullptr), cause);
    if (!outcome.ok()) {
      log_.Warning("refresh failed", {{"target", key}, {"error", outcome.status().message()}});
    }
    absl::MutexLock lock(&mu_);
    auto again = again_.find(key);
    // Changes alone wait for the other refresh of the key still running (Finished settles
    // them): it may be the one that judges them.
    if (again == again_.end() ||
        (!again->second.unconditional.has_value() && running_.contains(key))) {
      claimed_.erase(key);
      return;
    }
    Request next = std::move(again->second);
    again_.erase(again);
    if (!NeededLocked(next)) {
      metrics_.Skipped();
      claimed_.erase(key);
      return;
    }
    cause = next.unconditional.value_or(RefreshCause::kWatch);
  }
}

void RefreshScheduler::RefreshLater(const RefreshTarget& target,
                                    std::optional<inv::WatchEvent> cause) {
  Request request{.target = target};
  if (cause.has_value()) {
    request.causes.push_back(*std::move(cause));
  } else {
    request.unconditional = RefreshCause::kMonitor;
  }
  {
    absl::MutexLock lock(&mu_);
    if (!NeededLocked(request)) return;
    // A change to a target being refreshed may be the echo of that refresh's own write (an
    // action writes, then refreshes): it waits for the refresh to end.
    const std::string key = target.Key();
    if (!request.unconditional.has_value() && (running_.contains(key) || claimed_.contains(key))) {
      DeferLocked(std::move(request));
      return;
    }
  }
  Enqueue(std::move(request));
}

void RefreshScheduler::Enqueue(Request request) {
  const std::string key = request.target.Key();
  {
    absl::MutexLock lock(&mu_);
    auto [waiting, first] = waiting_.try_emplace(key);
    if (!first) {
      waiting->second.Join(std::move(request));
      metrics_.Joined();
      return;
    }
    waiting->second = std::move(request);
  }
  const absl::Time queued = clock_.Now();
  if (!queue_.Submit([this, key, queued] { RunWaiting(key, queued); },
                     WorkQueue::Lane::kBackground)) {
    {
      absl::MutexLock lock(&mu_);
      waiting_.erase(key);
    }
    log_.Warning("refresh dropped: the work queue is full", {{"target", key}});
  }
}

void RefreshScheduler::RunWaiting(const std::string& key, absl::Time queued) {
  Request request;
  {
    absl::MutexLock lock(&mu_);
    auto waiting = waiting_.find(key);
    if (waiting == waiting_.end()) return;
    request = std::move(waiting->second);
    waiting_.erase(waiting);
    if (!NeededLocked(request)) {
      metrics_.Skipped();
      return;
    }
    const bool changes_only = !request.unconditional.has_value();
    if (claimed_.contains(key) || (changes_only && running_.contains(key))) {
      DeferLocked(std::move(request));
      return;
    }
    claimed_.insert(key);
  }
  const absl::Time started = clock_.Now();
  const absl::Duration waited = started - queued;
  metrics_.Waited(waited);
  RunClaimed(request.target, nullptr, request.unconditional.value_or(RefreshCause::kWatch));
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

void RefreshScheduler::Started(const std::string& key) {
  absl::MutexLock lock(&mu_);
  ++running_[key];
}

void RefreshScheduler::Finished(const std::string& key, const RefreshOutcome* outcome) {
  Request next;
  {
    absl::MutexLock lock(&mu_);
    if (outcome != nullptr) RememberJudgedLocked(*outcome);
    if (auto running = running_.find(key); running != running_.end() && --running->second <= 0) {
      running_.erase(running);
    }
    // The last refresh of the key settles what waited for it; a thread of this class that
    // claimed the key does so itself when its refresh returns.
    if (running_.contains(key) || claimed_.contains(key)) return;
    auto again = again_.find(key);
    if (again == again_.end()) return;
    next = std::move(again->second);
    again_.erase(again);
    if (!NeededLocked(next)) {
      metrics_.Skipped();
      return;
    }
  }
  Enqueue(std::move(next));
}

void RefreshScheduler::DeferLocked(Request request) {
  auto [again, first] = again_.try_emplace(request.target.Key());
  if (first) {
    again->second = std::move(request);
  } else {
    again->second.Join(std::move(request));
  }
}

bool RefreshScheduler::NeededLocked(const Request& request) const {
  if (request.unconditional.has_value()) return true;
  for (const inv::WatchEvent& cause : request.causes) {
    if (!AlreadyJudgedLocked(cause)) return true;
  }
  return false;
}

void RefreshScheduler::RememberJudgedLocked(const RefreshOutcome& outcome) {
  // The newest version judged: refreshes of one target may run at once (an action's, the
  // hub's), and one that read before the other must not make the other's echoes look new. A
  // resource deleted and created again starts over (Forget).
  auto remember = [this](std::string key, int64_t version) {
    int64_t& judged = judged_versions_[std::move(key)];
    judged = std::max(judged, version);
  };
  if (outcome.cluster.has_value()) {
    remember(JudgedKey(inv::RESOURCE_KIND_CLUSTER, outcome.cluster->id()),
             outcome.cluster->resource_version());
  }
  for (const types::v1::Host& host : outcome.hosts) {
    remember(JudgedKey(inv::RESOURCE_KIND_HOST, host.id()), host.resource_version());
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
