// File: services/agent/stream_client.h
//
// The real agent's stream: a ProtocolSession (services/agent/protocol_session.h, the protocol
// itself, shared with the simulated fleet) whose instructions run on a StepExecutor, with its
// own timer thread, driven by a blocking Run() on the agent's connection thread.

#ifndef ASSISTED_SERVICES_AGENT_STREAM_CLIENT_H_
#define ASSISTED_SERVICES_AGENT_STREAM_CLIENT_H_

#include <functional>

#include "lib/log/log.h"
#include "lib/random/random.h"
#include "lib/time/backoff.h"
#include "lib/time/clock.h"
#include "services/agent/protocol_session.h"
#include "services/agent/scheduler.h"

namespace assisted::agent {

// Runs the step of one pushed instruction (which may also carry the controller token an install
// step hands to the installed OS) and reports its result through `done`, from any thread.
class StepExecutor {
 public:
  virtual ~StepExecutor() = default;
  virtual void Run(const v1::Instruction& instruction,
                   std::function<void(types::v1::StepResult)> done) = 0;
};

class StreamClient final : private ProtocolSession::Listener {
 public:
  using ChannelFactory = ProtocolSession::ChannelFactory;

  StreamClient(ChannelFactory channels, StreamIdentity identity, StepExecutor& executor,
               Random& random, log::Logger log, BackoffPolicy backoff = {});
  // Stop()s, and waits for the session to end.
  ~StreamClient() override;

  // Connects and serves until Stop(). Returns early only when the orchestrator tells the agent
  // to exit (Stop EXIT); returns why the session ended. A registration refused for good is
  // retried with `backoff` like a broken stream (ProtocolSessionOptions::
  // retry_refusals_for_good): a host booted from discovery media has nothing else to do, and
  // the agent-based installer's hosts boot before node 0 has created their infra-env.
  absl::Status Run();

  // Ends Run(): cancels the stream and interrupts any backoff wait. Thread-safe.
  void Stop();

  // Sends a log chunk of a running step (kept until acknowledged, like results). Thread-safe.
  void SendLogChunk(v1::LogChunk chunk);
  // Sends installation progress (kept until acknowledged, like results). Thread-safe.
  void SendProgress(v1::AgentMessage progress);

  // How many streams registered successfully so far (for tests and simulation).
  int registrations() const { return session_.registrations(); }
  const Outbox& outbox() const { return session_.outbox(); }

 private:
  void OnInstruction(const v1::Instruction& instruction, bool first_time) override;

  StepExecutor& executor_;
  RealClock clock_;
  TimerThread timer_;
  ProtocolSession session_;  // last: its callbacks use everything above
};

}  // namespace assisted::agent

#endif  // ASSISTED_SERVICES_AGENT_STREAM_CLIENT_H_
