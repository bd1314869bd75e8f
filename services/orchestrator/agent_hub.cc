#include "services/orchestrator/agent_hub.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/client_context.h"
#include "lib/status/grpc_status.h"
#include "lib/status/status_macros.h"
#include "services/orchestrator/core/agent_reports.h"
#include "services/orchestrator/core/cluster_facts.h"
#include "services/orchestrator/core/contexts.h"
#include "services/orchestrator/core/host_state_machine.h"
#include "services/orchestrator/core/host_validations.h"
#include "services/orchestrator/core/hw_requirements.h"
#include "services/orchestrator/core/next_steps.h"
#include "services/orchestrator/core/timeouts.h"
#include "services/orchestrator/step_results.h"

namespace assisted::orchestrator {
namespace {

namespace inv = inventory::v1;
using agent::v1::ServiceMessage;

// The peer's address without its port ("ipv4:10.0.0.5:41234" -> "ipv4:10.0.0.5").
std::string PeerAddress(const std::string& peer) {
  const size_t colon = peer.rfind(':');
  return colon == std::string::npos ? peer : peer.substr(0, colon);
}

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

}  // namespace

AgentHub::AgentHub(std::shared_ptr<grpc::Channel> inventory, HubOptions options, Random& random,
                   log::Logger log)
    : inventory_(inv::InventoryService::NewStub(std::move(inventory))),
      options_(options),
      random_(random),
      log_(std::move(log)),
      queue_(options.workers, options.max_backlog) {}

std::unique_ptr<grpc::ClientContext> AgentHub::Context() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(
      std::chrono::system_clock::now() +
      std::chrono::milliseconds(absl::ToInt64Milliseconds(options_.inventory_timeout)));
  return context;
}

void AgentHub::OnOpen(const std::shared_ptr<Session>& session) {
  std::string refusal;
  {
    absl::MutexLock lock(&mu_);
    int& from_peer = per_peer_[PeerAddress(session->peer())];
    if (sessions_ >= options_.max_sessions) {
      refusal = "this orchestrator holds its maximum of agent streams";
    } else if (options_.max_sessions_per_peer > 0 && from_peer >= options_.max_sessions_per_peer) {
      refusal = "too many agent streams from " + PeerAddress(session->peer());
    }
    ++sessions_;
    ++from_peer;
  }
  if (!refusal.empty()) {
    session->Close(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, refusal));
  }
}

bool AgentHub::Schedule(const std::shared_ptr<Session>& session) {
  return queue_.Submit([this, session] { session->ProcessNext(*this); });
}

void AgentHub::OnClosed(const std::shared_ptr<Session>& session) {
  absl::MutexLock lock(&mu_);
  --sessions_;
  const std::string peer = PeerAddress(session->peer());
  if (auto it = per_peer_.find(peer); it != per_peer_.end() && --it->second == 0) {
    per_peer_.erase(it);
  }
  if (auto agent = agents_.find(session.get()); agent != agents_.end()) {
    const std::string key = agent->second.infra_env_id + "/" + agent->second.host_id;
    if (auto current = by_host_.find(key);
        current != by_host_.end() && current->second.lock() == session) {
      by_host_.erase(current);
    }
    agents_.erase(agent);
  }
}

int AgentHub::open_sessions() const {
  absl::MutexLock lock(&mu_);
  return sessions_;
}

int AgentHub::registered_hosts() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(by_host_.size());
}

