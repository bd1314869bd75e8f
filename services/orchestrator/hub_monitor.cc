// The hub's monitor: the deadlines (deadlines.h) of streams that must register, hosts whose
// stream closed, hosts in states with time limits and failing validations to re-check, each
// handled when due; and this replica's presence lease with the hosts of replicas that are gone.

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/time/proto_time.h"
#include "services/orchestrator/agent_hub.h"
#include "services/orchestrator/core/next_steps.h"

namespace assisted::orchestrator {
namespace {

// Host states with a time limit the monitor must notice without any message from the agent.
// Preparing-successful too: its hosts wait for their cluster's installation files, and when the
// replica generating them is killed, the next refresh after its lease expires resumes them;
// nothing else would ask for one (ReplicasInstallTest once waited 180 s in preparing).
bool TimedState(types::v1::HostStatus status) {
  switch (status) {
    case types::v1::HOST_STATUS_PREPARING_FOR_INSTALLATION:
    case types::v1::HOST_STATUS_PREPARING_SUCCESSFUL:
    case types::v1::HOST_STATUS_INSTALLING:
    case types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS:
    case types::v1::HOST_STATUS_INSTALLING_PENDING_USER_ACTION:
    case types::v1::HOST_STATUS_RECLAIMING:
    case types::v1::HOST_STATUS_RECLAIMING_REBOOTING:
    case types::v1::HOST_STATUS_ERROR:
    case types::v1::HOST_STATUS_CANCELLED:
      return true;
    default:
      return false;
  }
}

constexpr char kClosedPrefix[] = "closed/";
constexpr char kRecheckPrefix[] = "recheck/";
constexpr char kTimedPrefix[] = "timed/";

}  // namespace

std::string AgentHub::ClosedKey(const std::string& host_key) {
  return absl::StrCat(kClosedPrefix, host_key);
}
std::string AgentHub::RecheckKey(const std::string& host_key) {
  return absl::StrCat(kRecheckPrefix, host_key);
}
std::string AgentHub::TimedKey(const std::string& host_key) {
  return absl::StrCat(kTimedPrefix, host_key);
}

void AgentHub::RecordDisconnect(const Agent& agent, absl::Time last_heard) {
  {
    absl::MutexLock lock(&mu_);
    if (by_host_.contains(HostKey(agent.infra_env_id, agent.host_id))) return;  // back already
  }
  ReleaseStream(agent.infra_env_id, agent.host_id, replica_id(), last_heard);
}

void AgentHub::ReleaseStream(const std::string& infra_env_id, const std::string& host_id,
                             const std::string& holder, std::optional<absl::Time> last_heard) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    absl::StatusOr<types::v1::Host> host = inventory_.GetHost(infra_env_id, host_id);
    if (!host.ok()) return;
    // Another replica holds a newer stream: it judges the host now.
    if (host->agent_stream_holder() != holder) return;
    core::HostFieldsUpdate update;
    update.Mark("agent_stream_holder");
    if (last_heard.has_value()) MarkCheckedIn(*host, *last_heard, update);
    absl::StatusOr<types::v1::Host> written =
        inventory_.UpdateHost(infra_env_id, host_id, update, host->resource_version());
    if (written.ok()) {
      const absl::Time heard = FromTimestamp(written->checked_in_at());
      const std::string key = HostKey(infra_env_id, host_id);
      {
        absl::MutexLock lock(&mu_);
        closed_[key] = Target{infra_env_id, host_id, written->cluster_id()};
      }
      deadlines_.Set(ClosedKey(key), heard + options_.timeouts.host.disconnection);
      return;
    }
    if (!absl::IsAborted(written.status())) break;
  }
  log_.Warning("cannot record the end of an agent stream",
               {{"host_id", host_id}, {"holder", holder}});
}

void AgentHub::AdoptOrphans(absl::Time now) {
  if (options_.replica_lease_ttl <= absl::ZeroDuration()) return;
  presence_.KeepAlive(now);
  {
    absl::MutexLock lock(&mu_);
    if (now < next_orphan_sweep_) return;
    next_orphan_sweep_ = now + options_.orphan_sweep_interval;
  }
  absl::StatusOr<std::vector<ReplicaPresence::Orphans>> orphans = presence_.FindOrphans();
  if (!orphans.ok()) {
    log_.Warning("cannot look for hosts of replicas that are gone",
                 {{"error", orphans.status().message()}});
    return;
  }
  for (const ReplicaPresence::Orphans& gone : *orphans) {
    log_.Warning("a replica is gone without closing its agent streams; its hosts are judged here",
                 {{"replica", gone.holder}, {"hosts", static_cast<int64_t>(gone.hosts.size())}});
    for (const types::v1::Host& host : gone.hosts) {
      ReleaseStream(host.infra_env_id(), host.id(), gone.holder, std::nullopt);
    }
    presence_.Done(gone.holder);
  }
}

