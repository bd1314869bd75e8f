// StreamClient against an in-process AgentService on loopback that misbehaves on purpose.
#include "services/agent/stream_client.h"

#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "lib/log/log.h"
#include "lib/random/random.h"
#include "services/agent/steps/test_util.h"
#include "tests/harness/eventually.h"

namespace assisted::agent {
namespace {

// Reads each stream's registration, writes Answer()'s replies, then holds the stream open
// until the client leaves.
class HoldingService : public v1::AgentService::Service {
 public:
  grpc::Status Connect(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::ServiceMessage, v1::AgentMessage>* stream) final {
    v1::AgentMessage registration;
    if (!stream->Read(&registration)) return grpc::Status::OK;
    for (const v1::ServiceMessage& reply : Answer(registration)) stream->Write(reply);
    v1::AgentMessage ignored;
    while (!context->IsCancelled() && stream->Read(&ignored)) {
    }
    return grpc::Status::OK;
  }

 protected:
  virtual std::vector<v1::ServiceMessage> Answer(const v1::AgentMessage& registration) = 0;
};

// Answers the first stream's registration with an instruction before Registered (a protocol
// error), every later one properly.
class OutOfOrderService final : public HoldingService {
 public:
  int streams() const {
    absl::MutexLock lock(&mu_);
    return streams_;
  }

 private:
  std::vector<v1::ServiceMessage> Answer(const v1::AgentMessage& registration) override {
    std::vector<v1::ServiceMessage> replies;
    bool first = false;
    {
      absl::MutexLock lock(&mu_);
      first = ++streams_ == 1;
    }
    if (first) {
      replies.emplace_back().mutable_instruction()->mutable_step()->set_step_id("early-0001");
    }
    v1::Registered* registered = replies.emplace_back().mutable_registered();
    registered->set_accepted(true);
    registered->set_host_id(registration.register_().host_id());
    return replies;
  }

  mutable absl::Mutex mu_;
  int streams_ ABSL_GUARDED_BY(mu_) = 0;
};

// Refuses every registration for good ("infra-env ... not found", as the orchestrator answers
// before the infra-env exists) until Create(), then accepts.
class InfraEnvCreatedLaterService final : public HoldingService {
 public:
  void Create() {
    absl::MutexLock lock(&mu_);
    created_ = true;
  }
  int refused() const {
    absl::MutexLock lock(&mu_);
    return refused_;
  }

 private:
  std::vector<v1::ServiceMessage> Answer(const v1::AgentMessage& registration) override {
    bool exists = false;
    {
      absl::MutexLock lock(&mu_);
      exists = created_;
      if (!exists) ++refused_;
    }
    std::vector<v1::ServiceMessage> replies(1);
    v1::Registered* registered = replies[0].mutable_registered();
    registered->set_accepted(exists);
    if (exists) {
      registered->set_host_id(registration.register_().host_id());
    } else {
      registered->set_reason("infra-env not found");
      registered->set_next_action(v1::REGISTRATION_ACTION_GIVE_UP);
    }
    return replies;
  }

  mutable absl::Mutex mu_;
  bool created_ ABSL_GUARDED_BY(mu_) = false;
  int refused_ ABSL_GUARDED_BY(mu_) = 0;
};

class NoSteps final : public StepExecutor {
 public:
  void Run(const v1::Instruction&, std::function<void(types::v1::StepResult)>) override {}
};

// `service` on a loopback port, and that port's address.
struct Served {
  std::unique_ptr<grpc::Server> server;
  std::string target;
};

Served Serve(v1::AgentService::Service& service) {
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  return {std::move(server), absl::StrCat("127.0.0.1:", port)};
}

// A client of `target` that reconnects within 10 to 50 ms.
std::unique_ptr<StreamClient> FastClient(const std::string& target, StepExecutor& executor,
                                         Random& random) {
  return std::make_unique<StreamClient>(
      [target]() -> absl::StatusOr<std::shared_ptr<grpc::Channel>> {
        return grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
      },
      StreamIdentity{.host_id = "5d0c9a1e-3b7f-4e2a-9c41-8f6b2d0e7a13",
                     .infra_env_id = "6e7fec80-efb1-4fa9-b3d1-542ffd3b2505"},
      executor, random, log::Logger::Discard(),
      BackoffPolicy{.initial = absl::Milliseconds(10), .max = absl::Milliseconds(50)});
}

// A FastClient of `service`, served on loopback, with what it needs.
struct ClientOf {
  explicit ClientOf(v1::AgentService::Service& service)
      : served(Serve(service)), client(FastClient(served.target, executor, random)) {}

