// File: services/orchestrator/agent_session.h
//
// One agent's bidirectional stream (AgentService.Connect) on gRPC's callback API. The reactor
// never blocks: incoming messages are queued on the Session and handed, one at a time and in
// order, to a SessionHandler (which does its blocking work on a WorkQueue); outgoing messages
// are queued and written one after another. The Session outlives the reactor, so work still in
// flight when the agent goes away finds a closed session instead of a dangling pointer.
//
// What an agent can make a session hold is bounded: incoming messages waiting for the handler
// by their bytes (InboundQueue: past the bound the reactor stops reading, so TCP and HTTP/2
// flow control push back on the agent, and reading resumes once the handler has drained half),
// and the steps it was sent by count (PushedSteps: results and log chunks are matched against
// them, so an agent cannot report on work it was never given).

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_AGENT_SESSION_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_AGENT_SESSION_H_

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "assisted/types/v1/step.pb.h"
#include "grpcpp/support/server_callback.h"

namespace assisted::orchestrator {

class AgentReactor;
class Session;

// A session's incoming messages waiting for the handler, bounded by their size. Every message
// costs its encoded size plus kOverhead (what holding it costs beyond its bytes), so a flood of
// empty heartbeats is bounded too. Not thread-safe: the Session guards it.
class InboundQueue {
 public:
  static constexpr size_t kOverhead = 256;

  explicit InboundQueue(size_t max_bytes) : max_bytes_(max_bytes) {}

  // Queues `message` (already read off the stream, so it is always kept). Returns whether the
  // reader may read the next one: false once the queue holds max_bytes or more.
  bool Push(agent::v1::AgentMessage message);
  // The oldest message, or nullopt when none waits.
  std::optional<agent::v1::AgentMessage> Pop();
  // Whether a reader that Push stopped may read again: at most half of max_bytes is queued (a
  // margin, so a full queue does not flip between reading and not on every message).
  bool Resumable() const { return bytes_ <= max_bytes_ / 2; }
  bool empty() const { return messages_.empty(); }
  size_t bytes() const { return bytes_; }
  void Clear();

 private:
  static size_t Cost(const agent::v1::AgentMessage& message);

  const size_t max_bytes_;
  size_t bytes_ = 0;
  // With each message, what it cost when queued (its size is not cached by protobuf).
  std::deque<std::pair<agent::v1::AgentMessage, size_t>> messages_;
};

// The steps pushed to one session, by id, most recent `capacity` kept (rechecks add new ids
// over a long session; a result for a step so old it was forgotten is refused like an unknown
// one). Log chunks are expected only for a logs-gather step whose bundle is not finished yet.
// Not thread-safe: the Session guards it.
class PushedSteps {
 public:
  explicit PushedSteps(size_t capacity) : capacity_(capacity) {}

  void Add(const types::v1::Step& step);
  // OK when `result` answers a step pushed here, of the type it was pushed as;
  // FAILED_PRECONDITION saying why not.
  absl::Status CheckResult(const types::v1::StepResult& result) const;
  // OK when `chunk` belongs to a logs-gather step pushed here whose bundle is not finished;
  // FAILED_PRECONDITION saying why not.
  absl::Status CheckLogChunk(const agent::v1::LogChunk& chunk) const;
  // The step's work is over (its result or its last log chunk was applied): no more log chunks.
  void Done(absl::string_view step_id);

 private:
  struct Pushed {
    types::v1::StepType type;
    bool done = false;
  };
  const size_t capacity_;
  absl::flat_hash_map<std::string, Pushed> steps_;
  std::deque<std::string> order_;  // ids, oldest first, for forgetting
};

// Receives a session's life: Open once, Message for each incoming message (never two at a time
// for one session, always in arrival order), Closed once. Must not block: hand work to a queue.
class SessionHandler {
 public:
  virtual ~SessionHandler() = default;
  virtual void OnOpen(const std::shared_ptr<Session>& session) = 0;
  // The stream's first message arrived (it waits for a worker, who calls OnMessage). On a
  // gRPC thread, before that message is handled.
  virtual void OnFirstMessage(const std::shared_ptr<Session>& session) = 0;
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
  // What one agent's waiting messages may hold: 4 MiB is four full log chunks or inventories
  // (the largest messages an agent sends), plenty for one host that waits for a worker, while
  // a flood from one stream waits in its own TCP and HTTP/2 buffers, not in ours.
  static constexpr size_t kMaxIncomingBytes = 4 << 20;
  // Steps remembered per session: a discovering host gets about ten, and a recheck one more
  // every few minutes at most.
  static constexpr size_t kMaxPushedSteps = 256;

