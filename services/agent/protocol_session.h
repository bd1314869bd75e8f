// File: services/agent/protocol_session.h
//
// The agent's side of AgentService.Connect (assisted/agent/v1/agent_service.proto), in ONE place
// for every agent: the real one (services/agent/stream_client.h, agent.cc) and each simulated host
// of a fleet (services/agent/fleet.h).
//
// A ProtocolSession is one agent instance's life with the orchestrator, across any number of
// streams. It connects (always from the host side), sends Register first (identity, hardware
// inventory, agent clock, the steps this instance has taken on), and expects Registered as the
// first answer within `registration_timeout`. Once accepted it drops kept messages at or below
// Registered.last_applied_seq and re-sends the rest in seq order before anything new; it passes
// each pushed Instruction to its Listener (saying whether the step id was already taken on in
// this instance, so nothing runs twice); every state-changing message given to Send() is
// numbered (seq from 1 per instance) and kept until an Ack covers it. A broken stream is retried
// with exponential backoff and jitter (or the orchestrator's retry_after) until Stop(), a
// registration refused for good (unless Options::retry_refusals_for_good), or the
// orchestrator's Stop EXIT.
//
// A stream waits for the channel while the orchestrator is unreachable (gRPC wait_for_ready; the
// channel reconnects every few seconds), so an agent is back within seconds of an orchestrator
// that restarts, however long it was away.
//
// Every stream that ends is reported with a status saying why: UNAVAILABLE (unreachable for the
// whole registration timeout, stream broken, refused for now), DEADLINE_EXCEEDED (reached, but
// no Registered in time), FAILED_PRECONDITION (the
// orchestrator broke the protocol, e.g. answered Register with something else), PERMISSION_DENIED
// (refused for good), CANCELLED (closed by this side or told to exit by the orchestrator).
//
// Scale: streams use gRPC's callback API (a reactor per live stream, no thread per agent) and
// waits go through a shared Scheduler, so one process holds 10,000 sessions on a fixed number of
// threads. Time (Register.agent_time), backoff jitter and waits are injected (Clock, Random,
// Scheduler) so tests drive them by hand.
//
//   TimerThread timer;
//   ProtocolSession session(channels, identity, listener, timer, clock, random, log);
//   session.Start();
//   session.Send(result_message);  // from any thread
//   ...
//   session.Stop();
//   session.AwaitFinished();
//   timer.Stop();  // before the session is destroyed: no callback may reach it afterwards

#ifndef ASSISTED_SERVICES_AGENT_PROTOCOL_SESSION_H_
#define ASSISTED_SERVICES_AGENT_PROTOCOL_SESSION_H_

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "lib/log/log.h"
#include "lib/random/random.h"
#include "lib/time/backoff.h"
#include "lib/time/clock.h"
#include "services/agent/scheduler.h"

namespace assisted::agent {

// Messages waiting for the orchestrator's acknowledgement, numbered from 1 per agent instance.
// Thread-safe.
class Outbox {
 public:
  // Numbers `message`, keeps it, and returns it with its seq set.
  v1::AgentMessage Add(v1::AgentMessage message);
  // Forgets everything up to and including `seq`.
  void Acknowledge(uint64_t seq);
  // What is still unacknowledged, oldest first.
  std::vector<v1::AgentMessage> Pending() const;
  bool empty() const;
  uint64_t acknowledged() const;
  // Forgets everything and numbers from 1 again (a new agent instance after a reboot).
  void Reset();
  // Waits until nothing is pending or `timeout` passes; returns whether nothing is pending.
  bool AwaitEmpty(absl::Duration timeout) const;