void AgentHub::OnMessage(const std::shared_ptr<Session>& session,
                         const agent::v1::AgentMessage& message) {
  bool registered = false;
  {
    absl::MutexLock lock(&mu_);
    registered = agents_.contains(session.get());
  }
  switch (message.body_case()) {
    case agent::v1::AgentMessage::kRegister:
      Register(session, message.register_());
      return;
    case agent::v1::AgentMessage::kHeartbeat:
    case agent::v1::AgentMessage::kAck:
      return;  // liveness is the stream itself; acks of our messages need no state yet
    default:
      break;
  }
  if (!registered) {
    session->Close(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                                "the first message on a stream must be a registration"));
    return;
  }
  switch (message.body_case()) {
    case agent::v1::AgentMessage::kStepResult:
      ApplyResult(session, message.seq(), message.step_result());
      return;
    case agent::v1::AgentMessage::kProgress:
    case agent::v1::AgentMessage::kLogChunk:
      // Install progress and log uploads arrive with the install work; acknowledged meanwhile so
      // the agent does not hold them forever.
      Acknowledge(session, message.seq());
      return;
    default:
      session->Close(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "empty agent message"));
  }
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

void AgentHub::Register(const std::shared_ptr<Session>& session,
                        const agent::v1::Register& request) {
  if (!IsLowerUuid(request.host_id()) || !IsLowerUuid(request.infra_env_id())) {
    Refuse(session, "host_id and infra_env_id must be lower-case UUIDs",
           agent::v1::REGISTRATION_ACTION_GIVE_UP, grpc::StatusCode::INVALID_ARGUMENT);
    return;
  }
  inv::GetInfraEnvRequest get_infra_env;
  get_infra_env.set_id(request.infra_env_id());
  types::v1::InfraEnv infra_env;
  grpc::Status status = inventory_->GetInfraEnv(Context().get(), get_infra_env, &infra_env);
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

  inv::GetHostRequest get_host;
  get_host.set_infra_env_id(request.infra_env_id());
  get_host.set_id(request.host_id());
  types::v1::Host host;
  status = inventory_->GetHost(Context().get(), get_host, &host);
  const google::protobuf::Timestamp now = google::protobuf::util::TimeUtil::GetCurrentTime();
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
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
    status = inventory_->CreateHost(Context().get(), create, &host);
  } else if (status.ok()) {
    inv::UpdateHostRequest update;
    types::v1::Host& changes = *update.mutable_host();
    changes.set_id(host.id());
    changes.set_infra_env_id(host.infra_env_id());
    *changes.mutable_inventory() = request.inventory();
    changes.set_discovery_agent_version(request.agent_version());
    *changes.mutable_checked_in_at() = now;
    for (const char* path : {"inventory", "discovery_agent_version", "checked_in_at"}) {
      update.mutable_update_mask()->add_paths(path);
    }
    if (host.agent_instance_id() != request.agent_instance_id()) {
      // A new agent process numbers its messages from 1 again.
      changes.set_agent_instance_id(request.agent_instance_id());
      changes.set_agent_applied_seq(0);
      update.mutable_update_mask()->add_paths("agent_instance_id");
      update.mutable_update_mask()->add_paths("agent_applied_seq");
    }
    status = inventory_->UpdateHost(Context().get(), update, &host);
  }
  if (!status.ok()) {
    Refuse(session, "cannot record the host: " + status.error_message(),
           status.error_code() == grpc::StatusCode::INVALID_ARGUMENT
               ? agent::v1::REGISTRATION_ACTION_GIVE_UP
               : agent::v1::REGISTRATION_ACTION_RETRY,
           status.error_code());
    return;
  }

  std::shared_ptr<Session> replaced;
  {
    absl::MutexLock lock(&mu_);
    agents_[session.get()] =
        Agent{host.infra_env_id(), host.id(), host.agent_instance_id(), host.agent_applied_seq()};
    std::weak_ptr<Session>& slot = by_host_[host.infra_env_id() + "/" + host.id()];
    replaced = slot.lock();
    slot = session;
  }
  session->set_host_id(host.id());
  if (replaced != nullptr && replaced != session) {
    replaced->Close(grpc::Status(grpc::StatusCode::ABORTED,
                                 "replaced by a newer connection from " + session->peer()));
  }
  log_.Info("agent registered", {{"host_id", host.id()},
                                 {"infra_env_id", host.infra_env_id()},
                                 {"status", types::v1::HostStatus_Name(host.status())},
                                 {"peer", session->peer()}});
  ServiceMessage reply;
  agent::v1::Registered& registered = *reply.mutable_registered();
  registered.set_host_id(host.id());
  registered.set_accepted(true);
  registered.set_next_action(agent::v1::REGISTRATION_ACTION_CONTINUE);
  registered.set_last_applied_seq(host.agent_applied_seq());
  registered.set_cluster_id(host.cluster_id());
  registered.set_host_status(host.status());
  session->Send(std::move(reply));
  // The registration brought an inventory: judge the host on it before choosing its steps.
  absl::StatusOr<types::v1::Host> refreshed = RefreshHost(host.infra_env_id(), host.id());
  if (!refreshed.ok()) {
    log_.Warning("cannot refresh the host",
                 {{"host_id", host.id()}, {"error", refreshed.status().message()}});
  }
  PushInstructions(session, refreshed.ok() ? *refreshed : host);
}

