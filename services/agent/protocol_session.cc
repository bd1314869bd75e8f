#include "services/agent/protocol_session.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/support/client_callback.h"

namespace assisted::agent {
namespace {

google::protobuf::Timestamp ToTimestamp(absl::Time at) {
  return google::protobuf::util::TimeUtil::NanosecondsToTimestamp(absl::ToUnixNanos(at));
}

// Why a stream ended, from gRPC's final status when nothing more precise was recorded.
absl::Status StreamEnded(const grpc::Status& status) {
  if (status.ok()) return absl::UnavailableError("the orchestrator ended the stream");
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat("stream to the orchestrator ended: ", status.error_message()));
}

}  // namespace

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
  *progress.mutable_reported_at() = ToTimestamp(at);
  return message;
}

v1::AgentMessage RegisterMessage(const StreamIdentity& identity, const StepsRun& steps_run,
                                 absl::Time agent_time) {
  v1::AgentMessage registration;
  v1::Register& request = *registration.mutable_register_();
  request.set_host_id(identity.host_id);
  request.set_infra_env_id(identity.infra_env_id);
  request.set_agent_version(identity.agent_version);
  request.set_agent_instance_id(identity.instance_id);
  if (identity.inventory) *request.mutable_inventory() = identity.inventory();
  for (types::v1::Step& step : steps_run.Latest()) *request.add_steps_run() = std::move(step);
  // The agent clock, for the host/service time-sync validation.
  *request.mutable_agent_time() = ToTimestamp(agent_time);
  return registration;
}

// ---- Outbox, StepsRun ----

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

bool Outbox::empty() const {
  absl::MutexLock lock(&mu_);
  return pending_.empty();
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

// ---- Stream ----

// One stream: a callback-API reactor. Writes are queued (one in flight at a time, as the API
// requires); a hold keeps the call alive until the last write finished, so OnDone never races a
// write. It owns itself until OnDone (the session may hold it longer). Never call into it with a
// session lock held: gRPC may run reactions inline.
class ProtocolSession::Stream final
    : public grpc::ClientBidiReactor<v1::AgentMessage, v1::ServiceMessage> {
 public:
  explicit Stream(ProtocolSession& session) : session_(session) {}

  // Starts the call with `registration` as its first message; `self` is this stream.
  void Begin(std::shared_ptr<Stream> self, v1::AgentService::Stub& stub, const std::string& token,
             const v1::AgentMessage& registration) {
    self_ = std::move(self);
    AddBearerToken(context_, token);
    // While the orchestrator is unreachable (restarting, or not up yet) the call waits for the
    // channel, which reconnects every few seconds, instead of failing at once: failing made
    // this session's backoff grow through the outage, and a fleet whose orchestrator was back
    // after 27 s then waited up to 17 s more (re-registering 10,000 agents took 70 s). The
    // registration timeout still ends a stream that waited too long.
    context_.set_wait_for_ready(true);
    stub.async()->Connect(&context_, this);
    AddHold();
    Send(registration);
    StartRead(&incoming_);
    StartCall();
  }

  // Queues `message`; dropped once the stream is closing (the outbox keeps it for the next).
  void Send(const v1::AgentMessage& message) {
    {
      absl::MutexLock lock(&mu_);
      if (closing_) return;
      queue_.push_back(message);
      if (writing_) return;
      writing_ = true;
      writing_message_ = std::move(queue_.front());
      queue_.pop_front();
    }
    StartWrite(&writing_message_);
  }

  // Valid before the call started too (gRPC cancels it as it starts).
  void Cancel() { context_.TryCancel(); }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Closing();
      return;
    }
    session_.OnMessage(*this, incoming_);
    StartRead(&incoming_);
  }

  void OnWriteDone(bool ok) override {
    bool next = false;
    bool release = false;
    {
      absl::MutexLock lock(&mu_);
      if (!ok) closing_ = true;
      if (!closing_ && !queue_.empty()) {
        writing_message_ = std::move(queue_.front());
        queue_.pop_front();
        next = true;
      } else {
        writing_ = false;
        release = closing_ && !hold_released_;
        if (release) hold_released_ = true;
      }
    }
    if (next) StartWrite(&writing_message_);
    if (release) RemoveHold();
  }

  // The session takes the last reference (this may be deleted on return).
  void OnDone(const grpc::Status& status) override {
    session_.OnStreamDone(std::move(self_), status);
  }

 private:
  void Closing() {
    bool release = false;
    {
      absl::MutexLock lock(&mu_);
      closing_ = true;
      queue_.clear();
      release = !writing_ && !hold_released_;
      if (release) hold_released_ = true;
    }
    if (release) RemoveHold();
  }

  ProtocolSession& session_;
  std::shared_ptr<Stream> self_;  // until OnDone
  grpc::ClientContext context_;
  v1::ServiceMessage incoming_;
  absl::Mutex mu_;
  std::deque<v1::AgentMessage> queue_ ABSL_GUARDED_BY(mu_);
  v1::AgentMessage writing_message_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool hold_released_ ABSL_GUARDED_BY(mu_) = false;
};