  // `token`: the agent's bearer token from its authorization metadata ("" when absent).
  explicit Session(std::string peer, std::string token = "",
                   size_t max_incoming_bytes = kMaxIncomingBytes)
      : peer_(std::move(peer)), token_(std::move(token)), incoming_(max_incoming_bytes) {}

  // Queues a message for the agent, numbering it; an instruction's step is remembered as
  // pushed. False once the session is closing.
  bool Send(agent::v1::ServiceMessage message);

  // What the agent process reported at registration it already ran (Register.steps_run, same
  // agent instance): their results, re-sent after a reconnect, are accepted like pushed ones.
  void AdoptPushed(const google::protobuf::RepeatedPtrField<types::v1::Step>& steps);
  // PushedSteps' checks on what this session was sent.
  absl::Status CheckResult(const types::v1::StepResult& result) const;
  absl::Status CheckLogChunk(const agent::v1::LogChunk& chunk) const;
  void StepDone(absl::string_view step_id);

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
  // Whether the agent can no longer hear an answer: it gave up on the call or the connection
  // broke (messages it sent before may still wait for the handler), or the stream is ending.
  // An agent that only closed its side still reads, and is answered.
  bool hung_up() const;
  // What the messages waiting for the handler cost now (InboundQueue).
  size_t queued_bytes() const;

 private:
  friend class AgentReactor;
  static constexpr size_t kMaxOutgoing = 1024;

  // Called by the reactor.
  void Attach(AgentReactor* reactor);
  struct Intake {
    bool schedule = false;  // nothing processes this session's messages: Schedule it
    bool read_on = false;   // start the next read now; otherwise ProcessNext resumes reading
    bool first = false;     // the stream's first message
  };
  Intake Received(agent::v1::AgentMessage message);
  void WriteDone(bool ok);
  // The agent closed its side: finish once what it sent has been handled.
  void ReadsDone();
  // The call was cancelled: the agent gave up on it, or the connection broke.
  void Cancelled();
  void Detach();
  void StartNextWriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reads again if Received stopped reading and the queue has drained enough.
  void ResumeReadingLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
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
  InboundQueue incoming_ ABSL_GUARDED_BY(mu_);
  bool read_paused_ ABSL_GUARDED_BY(mu_) = false;  // no read outstanding: the queue is full
  PushedSteps pushed_ ABSL_GUARDED_BY(mu_){kMaxPushedSteps};
  bool processing_ ABSL_GUARDED_BY(mu_) = false;
  bool reads_done_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;  // the call was cancelled (OnCancel)
  bool heard_ ABSL_GUARDED_BY(mu_) = false;      // a message arrived
};

// The per-stream reactor gRPC drives. Deletes itself when the stream is done.
class AgentReactor final
    : public grpc::ServerBidiReactor<agent::v1::AgentMessage, agent::v1::ServiceMessage> {
 public:
  AgentReactor(std::shared_ptr<Session> session, SessionHandler& handler);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  // The agent gave up on the call (its deadline, a cancel) or the connection broke.
  void OnCancel() override;
  void OnDone() override;
  // Starts the next read after the session stopped reading (its inbound queue was full).
  void ReadMore() { StartRead(&incoming_); }

 private:
  std::shared_ptr<Session> session_;
  SessionHandler& handler_;
  agent::v1::AgentMessage incoming_;
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_AGENT_SESSION_H_