  Served served;
  NoSteps executor;
  SeededRandom random{7};
  std::unique_ptr<StreamClient> client;
};

TEST(StreamClientTest, AReplyOtherThanRegisteredFirstEndsTheStreamAndTheNextOneRegisters) {
  OutOfOrderService service;
  ClientOf running(service);
  ASSERT_NE(running.served.server, nullptr);
  std::unique_ptr<grpc::Server>& server = running.served.server;
  StreamClient& client = *running.client;
  std::thread runner([&client] { EXPECT_TRUE(client.Run().ok()); });

  // Before the fix the client waited in Finish() for the unread Registered, for ever.
  EXPECT_TRUE(testing::Eventually([&client] { return client.registrations() > 0; },
                                  absl::Seconds(20), "registered on the second stream"));
  EXPECT_EQ(client.registrations(), 1);
  EXPECT_EQ(service.streams(), 2);

  client.Stop();
  runner.join();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
}

TEST(StepsRunTest, EachIdRunsOnceAndTheLatestStepOfEachTypeIsReported) {
  using steps::testing::MakeStep;
  const types::v1::Step ntp = MakeStep(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, {"a"}, 1);
  const types::v1::Step inventory = MakeStep(types::v1::STEP_TYPE_INVENTORY, {}, 1);
  const types::v1::Step newer_ntp = MakeStep(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, {"b"}, 2);
  StepsRun run;
  EXPECT_TRUE(run.Add(ntp));
  EXPECT_TRUE(run.Add(inventory));
  EXPECT_FALSE(run.Add(ntp));
  EXPECT_TRUE(run.Add(newer_ntp));

  const std::vector<types::v1::Step> latest = run.Latest();
  ASSERT_EQ(latest.size(), 2u);
  EXPECT_EQ(latest[0].step_id(), inventory.step_id());
  EXPECT_EQ(latest[1].step_id(), newer_ntp.step_id());
  const v1::AgentMessage registration = RegisterMessage({.host_id = "h"}, run);
  EXPECT_EQ(registration.register_().steps_run_size(), 2);

  run.Reset();  // a new boot runs everything again
  EXPECT_TRUE(run.Latest().empty());
  EXPECT_TRUE(run.Add(ntp));
}

// Before the fix Run() returned after the first refusal ("registration refused for good") and
// the agent process sat idle for ever: its unit's Restart=always never fired.
TEST(StreamClientTest, ARegistrationRefusedForGoodIsRetriedUntilTheInfraEnvExists) {
  InfraEnvCreatedLaterService service;
  ClientOf running(service);
  ASSERT_NE(running.served.server, nullptr);
  std::unique_ptr<grpc::Server>& server = running.served.server;
  StreamClient& client = *running.client;
  absl::Mutex mu;
  std::optional<absl::Status> ran;  // guarded by mu
  std::thread runner([&] {
    absl::Status why = client.Run();
    absl::MutexLock lock(&mu);
    ran = why;
  });

  EXPECT_TRUE(testing::Eventually(
      [&] {
        absl::MutexLock lock(&mu);
        return testing::Observed{service.refused() >= 3 || ran.has_value(),
                                 ran.has_value() ? ran->ToString() : ""};
      },
      absl::Seconds(20), "three refusals in a row"));
  {
    absl::MutexLock lock(&mu);
    EXPECT_FALSE(ran.has_value()) << "Run() gave up: " << ran.value_or(absl::OkStatus());
  }
  service.Create();
  EXPECT_TRUE(testing::Eventually([&] { return client.registrations() == 1; }, absl::Seconds(20),
                                  "registered once the infra-env exists"));

  client.Stop();
  runner.join();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
}

}  // namespace
}  // namespace assisted::agent
