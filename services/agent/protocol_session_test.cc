// ProtocolSession against a scripted AgentService on loopback (real gRPC), with time, backoff and
// waits driven by hand: each test's server side is a function run on the stream's server thread.
#include "services/agent/protocol_session.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "lib/random/random.h"
#include "lib/time/clock.h"

namespace assisted::agent {
namespace {

using ::testing::HasSubstr;

constexpr absl::Duration kWait = absl::Seconds(20);  // for what the network does
constexpr absl::Duration kRegistrationTimeout = absl::Hours(1);
constexpr absl::Duration kFirstBackoff = absl::Seconds(2);

using ServerStream = grpc::ServerReaderWriter<v1::ServiceMessage, v1::AgentMessage>;
// One stream's server side: `registration` is the first message the agent sent.
using Script = std::function<grpc::Status(grpc::ServerContext&, ServerStream&,
                                          const v1::AgentMessage& registration)>;

// Runs the scripts in order, one per stream (the last one again when they run out), and keeps
// each stream's first message and authorization metadata.
class ScriptedService final : public v1::AgentService::Service {
 public:
  explicit ScriptedService(std::vector<Script> scripts) : scripts_(std::move(scripts)) {}

  grpc::Status Connect(grpc::ServerContext* context, ServerStream* stream) override {
    v1::AgentMessage registration;
    if (!stream->Read(&registration)) return grpc::Status::OK;
    Script script;
    {
      absl::MutexLock lock(&mu_);
      registrations_.push_back(registration);
      auto token = context->client_metadata().find(kAuthorizationMetadata);
      authorizations_.push_back(token == context->client_metadata().end()
                                    ? ""
                                    : std::string(token->second.data(), token->second.size()));
      script = scripts_[std::min(registrations_.size(), scripts_.size()) - 1];
    }
    return script(*context, *stream, registration);
  }

  std::vector<v1::AgentMessage> registrations() const {
    absl::MutexLock lock(&mu_);
    return registrations_;
  }
  // Waits until `count` registrations arrived (so their streams' channel is connected).
  bool AwaitRegistrations(size_t count) const {
    absl::MutexLock lock(&mu_);
    auto arrived = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return registrations_.size() >= count;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&arrived), kWait);
  }
  std::vector<std::string> authorizations() const {
    absl::MutexLock lock(&mu_);
    return authorizations_;
  }

 private:
  const std::vector<Script> scripts_;
  mutable absl::Mutex mu_;
  std::vector<v1::AgentMessage> registrations_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> authorizations_ ABSL_GUARDED_BY(mu_);
};

v1::ServiceMessage Accepted(uint64_t last_applied_seq = 0) {
  v1::ServiceMessage message;
  message.mutable_registered()->set_accepted(true);
  message.mutable_registered()->set_last_applied_seq(last_applied_seq);
  return message;
}

v1::ServiceMessage InstructionMessage(const std::string& step_id) {
  v1::ServiceMessage message;
  types::v1::Step& step = *message.mutable_instruction()->mutable_step();
  step.set_step_id(step_id);
  step.set_step_type(types::v1::STEP_TYPE_NTP_SYNCHRONIZER);
  return message;
}

v1::ServiceMessage AckMessage(uint64_t up_to) {
  v1::ServiceMessage message;
  message.mutable_ack()->set_up_to_seq(up_to);
  return message;
}