absl::StatusOr<types::v1::Host> AgentHub::RefreshHost(const std::string& infra_env_id,
                                                      const std::string& host_id) {
  inv::GetHostRequest get;
  get.set_infra_env_id(infra_env_id);
  get.set_id(host_id);
  types::v1::Host host;
  RETURN_IF_ERROR(FromGrpcStatus(inventory_->GetHost(Context().get(), get, &host)));
  types::v1::Cluster cluster;
  std::vector<types::v1::Host> members;
  const bool bound = !host.cluster_id().empty();
  if (bound) {
    inv::GetClusterRequest get_cluster;
    get_cluster.set_id(host.cluster_id());
    get_cluster.set_include_hosts(true);
    RETURN_IF_ERROR(FromGrpcStatus(inventory_->GetCluster(Context().get(), get_cluster, &cluster)));
    members.assign(cluster.hosts().begin(), cluster.hosts().end());
    cluster.clear_hosts();
  } else {
    members.push_back(host);
  }
  std::vector<core::HostReports> reports;
  reports.reserve(members.size());
  for (const types::v1::Host& member : members) reports.push_back(core::ParseHostReports(member));
  std::vector<core::HostView> views;
  std::vector<const types::v1::Host*> pointers;
  const types::v1::Host* self = &host;
  const core::HostReports* self_reports = nullptr;
  for (size_t i = 0; i < members.size(); ++i) {
    views.push_back({&members[i], &reports[i]});
    pointers.push_back(&members[i]);
    if (members[i].id() == host.id() && members[i].infra_env_id() == host.infra_env_id()) {
      self = &members[i];
      self_reports = &reports[i];
    }
  }
  if (self_reports == nullptr) return absl::NotFoundError("host not among its cluster's hosts");
  const types::v1::Cluster* cluster_ptr = bound ? &cluster : nullptr;
  ASSIGN_OR_RETURN(core::ClusterFacts facts,
                   core::BuildClusterFacts(cluster_ptr, views, core::DefaultHwRequirements(), {}));
  const absl::Time now = absl::Now();
  const core::Timeouts timeouts;
  const core::ValidationResults validations =
      core::ValidateHost({*self, *self_reports, facts, now, timeouts.host});
  const core::HostContext context =
      core::MakeHostContext(*self, cluster_ptr, pointers, &validations, now, timeouts, {});
  ASSIGN_OR_RETURN(
      core::HostDecision decision,
      core::HostStateMachine().Fire(core::HostEvent::kRefresh, self->status(), context));
  inv::UpdateHostStatusRequest update;
  update.set_infra_env_id(infra_env_id);
  update.set_id(host_id);
  update.set_expected_status(self->status());
  update.set_new_status(decision.to);
  update.set_status_info(decision.status_info.empty() ? self->status_info() : decision.status_info);
  validations.ToProto(update.mutable_patch()->mutable_validations_info());
  const bool validations_changed =
      !google::protobuf::util::MessageDifferencer::Equivalent(update.patch(), [&] {
        types::v1::Host current;
        *current.mutable_validations_info() = self->validations_info();
        return current;
      }());
  if (!decision.changed() && !validations_changed) return *self;
  update.mutable_patch_mask()->add_paths("validations_info");
  types::v1::Host written;
  const grpc::Status status = inventory_->UpdateHostStatus(Context().get(), update, &written);
  if (status.error_code() == grpc::StatusCode::ABORTED) return *self;  // someone moved it first
  RETURN_IF_ERROR(FromGrpcStatus(status));
  if (decision.changed()) {
    log_.Info("host status changed", {{"host_id", host_id},
                                      {"from", types::v1::HostStatus_Name(self->status())},
                                      {"to", types::v1::HostStatus_Name(written.status())},
                                      {"info", written.status_info()}});
  }
  return written;
}

