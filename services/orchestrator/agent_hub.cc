#include "services/orchestrator/agent_hub.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace assisted::orchestrator {
namespace {

namespace inv = inventory::v1;
using agent::v1::ServiceMessage;

std::string NewReplicaId(Random& random) {
  return absl::StrCat("orchestrator-", RandomUuid(random));
}

template <typename T>
T OwnedOr(T borrowed, std::unique_ptr<std::remove_pointer_t<T>>& owned,
          std::unique_ptr<std::remove_pointer_t<T>> fallback) {
  if (borrowed != nullptr) return borrowed;
  owned = std::move(fallback);
  return owned.get();
}

}  // namespace

AgentHub::AgentHub(InventoryPort& inventory, HubOptions options, Random& random, log::Logger log,
                   HubParts parts)
    : inventory_(inventory),
      options_(std::move(options)),
      random_(random),
      log_(std::move(log)),
      clock_(parts.clock != nullptr ? *parts.clock : real_clock_),
      liveness_(*OwnedOr<LivenessTracker*>(
          parts.liveness, own_liveness_,
          std::make_unique<LivenessTracker>(
              options_.replica_id.empty() ? NewReplicaId(random) : options_.replica_id, clock_))),
      events_(
          *OwnedOr<EventSink*>(parts.events, own_events_,
                               std::make_unique<InventoryEvents>(inventory_, options_.event_rate,
                                                                 clock_, log_.Child("events")))),
      instructions_(*OwnedOr<InstructionSource*>(parts.instructions, own_instructions_,
                                                 std::make_unique<DefaultInstructions>(random))),
      progress_(*OwnedOr<ProgressSink*>(parts.progress, own_progress_,
                                        std::make_unique<LoggingProgressSink>(log_))),
      metrics_(*OwnedOr<prometheus::Registry*>(parts.metrics, own_metrics_registry_,
                                               std::make_unique<prometheus::Registry>())),
      admission_(options_.streams),
      registrar_(inventory_,
                 {.agent_token_key = options_.agent_token_key,
                  .signing_key_ttl = options_.signing_key_ttl},
                 liveness_.replica_id(), parts.registrations, clock_, log_),
      refresher_(*OwnedOr<Refresher*>(
          parts.refresher, own_refresher_,
          std::make_unique<Refresher>(inventory_, RefreshOptions{.timeouts = options_.timeouts},
                                      clock_, liveness_, events_, log_))),
      presence_(inventory_, liveness_.replica_id(), {.ttl = options_.replica_lease_ttl},
                log_.Child("presence")),
      next_orphan_sweep_(clock_.Now() + options_.orphan_sweep_interval),
      deadlines_(clock_),
      scheduler_(
          {.workers = options_.workers, .max_backlog = options_.max_backlog},
          [this](const Target& target, const types::v1::Host* written, RefreshCause cause) {
            return Judge(target, written, cause);
          },
          metrics_, clock_, log_) {
  refresher_.Observe(this);
  if (options_.follow_watch) {
    // Hints: a change through our inventory replica reaches us without waiting for the
    // change log to number it; the scheduler drops the numbered copy as already judged.
    watch_ = inventory_.Watch({inv::RESOURCE_KIND_HOST, inv::RESOURCE_KIND_CLUSTER},
                              /*hints=*/true,
                              {.on_change = [this](const inv::WatchEvent& e) { OnWatchEvent(e); },
                               .on_resync = [this] { OnWatchResync(); }});
  }
  if (options_.monitor_interval > absl::ZeroDuration()) {
    monitor_ = std::thread([this] { MonitorLoop(); });
  }
}

AgentHub::~AgentHub() {
  refresher_.Observe(nullptr);
  deadlines_.Stop();
  if (monitor_.joinable()) monitor_.join();
  watch_.reset();
}

void AgentHub::OnOpen(const std::shared_ptr<Session>& session) {
  const absl::Time now = clock_.Now();
  if (absl::Status admitted = admission_.Open(session, now); !admitted.ok()) {
    session->Close(
        grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, std::string(admitted.message())));
    return;
  }
  // The monitor closes it if it has not registered by then (one deadline for all streams: the
  // earliest, moved on as they register or time out).
  deadlines_.SetIfUnset(kAdmissionDeadline, now + options_.streams.registration_deadline);
}

void AgentHub::OnFirstMessage(const std::shared_ptr<Session>& session) {
  admission_.Heard(*session);
}

bool AgentHub::Schedule(const std::shared_ptr<Session>& session) {
  return scheduler_.RunSessionWork([this, session] { session->ProcessNext(*this); });
}