v1::AgentMessage ProgressAt(types::v1::HostStage stage) {
  return ProgressMessage(stage, "", -1, absl::FromUnixSeconds(1'700'000'000));
}

// Holds the stream open until the agent leaves.
grpc::Status UntilTheAgentLeaves(grpc::ServerContext& context, ServerStream& stream) {
  v1::AgentMessage ignored;
  while (!context.IsCancelled() && stream.Read(&ignored)) {
  }
  return grpc::Status::OK;
}

// Accepts the registration and keeps the stream open.
grpc::Status AcceptAndHold(grpc::ServerContext& context, ServerStream& stream,
                           const v1::AgentMessage&) {
  stream.Write(Accepted());
  return UntilTheAgentLeaves(context, stream);
}

// Delayed callbacks the test runs by hand.
class ManualScheduler final : public Scheduler {
 public:
  void After(absl::Duration delay, std::function<void()> callback) override {
    absl::MutexLock lock(&mu_);
    due_.push_back({delay, std::move(callback)});
  }

  // Waits for a callback scheduled `delay` ahead, takes it and runs it; false if none came.
  bool RunOneAfter(absl::Duration delay) {
    std::function<void()> callback;
    {
      absl::MutexLock lock(&mu_);
      auto scheduled = [this, delay]()
                           ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return Find(delay) != due_.end(); };
      if (!mu_.AwaitWithTimeout(absl::Condition(&scheduled), kWait)) return false;
      auto it = Find(delay);
      callback = std::move(it->second);
      due_.erase(it);
    }
    callback();
    return true;
  }

  // The delays of what is scheduled now.
  std::vector<absl::Duration> Delays() const {
    absl::MutexLock lock(&mu_);
    std::vector<absl::Duration> delays;
    for (const auto& [delay, callback] : due_) delays.push_back(delay);
    return delays;
  }

 private:
  std::vector<std::pair<absl::Duration, std::function<void()>>>::iterator Find(absl::Duration delay)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return std::find_if(due_.begin(), due_.end(),
                        [delay](const auto& entry) { return entry.first == delay; });
  }

  mutable absl::Mutex mu_;
  std::vector<std::pair<absl::Duration, std::function<void()>>> due_ ABSL_GUARDED_BY(mu_);
};

// What the session reported, in order, with waits on it.
class RecordingListener final : public ProtocolSession::Listener {
 public:
  struct Ended {
    absl::Status why;
    bool was_registered;
  };

  void OnInstruction(const v1::Instruction& instruction, bool first_time) override {
    absl::MutexLock lock(&mu_);
    instructions_.push_back({instruction.step().step_id(), first_time});
  }
  void OnRegistered(const v1::Registered& /*registered*/) override {
    absl::MutexLock lock(&mu_);
    ++registered_;
  }
  void OnAcknowledged(uint64_t up_to_seq) override {
    absl::MutexLock lock(&mu_);
    acknowledged_ = up_to_seq;
  }
  void OnStreamEnded(const absl::Status& why, bool was_registered) override {
    absl::MutexLock lock(&mu_);
    ended_.push_back({why, was_registered});
  }
  void OnFinished(const absl::Status& why) override {
    const long held = on_finished ? on_finished() : -1;
    absl::MutexLock lock(&mu_);
    finished_.push_back(why);
    held_at_finish_ = held;
  }

  bool AwaitRegistered(int count) {
    return Await([&] { return registered_ >= count; });
  }
  bool AwaitAcknowledged(uint64_t seq) {
    return Await([&] { return acknowledged_ >= seq; });
  }
  bool AwaitInstructions(size_t count) {
    return Await([&] { return instructions_.size() >= count; });
  }
  // The `index`th stream end, once it came.
  std::optional<Ended> AwaitEnded(size_t index) {
    if (!Await([&] { return ended_.size() > index; })) return std::nullopt;
    absl::MutexLock lock(&mu_);
    return ended_[index];
  }
  std::optional<absl::Status> AwaitFinished() {
    if (!Await([&] { return !finished_.empty(); })) return std::nullopt;
    absl::MutexLock lock(&mu_);
    return finished_.front();
  }
  std::vector<std::pair<std::string, bool>> instructions() const {
    absl::MutexLock lock(&mu_);
    return instructions_;
  }
  // What `on_finished` returned when the session finished last.
  long held_at_finish() const {
    absl::MutexLock lock(&mu_);
    return held_at_finish_;
  }
  // Called as the session finishes (set before the session can finish, read on its thread).
  std::function<long()> on_finished;

  size_t finished_count() const {
    absl::MutexLock lock(&mu_);
    return finished_.size();
  }

