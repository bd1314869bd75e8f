#include "services/orchestrator/agent_hub.h"

#include <algorithm>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/client_context.h"
#include "lib/auth/token.h"
#include "lib/grpc/channel.h"
#include "lib/status/grpc_status.h"
#include "lib/status/status_macros.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/next_steps.h"
#include "services/orchestrator/step_results.h"

namespace assisted::orchestrator {
namespace {

namespace inv = inventory::v1;
using agent::v1::ServiceMessage;

bool IsLowerUuid(const std::string& id) {
  if (id.size() != 36) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? id[i] != '-' : !(absl::ascii_isdigit(id[i]) || (id[i] >= 'a' && id[i] <= 'f'))) {
      return false;
    }
  }
  return true;
}

google::protobuf::Timestamp ToTimestamp(absl::Time time) {
  return google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(time));
}

std::string NewReplicaId(Random& random) {
  return absl::StrCat("orchestrator-", RandomUuid(random));
}

// Host states with a time limit the monitor must notice without any message from the agent.
bool TimedState(types::v1::HostStatus status) {
  switch (status) {
    case types::v1::HOST_STATUS_PREPARING_FOR_INSTALLATION:
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

template <typename T>
T OwnedOr(T borrowed, std::unique_ptr<std::remove_pointer_t<T>>& owned,
          std::unique_ptr<std::remove_pointer_t<T>> fallback) {
  if (borrowed != nullptr) return borrowed;
  owned = std::move(fallback);
  return owned.get();
}

}  // namespace

std::string AgentHub::Target::Key() const {
  return cluster_id.empty() ? HostKey(infra_env_id, host_id) : cluster_id;
}

AgentHub::AgentHub(std::shared_ptr<grpc::Channel> inventory, HubOptions options, Random& random,
                   log::Logger log, HubParts parts)
    : inventory_(inv::InventoryService::NewStub(std::move(inventory))),
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
                               std::make_unique<InventoryEvents>(*inventory_, options_.event_rate,
                                                                 clock_, log_.Child("events")))),
      instructions_(*OwnedOr<InstructionSource*>(parts.instructions, own_instructions_,
                                                 std::make_unique<DefaultInstructions>(random))),
      progress_(*OwnedOr<ProgressSink*>(parts.progress, own_progress_,
                                        std::make_unique<LoggingProgressSink>(log_))),
      registrations_(parts.registrations),
      signing_keys_(InfraEnvSigningKeys::FromInventory(
          *inventory_, clock_, {.ttl = options_.signing_key_ttl}, options_.inventory_timeout)),
      metrics_(*OwnedOr<prometheus::Registry*>(parts.metrics, own_metrics_registry_,
                                               std::make_unique<prometheus::Registry>())),
      admission_(options_.streams),
      refresher_(
          *OwnedOr<Refresher*>(parts.refresher, own_refresher_,
                               std::make_unique<Refresher>(
                                   *inventory_,
                                   RefreshOptions{.timeouts = options_.timeouts,
                                                  .inventory_timeout = options_.inventory_timeout},
                                   clock_, liveness_, events_, log_))),
      presence_(
          *inventory_, liveness_.replica_id(),
          {.ttl = options_.replica_lease_ttl, .inventory_timeout = options_.inventory_timeout},
          log_.Child("presence")),
      next_orphan_sweep_(clock_.Now() + options_.orphan_sweep_interval),
      queue_(options_.workers, options_.max_backlog) {
  if (options_.follow_watch) {
    watch_ = std::make_unique<inventory_client::WatchFollower>(
        *inventory_,
        // Hints: a change through our inventory replica reaches us without waiting for the
        // change log to number it; AlreadyJudged drops the numbered copy.
        inventory_client::WatchFollower::Options{
            .kinds = {inv::RESOURCE_KIND_HOST, inv::RESOURCE_KIND_CLUSTER}, .hints = true},
        inventory_client::WatchFollower::Callbacks{
            .on_change = [this](const inv::WatchEvent& e) { OnWatchEvent(e); },
            .on_resync = [this] { OnWatchResync(); }},
        log_.Child("watch"));
  }
  if (options_.monitor_interval > absl::ZeroDuration()) {
    monitor_ = std::thread([this] { MonitorLoop(); });
  }
}

