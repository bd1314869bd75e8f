// The hub's admission and registration: who may hold a session (a lower-case host and infra-env
// id, a valid agent token, an inventory within limits, room under the caps) and what a Register
// writes (one update for a known host, a create for a new one, the register event for a new
// agent process), then the session joins the agent table and its host is judged.

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/auth/token.h"
#include "services/orchestrator/agent_hub.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/step_results.h"

namespace assisted::orchestrator {
namespace {

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

// `result`'s value into `out` when it has one; its status either way.
template <typename T>
absl::Status StatusInto(absl::StatusOr<T> result, T& out) {
  if (!result.ok()) return result.status();
  out = *std::move(result);
  return absl::OkStatus();
}

}  // namespace

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
  const google::protobuf::Timestamp now = Timestamp(clock_.Now());
  HostFieldsUpdate update;
  *update.fields.mutable_checked_in_at() = now;
  update.fields.set_agent_stream_holder(replica_id());
  *update.fields.mutable_inventory() = request.inventory();
  update.fields.set_discovery_agent_version(request.agent_version());
  for (const char* path :
       {"checked_in_at", "agent_stream_holder", "inventory", "discovery_agent_version"}) {
    update.Mark(path);
  }
  if (request.has_agent_time()) {
    // The host's clock, compared with ours by time-synced-between-host-and-service.
    *update.fields.mutable_timestamp() = request.agent_time();
    update.Mark("timestamp");
  }
  types::v1::Host host;
  absl::Status status =
      StatusInto(inventory_.UpdateHost(request.infra_env_id(), request.host_id(), update, 0), host);
  const bool created = absl::IsNotFound(status);
  bool same_agent = false;  // the same agent process as before, reconnecting
  if (created) {
    absl::StatusOr<types::v1::InfraEnv> infra_env = inventory_.GetInfraEnv(request.infra_env_id());
    if (absl::IsNotFound(infra_env.status())) {
      Refuse(session, "infra-env " + request.infra_env_id() + " not found",
             agent::v1::REGISTRATION_ACTION_GIVE_UP, grpc::StatusCode::NOT_FOUND);
      return;
    }
    if (!infra_env.ok()) {
      Refuse(session, absl::StrCat("inventory unavailable: ", infra_env.status().message()),
             agent::v1::REGISTRATION_ACTION_RETRY, grpc::StatusCode::UNAVAILABLE);
      return;
    }
    types::v1::Host fresh;
    fresh.set_id(request.host_id());
    fresh.set_infra_env_id(request.infra_env_id());
    fresh.set_cluster_id(infra_env->cluster_id());
    *fresh.mutable_inventory() = request.inventory();
    fresh.set_discovery_agent_version(request.agent_version());
    fresh.set_agent_instance_id(request.agent_instance_id());
    *fresh.mutable_registered_at() = now;
    *fresh.mutable_checked_in_at() = now;
    fresh.set_agent_stream_holder(replica_id());
    if (request.has_agent_time()) *fresh.mutable_timestamp() = request.agent_time();
    status = StatusInto(inventory_.CreateHost(fresh), host);
  } else if (status.ok()) {
    same_agent = host.agent_instance_id() == request.agent_instance_id();
    if (!same_agent) {
      // A new agent process numbers its messages from 1 again.
      HostFieldsUpdate renumber;
      renumber.fields.set_agent_instance_id(request.agent_instance_id());
      renumber.fields.set_agent_applied_seq(0);
      renumber.Mark("agent_instance_id");
      renumber.Mark("agent_applied_seq");
      status = StatusInto(inventory_.UpdateHost(host.infra_env_id(), host.id(), renumber, 0), host);
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
    Refuse(session, absl::StrCat("cannot record the host: ", status.message()),
           absl::IsInvalidArgument(status) ? agent::v1::REGISTRATION_ACTION_GIVE_UP
                                           : agent::v1::REGISTRATION_ACTION_RETRY,
           static_cast<grpc::StatusCode>(status.code()));
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
    ArmTimedState(key, host.status());
    std::weak_ptr<Session>& slot = by_host_[key];
    replaced = slot.lock();
    slot = session;
    closed_.erase(key);
  }
  deadlines_.Cancel(ClosedKey(key));
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
  scheduler_.RefreshNow(Target{host.infra_env_id(), host.id(), host.cluster_id()}, &host);
}

}  // namespace assisted::orchestrator