 private:
  mutable absl::Mutex mu_;
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 1;
  uint64_t acknowledged_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<v1::AgentMessage> pending_ ABSL_GUARDED_BY(mu_);
};

// The steps one agent instance has taken on: every id once, and the latest step of each type,
// which each registration reports (Register.steps_run) so that after a reconnect the service
// pushes only work that differs. Thread-safe.
class StepsRun {
 public:
  // Records `step`; false when its id was seen before (pushed again after a reconnect).
  bool Add(const types::v1::Step& step);
  // The latest step of each type, in type order.
  std::vector<types::v1::Step> Latest() const;
  // Forgets everything (a new boot of the discovery image).
  void Reset();

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_set<std::string> ids_ ABSL_GUARDED_BY(mu_);
  std::map<int, types::v1::Step> latest_ ABSL_GUARDED_BY(mu_);
};

// Who the agent is, as every Register says.
struct StreamIdentity {
  std::string host_id;
  std::string infra_env_id;
  std::string agent_version;
  std::string instance_id;  // random per agent instance
  std::string token;        // sent as metadata, never logged
  std::function<types::v1::Inventory()> inventory;
};

// The call metadata carrying a token: "authorization: Bearer <token>" (the convention of
// proto/assisted/agent/v1/agent_service.proto for the agent token, and of
// controller_service.proto for the controller token). Nothing is added for an empty token.
inline constexpr char kAuthorizationMetadata[] = "authorization";
void AddBearerToken(grpc::ClientContext& context, const std::string& token);

// A Progress message (installation stage) reported at `at`; percentage -1 when unknown.
v1::AgentMessage ProgressMessage(types::v1::HostStage stage, const std::string& info,
                                 int percentage, absl::Time at);

// The Register message that opens every stream of `identity` (inventory and the agent clock
// `agent_time` included), reporting the steps this instance has run.
v1::AgentMessage RegisterMessage(const StreamIdentity& identity, const StepsRun& steps_run,
                                 absl::Time agent_time = absl::Now());

struct ProtocolSessionOptions {
  BackoffPolicy backoff;
  // A stream whose Register is not answered within this long is cancelled and retried.
  absl::Duration registration_timeout = absl::Seconds(30);
  // A registration refused for good (REGISTRATION_ACTION_GIVE_UP) is retried with `backoff`
  // like a broken stream instead of finishing the session. The real agent sets it: a host
  // booted from discovery media has nothing else to do, and what was refused may be accepted
  // later (the agent-based installer's hosts boot before node 0 has created their infra-env,
  // which the orchestrator answers with "infra-env ... not found", GIVE_UP). A simulated fleet
  // leaves it off to see refusals end. The orchestrator's Stop EXIT ends the session either way.
  bool retry_refusals_for_good = false;
};

class ProtocolSession {
 public:
  using ChannelFactory = std::function<absl::StatusOr<std::shared_ptr<grpc::Channel>>()>;

  using Options = ProtocolSessionOptions;

  // What the session reports to the agent around it. Called on gRPC and scheduler threads (one
  // stream's messages in order, one at a time), never with a session lock held; must be quick
  // and must not block. May call Send(), Close(), Stop(); OnFinished may also call NewInstance()
  // and Start().
  class Listener {
   public:
    virtual ~Listener() = default;
    // An instruction arrived. `first_time` is false when its step id was already taken on by
    // this instance (pushed again after a reconnect): it must not run again.
    virtual void OnInstruction(const v1::Instruction& instruction, bool first_time) = 0;
    // The registration was accepted (kept messages above last_applied_seq already re-sent).
    virtual void OnRegistered(const v1::Registered& /*registered*/) {}
    // The registration was refused; the session retries unless the answer was GIVE_UP (and
    // Options::retry_refusals_for_good is off).
    virtual void OnRefused(const v1::Registered& /*registered*/) {}
    // The orchestrator applied everything up to `up_to_seq`.
    virtual void OnAcknowledged(uint64_t /*up_to_seq*/) {}
    // The orchestrator refused one message for good.
    virtual void OnRejected(const v1::Reject& /*reject*/) {}
    // A stream ended (`why` says how); `was_registered` whether it had been accepted.
    virtual void OnStreamEnded(const absl::Status& /*why*/, bool /*was_registered*/) {}
    // The session ended: OK after Close()/Stop(), otherwise why it gave up.
    virtual void OnFinished(const absl::Status& /*why*/) {}
  };

  // `listener`, `scheduler`, `clock` and `random` must outlive the session; `random` is used
  // under the session's lock only (a shared SystemRandom is fine).
  ProtocolSession(ChannelFactory channels, StreamIdentity identity, Listener& listener,
                  Scheduler& scheduler, const Clock& clock, Random& random, log::Logger log,
                  Options options = {});
  // The session must be finished (or never started) and `scheduler` must run none of its
  // callbacks any more (TimerThread::Stop()).
  ~ProtocolSession();

  ProtocolSession(const ProtocolSession&) = delete;
  ProtocolSession& operator=(const ProtocolSession&) = delete;