AgentHub::~AgentHub() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (monitor_.joinable()) monitor_.join();
  watch_.reset();
}

std::unique_ptr<grpc::ClientContext> AgentHub::Context() const {
  return grpcutil::ContextWithin(options_.inventory_timeout);
}

void AgentHub::OnOpen(const std::shared_ptr<Session>& session) {
  if (absl::Status admitted = admission_.Open(session, clock_.Now()); !admitted.ok()) {
    session->Close(
        grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, std::string(admitted.message())));
  }
}

bool AgentHub::Schedule(const std::shared_ptr<Session>& session) {
  return queue_.Submit([this, session] { session->ProcessNext(*this); });
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
  queue_.Submit([this, closed = std::move(closed), last] { RecordDisconnect(closed, last); });
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
    inv::GetHostRequest get;
    get.set_infra_env_id(infra_env_id);
    get.set_id(host_id);
    types::v1::Host host;
    if (!inventory_->GetHost(Context().get(), get, &host).ok()) return;
    // Another replica holds a newer stream: it judges the host now.
    if (host.agent_stream_holder() != holder) return;
    inv::UpdateHostRequest update;
    update.mutable_host()->set_id(host.id());
    update.mutable_host()->set_infra_env_id(host.infra_env_id());
    update.mutable_update_mask()->add_paths("agent_stream_holder");
    if (last_heard.has_value()) {
      *update.mutable_host()->mutable_checked_in_at() = ToTimestamp(*last_heard);
      update.mutable_update_mask()->add_paths("checked_in_at");
    }
    update.set_resource_version(host.resource_version());
    types::v1::Host written;
    const grpc::Status status = inventory_->UpdateHost(Context().get(), update, &written);
    if (status.ok()) {
      const absl::Time heard = absl::FromUnixMicros(
          google::protobuf::util::TimeUtil::TimestampToMicroseconds(written.checked_in_at()));
      absl::MutexLock lock(&mu_);
      closed_[HostKey(infra_env_id, host_id)] = {
          Target{infra_env_id, host_id, written.cluster_id()},
          heard + options_.timeouts.host.disconnection};
      return;
    }
    if (status.error_code() != grpc::StatusCode::ABORTED) break;
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

void AgentHub::ApplyLogChunk(const std::shared_ptr<Session>& session, uint64_t seq,
                             const agent::v1::LogChunk& chunk) {
  if (absl::Status asked = session->CheckLogChunk(chunk); !asked.ok()) {
    RejectMessage(session, seq, asked.message());
    return;
  }
  const Agent agent = AgentOf(*session);
  // Bundles are cluster artifacts (logs/<type>_<host id>.tar.gz), downloaded through the
  // gateway's cluster logs. A host outside any cluster has nowhere to keep them.
  if (agent.cluster_id.empty()) {
    log_.Warning("log bundle dropped: the host is in no cluster", {{"host_id", agent.host_id}});
    Acknowledge(session, seq);
    return;
  }
  const bool controller = chunk.logs_type() == agent::v1::LOGS_TYPE_CONTROLLER;
  inv::PutArtifactRequest put;
  put.set_cluster_id(agent.cluster_id);
  put.set_name(
      absl::StrCat("logs/", controller ? "controller_" : "host_", agent.host_id, ".tar.gz"));
  put.set_kind(inv::ARTIFACT_KIND_LOGS);
  put.set_content_type("application/gzip");
  put.set_content(chunk.data());
  put.set_offset(chunk.offset());
  put.set_partial(!chunk.last());
  inv::ArtifactInfo stored;
  const grpc::Status status = inventory_->PutArtifact(Context().get(), put, &stored);
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return;  // not acknowledged: the agent sends it again after reconnecting
  }
  if (!status.ok()) {
    // A chunk that cannot land (e.g. its offset is past what is stored) never will: the
    // bundle stays partial and the next logs-gather starts over at offset 0.
    log_.Warning("log chunk not stored", {{"host_id", agent.host_id},
                                          {"offset", chunk.offset()},
                                          {"error", status.error_message()}});
  } else if (chunk.last()) {
    session->StepDone(chunk.step_id());
    log_.Info("log bundle stored",
              {{"host_id", agent.host_id},
               {"artifact", put.name()},
               {"bytes", chunk.offset() + static_cast<int64_t>(chunk.data().size())}});
  }
  Acknowledge(session, seq);
}