// ---- ProtocolSession ----

ProtocolSession::ProtocolSession(ChannelFactory channels, StreamIdentity identity,
                                 Listener& listener, Scheduler& scheduler, const Clock& clock,
                                 Random& random, log::Logger log, Options options)
    : channels_(std::move(channels)),
      identity_(std::move(identity)),
      listener_(listener),
      scheduler_(scheduler),
      clock_(clock),
      options_(options),
      log_(std::move(log)),
      backoff_(options.backoff, random) {}

ProtocolSession::~ProtocolSession() = default;

void ProtocolSession::Start() {
  uint64_t attempt = 0;
  {
    absl::MutexLock lock(&mu_);
    if (running_ || stopped_) return;
    running_ = true;
    closing_ = false;
    give_up_ = absl::OkStatus();
    finished_why_ = absl::OkStatus();
    attempt = ++attempt_;
  }
  Connect(attempt);
}

bool ProtocolSession::Close() {
  std::shared_ptr<Stream> stream;
  {
    absl::MutexLock lock(&mu_);
    if (!running_) return false;
    if (closing_) return true;
    closing_ = true;
    stream = current_;
    if (stream != nullptr) {
      if (end_why_.ok()) end_why_ = absl::CancelledError("closed by the agent");
    } else {
      ++attempt_;  // the pending reconnect, if any, does nothing
    }
  }
  if (stream != nullptr) {
    stream->Cancel();  // OnStreamDone finishes
  } else {
    Finish(absl::OkStatus());
  }
  return true;
}

void ProtocolSession::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
  }
  Close();
}

absl::Status ProtocolSession::AwaitFinished() const {
  absl::MutexLock lock(&mu_);
  auto finished = [this]()
                      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !running_ && finishing_ == 0; };
  mu_.Await(absl::Condition(&finished));
  return finished_why_;
}

int ProtocolSession::registrations() const {
  absl::MutexLock lock(&mu_);
  return registrations_;
}

bool ProtocolSession::registered() const {
  absl::MutexLock lock(&mu_);
  return registered_;
}

void ProtocolSession::NewInstance(std::string instance_id) {
  absl::MutexLock sending(&send_mu_);
  outbox_.Reset();
  steps_run_.Reset();
  absl::MutexLock lock(&mu_);
  identity_.instance_id = std::move(instance_id);
}

std::string ProtocolSession::instance_id() const {
  absl::MutexLock lock(&mu_);
  return identity_.instance_id;
}

uint64_t ProtocolSession::Send(v1::AgentMessage message,
                               const std::function<void(const v1::AgentMessage&)>& on_numbered) {
  absl::MutexLock sending(&send_mu_);
  const v1::AgentMessage numbered = outbox_.Add(std::move(message));
  if (on_numbered) on_numbered(numbered);
  std::shared_ptr<Stream> stream;
  {
    absl::MutexLock lock(&mu_);
    if (registered_) stream = current_;
  }
  if (stream != nullptr) stream->Send(numbered);
  return numbered.seq();
}