void AgentHub::OnClosed(const std::shared_ptr<Session>& session) {
  admission_.Close(*session);
  Agent closed;
  bool held = false;
  {
    absl::MutexLock lock(&mu_);
    auto agent = agents_.find(session.get());
    if (agent == agents_.end()) return;
    closed = std::move(agent->second);
    agents_.erase(agent);
    if (auto c = per_cluster_.find(closed.cluster_id);
        c != per_cluster_.end() && --c->second == 0) {
      per_cluster_.erase(c);
    }
    const std::string key = HostKey(closed.infra_env_id, closed.host_id);
    if (auto current = by_host_.find(key);
        current != by_host_.end() && current->second.lock() == session) {
      by_host_.erase(current);
      held = true;  // not replaced by a newer stream: the host has no stream here any more
    }
  }
  if (!held) return;
  const absl::Time last = liveness_.Closed(HostKey(closed.infra_env_id, closed.host_id));
  deadlines_.Cancel(RecheckKey(HostKey(closed.infra_env_id, closed.host_id)));
  deadlines_.Cancel(TimedKey(HostKey(closed.infra_env_id, closed.host_id)));
  scheduler_.RunSessionWork(
      [this, closed = std::move(closed), last] { RecordDisconnect(closed, last); });
}

int AgentHub::open_sessions() const { return admission_.open(); }

int AgentHub::registered_hosts() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(by_host_.size());
}

void AgentHub::OnMessage(const std::shared_ptr<Session>& session,
                         const agent::v1::AgentMessage& message) {
  std::optional<Target> target;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = agents_.find(session.get()); it != agents_.end()) {
      target = Target{it->second.infra_env_id, it->second.host_id, it->second.cluster_id};
    }
  }
  switch (message.body_case()) {
    case agent::v1::AgentMessage::kRegister:
      // An agent that gave up waiting (a herd registering at once) has dialled again: its old
      // registration would cost an inventory write and a refresh that nobody hears of.
      if (session->hung_up()) {
        metrics_.Abandoned();
        return;
      }
      Register(session, message.register_());
      return;
    case agent::v1::AgentMessage::kHeartbeat:
    case agent::v1::AgentMessage::kAck:
      return;  // the open stream is the liveness; nothing to record
    default:
      break;
  }
  if (!target) {
    session->Close(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                                "the first message on a stream must be a registration"));
    return;
  }
  // A stream ended because a message could not be stored (LeaveUnstored): what was read after
  // that message is not applied, or it would overtake it; the agent sends it all again.
  if (session->closed()) return;
  switch (message.body_case()) {
    case agent::v1::AgentMessage::kStepResult:
      ApplyResult(session, message.seq(), message.step_result());
      return;
    case agent::v1::AgentMessage::kProgress:
      ApplyProgress(session, message.seq(), message.progress());
      return;
    case agent::v1::AgentMessage::kLogChunk:
      ApplyLogChunk(session, message.seq(), message.log_chunk());
      return;
    default:
      session->Close(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "empty agent message"));
  }
}

AgentHub::Agent AgentHub::AgentOf(const Session& session) {
  absl::MutexLock lock(&mu_);
  return agents_[&session];
}

absl::StatusOr<RefreshOutcome> AgentHub::Judge(const Target& target, const types::v1::Host* written,
                                               RefreshCause cause) {
  if (!target.cluster_id.empty()) return refresher_.RefreshCluster(target.cluster_id, cause);
  if (written != nullptr) return refresher_.RefreshHost(*written, cause);
  return refresher_.RefreshHost(target.infra_env_id, target.host_id, cause);
}

void AgentHub::RefreshStarted(const std::string& key, RefreshCause cause) {
  metrics_.Refreshing(cause);
  scheduler_.Started(key);
}

void AgentHub::RefreshFinished(const std::string& key,
                               const absl::StatusOr<RefreshOutcome>& outcome) {
  // Pushed while the refresh still counts as running, so a change reported meanwhile waits
  // for what it judged.
  if (outcome.ok()) PushChanged(*outcome);
  scheduler_.Finished(key, outcome.ok() ? &*outcome : nullptr);
}