void AgentHub::Refuse(const std::shared_ptr<Session>& session, const std::string& reason,
                      agent::v1::RegistrationAction action, grpc::StatusCode code) {
  ServiceMessage reply;
  reply.mutable_registered()->set_accepted(false);
  reply.mutable_registered()->set_reason(reason);
  reply.mutable_registered()->set_next_action(action);
  if (action == agent::v1::REGISTRATION_ACTION_RETRY) {
    reply.mutable_registered()->mutable_retry_after()->set_seconds(5);
  }
  session->Send(std::move(reply));
  session->Close(grpc::Status(code, reason));
}

absl::Status AgentHub::CheckToken(const Session& session, const std::string& infra_env_id) {
  if (options_.agent_token_key.empty()) return absl::OkStatus();
  if (session.token().empty()) {
    return absl::UnauthenticatedError("missing agent token (authorization: Bearer metadata)");
  }
  absl::StatusOr<auth::TokenClaims> claims = auth::VerifyAgentToken(
      options_.agent_token_key, signing_keys_->Lookup(), session.token(), clock_.Now());
  if (absl::IsPermissionDenied(claims.status())) {
    return absl::UnauthenticatedError(
        absl::StrCat("invalid agent token: ", claims.status().message()));
  }
  if (!claims.ok()) return claims.status();
  if (claims->resource_id != infra_env_id) {
    return absl::UnauthenticatedError(absl::StrCat("the agent token is for infra-env ",
                                                   claims->resource_id, ", not ", infra_env_id));
  }
  return absl::OkStatus();
}

