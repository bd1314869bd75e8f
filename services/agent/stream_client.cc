#include "services/agent/stream_client.h"

#include "grpcpp/client_context.h"

namespace assisted::agent {

void AddBearerToken(grpc::ClientContext& context, const std::string& token) {
  if (!token.empty()) context.AddMetadata(kAuthorizationMetadata, "Bearer " + token);
}

v1::AgentMessage ProgressMessage(types::v1::HostStage stage, const std::string& info,
                                 int percentage, absl::Time at) {
  v1::AgentMessage message;
  v1::Progress& progress = *message.mutable_progress();
  progress.set_current_stage(stage);
  progress.set_progress_info(info);
  progress.set_stage_percentage(percentage);
  progress.mutable_reported_at()->set_seconds(absl::ToUnixSeconds(at));
  progress.mutable_reported_at()->set_nanos(static_cast<int32_t>(
      absl::ToInt64Nanoseconds(at - absl::FromUnixSeconds(absl::ToUnixSeconds(at)))));
  return message;
}

bool StepsRun::Add(const types::v1::Step& step) {
  absl::MutexLock lock(&mu_);
  if (!ids_.insert(step.step_id()).second) return false;
  latest_[step.step_type()] = step;
  return true;
}

std::vector<types::v1::Step> StepsRun::Latest() const {
  absl::MutexLock lock(&mu_);
  std::vector<types::v1::Step> latest;
  latest.reserve(latest_.size());
  for (const auto& [type, step] : latest_) latest.push_back(step);
  return latest;
}

void StepsRun::Reset() {
  absl::MutexLock lock(&mu_);
  ids_.clear();
  latest_.clear();
}

v1::AgentMessage RegisterMessage(const StreamIdentity& identity, const StepsRun& steps_run) {
  v1::AgentMessage registration;
  v1::Register& request = *registration.mutable_register_();
  request.set_host_id(identity.host_id);
  request.set_infra_env_id(identity.infra_env_id);
  request.set_agent_version(identity.agent_version);
  request.set_agent_instance_id(identity.instance_id);
  if (identity.inventory) *request.mutable_inventory() = identity.inventory();
  for (types::v1::Step& step : steps_run.Latest()) *request.add_steps_run() = std::move(step);
  // The agent clock, for the host/service time-sync validation.
  const absl::Time now = absl::Now();
  request.mutable_agent_time()->set_seconds(absl::ToUnixSeconds(now));
  request.mutable_agent_time()->set_nanos(static_cast<int32_t>(
      absl::ToInt64Nanoseconds(now - absl::FromUnixSeconds(absl::ToUnixSeconds(now)))));
  return registration;
}

v1::AgentMessage Outbox::Add(v1::AgentMessage message) {
  absl::MutexLock lock(&mu_);
  message.set_seq(next_seq_++);
  pending_.push_back(message);
  return message;
}

void Outbox::Acknowledge(uint64_t seq) {
  absl::MutexLock lock(&mu_);
  acknowledged_ = std::max(acknowledged_, seq);
  while (!pending_.empty() && pending_.front().seq() <= seq) pending_.pop_front();
}

std::vector<v1::AgentMessage> Outbox::Pending() const {
  absl::MutexLock lock(&mu_);
  return std::vector<v1::AgentMessage>(pending_.begin(), pending_.end());
}

void Outbox::Reset() {
  absl::MutexLock lock(&mu_);
  next_seq_ = 1;
  acknowledged_ = 0;
  pending_.clear();
}

bool Outbox::AwaitEmpty(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto empty = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return pending_.empty(); };
  return mu_.AwaitWithTimeout(absl::Condition(&empty), timeout);
}

uint64_t Outbox::acknowledged() const {
  absl::MutexLock lock(&mu_);
  return acknowledged_;
}

StreamClient::StreamClient(ChannelFactory channels, StreamIdentity identity, StepExecutor& executor,
                           Random& random, log::Logger log, BackoffPolicy backoff)
    : channels_(std::move(channels)),
      identity_(std::move(identity)),
      executor_(executor),
      log_(std::move(log)),
      backoff_(backoff, random) {}

int StreamClient::registrations() const {
  absl::MutexLock lock(&mu_);
  return registrations_;
}

void StreamClient::Stop() {
  if (!stop_.HasBeenNotified()) stop_.Notify();
  absl::MutexLock lock(&mu_);
  if (context_ != nullptr) context_->TryCancel();
}

bool StreamClient::Write(const v1::AgentMessage& message) {
  absl::MutexLock lock(&write_mu_);
  return stream_ != nullptr && stream_->Write(message);
}