void AgentHub::PushInstructions(const std::shared_ptr<Session>& session,
                                const types::v1::Host& host) {
  core::NextStepsInput input;
  input.status = host.status();
  input.kind = host.cluster_id().empty() ? core::StepsKind::kUnbound : core::StepsKind::kDay1;
  for (types::v1::Step& step : core::SelectNextSteps(input, random_).steps) {
    ServiceMessage message;
    *message.mutable_instruction()->mutable_step() = std::move(step);
    if (!session->Send(std::move(message))) return;
  }
}

void AgentHub::Acknowledge(const std::shared_ptr<Session>& session, uint64_t seq) {
  ServiceMessage ack;
  ack.mutable_ack()->set_up_to_seq(seq);
  session->Send(std::move(ack));
}

void AgentHub::ApplyResult(const std::shared_ptr<Session>& session, uint64_t seq,
                           const types::v1::StepResult& result) {
  Agent agent;
  {
    absl::MutexLock lock(&mu_);
    agent = agents_[session.get()];
  }
  if (seq == 0) {
    session->Close(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                "step results must carry a sequence number"));
    return;
  }
  if (seq <= agent.applied_seq) {
    Acknowledge(session, seq);  // a re-send after a reconnect: applied before
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
    *changes.mutable_checked_in_at() = google::protobuf::util::TimeUtil::GetCurrentTime();
    for (const char* path : {"agent_instance_id", "agent_applied_seq", "checked_in_at"}) {
      update.mutable_update_mask()->add_paths(path);
    }
    absl::StatusOr<HostFieldsUpdate> fields = NormalizeStepResult(result, host);
    if (fields.ok()) {
      changes.MergeFrom(fields->fields);
      for (const std::string& path : fields->paths) update.mutable_update_mask()->add_paths(path);
    } else {
      // The agent and the orchestrator disagree on a format: sending it again will not help, so
      // the result is acknowledged (seq recorded) without its content.
      log_.Warning("step result not stored",
                   {{"host_id", agent.host_id}, {"error", fields.status().message()}});
    }
    update.set_resource_version(host.resource_version());
    status = inventory_->UpdateHost(Context().get(), update, &host);
    if (status.ok()) {
      {
        absl::MutexLock lock(&mu_);
        if (auto it = agents_.find(session.get()); it != agents_.end()) {
          it->second.applied_seq = seq;
        }
      }
      Acknowledge(session, seq);
      // What the result taught us may change the host's validations and status; a new status
      // brings new instructions.
      absl::StatusOr<types::v1::Host> refreshed = RefreshHost(agent.infra_env_id, agent.host_id);
      if (!refreshed.ok()) {
        log_.Warning("cannot refresh the host",
                     {{"host_id", agent.host_id}, {"error", refreshed.status().message()}});
      } else if (refreshed->status() != host.status()) {
        PushInstructions(session, *refreshed);
      }
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
  return new AgentReactor(std::make_shared<Session>(context->peer()), hub_);
}

}  // namespace assisted::orchestrator