void AgentHub::Register(const std::shared_ptr<Session>& session,
                        const agent::v1::Register& request) {
  if (!IsLowerUuid(request.host_id()) || !IsLowerUuid(request.infra_env_id())) {
    Refuse(session, "host_id and infra_env_id must be lower-case UUIDs",
           agent::v1::REGISTRATION_ACTION_GIVE_UP, grpc::StatusCode::INVALID_ARGUMENT);
    return;
  }
  if (absl::Status token = CheckToken(*session, request.infra_env_id()); !token.ok()) {
    log_.Warning("agent refused", {{"host_id", request.host_id()},
                                   {"infra_env_id", request.infra_env_id()},
                                   {"peer", session->peer()},
                                   {"error", token.message()}});
    // A bad token stays bad; a key that could not be read (inventory down) may be read later.
    if (absl::IsUnauthenticated(token)) {
      Refuse(session, std::string(token.message()), agent::v1::REGISTRATION_ACTION_GIVE_UP,
             grpc::StatusCode::UNAUTHENTICATED);
    } else {
      Refuse(session, absl::StrCat("cannot check the agent token now: ", token.message()),
             agent::v1::REGISTRATION_ACTION_RETRY, grpc::StatusCode::UNAVAILABLE);
    }
    return;
  }
  if (absl::Status sized = CheckInventorySize(request.inventory(), "register.inventory");
      !sized.ok()) {
    Refuse(session, std::string(sized.message()), agent::v1::REGISTRATION_ACTION_GIVE_UP,
           grpc::StatusCode::INVALID_ARGUMENT);
    return;
  }
  // From here the stream counts toward the cap of registered streams.
  if (absl::Status admitted = admission_.Register(*session); !admitted.ok()) {
    Refuse(session, std::string(admitted.message()), agent::v1::REGISTRATION_ACTION_RETRY,
           grpc::StatusCode::RESOURCE_EXHAUSTED);
    return;
  }
  // One write for a known host (the common case: a whole fleet reconnecting after a restart
  // costs a single inventory call each): the connection facts and the inventory, whatever they
  // were before. NOT_FOUND means a new host.
  const google::protobuf::Timestamp now = ToTimestamp(clock_.Now());
  inv::UpdateHostRequest update;
  types::v1::Host& changes = *update.mutable_host();
  changes.set_id(request.host_id());
  changes.set_infra_env_id(request.infra_env_id());
  *changes.mutable_checked_in_at() = now;
  changes.set_agent_stream_holder(replica_id());
  *changes.mutable_inventory() = request.inventory();
  changes.set_discovery_agent_version(request.agent_version());
  for (const char* path :
       {"checked_in_at", "agent_stream_holder", "inventory", "discovery_agent_version"}) {
    update.mutable_update_mask()->add_paths(path);
  }
  if (request.has_agent_time()) {
    // The host's clock, compared with ours by time-synced-between-host-and-service.
    *changes.mutable_timestamp() = request.agent_time();
    update.mutable_update_mask()->add_paths("timestamp");
  }
  types::v1::Host host;
  grpc::Status status = inventory_->UpdateHost(Context().get(), update, &host);
  const bool created = status.error_code() == grpc::StatusCode::NOT_FOUND;
  bool same_agent = false;  // the same agent process as before, reconnecting
  if (created) {
    inv::GetInfraEnvRequest get_infra_env;
    get_infra_env.set_id(request.infra_env_id());
    types::v1::InfraEnv infra_env;
    status = inventory_->GetInfraEnv(Context().get(), get_infra_env, &infra_env);
    if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
      Refuse(session, "infra-env " + request.infra_env_id() + " not found",
             agent::v1::REGISTRATION_ACTION_GIVE_UP, grpc::StatusCode::NOT_FOUND);
      return;
    }
    if (!status.ok()) {
      Refuse(session, "inventory unavailable: " + status.error_message(),
             agent::v1::REGISTRATION_ACTION_RETRY, grpc::StatusCode::UNAVAILABLE);
      return;
    }
    inv::CreateHostRequest create;
    types::v1::Host& fresh = *create.mutable_host();
    fresh.set_id(request.host_id());
    fresh.set_infra_env_id(request.infra_env_id());
    fresh.set_cluster_id(infra_env.cluster_id());
    *fresh.mutable_inventory() = request.inventory();
    fresh.set_discovery_agent_version(request.agent_version());
    fresh.set_agent_instance_id(request.agent_instance_id());
    *fresh.mutable_registered_at() = now;
    *fresh.mutable_checked_in_at() = now;
    fresh.set_agent_stream_holder(replica_id());
    if (request.has_agent_time()) *fresh.mutable_timestamp() = request.agent_time();
    status = inventory_->CreateHost(Context().get(), create, &host);
  } else if (status.ok()) {
    same_agent = host.agent_instance_id() == request.agent_instance_id();
    if (!same_agent) {
      // A new agent process numbers its messages from 1 again.
      inv::UpdateHostRequest renumber;
      renumber.mutable_host()->set_id(host.id());
      renumber.mutable_host()->set_infra_env_id(host.infra_env_id());
      renumber.mutable_host()->set_agent_instance_id(request.agent_instance_id());
      renumber.mutable_host()->set_agent_applied_seq(0);
      renumber.mutable_update_mask()->add_paths("agent_instance_id");
      renumber.mutable_update_mask()->add_paths("agent_applied_seq");
      status = inventory_->UpdateHost(Context().get(), renumber, &host);
    }
    if (status.ok() && !same_agent && registrations_ != nullptr) {
      // The machine booted the discovery image again: its state machine decides what that means.
      absl::StatusOr<types::v1::Host> registered = registrations_->OnNewAgent(host);
      if (registered.ok()) {
        host = *std::move(registered);
      } else {
        log_.Warning("registration left the host's status as it was",
                     {{"host_id", host.id()}, {"error", registered.status().message()}});
      }
    }
  }
  if (!status.ok()) {
    Refuse(session, "cannot record the host: " + status.error_message(),
           status.error_code() == grpc::StatusCode::INVALID_ARGUMENT
               ? agent::v1::REGISTRATION_ACTION_GIVE_UP
               : agent::v1::REGISTRATION_ACTION_RETRY,
           status.error_code());
    return;
  }

  // Registered goes out before the session is findable in by_host_: a refresh on another thread
  // (the watch feed sees the host change) may push instructions as soon as it is, and the agent
  // must read Registered first.
  ServiceMessage reply;
  agent::v1::Registered& registered = *reply.mutable_registered();
  registered.set_host_id(host.id());
  registered.set_accepted(true);
  registered.set_next_action(agent::v1::REGISTRATION_ACTION_CONTINUE);
  registered.set_last_applied_seq(host.agent_applied_seq());
  registered.set_cluster_id(host.cluster_id());
  registered.set_host_status(host.status());
  session->Send(std::move(reply));

  const std::string key = HostKey(host.infra_env_id(), host.id());
  std::shared_ptr<Session> replaced;
  {
    absl::MutexLock lock(&mu_);
    Agent& agent = agents_[session.get()];
    if (!agent.host_id.empty()) {
      if (auto c = per_cluster_.find(agent.cluster_id);
          c != per_cluster_.end() && --c->second == 0) {
        per_cluster_.erase(c);
      }
    }
    agent =
        Agent{host.infra_env_id(),      host.id(),    host.agent_instance_id(), host.cluster_id(),
              host.agent_applied_seq(), host.status()};
    if (same_agent && request.steps_run_size() > 0) {
      // What this agent process already ran counts as pushed: after a restart of this service
      // a reconnecting fleet gets only new work, not its whole discovery again.
      agent.last_pushed.assign(request.steps_run().begin(), request.steps_run().end());
      agent.pushed = true;
    }
    ++per_cluster_[host.cluster_id()];
    std::weak_ptr<Session>& slot = by_host_[key];
    replaced = slot.lock();
    slot = session;
    closed_.erase(key);
  }
  liveness_.Opened(key);
  session->set_host_id(host.id());
  if (same_agent) session->AdoptPushed(request.steps_run());
  if (replaced != nullptr && replaced != session) {
    replaced->Close(grpc::Status(grpc::StatusCode::ABORTED,
                                 "replaced by a newer connection from " + session->peer()));
  }
  log_.Info("agent registered", {{"host_id", host.id()},
                                 {"infra_env_id", host.infra_env_id()},
                                 {"status", core::HostStatusName(host.status())},
                                 {"peer", session->peer()}});
  if (created) {
    events_.Emit(HostEvent(host, "host_registration_succeeded",
                           absl::StrCat("Host ", host.id(), ": successfully registered")));
  }
  // The registration brought an inventory: judge the host (and its cluster) on it, then push
  // the instructions of its state.
  Refresh(Target{host.infra_env_id(), host.id(), host.cluster_id()}, &host);
}

