#include "services/orchestrator/agent_session.h"

namespace assisted::orchestrator {

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

void Session::Attach(AgentReactor* reactor) {
  absl::MutexLock lock(&mu_);
  reactor_ = reactor;
}

void Session::Detach() {
  absl::MutexLock lock(&mu_);
  reactor_ = nullptr;
  finished_ = true;
  outgoing_.clear();
  incoming_.clear();
}

Session::Intake Session::Received(agent::v1::AgentMessage message) {
  absl::MutexLock lock(&mu_);
  if (closing_ || finished_) return Intake::kRejected;
  if (incoming_.size() >= kMaxIncoming) {
    closing_ = true;
    close_status_ = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                 "too many unprocessed messages from this agent");
    if (!writing_ && reactor_ != nullptr) FinishLocked(close_status_);
    return Intake::kRejected;
  }
  incoming_.push_back(std::move(message));
  if (processing_) return Intake::kQueued;
  processing_ = true;
  return Intake::kSchedule;
}

void Session::ProcessNext(SessionHandler& handler) {
  agent::v1::AgentMessage message;
  bool have_message = false;
  bool drained_after_close = false;
  {
    absl::MutexLock lock(&mu_);
    if (incoming_.empty() || finished_) {
      processing_ = false;
      drained_after_close = reads_done_;
    } else {
      message = std::move(incoming_.front());
      incoming_.pop_front();
      have_message = true;
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

bool Session::closed() const {
  absl::MutexLock lock(&mu_);
  return closing_ || finished_;
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
  switch (session_->Received(std::move(incoming_))) {
    case Session::Intake::kRejected:
      return;  // closing: read no more
    case Session::Intake::kSchedule:
      if (!handler_.Schedule(session_)) {
        session_->Close(
            grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "the orchestrator is overloaded"));
        return;
      }
      break;
    case Session::Intake::kQueued:
      break;
  }
  incoming_.Clear();
  StartRead(&incoming_);
}

void AgentReactor::OnWriteDone(bool ok) { session_->WriteDone(ok); }

void AgentReactor::OnDone() {
  session_->Detach();
  handler_.OnClosed(session_);
  delete this;
}

}  // namespace assisted::orchestrator