void StreamClient::OnResult(types::v1::StepResult result) {
  v1::AgentMessage message;
  *message.mutable_step_result() = std::move(result);
  // Kept until acknowledged; if the stream is down now, the next session sends it.
  Write(outbox_.Add(std::move(message)));
}

void StreamClient::SendProgress(v1::AgentMessage progress) {
  Write(outbox_.Add(std::move(progress)));
}

void StreamClient::SendLogChunk(v1::LogChunk chunk) {
  v1::AgentMessage message;
  *message.mutable_log_chunk() = std::move(chunk);
  Write(outbox_.Add(std::move(message)));
}

void StreamClient::Run() {
  while (!stop_.HasBeenNotified()) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = channels_();
    if (channel.ok()) {
      auto stub = v1::AgentService::NewStub(*channel);
      if (Session(*stub)) return;
    } else {
      log_.Error("cannot open a channel to the orchestrator",
                 {{"error", channel.status().message()}});
    }
    const absl::Duration delay = backoff_.Next();
    log_.Info("reconnecting", {{"in", absl::FormatDuration(delay)}});
    stop_.WaitForNotificationWithTimeout(delay);
  }
}

bool StreamClient::Session(v1::AgentService::Stub& stub) {
  grpc::ClientContext context;
  AddBearerToken(context, identity_.token);
  std::unique_ptr<grpc::ClientReaderWriter<v1::AgentMessage, v1::ServiceMessage>> stream =
      stub.Connect(&context);
  {
    absl::MutexLock lock(&mu_);
    if (stop_.HasBeenNotified()) return true;
    context_ = &context;
  }
  auto detach = [this] {
    {
      absl::MutexLock lock(&write_mu_);
      stream_ = nullptr;
    }
    absl::MutexLock lock(&mu_);
    context_ = nullptr;
  };

  const v1::AgentMessage registration = RegisterMessage(identity_, steps_run_);
  v1::ServiceMessage reply;
  if (!stream->Write(registration) || !stream->Read(&reply)) {
    const grpc::Status status = stream->Finish();
    detach();
    log_.Warning("orchestrator unreachable", {{"error", status.error_message()}});
    return false;
  }
  if (!reply.has_registered()) {
    // Finish() waits until every message sent to us has been read, which may be never: cancel
    // first, then start over with a fresh stream.
    context.TryCancel();
    stream->Finish();
    detach();
    log_.Warning("the orchestrator did not answer the registration first",
                 {{"body_case", static_cast<int>(reply.body_case())}});
    return false;
  }
  const v1::Registered& registered = reply.registered();
  if (!registered.accepted()) {
    stream->WritesDone();
    stream->Finish();
    detach();
    log_.Error("registration refused", {{"reason", registered.reason()}});
    return registered.next_action() == v1::REGISTRATION_ACTION_GIVE_UP;
  }
  outbox_.Acknowledge(registered.last_applied_seq());
  backoff_.Reset();
  {
    absl::MutexLock lock(&write_mu_);
    stream_ = stream.get();
  }
  {
    absl::MutexLock lock(&mu_);
    ++registrations_;
  }
  log_.Info("registered", {{"host_id", registered.host_id()},
                           {"status", types::v1::HostStatus_Name(registered.host_status())},
                           {"resending", outbox_.Pending().size()}});
  for (const v1::AgentMessage& pending : outbox_.Pending()) Write(pending);

  v1::ServiceMessage message;
  while (stream->Read(&message)) {
    switch (message.body_case()) {
      case v1::ServiceMessage::kInstruction: {
        const types::v1::Step& step = message.instruction().step();
        // After a reconnect the orchestrator re-derives instructions; a step already run is
        // not run again (its result is in the outbox or acknowledged).
        if (steps_run_.Add(step)) {
          executor_.Run(step,
                        [this](types::v1::StepResult result) { OnResult(std::move(result)); });
        }
        break;
      }
      case v1::ServiceMessage::kAck:
        outbox_.Acknowledge(message.ack().up_to_seq());
        break;
      case v1::ServiceMessage::kStop:
        if (message.stop().action() == v1::STOP_ACTION_EXIT) {
          stream->WritesDone();
          stream->Finish();
          detach();
          return true;
        }
        context.TryCancel();
        break;
      default:
        break;
    }
  }
  {
    absl::MutexLock lock(&write_mu_);
    stream_ = nullptr;  // results from now on wait in the outbox
  }
  const grpc::Status status = stream->Finish();
  detach();
  if (!stop_.HasBeenNotified()) {
    log_.Warning("stream ended", {{"code", static_cast<int>(status.error_code())},
                                  {"error", status.error_message()}});
  }
  return false;
}

}  // namespace assisted::agent