void AgentHub::ApplyProgress(const std::shared_ptr<Session>& session, uint64_t seq,
                             const agent::v1::Progress& progress) {
  const Agent agent = AgentOf(*session);
  inv::GetHostRequest get;
  get.set_infra_env_id(agent.infra_env_id);
  get.set_id(agent.host_id);
  types::v1::Host host;
  if (!inventory_->GetHost(Context().get(), get, &host).ok()) return;  // re-sent after reconnect
  if (absl::Status handled = progress_.OnProgress(host, progress); !handled.ok()) {
    log_.Warning("install progress not recorded yet",
                 {{"host_id", agent.host_id}, {"seq", seq}, {"error", handled.message()}});
    return;
  }
  Acknowledge(session, seq);
  Refresh(Target{agent.infra_env_id, agent.host_id, host.cluster_id()});
}

void AgentHub::RefreshLater(const Target& target, std::optional<inv::WatchEvent> cause) {
  const std::string key = target.Key();
  {
    absl::MutexLock lock(&mu_);
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
  const absl::Time queued = absl::Now();
  if (!queue_.Submit([this, target, key, queued] {
        {
          absl::MutexLock lock(&mu_);
          auto waiting = waiting_.find(key);
          if (waiting == waiting_.end()) return;
          bool needed = waiting->second.unconditional;
          for (const inv::WatchEvent& cause : waiting->second.causes) {
            needed = needed || !AlreadyJudged(cause);
          }
          waiting_.erase(waiting);
          if (!needed) {
            metrics_.Skipped();
            return;
          }
        }
        const absl::Duration waited = absl::Now() - queued;
        metrics_.Waited(waited);
        const absl::Time started = absl::Now();
        Refresh(target);
        const absl::Duration took = absl::Now() - started;
        metrics_.Refreshed(took);
        if (waited + took > absl::Milliseconds(500)) {
          // The work queue is saturated (queued) or the inventory is slow (took).
          log_.Warning("slow refresh", {{"target", key},
                                        {"queued", absl::FormatDuration(waited)},
                                        {"took", absl::FormatDuration(took)},
                                        {"backlog", queue_.backlog()}});
        }
      })) {
    {
      absl::MutexLock lock(&mu_);
      waiting_.erase(key);
    }
    log_.Warning("refresh dropped: the work queue is full", {{"target", key}});
  }
}

namespace {

std::string JudgedKey(inv::ResourceKind kind, const std::string& id) {
  return absl::StrCat(kind == inv::RESOURCE_KIND_CLUSTER ? "c/" : "h/", id);
}

}  // namespace

void AgentHub::RememberJudged(const RefreshOutcome& outcome) {
  absl::MutexLock lock(&mu_);
  // The version just read, even if lower than one remembered before (a resource deleted and
  // created again starts over): at worst a later event causes one refresh too many.
  auto remember = [&](inv::ResourceKind kind, const std::string& id, int64_t version) {
    judged_versions_[JudgedKey(kind, id)] = version;
  };
  if (outcome.cluster.has_value()) {
    remember(inv::RESOURCE_KIND_CLUSTER, outcome.cluster->id(),
             outcome.cluster->resource_version());
  }
  for (const types::v1::Host& host : outcome.hosts) {
    remember(inv::RESOURCE_KIND_HOST, host.id(), host.resource_version());
  }
}

bool AgentHub::AlreadyJudged(const inv::WatchEvent& event) const {
  if (event.resource_version() <= 0) return false;
  if (event.kind() != inv::RESOURCE_KIND_CLUSTER && event.kind() != inv::RESOURCE_KIND_HOST) {
    return false;
  }
  auto it = judged_versions_.find(JudgedKey(event.kind(), event.id()));
  return it != judged_versions_.end() && it->second >= event.resource_version();
}

void AgentHub::Refresh(const Target& target, const types::v1::Host* written) {
  const std::string key = target.Key();
  {
    absl::MutexLock lock(&mu_);
    if (!refreshing_.insert(key).second) {
      refresh_again_.insert(key);  // the running refresh goes once more when it ends
      return;
    }
  }
  std::optional<types::v1::Host> known;
  if (written != nullptr && target.cluster_id.empty()) known = *written;
  while (true) {
    absl::StatusOr<RefreshOutcome> outcome =
        !target.cluster_id.empty() ? refresher_.RefreshCluster(target.cluster_id)
        : known.has_value()        ? refresher_.RefreshHost(*std::exchange(known, std::nullopt))
                                   : refresher_.RefreshHost(target.infra_env_id, target.host_id);
    if (outcome.ok()) {
      RememberJudged(*outcome);
      PushChanged(*outcome);
    } else {
      log_.Warning("refresh failed", {{"target", key}, {"error", outcome.status().message()}});
    }
    absl::MutexLock lock(&mu_);
    if (refresh_again_.erase(key) == 0) {
      refreshing_.erase(key);
      return;
    }
  }
}

void AgentHub::PushChanged(const RefreshOutcome& outcome) {
  const types::v1::Cluster* cluster = outcome.cluster ? &*outcome.cluster : nullptr;
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
        instructions_.StepsFor({host, cluster, outcome.hosts});
    if (!steps.ok()) {
      log_.Warning("no instructions for the host",
                   {{"host_id", host.id()}, {"error", steps.status().message()}});
      continue;
    }
    {
      absl::MutexLock lock(&mu_);
      auto it = agents_.find(session.get());
      if (it == agents_.end()) continue;
      Agent& agent = it->second;
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
      agent.last_pushed = *std::move(steps);
      agent.pushed = true;
      ScheduleRechecks(host, agent);
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

void AgentHub::ScheduleRechecks(const types::v1::Host& host, Agent& agent) {
  agent.recheck.clear();
  if (options_.recheck_after > absl::ZeroDuration()) {
    agent.recheck = core::StepsToRecheck(host.validations_info());
  }
  if (agent.recheck.empty()) {
    agent.recheck_at = absl::InfiniteFuture();
  } else if (agent.recheck_at == absl::InfiniteFuture()) {  // a new failure: the first wait
    agent.recheck_backoff = options_.recheck_after;
    agent.recheck_at = clock_.Now() + agent.recheck_backoff;
  }
}

void AgentHub::SendDueRechecks(absl::Time now) {
  absl::flat_hash_map<std::string, Target> due;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [session, agent] : agents_) {
      if (agent.recheck_at > now) continue;
      agent.recheck_backoff = std::min(agent.recheck_backoff * 2, options_.max_recheck_after);
      agent.recheck_at = now + agent.recheck_backoff;
      // Forget having sent those steps: the refresh sends them again as new work, with the
      // arguments of now and new step ids.
      std::vector<types::v1::Step>& pushed = agent.last_pushed;
      pushed.erase(std::remove_if(pushed.begin(), pushed.end(),
                                  [&](const types::v1::Step& step) {
                                    return absl::c_linear_search(agent.recheck, step.step_type());
                                  }),
                   pushed.end());
      Target target{agent.infra_env_id, agent.host_id, agent.cluster_id};
      due.emplace(target.Key(), std::move(target));
    }
  }
  for (const auto& [key, target] : due) RefreshLater(target);
}

void AgentHub::OnWatchEvent(const inv::WatchEvent& event) {
  Target target{event.infra_env_id(), event.id(), event.cluster_id()};
  if (event.kind() == inv::RESOURCE_KIND_CLUSTER) target = Target{"", "", event.id()};
  if (event.change_type() == inv::CHANGE_TYPE_DELETED) {
    absl::MutexLock lock(&mu_);
    judged_versions_.erase(JudgedKey(event.kind(), event.id()));
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
    if (!concerns_us || AlreadyJudged(event)) return;
  }
  RefreshLater(target, event);
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
  for (const Target& target : targets) RefreshLater(target);
}

void AgentHub::MonitorOnce() {
  absl::flat_hash_map<std::string, Target> due;
  const absl::Time now = clock_.Now();
  for (const std::shared_ptr<Session>& late : admission_.Overdue(now)) {
    late->Close(
        grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                     absl::StrCat("the agent did not register within ",
                                  absl::FormatDuration(options_.streams.registration_deadline))));
  }
  AdoptOrphans(now);
  {
    absl::MutexLock lock(&mu_);
    // Streams that closed here and were not replaced within the disconnection timeout.
    for (auto it = closed_.begin(); it != closed_.end();) {
      if (it->second.second <= now) {
        due.emplace(it->second.first.Key(), it->second.first);
        closed_.erase(it++);
      } else {
        ++it;
      }
    }
    // Hosts in states with time limits.
    for (const auto& [session, agent] : agents_) {
      if (!TimedState(agent.status)) continue;
      Target target{agent.infra_env_id, agent.host_id, agent.cluster_id};
      due.emplace(target.Key(), std::move(target));
    }
  }
  for (const auto& [key, target] : due) RefreshLater(target);
  SendDueRechecks(now);
}