void ProtocolSession::Connect(uint64_t attempt) {
  {
    absl::MutexLock lock(&mu_);
    if (!running_ || closing_ || attempt != attempt_) return;
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = channels_();
  if (!channel.ok()) {
    AfterStream(absl::UnavailableError(absl::StrCat("cannot open a channel to the orchestrator: ",
                                                    channel.status().message())),
                /*was_registered=*/false, attempt);
    return;
  }
  auto stream = std::make_shared<Stream>(*this);
  uint64_t generation = 0;
  v1::AgentService::Stub* stub = nullptr;
  {
    absl::MutexLock lock(&mu_);
    // Close() may have come while the channel was made: it found no stream and finished.
    if (!running_ || closing_ || attempt != attempt_) return;
    if (*channel != channel_ || stub_ == nullptr) {
      channel_ = *channel;
      stub_ = v1::AgentService::NewStub(channel_);
    }
    stub = stub_.get();
    current_ = stream;
    registered_ = false;
    end_why_ = absl::OkStatus();
    generation = ++generation_;
  }
  stream->Begin(stream, *stub, identity_.token,
                RegisterMessage(identity_, steps_run_, clock_.Now()));
  scheduler_.After(options_.registration_timeout,
                   [this, generation] { CheckRegistered(generation); });
}

void ProtocolSession::CheckRegistered(uint64_t generation) {
  std::shared_ptr<Stream> stream;
  bool reachable = false;
  {
    absl::MutexLock lock(&mu_);
    if (generation != generation_ || current_ == nullptr || registered_) return;
    stream = current_;
    reachable = channel_ != nullptr && channel_->GetState(false) == GRPC_CHANNEL_READY;
  }
  const std::string waited = absl::FormatDuration(options_.registration_timeout);
  EndStream(*stream, reachable ? absl::DeadlineExceededError(absl::StrCat(
                                     "the orchestrator did not answer Register within ", waited))
                               : absl::UnavailableError(absl::StrCat(
                                     "cannot reach the orchestrator (waited ", waited, ")")));
}

void ProtocolSession::EndStream(Stream& stream, absl::Status why) {
  {
    absl::MutexLock lock(&mu_);
    if (&stream == current_.get() && end_why_.ok()) end_why_ = std::move(why);
  }
  stream.Cancel();
}

void ProtocolSession::OnMessage(Stream& stream, const v1::ServiceMessage& message) {
  bool registered = false;
  {
    absl::MutexLock lock(&mu_);
    if (&stream != current_.get()) return;
    registered = registered_;
  }
  if (!registered) {
    if (!message.has_registered()) {
      EndStream(stream, absl::FailedPreconditionError(absl::StrCat(
                            "the orchestrator answered Register with message body ",
                            static_cast<int>(message.body_case()), " instead of Registered")));
      return;
    }
    OnRegistration(stream, message.registered());
    return;
  }
  switch (message.body_case()) {
    case v1::ServiceMessage::kInstruction: {
      // After a reconnect the orchestrator re-derives instructions; a step already taken on is
      // not run again (its result is in the outbox or acknowledged).
      const bool first_time = steps_run_.Add(message.instruction().step());
      listener_.OnInstruction(message.instruction(), first_time);
      break;
    }
    case v1::ServiceMessage::kAck:
      outbox_.Acknowledge(message.ack().up_to_seq());
      listener_.OnAcknowledged(message.ack().up_to_seq());
      break;
    case v1::ServiceMessage::kReject:
      log_.Warning("message rejected",
                   {{"seq", message.reject().seq()}, {"reason", message.reject().reason()}});
      listener_.OnRejected(message.reject());
      break;
    case v1::ServiceMessage::kStop: {
      const v1::Stop& stop = message.stop();
      if (stop.action() == v1::STOP_ACTION_EXIT) {
        const absl::Status why = absl::CancelledError(
            absl::StrCat("the orchestrator told the agent to exit: ", stop.reason()));
        {
          absl::MutexLock lock(&mu_);
          give_up_ = why;
        }
        EndStream(stream, why);
      } else {
        {
          absl::MutexLock lock(&mu_);
          retry_after_ = absl::Seconds(stop.retry_after().seconds());
        }
        EndStream(stream, absl::UnavailableError(absl::StrCat(
                              "the orchestrator asked to reconnect: ", stop.reason())));
      }
      break;
    }
    case v1::ServiceMessage::kRegistered:
      EndStream(stream, absl::FailedPreconditionError(
                            "the orchestrator sent Registered twice on one stream"));
      break;
    default:
      break;
  }
}

void ProtocolSession::OnRegistration(Stream& stream, const v1::Registered& registered) {
  if (!registered.accepted()) {
    const bool give_up = registered.next_action() == v1::REGISTRATION_ACTION_GIVE_UP;
    const absl::Status why = give_up ? absl::PermissionDeniedError(absl::StrCat(
                                           "registration refused for good: ", registered.reason()))
                                     : absl::UnavailableError(absl::StrCat(
                                           "registration refused for now: ", registered.reason()));
    {
      absl::MutexLock lock(&mu_);
      if (give_up && !options_.retry_refusals_for_good) give_up_ = why;
      retry_after_ = absl::Seconds(registered.retry_after().seconds());
    }
    log_.Error("registration refused", {{"reason", registered.reason()}});
    listener_.OnRefused(registered);
    EndStream(stream, why);
    return;
  }
  size_t resending = 0;
  {
    // Kept messages go first, in seq order, before anything new: Send() waits for send_mu_.
    absl::MutexLock sending(&send_mu_);
    outbox_.Acknowledge(registered.last_applied_seq());
    {
      absl::MutexLock lock(&mu_);
      if (&stream != current_.get()) return;
      registered_ = true;
      ++registrations_;
      backoff_.Reset();
    }
    const std::vector<v1::AgentMessage> pending = outbox_.Pending();
    resending = pending.size();
    for (const v1::AgentMessage& message : pending) stream.Send(message);
  }
  log_.Info("registered", {{"status", types::v1::HostStatus_Name(registered.host_status())},
                           {"last_applied_seq", registered.last_applied_seq()},
                           {"resending", resending}});
  listener_.OnRegistered(registered);
}

void ProtocolSession::OnStreamDone(std::shared_ptr<Stream> stream, const grpc::Status& status) {
  absl::Status why;
  bool was_registered = false;
  std::shared_ptr<Stream> current;
  {
    absl::MutexLock lock(&mu_);
    if (stream != current_) return;
    was_registered = registered_;
    registered_ = false;  // from now on what is sent waits in the outbox
    why = end_why_.ok() ? StreamEnded(status) : end_why_;
    end_why_ = absl::OkStatus();
    current = std::move(current_);
  }
  // The stream (its ClientContext holds the channel) goes now, while channel_ still holds the
  // channel and before the session can finish: once AwaitFinished() returns the owner may drop
  // the channel, and gRPC 1.51 crashes when a channel's last reference is dropped on its
  // callback thread (the teardown joins that thread from itself and frees its queue under it).
  current.reset();
  stream.reset();
  AfterStream(std::move(why), was_registered, /*attempt=*/0);
}

void ProtocolSession::AfterStream(absl::Status why, bool was_registered, uint64_t attempt) {
  enum class Next { kRetry, kFinish, kNothing } next = Next::kRetry;
  absl::Status finish_why;
  absl::Duration delay;
  {
    absl::MutexLock lock(&mu_);
    if (!running_ || (attempt != 0 && attempt != attempt_)) {
      next = Next::kNothing;
    } else if (closing_) {
      next = Next::kFinish;
    } else if (!give_up_.ok()) {
      next = Next::kFinish;
      finish_why = give_up_;
    } else {
      delay = retry_after_ > absl::ZeroDuration() ? retry_after_ : backoff_.Next();
      retry_after_ = absl::ZeroDuration();
      attempt = ++attempt_;
    }
  }
  if (next != Next::kNothing && why.code() != absl::StatusCode::kCancelled) {
    log_.Warning("stream ended",
                 {{"code", absl::StatusCodeToString(why.code())}, {"error", why.message()}});
  }
  listener_.OnStreamEnded(why, was_registered);
  if (next == Next::kFinish) {
    Finish(finish_why);
  } else if (next == Next::kRetry) {
    log_.Info("reconnecting", {{"in", absl::FormatDuration(delay)}});
    scheduler_.After(delay, [this, attempt] { Connect(attempt); });
  }
}

void ProtocolSession::Finish(absl::Status why) {
  {
    absl::MutexLock lock(&mu_);
    if (!running_) return;  // Close() and a failed attempt may both get here
    running_ = false;
    finished_why_ = why;
    ++finishing_;
  }
  if (!why.ok()) log_.Error("session ended", {{"error", why.message()}});
  listener_.OnFinished(why);
  absl::MutexLock lock(&mu_);
  --finishing_;
}

}  // namespace assisted::agent