void AgentHub::SetAgentDeadlines(const types::v1::Host& host, Agent& agent) {
  const std::string key = HostKey(agent.infra_env_id, agent.host_id);
  ArmTimedState(key, agent.status);
  agent.recheck.clear();
  if (options_.recheck_after > absl::ZeroDuration()) {
    agent.recheck = core::StepsToRecheck(host.validations_info());
  }
  if (agent.recheck.empty()) {
    agent.recheck_at = absl::InfiniteFuture();
    deadlines_.Cancel(RecheckKey(key));
  } else if (agent.recheck_at == absl::InfiniteFuture()) {  // a new failure: the first wait
    agent.recheck_backoff = options_.recheck_after;
    agent.recheck_at = clock_.Now() + agent.recheck_backoff;
    deadlines_.Set(RecheckKey(key), agent.recheck_at);
  }
}

void AgentHub::ArmTimedState(const std::string& host_key, types::v1::HostStatus status) {
  if (TimedState(status)) {
    deadlines_.SetIfUnset(TimedKey(host_key), clock_.Now() + options_.monitor_interval);
  } else {
    deadlines_.Cancel(TimedKey(host_key));
  }
}

AgentHub::Agent* AgentHub::AgentOfHost(const std::string& host_key) {
  auto slot = by_host_.find(host_key);
  if (slot == by_host_.end()) return nullptr;
  std::shared_ptr<Session> session = slot->second.lock();
  if (session == nullptr) return nullptr;
  auto agent = agents_.find(session.get());
  return agent == agents_.end() ? nullptr : &agent->second;
}

std::optional<AgentHub::Target> AgentHub::DueRecheck(const std::string& host_key, absl::Time now) {
  absl::MutexLock lock(&mu_);
  Agent* agent = AgentOfHost(host_key);
  if (agent == nullptr || agent->recheck.empty()) return std::nullopt;
  agent->recheck_backoff = std::min(agent->recheck_backoff * 2, options_.max_recheck_after);
  agent->recheck_at = now + agent->recheck_backoff;
  deadlines_.Set(RecheckKey(host_key), agent->recheck_at);
  // Forget having sent those steps: the refresh sends them again as new work, with the
  // arguments of now and new step ids.
  std::vector<SentStep>& pushed = agent->last_pushed;
  pushed.erase(std::remove_if(pushed.begin(), pushed.end(),
                              [&](const SentStep& step) {
                                return absl::c_linear_search(agent->recheck, step.type);
                              }),
               pushed.end());
  return Target{agent->infra_env_id, agent->host_id, agent->cluster_id};
}

void AgentHub::OnDeadline(const std::string& key, absl::Time now,
                          absl::flat_hash_map<std::string, Target>& due) {
  if (key == kAdmissionDeadline) {
    for (const std::shared_ptr<Session>& late : admission_.Overdue(now)) {
      late->Close(
          grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                       absl::StrCat("the agent did not register within ",
                                    absl::FormatDuration(options_.streams.registration_deadline))));
    }
    if (const absl::Time next = admission_.NextDeadline(); next != absl::InfiniteFuture()) {
      // The streams just closed count until their OnClosed runs: look again a little later
      // rather than at once, or the monitor would spin on them meanwhile.
      deadlines_.Set(kAdmissionDeadline, std::max(next, now + absl::Milliseconds(100)));
    }
    return;
  }
  std::optional<Target> target;
  if (absl::StartsWith(key, kClosedPrefix)) {
    // Streams that closed here and were not replaced within the disconnection timeout.
    absl::MutexLock lock(&mu_);
    if (auto it = closed_.find(key.substr(strlen(kClosedPrefix))); it != closed_.end()) {
      target = std::move(it->second);
      closed_.erase(it);
    }
  } else if (absl::StartsWith(key, kTimedPrefix)) {
    // Hosts in states with time limits, refreshed every monitor_interval while in them.
    const std::string host_key = key.substr(strlen(kTimedPrefix));
    absl::MutexLock lock(&mu_);
    if (Agent* agent = AgentOfHost(host_key); agent != nullptr && TimedState(agent->status)) {
      target = Target{agent->infra_env_id, agent->host_id, agent->cluster_id};
      deadlines_.Set(key, now + options_.monitor_interval);
    }
  } else if (absl::StartsWith(key, kRecheckPrefix)) {
    target = DueRecheck(key.substr(strlen(kRecheckPrefix)), now);
  }
  if (target.has_value()) due.emplace(target->Key(), *std::move(target));
}

void AgentHub::MonitorOnce() {
  const absl::Time now = clock_.Now();
  AdoptOrphans(now);
  absl::flat_hash_map<std::string, Target> due;
  for (const std::string& key : deadlines_.TakeDue(now)) OnDeadline(key, now, due);
  for (const auto& [key, target] : due) scheduler_.RefreshLater(target);
}

void AgentHub::MonitorLoop() {
  // Hold the presence lease before streams come in, or another replica could take this one
  // for gone (replica_presence.h).
  if (options_.replica_lease_ttl > absl::ZeroDuration()) presence_.KeepAlive(clock_.Now());
  while (deadlines_.WaitForDue(options_.monitor_interval)) MonitorOnce();
}

}  // namespace assisted::orchestrator