void AgentHub::MonitorLoop() {
  // Hold the presence lease before streams come in, or another replica could take this one
  // for gone (replica_presence.h).
  if (options_.replica_lease_ttl > absl::ZeroDuration()) presence_.KeepAlive(clock_.Now());
  absl::MutexLock lock(&mu_);
  auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; };
  while (!mu_.AwaitWithTimeout(absl::Condition(&stopping), options_.monitor_interval)) {
    mu_.Unlock();
    MonitorOnce();
    mu_.Lock();
  }
}

void AgentHub::Acknowledge(const std::shared_ptr<Session>& session, uint64_t seq) {
  ServiceMessage ack;
  ack.mutable_ack()->set_up_to_seq(seq);
  session->Send(std::move(ack));
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

void AgentHub::ApplyResult(const std::shared_ptr<Session>& session, uint64_t seq,
                           const types::v1::StepResult& result) {
  const Agent agent = AgentOf(*session);
  if (seq == 0) {
    session->Close(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                "step results must carry a sequence number"));
    return;
  }
  if (seq <= agent.applied_seq) {
    Acknowledge(session, seq);  // a re-send after a reconnect: applied before
    return;
  }
  if (absl::Status pushed = session->CheckResult(result); !pushed.ok()) {
    RejectMessage(session, seq, pushed.message());
    return;
  }
  // Optimistic concurrency: the result and the applied seq are written together, on the
  // version read, so a concurrent writer makes us re-read rather than apply twice.
  for (int attempt = 0; attempt < 5; ++attempt) {
    inv::GetHostRequest get;
    get.set_infra_env_id(agent.infra_env_id);
    get.set_id(agent.host_id);
    types::v1::Host host;
    grpc::Status status = inventory_->GetHost(Context().get(), get, &host);
    if (!status.ok()) break;
    if (host.agent_instance_id() == agent.instance_id && seq <= host.agent_applied_seq()) {
      Acknowledge(session, seq);
      return;
    }
    inv::UpdateHostRequest update;
    types::v1::Host& changes = *update.mutable_host();
    changes.set_id(host.id());
    changes.set_infra_env_id(host.infra_env_id());
    changes.set_agent_instance_id(agent.instance_id);
    changes.set_agent_applied_seq(seq);
    *changes.mutable_checked_in_at() = ToTimestamp(clock_.Now());
    for (const char* path : {"agent_instance_id", "agent_applied_seq", "checked_in_at"}) {
      update.mutable_update_mask()->add_paths(path);
    }
    absl::StatusOr<HostFieldsUpdate> fields = NormalizeStepResult(result, host);
    if (!fields.ok()) {
      // Over a limit, or the agent and the orchestrator disagree on a format: sending it again
      // will not help.
      RejectMessage(session, seq, fields.status().message());
      return;
    }
    changes.MergeFrom(fields->fields);
    for (const std::string& path : fields->paths) update.mutable_update_mask()->add_paths(path);
    update.set_resource_version(host.resource_version());
    status = inventory_->UpdateHost(Context().get(), update, &host);
    if (status.ok()) {
      {
        absl::MutexLock lock(&mu_);
        if (auto it = agents_.find(session.get()); it != agents_.end()) {
          it->second.applied_seq = seq;
        }
      }
      session->StepDone(result.step_id());
      Acknowledge(session, seq);
      // What the result taught us may change this host's validations and status, and those of
      // the hosts that depend on it; changed instructions are pushed.
      Refresh(Target{agent.infra_env_id, agent.host_id, host.cluster_id()}, &host);
      return;
    }
    if (status.error_code() != grpc::StatusCode::ABORTED) break;
  }
  // Not acknowledged: the agent keeps the result and sends it again after a reconnect.
  log_.Warning("cannot apply a step result yet",
               {{"host_id", agent.host_id}, {"seq", seq}, {"step_id", result.step_id()}});
}

grpc::ServerBidiReactor<agent::v1::AgentMessage, agent::v1::ServiceMessage>*
AgentServiceImpl::Connect(grpc::CallbackServerContext* context) {
  // The agent sends "authorization: Bearer <token>" (services/agent/stream_client.h).
  return new AgentReactor(std::make_shared<Session>(context->peer(), BearerToken(*context)), hub_);
}

}  // namespace assisted::orchestrator
