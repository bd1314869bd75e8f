// StreamClient against an in-process AgentService on loopback that misbehaves on purpose.
#include "services/agent/stream_client.h"

#include <memory>
#include <optional>
#include <thread>

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

// Answers the first stream's registration with an instruction before Registered (a protocol
// error), every later one properly; each stream then stays open until the client leaves.
class OutOfOrderService final : public v1::AgentService::Service {
 public:
  grpc::Status Connect(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::ServiceMessage, v1::AgentMessage>* stream) override {
    v1::AgentMessage registration;
    if (!stream->Read(&registration)) return grpc::Status::OK;
    bool first = false;
    {
      absl::MutexLock lock(&mu_);
      first = ++streams_ == 1;
    }
    if (first) {
      v1::ServiceMessage instruction;
      instruction.mutable_instruction()->mutable_step()->set_step_id("early-0001");
      stream->Write(instruction);
    }
    v1::ServiceMessage registered;
    registered.mutable_registered()->set_accepted(true);
    registered.mutable_registered()->set_host_id(registration.register_().host_id());
    stream->Write(registered);
    v1::AgentMessage ignored;
    while (!context->IsCancelled() && stream->Read(&ignored)) {
    }
    return grpc::Status::OK;
  }

  int streams() const {
    absl::MutexLock lock(&mu_);
    return streams_;
  }

 private:
  mutable absl::Mutex mu_;
  int streams_ ABSL_GUARDED_BY(mu_) = 0;
};

// Refuses every registration for good ("infra-env ... not found", as the orchestrator answers
// before the infra-env exists) until Create(), then accepts; streams stay open until the client
// leaves.
class InfraEnvCreatedLaterService final : public v1::AgentService::Service {
 public:
  grpc::Status Connect(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::ServiceMessage, v1::AgentMessage>* stream) override {
    v1::AgentMessage registration;
    if (!stream->Read(&registration)) return grpc::Status::OK;
    bool exists = false;
    {
      absl::MutexLock lock(&mu_);
      exists = created_;
      if (!exists) ++refused_;
    }
    v1::ServiceMessage registered;
    registered.mutable_registered()->set_accepted(exists);
    if (exists) {
      registered.mutable_registered()->set_host_id(registration.register_().host_id());
    } else {
      registered.mutable_registered()->set_reason("infra-env not found");
      registered.mutable_registered()->set_next_action(v1::REGISTRATION_ACTION_GIVE_UP);
    }
    stream->Write(registered);
    v1::AgentMessage ignored;
    while (!context->IsCancelled() && stream->Read(&ignored)) {
    }
    return grpc::Status::OK;
  }

  void Create() {
    absl::MutexLock lock(&mu_);
    created_ = true;
  }
  int refused() const {
    absl::MutexLock lock(&mu_);
    return refused_;
  }

 private:
  mutable absl::Mutex mu_;
  bool created_ ABSL_GUARDED_BY(mu_) = false;
  int refused_ ABSL_GUARDED_BY(mu_) = 0;
};

class NoSteps final : public StepExecutor {
 public:
  void Run(const v1::Instruction&, std::function<void(types::v1::StepResult)>) override {}
};

TEST(StreamClientTest, AReplyOtherThanRegisteredFirstEndsTheStreamAndTheNextOneRegisters) {
  OutOfOrderService service;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  const std::string target = absl::StrCat("127.0.0.1:", port);

  NoSteps executor;
  SeededRandom random(7);
  StreamClient client(
      [target]() -> absl::StatusOr<std::shared_ptr<grpc::Channel>> {
        return grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
      },
      StreamIdentity{.host_id = "5d0c9a1e-3b7f-4e2a-9c41-8f6b2d0e7a13",
                     .infra_env_id = "6e7fec80-efb1-4fa9-b3d1-542ffd3b2505"},
      executor, random, log::Logger::Discard(),
      BackoffPolicy{.initial = absl::Milliseconds(10), .max = absl::Milliseconds(50)});
  std::thread runner([&client] { client.Run(); });

  // Before the fix the client waited in Finish() for the unread Registered, for ever.
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (client.registrations() == 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
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
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  const std::string target = absl::StrCat("127.0.0.1:", port);

  NoSteps executor;
  SeededRandom random(7);
  StreamClient client(
      [target]() -> absl::StatusOr<std::shared_ptr<grpc::Channel>> {
        return grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
      },
      StreamIdentity{.host_id = "5d0c9a1e-3b7f-4e2a-9c41-8f6b2d0e7a13",
                     .infra_env_id = "6e7fec80-efb1-4fa9-b3d1-542ffd3b2505"},
      executor, random, log::Logger::Discard(),
      BackoffPolicy{.initial = absl::Milliseconds(10), .max = absl::Milliseconds(50)});
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
  EXPECT_TRUE(testing::Eventually([&] { return client.registrations() == 1; },
                                  absl::Seconds(20), "registered once the infra-env exists"));

  client.Stop();
  runner.join();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
}

}  // namespace
}  // namespace assisted::agent
