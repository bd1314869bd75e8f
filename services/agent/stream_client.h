// File: services/agent/stream_client.h
//
// The agent's side of its one stream to the orchestrator. It connects (always from the host
// side), registers, runs the instructions it is pushed, and sends each result with a sequence
// number. Results are kept in an Outbox until the orchestrator acknowledges them and are sent
// again after a reconnect, so a result is delivered at least once; the orchestrator applies each
// sequence number once. Lost connections are retried with exponential backoff and jitter.

#ifndef ASSISTED_SERVICES_AGENT_STREAM_CLIENT_H_
#define ASSISTED_SERVICES_AGENT_STREAM_CLIENT_H_

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "lib/log/log.h"
#include "lib/random/random.h"
#include "lib/time/backoff.h"

namespace assisted::agent {

// Messages waiting for the orchestrator's acknowledgement, numbered from 1 per agent process.
// Thread-safe.
class Outbox {
 public:
  // Numbers `message`, keeps it, and returns it with its seq set.
  v1::AgentMessage Add(v1::AgentMessage message);
  // Forgets everything up to and including `seq`.
  void Acknowledge(uint64_t seq);
  // What is still unacknowledged, oldest first.
  std::vector<v1::AgentMessage> Pending() const;
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

// The steps one agent process has taken on: every id once, and the latest step of each type,
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

// Runs one pushed step and reports its result through `done`, from any thread.
class StepExecutor {
 public:
  virtual ~StepExecutor() = default;
  virtual void Run(const types::v1::Step& step,
                   std::function<void(types::v1::StepResult)> done) = 0;
};

struct StreamIdentity {
  std::string host_id;
  std::string infra_env_id;
  std::string agent_version;
  std::string instance_id;  // random per agent process
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

// The Register message that opens every stream of `identity` (inventory and agent clock
// included), reporting the steps this process has run.
v1::AgentMessage RegisterMessage(const StreamIdentity& identity, const StepsRun& steps_run);

class StreamClient {
 public:
  using ChannelFactory = std::function<absl::StatusOr<std::shared_ptr<grpc::Channel>>()>;

  StreamClient(ChannelFactory channels, StreamIdentity identity, StepExecutor& executor,
               Random& random, log::Logger log, BackoffPolicy backoff = {});

  // Connects and serves until Stop(). Returns early only when the orchestrator says to give up.
  void Run();

  // Ends Run(): cancels the stream and interrupts any backoff wait. Thread-safe.
  void Stop();

  // Sends a log chunk of a running step (kept until acknowledged, like results). Thread-safe.
  void SendLogChunk(v1::LogChunk chunk);
  // Sends installation progress (kept until acknowledged, like results). Thread-safe.
  void SendProgress(v1::AgentMessage progress);

  // How many streams registered successfully so far (for tests and simulation).
  int registrations() const;
  const Outbox& outbox() const { return outbox_; }

 private:
  // One connection's life; returns whether to give up for good.
  bool Session(v1::AgentService::Stub& stub);
  bool Write(const v1::AgentMessage& message);
  void OnResult(types::v1::StepResult result);

  ChannelFactory channels_;
  const StreamIdentity identity_;
  StepExecutor& executor_;
  log::Logger log_;
  Backoff backoff_;
  Outbox outbox_;
  absl::Notification stop_;

  mutable absl::Mutex mu_;
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;
  // Writes are serialised under their own lock, so a write stuck on flow control never keeps
  // Stop() from cancelling the stream.
  absl::Mutex write_mu_;
  grpc::ClientReaderWriter<v1::AgentMessage, v1::ServiceMessage>* stream_
      ABSL_GUARDED_BY(write_mu_) = nullptr;
  StepsRun steps_run_;
  int registrations_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace assisted::agent

#endif  // ASSISTED_SERVICES_AGENT_STREAM_CLIENT_H_
