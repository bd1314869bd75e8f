// File: services/orchestrator/agent_session.h
//
// One agent's bidirectional stream (AgentService.Connect) on gRPC's callback API. The reactor
// never blocks: incoming messages are queued on the Session and handed, one at a time and in
// order, to a SessionHandler (which does its blocking work on a WorkQueue); outgoing messages
// are queued and written one after another. The Session outlives the reactor, so work still in
// flight when the agent goes away finds a closed session instead of a dangling pointer.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_AGENT_SESSION_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_AGENT_SESSION_H_

#include <deque>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "grpcpp/support/server_callback.h"

namespace assisted::orchestrator {

class AgentReactor;
class Session;

// Receives a session's life: Open once, Message for each incoming message (never two at a time
// for one session, always in arrival order), Closed once. Must not block: hand work to a queue.
class SessionHandler {
 public:
  virtual ~SessionHandler() = default;
  virtual void OnOpen(const std::shared_ptr<Session>& session) = 0;
  // Called from Session::ProcessNext (a worker thread), never from a gRPC thread.
  virtual void OnMessage(const std::shared_ptr<Session>& session,
                         const agent::v1::AgentMessage& message) = 0;
  // Schedules `session`'s processing (calls session->ProcessNext() on some worker); false when
  // the server is overloaded.
  virtual bool Schedule(const std::shared_ptr<Session>& session) = 0;
  virtual void OnClosed(const std::shared_ptr<Session>& session) = 0;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  // `token`: the agent's bearer token from its authorization metadata ("" when absent).
  explicit Session(std::string peer, std::string token = "")
      : peer_(std::move(peer)), token_(std::move(token)) {}

  // Queues a message for the agent, numbering it. False once the session is closing.
  bool Send(agent::v1::ServiceMessage message);

  // Ends the stream with `status` once the queued messages are written. Idempotent.
  void Close(const grpc::Status& status);

  // Handles the oldest queued incoming message (if any), then reschedules itself when more
  // wait. Called by the handler's workers only.
  void ProcessNext(SessionHandler& handler);

  const std::string& peer() const { return peer_; }
  const std::string& token() const { return token_; }

  // Identity learned at registration (empty before).
  std::string host_id() const;
  void set_host_id(std::string host_id);
  bool closed() const;

 private:
  friend class AgentReactor;
  static constexpr size_t kMaxOutgoing = 1024;
  static constexpr size_t kMaxIncoming = 1024;

  // Called by the reactor.
  void Attach(AgentReactor* reactor);
  enum class Intake { kSchedule, kQueued, kRejected };
  Intake Received(agent::v1::AgentMessage message);
  void WriteDone(bool ok);
  // The agent closed its side: finish once what it sent has been handled.
  void ReadsDone();
  void Detach();
  void StartNextWriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends the call with `status`, once.
  void FinishLocked(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string peer_;
  const std::string token_;
  mutable absl::Mutex mu_;
  AgentReactor* reactor_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::string host_id_ ABSL_GUARDED_BY(mu_);
  std::deque<agent::v1::ServiceMessage> outgoing_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool finish_called_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status close_status_ ABSL_GUARDED_BY(mu_);
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 1;
  std::deque<agent::v1::AgentMessage> incoming_ ABSL_GUARDED_BY(mu_);
  bool processing_ ABSL_GUARDED_BY(mu_) = false;
  bool reads_done_ ABSL_GUARDED_BY(mu_) = false;
};

// The per-stream reactor gRPC drives. Deletes itself when the stream is done.
class AgentReactor final
    : public grpc::ServerBidiReactor<agent::v1::AgentMessage, agent::v1::ServiceMessage> {
 public:
  AgentReactor(std::shared_ptr<Session> session, SessionHandler& handler);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone() override;

 private:
  std::shared_ptr<Session> session_;
  SessionHandler& handler_;
  agent::v1::AgentMessage incoming_;
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_AGENT_SESSION_H_