  // Starts connecting. No-op while running or after Stop(). Thread-safe.
  void Start();
  // Ends the current stream (or the wait for the next) without reconnecting; OnFinished(OK)
  // follows once no stream is alive. Start() may begin again. Returns false when the session
  // was not running (no OnFinished follows). Thread-safe.
  bool Close();
  // Close() for good: Start() does nothing afterwards. Thread-safe.
  void Stop();
  // Blocks until the session is not running (and OnFinished returned); returns why it ended
  // (OK after Close()/Stop() or before any Start()).
  absl::Status AwaitFinished() const;

  // Numbers `message` (a step result, progress or log chunk), keeps it until acknowledged and
  // sends it now if a stream is registered (else the next registration re-sends it). Returns
  // its seq. `on_numbered`, when given, sees the numbered message before it can be sent (so a
  // record of it is made before an Ack can cover it); it runs with the session's send lock
  // held and must not call the session. Thread-safe, never blocks on the network.
  uint64_t Send(v1::AgentMessage message,
                const std::function<void(const v1::AgentMessage&)>& on_numbered = nullptr);

  // While finished: a new agent instance (`instance_id`) after a reboot into discovery: seqs
  // start at 1 again and no step counts as taken on.
  void NewInstance(std::string instance_id);

  // The identity; its instance_id changes with NewInstance(): read that with instance_id().
  const StreamIdentity& identity() const { return identity_; }
  std::string instance_id() const;
  const Outbox& outbox() const { return outbox_; }
  const log::Logger& log() const { return log_; }
  // How many streams registered so far.
  int registrations() const;
  // Whether a stream is registered right now.
  bool registered() const;

  class Stream;

 private:
  // Scheduled: opens attempt `attempt`'s stream (unless Close()d or superseded).
  void Connect(uint64_t attempt);
  void OnMessage(Stream& stream, const v1::ServiceMessage& message);
  void OnRegistration(Stream& stream, const v1::Registered& registered);
  // `stream` is the stream's own last reference: it is released before the session moves on.
  void OnStreamDone(std::shared_ptr<Stream> stream, const grpc::Status& status);
  // Ends `stream` because of `why` (the first reason given for a stream is the one reported).
  void EndStream(Stream& stream, absl::Status why);
  // Scheduled: cancels stream `generation` if it is still not registered.
  void CheckRegistered(uint64_t generation);
  // After a stream ended or could not open (connect `attempt`, 0 for a stream that was
  // opened): retry later or finish.
  void AfterStream(absl::Status why, bool was_registered, uint64_t attempt);
  void Finish(absl::Status why);

  const ChannelFactory channels_;
  StreamIdentity identity_;  // instance_id changes only while finished, under mu_
  Listener& listener_;
  Scheduler& scheduler_;
  const Clock& clock_;
  const Options options_;
  log::Logger log_;
  Outbox outbox_;
  StepsRun steps_run_;

  // Numbering and sending in one order: a registration's re-sends go before anything new.
  // Lock order: send_mu_ before mu_; neither is held while calling into the Listener.
  absl::Mutex send_mu_;
  mutable absl::Mutex mu_;
  Backoff backoff_ ABSL_GUARDED_BY(mu_);
  bool running_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;  // Close(): no reconnect
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;  // Stop(): no Start()
  int finishing_ ABSL_GUARDED_BY(mu_) = 0;     // OnFinished calls under way
  absl::Status finished_why_ ABSL_GUARDED_BY(mu_);
  // Why the session gives up once the current stream is gone (refused for good, told to exit).
  absl::Status give_up_ ABSL_GUARDED_BY(mu_);
  uint64_t attempt_ ABSL_GUARDED_BY(mu_) = 0;     // connect attempts scheduled
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;  // streams opened
  std::shared_ptr<Stream> current_ ABSL_GUARDED_BY(mu_);
  bool registered_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status end_why_ ABSL_GUARDED_BY(mu_);  // why the current stream is being ended
  absl::Duration retry_after_ ABSL_GUARDED_BY(mu_);
  int registrations_ ABSL_GUARDED_BY(mu_) = 0;
  // Kept across attempts while the factory returns the same channel (a fleet agent's own
  // connection), so a reconnect allocates no new stub.
  std::shared_ptr<grpc::Channel> channel_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<v1::AgentService::Stub> stub_ ABSL_GUARDED_BY(mu_);
};

}  // namespace assisted::agent

#endif  // ASSISTED_SERVICES_AGENT_PROTOCOL_SESSION_H_