 private:
  bool Await(std::function<bool()> done) {
    absl::MutexLock lock(&mu_);
    auto condition = [&done]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return done(); };
    return mu_.AwaitWithTimeout(absl::Condition(&condition), kWait);
  }

  mutable absl::Mutex mu_;
  std::vector<std::pair<std::string, bool>> instructions_ ABSL_GUARDED_BY(mu_);
  int registered_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t acknowledged_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<Ended> ended_ ABSL_GUARDED_BY(mu_);
  std::vector<absl::Status> finished_ ABSL_GUARDED_BY(mu_);
  long held_at_finish_ ABSL_GUARDED_BY(mu_) = -1;
};

// A server running `scripts`, and a session towards it with a manual scheduler and fake clock.
class ProtocolSessionTest : public ::testing::Test {
 protected:
  // On `port` (0: one the kernel picks).
  void Serve(std::vector<Script> scripts, int port = 0) {
    service_ = std::make_unique<ScriptedService>(std::move(scripts));
    grpc::ServerBuilder builder;
    builder.AddListeningPort(absl::StrCat("127.0.0.1:", port), grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    target_ = absl::StrCat("127.0.0.1:", port);
  }

  ProtocolSession& Session(ProtocolSession::ChannelFactory channels = nullptr) {
    if (!channels) {
      channels = [target = target_]() -> absl::StatusOr<std::shared_ptr<grpc::Channel>> {
        return grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
      };
    }
    StreamIdentity identity{.host_id = "5d0c9a1e-3b7f-4e2a-9c41-8f6b2d0e7a13",
                            .infra_env_id = "6e7fec80-efb1-4fa9-b3d1-542ffd3b2505",
                            .agent_version = "test",
                            .instance_id = "instance-1",
                            .token = "agent-token",
                            .inventory = [] {
                              types::v1::Inventory inventory;
                              inventory.set_hostname("worker-0");
                              return inventory;
                            }};
    session_ = std::make_unique<ProtocolSession>(std::move(channels), std::move(identity),
                                                 listener_, scheduler_, clock_, random_,
                                                 log::Logger::Discard(), options_);
    return *session_;
  }

  // The first stream's end, expected to carry `code` and `text`.
  RecordingListener::Ended ExpectFirstStreamEnded(absl::StatusCode code, const std::string& text) {
    std::optional<RecordingListener::Ended> ended = listener_.AwaitEnded(0);
    EXPECT_TRUE(ended.has_value()) << "no stream ended";
    if (!ended.has_value()) return {absl::UnknownError("no stream ended"), false};
    EXPECT_EQ(ended->why.code(), code) << ended->why;
    EXPECT_THAT(ended->why.message(), HasSubstr(text));
    return *ended;
  }

  void TearDown() override {
    if (session_ != nullptr) {
      session_->Stop();
      session_->AwaitFinished().IgnoreError();  // each test checks the ending it expects
    }
    if (server_ != nullptr) {
      server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
    }
  }

  // What Session() creates the session with; a test may change it first.
  ProtocolSession::Options options_{
      .backoff = {.initial = kFirstBackoff, .multiplier = 2, .jitter = 0},
      .registration_timeout = kRegistrationTimeout};
  FakeClock clock_;
  SeededRandom random_{7};
  ManualScheduler scheduler_;
  RecordingListener listener_;
  std::unique_ptr<ScriptedService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string target_;
  std::unique_ptr<ProtocolSession> session_;
};

TEST_F(ProtocolSessionTest, RegistersWithItsIdentityAndHardwareAndTakesEachPushedStepOnce) {
  Serve({[](grpc::ServerContext& context, ServerStream& stream, const v1::AgentMessage&) {
    stream.Write(Accepted());
    stream.Write(InstructionMessage("ntp-1"));
    stream.Write(InstructionMessage("ntp-1"));  // pushed again: already taken on
    return UntilTheAgentLeaves(context, stream);
  }});
  Session().Start();
  ASSERT_TRUE(listener_.AwaitInstructions(2));

  EXPECT_THAT(listener_.instructions(),
              ::testing::ElementsAre(std::pair<std::string, bool>("ntp-1", true),
                                     std::pair<std::string, bool>("ntp-1", false)));
  const v1::Register registration = service_->registrations().at(0).register_();
  EXPECT_EQ(registration.host_id(), "5d0c9a1e-3b7f-4e2a-9c41-8f6b2d0e7a13");
  EXPECT_EQ(registration.agent_instance_id(), "instance-1");
  EXPECT_EQ(registration.inventory().hostname(), "worker-0");
  EXPECT_EQ(registration.agent_time().seconds(), absl::ToUnixSeconds(clock_.Now()));
  EXPECT_EQ(service_->authorizations().at(0), "Bearer agent-token");
  EXPECT_EQ(session_->registrations(), 1);
}

TEST_F(ProtocolSessionTest, ReRegistersAfterABrokenStreamAndResendsOnlyWhatWasNotApplied) {
  // Outlives the test body: the server thread may still hold the stream.
  struct Seen {
    absl::Mutex mu;
    std::vector<uint64_t> seqs ABSL_GUARDED_BY(mu);
  };
  auto seen = std::make_shared<Seen>();
  Serve({// Takes three messages, acknowledges none, breaks.
         [](grpc::ServerContext&, ServerStream& stream, const v1::AgentMessage&) {
           stream.Write(Accepted());
           v1::AgentMessage message;
           for (int i = 0; i < 3 && stream.Read(&message); ++i) {
           }
           return grpc::Status(grpc::StatusCode::UNAVAILABLE, "orchestrator killed");
         },
         // Had applied 1 and 2 before it died: only 3 comes again, then what is new.
         [seen](grpc::ServerContext& context, ServerStream& stream, const v1::AgentMessage&) {
           stream.Write(Accepted(/*last_applied_seq=*/2));
           v1::AgentMessage message;
           while (stream.Read(&message)) {
             absl::MutexLock lock(&seen->mu);
             seen->seqs.push_back(message.seq());
             stream.Write(AckMessage(message.seq()));
           }
           return UntilTheAgentLeaves(context, stream);
         }});
  ProtocolSession& session = Session();
  session.Start();
  ASSERT_TRUE(listener_.AwaitRegistered(1));
  EXPECT_EQ(session.Send(ProgressAt(types::v1::HOST_STAGE_STARTING_INSTALLATION)), 1u);
  EXPECT_EQ(session.Send(ProgressAt(types::v1::HOST_STAGE_INSTALLING)), 2u);
  EXPECT_EQ(session.Send(ProgressAt(types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK)), 3u);

  const RecordingListener::Ended ended =
      ExpectFirstStreamEnded(absl::StatusCode::kUnavailable, "orchestrator killed");
  EXPECT_TRUE(ended.was_registered);
  EXPECT_FALSE(session.registered());
  // Sent while no stream is registered: kept for the next one.
  EXPECT_EQ(session.Send(ProgressAt(types::v1::HOST_STAGE_REBOOTING)), 4u);

  ASSERT_TRUE(scheduler_.RunOneAfter(kFirstBackoff));  // the reconnect, after the backoff
  ASSERT_TRUE(listener_.AwaitAcknowledged(4));
  {
    absl::MutexLock lock(&seen->mu);
    EXPECT_EQ(seen->seqs, (std::vector<uint64_t>{3, 4}));
  }
  EXPECT_TRUE(session.outbox().empty());
  EXPECT_EQ(service_->registrations().at(1).register_().agent_instance_id(), "instance-1");
}

TEST_F(ProtocolSessionTest, AnAnswerOtherThanRegisteredFirstEndsTheStreamAsAProtocolError) {
  Serve({[](grpc::ServerContext& context, ServerStream& stream, const v1::AgentMessage&) {
           stream.Write(InstructionMessage("early-1"));
           stream.Write(Accepted());
           return UntilTheAgentLeaves(context, stream);
         },
         AcceptAndHold});
  Session().Start();
  const RecordingListener::Ended ended =
      ExpectFirstStreamEnded(absl::StatusCode::kFailedPrecondition, "instead of Registered");
  EXPECT_FALSE(ended.was_registered);

  ASSERT_TRUE(scheduler_.RunOneAfter(kFirstBackoff));
  ASSERT_TRUE(listener_.AwaitRegistered(1));
  EXPECT_TRUE(listener_.instructions().empty());  // the early instruction was not taken on
}

// An orchestrator that is down when the agent connects (restarting, or not up yet) is found as
// soon as it listens: the stream waits for the channel instead of failing and backing off (this
// test runs no backoff; before, the first attempt failed at once and waited for one).
TEST_F(ProtocolSessionTest, AnOrchestratorThatComesUpLaterIsFoundWithoutBackingOff) {
  Serve({AcceptAndHold});
  const int port = std::stoi(target_.substr(target_.rfind(':') + 1));
  server_->Shutdown(std::chrono::system_clock::now());
  server_.reset();
  Session().Start();
  Serve({AcceptAndHold}, port);
  ASSERT_TRUE(listener_.AwaitRegistered(1));
  EXPECT_EQ(session_->registrations(), 1);
}

// Nothing listens for the whole registration timeout: the stream ends saying so.
TEST_F(ProtocolSessionTest, AnOrchestratorThatCannotBeReachedEndsTheStreamAsUnavailable) {
  Serve({AcceptAndHold});
  server_->Shutdown(std::chrono::system_clock::now());
  server_.reset();
  Session().Start();
  ASSERT_TRUE(scheduler_.RunOneAfter(kRegistrationTimeout));
  ExpectFirstStreamEnded(absl::StatusCode::kUnavailable, "cannot reach the orchestrator");
}

TEST_F(ProtocolSessionTest, NoRegisteredInTimeEndsTheStreamAndRetriesWithGrowingBackoff) {
  Serve({[](grpc::ServerContext& context, ServerStream& stream, const v1::AgentMessage&) {
    return UntilTheAgentLeaves(context, stream);  // never answers
  }});
  Session().Start();
  // The orchestrator was reached (the timeout tells "no answer" from "unreachable").
  ASSERT_TRUE(service_->AwaitRegistrations(1));
  ASSERT_TRUE(scheduler_.RunOneAfter(kRegistrationTimeout));
  ExpectFirstStreamEnded(absl::StatusCode::kDeadlineExceeded, "did not answer Register within 1h");

  ASSERT_TRUE(scheduler_.RunOneAfter(kFirstBackoff));
  ASSERT_TRUE(service_->AwaitRegistrations(2));
  ASSERT_TRUE(scheduler_.RunOneAfter(kRegistrationTimeout));
  ASSERT_TRUE(listener_.AwaitEnded(1).has_value());
  // The second failure in a row waits twice as long (multiplier 2, no jitter).
  EXPECT_TRUE(scheduler_.RunOneAfter(2 * kFirstBackoff));
}

TEST_F(ProtocolSessionTest, ARegistrationRefusedForGoodFinishesTheSessionWithItsReason) {
  Serve({[](grpc::ServerContext& context, ServerStream& stream, const v1::AgentMessage&) {
    v1::ServiceMessage refused;
    refused.mutable_registered()->set_accepted(false);
    refused.mutable_registered()->set_reason("unknown infra-env");
    refused.mutable_registered()->set_next_action(v1::REGISTRATION_ACTION_GIVE_UP);
    stream.Write(refused);
    return UntilTheAgentLeaves(context, stream);
  }});
  ProtocolSession& session = Session();
  session.Start();
  std::optional<absl::Status> finished = listener_.AwaitFinished();
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(finished->code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(finished->message(), HasSubstr("unknown infra-env"));
  EXPECT_EQ(session.AwaitFinished(), *finished);
  // Only the (now stale) registration deadline is scheduled: no reconnect.
  EXPECT_EQ(scheduler_.Delays(), std::vector<absl::Duration>{kRegistrationTimeout});
}

// The real agent's setting: hosts of the agent-based installer boot before node 0 has created
// their infra-env, and the orchestrator refuses them for good until it exists.
TEST_F(ProtocolSessionTest, ARefusalForGoodIsRetriedWithBackoffWhenTheSessionNeverGivesUp) {
  const auto refuse = [](grpc::ServerContext& context, ServerStream& stream,
                         const v1::AgentMessage&) {
    v1::ServiceMessage refused;
    refused.mutable_registered()->set_accepted(false);
    refused.mutable_registered()->set_reason("infra-env not found");
    refused.mutable_registered()->set_next_action(v1::REGISTRATION_ACTION_GIVE_UP);
    stream.Write(refused);
    return UntilTheAgentLeaves(context, stream);
  };
  Serve({refuse, refuse, AcceptAndHold});
  options_.retry_refusals_for_good = true;
  Session().Start();
  ExpectFirstStreamEnded(absl::StatusCode::kPermissionDenied, "infra-env not found");
  ASSERT_TRUE(scheduler_.RunOneAfter(kFirstBackoff));
  ASSERT_TRUE(listener_.AwaitEnded(1).has_value());
  // The second refusal in a row waits twice as long (multiplier 2, no jitter), then registers.
  ASSERT_TRUE(scheduler_.RunOneAfter(2 * kFirstBackoff));
  EXPECT_TRUE(listener_.AwaitRegistered(1));
  EXPECT_EQ(listener_.finished_count(), 0u);
}

TEST_F(ProtocolSessionTest, ARefusalForNowRetriesAfterTheOrchestratorsRetryAfter) {
  Serve({[](grpc::ServerContext& context, ServerStream& stream, const v1::AgentMessage&) {
           v1::ServiceMessage refused;
           refused.mutable_registered()->set_accepted(false);
           refused.mutable_registered()->set_reason("cluster not accepting hosts");
           refused.mutable_registered()->set_next_action(v1::REGISTRATION_ACTION_RETRY);
           refused.mutable_registered()->mutable_retry_after()->set_seconds(42);
           stream.Write(refused);
           return UntilTheAgentLeaves(context, stream);
         },
         AcceptAndHold});
  Session().Start();
  const RecordingListener::Ended ended =
      ExpectFirstStreamEnded(absl::StatusCode::kUnavailable, "cluster not accepting hosts");
  ASSERT_TRUE(scheduler_.RunOneAfter(absl::Seconds(42)));
  EXPECT_TRUE(listener_.AwaitRegistered(1));
}

TEST_F(ProtocolSessionTest, TheOrchestratorsStopExitEndsTheSession) {
  Serve({[](grpc::ServerContext& context, ServerStream& stream, const v1::AgentMessage&) {
    stream.Write(Accepted());
    v1::ServiceMessage stop;
    stop.mutable_stop()->set_action(v1::STOP_ACTION_EXIT);
    stop.mutable_stop()->set_reason("host installed");
    stream.Write(stop);
    return UntilTheAgentLeaves(context, stream);
  }});
  Session().Start();
  std::optional<absl::Status> finished = listener_.AwaitFinished();
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(finished->code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(finished->message(), HasSubstr("host installed"));
}

TEST_F(ProtocolSessionTest, AChannelThatCannotOpenIsRetriedAndStopEndsTheWaitAtOnce) {
  absl::Mutex mu;
  int attempts = 0;  // guarded by mu
  ProtocolSession& session = Session([&]() -> absl::StatusOr<std::shared_ptr<grpc::Channel>> {
    absl::MutexLock lock(&mu);
    ++attempts;
    return absl::InvalidArgumentError("cannot read CA bundle /nowhere.pem");
  });
  session.Start();
  const RecordingListener::Ended ended = ExpectFirstStreamEnded(
      absl::StatusCode::kUnavailable, "cannot open a channel to the orchestrator");
  EXPECT_THAT(ended.why.message(), HasSubstr("/nowhere.pem"));

  session.Stop();  // while waiting out the backoff
  EXPECT_TRUE(session.AwaitFinished().ok());
  EXPECT_EQ(listener_.finished_count(), 1u);
  ASSERT_TRUE(scheduler_.RunOneAfter(kFirstBackoff));  // the stale reconnect does nothing
  absl::MutexLock lock(&mu);
  EXPECT_EQ(attempts, 1);
}

TEST_F(ProtocolSessionTest, ANewInstanceAfterARebootNumbersFromOneAndForgetsItsSteps) {
  Serve({[](grpc::ServerContext& context, ServerStream& stream, const v1::AgentMessage&) {
    stream.Write(Accepted());
    stream.Write(InstructionMessage("install-1"));
    return UntilTheAgentLeaves(context, stream);
  }});
  ProtocolSession& session = Session();
  session.Start();
  ASSERT_TRUE(listener_.AwaitInstructions(1));
  EXPECT_EQ(session.Send(ProgressAt(types::v1::HOST_STAGE_REBOOTING)), 1u);
  EXPECT_TRUE(session.Close());
  EXPECT_TRUE(session.AwaitFinished().ok());

  session.NewInstance("instance-2");
  session.Start();
  ASSERT_TRUE(listener_.AwaitInstructions(2));
  EXPECT_EQ(listener_.instructions().back(), (std::pair<std::string, bool>("install-1", true)));
  const v1::Register second = service_->registrations().at(1).register_();
  EXPECT_EQ(second.agent_instance_id(), "instance-2");
  EXPECT_EQ(second.steps_run_size(), 0);
  EXPECT_EQ(session.Send(ProgressAt(types::v1::HOST_STAGE_STARTING_INSTALLATION)), 1u);
}

// gRPC (1.51) must never see a channel's last reference dropped on its own callback thread: the
// channel's teardown then joins that thread from itself, fails, frees the callback queue under
// it, and the process aborts later ("grpc_cq_internal_unref ... assertion failed: prior > 0",
// seen in fleet_test and here at the start of the test after one that ended a stream). So a
// stream lets go of its channel before the session reports finished: once AwaitFinished()
// returns, the owner may destroy the session (its channel) on its own thread.
TEST_F(ProtocolSessionTest, AFinishedSessionsStreamNoLongerHoldsTheChannel) {
  // The orchestrator ends the session (Stop EXIT), so no thread of the test holds the stream.
  Serve({[](grpc::ServerContext& context, ServerStream& stream, const v1::AgentMessage&) {
    stream.Write(Accepted());
    v1::ServiceMessage stop;
    stop.mutable_stop()->set_action(v1::STOP_ACTION_EXIT);
    stream.Write(stop);
    return UntilTheAgentLeaves(context, stream);
  }});
  struct Holders {
    absl::Mutex mu;
    std::weak_ptr<grpc::Channel> channel ABSL_GUARDED_BY(mu);
  };
  auto holders = std::make_shared<Holders>();
  auto holders_now = [&holders] {
    absl::MutexLock lock(&holders->mu);
    return holders->channel.use_count();
  };
  listener_.on_finished = [&] { return holders_now(); };
  ProtocolSession& session =
      Session([holders, target = target_]() -> absl::StatusOr<std::shared_ptr<grpc::Channel>> {
        std::shared_ptr<grpc::Channel> channel =
            grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
        absl::MutexLock lock(&holders->mu);
        holders->channel = channel;
        return channel;
      });
  session.Start();
  EXPECT_EQ(session.AwaitFinished().code(), absl::StatusCode::kCancelled);
  // The session's own two (channel_ and its stub), no stream's: a live call's count varies with
  // what gRPC holds for it, so it is no baseline.
  EXPECT_EQ(listener_.held_at_finish(), 2);
}

}  // namespace
}  // namespace assisted::agent
