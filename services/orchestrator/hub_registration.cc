// The hub's side of a registration: the Registrar (registrar.h) checks and records it, the
// stream is admitted under the caps in between, then the session joins the agent table, the
// agent hears Registered, and its host is judged.

#include <utility>

#include "absl/strings/str_cat.h"
#include "services/orchestrator/agent_hub.h"
#include "services/orchestrator/core/names.h"

namespace assisted::orchestrator {

using agent::v1::ServiceMessage;

void AgentHub::Refuse(const std::shared_ptr<Session>& session, const Refusal& refusal) {
  const auto& [reason, action, code] = refusal;
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

void AgentHub::Register(const std::shared_ptr<Session>& session,
                        const agent::v1::Register& request) {
  if (std::optional<Refusal> refused = registrar_.Check(*session, request)) {
    Refuse(session, *refused);
    return;
  }
  // From here the stream counts toward the cap of registered streams.
  if (absl::Status admitted = admission_.Register(*session); !admitted.ok()) {
    Refuse(session, {std::string(admitted.message()), agent::v1::REGISTRATION_ACTION_RETRY,
                     grpc::StatusCode::RESOURCE_EXHAUSTED});
    return;
  }
  std::variant<Registration, Refusal> recorded = registrar_.Record(request);
  if (const Refusal* refused = std::get_if<Refusal>(&recorded)) {
    Refuse(session, *refused);
    return;
  }
  auto& [host, created, same_agent] = std::get<Registration>(recorded);

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
      agent.last_pushed = SentSteps(request.steps_run());
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
