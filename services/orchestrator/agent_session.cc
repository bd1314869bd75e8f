#include "services/orchestrator/agent_session.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace assisted::orchestrator {

size_t InboundQueue::Cost(const agent::v1::AgentMessage& message) {
  return message.ByteSizeLong() + kOverhead;
}

bool InboundQueue::Push(agent::v1::AgentMessage message) {
  const size_t cost = Cost(message);
  bytes_ += cost;
  messages_.emplace_back(std::move(message), cost);
  return bytes_ < max_bytes_;
}

std::optional<agent::v1::AgentMessage> InboundQueue::Pop() {
  if (messages_.empty()) return std::nullopt;
  auto [message, cost] = std::move(messages_.front());
  messages_.pop_front();
  bytes_ -= cost;
  return std::move(message);
}

void InboundQueue::Clear() {
  messages_.clear();
  bytes_ = 0;
}

void PushedSteps::Add(const types::v1::Step& step) {
  const bool added = steps_.insert_or_assign(step.step_id(), Pushed{step.step_type()}).second;
  if (!added) return;
  order_.push_back(step.step_id());
  if (order_.size() > capacity_) {
    steps_.erase(order_.front());
    order_.pop_front();
  }
}

absl::Status PushedSteps::CheckResult(const types::v1::StepResult& result) const {
  auto it = steps_.find(result.step_id());
  if (it == steps_.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "step result for \"", result.step_id(), "\": no such step was pushed on this stream"));
  }
  if (it->second.type != result.step_type()) {
    return absl::FailedPreconditionError(
        absl::StrCat("step result for \"", result.step_id(), "\": pushed as ",
                     types::v1::StepType_Name(it->second.type), ", answered as ",
                     types::v1::StepType_Name(result.step_type())));
  }
  return absl::OkStatus();
}

absl::Status PushedSteps::CheckLogChunk(const agent::v1::LogChunk& chunk) const {
  auto it = steps_.find(chunk.step_id());
  if (it == steps_.end() || it->second.type != types::v1::STEP_TYPE_LOGS_GATHER) {
    return absl::FailedPreconditionError(absl::StrCat("log chunk for \"", chunk.step_id(),
                                                      "\": no logs were asked for with that step"));
  }
  if (it->second.done) {
    return absl::FailedPreconditionError(
        absl::StrCat("log chunk for \"", chunk.step_id(), "\": that log bundle is finished"));
  }
  return absl::OkStatus();
}

void PushedSteps::Done(absl::string_view step_id) {
  if (auto it = steps_.find(step_id); it != steps_.end()) it->second.done = true;
}

bool Session::Send(agent::v1::ServiceMessage message) {
  absl::MutexLock lock(&mu_);
  if (closing_ || finished_) return false;
  if (outgoing_.size() >= kMaxOutgoing) {
    // The agent does not read: drop it rather than buffer without bound.
    closing_ = true;
    close_status_ =
        grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "the agent is not reading its stream");
    if (!writing_ && reactor_ != nullptr) FinishLocked(close_status_);
    return false;
  }
  if (message.has_instruction()) pushed_.Add(message.instruction().step());
  message.set_seq(next_seq_++);
  outgoing_.push_back(std::move(message));
  if (!writing_) StartNextWriteLocked();
  return true;
}

void Session::FinishLocked(const grpc::Status& status) {
  if (finish_called_ || reactor_ == nullptr) return;
  finish_called_ = true;
  reactor_->Finish(status);
}

void Session::StartNextWriteLocked() {
  if (reactor_ == nullptr || outgoing_.empty()) return;
  writing_ = true;
  reactor_->StartWrite(&outgoing_.front());
}

void Session::WriteDone(bool ok) {
  absl::MutexLock lock(&mu_);
  writing_ = false;
  if (!outgoing_.empty()) outgoing_.pop_front();
  if (!ok) {
    // The stream broke: nothing more can be written, so finish now (a Close that waited for
    // this write would otherwise never end the call, and the server could not shut down).
    if (!closing_) {
      closing_ = true;
      close_status_ = grpc::Status(grpc::StatusCode::UNAVAILABLE, "the agent stream broke");
    }
    outgoing_.clear();
    FinishLocked(close_status_);
    return;
  }
  if (!outgoing_.empty()) {
    StartNextWriteLocked();
  } else if (closing_ && reactor_ != nullptr) {
    FinishLocked(close_status_);
  }
}

void Session::Close(const grpc::Status& status) {
  absl::MutexLock lock(&mu_);
  if (closing_ || finished_) return;
  closing_ = true;
  close_status_ = status;
  if (!writing_ && reactor_ != nullptr) FinishLocked(status);
}