void AgentHub::PushChanged(const RefreshOutcome& outcome) {
  const types::v1::Cluster* cluster = outcome.cluster ? &*outcome.cluster : nullptr;
  // Rendered once for all the cluster's hosts (a host alone has no one to check).
  std::optional<ConnectivityTargets> connectivity;
  if (outcome.hosts.size() > 1) connectivity.emplace(outcome.hosts);
  for (const types::v1::Host& host : outcome.hosts) {
    std::shared_ptr<Session> session;
    {
      absl::MutexLock lock(&mu_);
      auto it = by_host_.find(HostKey(host.infra_env_id(), host.id()));
      if (it == by_host_.end()) continue;
      session = it->second.lock();
    }
    if (session == nullptr) continue;
    absl::StatusOr<std::vector<types::v1::Step>> steps =
        instructions_.StepsFor({.host = host,
                                .cluster = cluster,
                                .cluster_hosts = outcome.hosts,
                                .connectivity = connectivity ? &*connectivity : nullptr});
    if (!steps.ok()) {
      log_.Warning("no instructions for the host",
                   {{"host_id", host.id()}, {"error", steps.status().message()}});
      continue;
    }
    std::vector<SentStep> sent = SentSteps(*steps);  // hashed outside the lock
    {
      absl::MutexLock lock(&mu_);
      auto it = agents_.find(session.get());
      if (it == agents_.end()) continue;
      Agent& agent = it->second;
      if (agent.pushed && host.resource_version() < agent.pushed_version) continue;
      if (agent.cluster_id != host.cluster_id()) {
        if (auto c = per_cluster_.find(agent.cluster_id);
            c != per_cluster_.end() && --c->second == 0) {
          per_cluster_.erase(c);
        }
        agent.cluster_id = host.cluster_id();
        ++per_cluster_[agent.cluster_id];
      }
      agent.status = host.status();
      std::vector<types::v1::Step> fresh =
          agent.pushed ? NewWork(agent.last_pushed, *steps) : *steps;
      agent.last_pushed = std::move(sent);
      agent.pushed = true;
      agent.pushed_version = host.resource_version();
      SetAgentDeadlines(host, agent);
      steps = std::move(fresh);
    }
    for (types::v1::Step& step : *steps) {
      ServiceMessage message;
      if (step.step_type() == types::v1::STEP_TYPE_INSTALL &&
          options_.controller_tokens != nullptr) {
        absl::StatusOr<std::string> token =
            options_.controller_tokens->Issue(host.cluster_id(), clock_.Now());
        if (token.ok()) {
          message.mutable_instruction()->set_controller_token(*std::move(token));
        } else {
          log_.Warning("no controller token for the install step",
                       {{"host_id", host.id()}, {"error", token.status().message()}});
        }
      }
      *message.mutable_instruction()->mutable_step() = std::move(step);
      if (!session->Send(std::move(message))) break;
    }
  }
}

void AgentHub::OnWatchEvent(const inv::WatchEvent& event) {
  Target target{event.infra_env_id(), event.id(), event.cluster_id()};
  if (event.kind() == inv::RESOURCE_KIND_CLUSTER) target = Target{"", "", event.id()};
  if (event.change_type() == inv::CHANGE_TYPE_DELETED) {
    scheduler_.Forget(event);
    if (event.kind() == inv::RESOURCE_KIND_CLUSTER) return;
  }
  {
    absl::MutexLock lock(&mu_);
    const bool concerns_us =
        target.cluster_id.empty()
            ? by_host_.contains(HostKey(target.infra_env_id, target.host_id))
            : per_cluster_.contains(target.cluster_id) ||
                  (event.kind() == inv::RESOURCE_KIND_HOST &&
                   by_host_.contains(HostKey(target.infra_env_id, target.host_id)));
    if (!concerns_us) return;
  }
  scheduler_.RefreshLater(target, event);
}

void AgentHub::OnWatchResync() {
  std::vector<Target> targets;
  {
    absl::MutexLock lock(&mu_);
    absl::flat_hash_set<std::string> seen;
    for (const auto& [session, agent] : agents_) {
      Target target{agent.infra_env_id, agent.host_id, agent.cluster_id};
      if (seen.insert(target.Key()).second) targets.push_back(std::move(target));
    }
  }
  for (const Target& target : targets) scheduler_.RefreshLater(target);
}

void AgentHub::Acknowledge(const std::shared_ptr<Session>& session, uint64_t seq) {
  ServiceMessage ack;
  ack.mutable_ack()->set_up_to_seq(seq);
  session->Send(std::move(ack));
}

void AgentHub::LeaveUnstored(const std::shared_ptr<Session>& session, uint64_t seq,
                             absl::string_view what, const absl::Status& why) {
  log_.Warning(
      "agent message not stored yet: the stream ends and the agent sends it again",
      {{"host_id", session->host_id()}, {"seq", seq}, {"message", what}, {"error", why.message()}});
  session->Close(grpc::Status(
      grpc::StatusCode::UNAVAILABLE,
      absl::StrCat("the ", what, " with seq ", seq, " cannot be stored now; send it again")));
}

void AgentHub::RejectMessage(const std::shared_ptr<Session>& session, uint64_t seq,
                             absl::string_view reason) {
  log_.Warning("agent message rejected",
               {{"host_id", session->host_id()}, {"seq", seq}, {"reason", reason}});
  metrics_.Rejected();
  ServiceMessage reject;
  reject.mutable_reject()->set_seq(seq);
  reject.mutable_reject()->set_reason(std::string(reason));
  session->Send(std::move(reject));
  Acknowledge(session, seq);
}

grpc::ServerBidiReactor<agent::v1::AgentMessage, agent::v1::ServiceMessage>*
AgentServiceImpl::Connect(grpc::CallbackServerContext* context) {
  // The agent sends "authorization: Bearer <token>" (services/agent/stream_client.h).
  return new AgentReactor(std::make_shared<Session>(context->peer(), BearerToken(*context)), hub_);
}

}  // namespace assisted::orchestrator