void Session::ReadsDone() {
  bool idle = false;
  {
    absl::MutexLock lock(&mu_);
    reads_done_ = true;
    idle = incoming_.empty() && !processing_;
  }
  if (idle) Close(grpc::Status::OK);
}

void Session::Cancelled() {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
}

void Session::Attach(AgentReactor* reactor) {
  absl::MutexLock lock(&mu_);
  reactor_ = reactor;
}

void Session::Detach() {
  absl::MutexLock lock(&mu_);
  reactor_ = nullptr;
  finished_ = true;
  outgoing_.clear();
  incoming_.Clear();
}

Session::Intake Session::Received(agent::v1::AgentMessage message) {
  absl::MutexLock lock(&mu_);
  if (closing_ || finished_) return Intake{};  // read no more
  Intake intake;
  intake.first = !heard_;
  heard_ = true;
  intake.read_on = incoming_.Push(std::move(message));
  read_paused_ = !intake.read_on;
  intake.schedule = !processing_;
  processing_ = true;
  return intake;
}

void Session::ResumeReadingLocked() {
  if (!read_paused_ || !incoming_.Resumable() || reactor_ == nullptr || closing_ ||
      finish_called_) {
    return;
  }
  read_paused_ = false;
  reactor_->ReadMore();
}

void Session::ProcessNext(SessionHandler& handler) {
  agent::v1::AgentMessage message;
  bool have_message = false;
  bool drained_after_close = false;
  {
    absl::MutexLock lock(&mu_);
    std::optional<agent::v1::AgentMessage> next = finished_ ? std::nullopt : incoming_.Pop();
    if (!next.has_value()) {
      processing_ = false;
      drained_after_close = reads_done_;
    } else {
      message = *std::move(next);
      have_message = true;
      ResumeReadingLocked();
    }
  }
  if (have_message) {
    handler.OnMessage(shared_from_this(), message);
    absl::MutexLock lock(&mu_);
    if (incoming_.empty() || finished_) {
      processing_ = false;
      drained_after_close = reads_done_;
      have_message = false;
    }
  }
  if (drained_after_close) {
    Close(grpc::Status::OK);  // the agent is done and so are we
  } else if (have_message && !handler.Schedule(shared_from_this())) {
    Close(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "the orchestrator is overloaded"));
  }
}

std::string Session::host_id() const {
  absl::MutexLock lock(&mu_);
  return host_id_;
}

void Session::set_host_id(std::string host_id) {
  absl::MutexLock lock(&mu_);
  host_id_ = std::move(host_id);
}

void Session::AdoptPushed(const google::protobuf::RepeatedPtrField<types::v1::Step>& steps) {
  absl::MutexLock lock(&mu_);
  for (const types::v1::Step& step : steps) pushed_.Add(step);
}

absl::Status Session::CheckResult(const types::v1::StepResult& result) const {
  absl::MutexLock lock(&mu_);
  return pushed_.CheckResult(result);
}

absl::Status Session::CheckLogChunk(const agent::v1::LogChunk& chunk) const {
  absl::MutexLock lock(&mu_);
  return pushed_.CheckLogChunk(chunk);
}

void Session::StepDone(absl::string_view step_id) {
  absl::MutexLock lock(&mu_);
  pushed_.Done(step_id);
}

size_t Session::queued_bytes() const {
  absl::MutexLock lock(&mu_);
  return incoming_.bytes();
}

bool Session::closed() const {
  absl::MutexLock lock(&mu_);
  return closing_ || finished_;
}

bool Session::hung_up() const {
  absl::MutexLock lock(&mu_);
  return cancelled_ || closing_ || finished_;
}

AgentReactor::AgentReactor(std::shared_ptr<Session> session, SessionHandler& handler)
    : session_(std::move(session)), handler_(handler) {
  session_->Attach(this);
  handler_.OnOpen(session_);
  StartRead(&incoming_);
}

void AgentReactor::OnReadDone(bool ok) {
  if (!ok) {
    // The agent closed its side or the connection broke.
    session_->ReadsDone();
    return;
  }
  // The buffer is emptied before the session sees the message: once the session holds it,
  // a worker draining the queue may start the next read into this buffer.
  agent::v1::AgentMessage message = std::move(incoming_);
  incoming_.Clear();
  const Session::Intake intake = session_->Received(std::move(message));
  if (intake.first) handler_.OnFirstMessage(session_);
  if (intake.schedule && !handler_.Schedule(session_)) {
    session_->Close(
        grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "the orchestrator is overloaded"));
    return;
  }
  if (intake.read_on) StartRead(&incoming_);
}

void AgentReactor::OnWriteDone(bool ok) { session_->WriteDone(ok); }

void AgentReactor::OnCancel() { session_->Cancelled(); }

void AgentReactor::OnDone() {
  session_->Detach();
  handler_.OnClosed(session_);
  delete this;
}

}  // namespace assisted::orchestrator
