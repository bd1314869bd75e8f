// The decisions that bound what one agent stream can make the orchestrator hold: its waiting
// messages by bytes, and the results and log chunks it may send by the steps it was pushed; and
// a real stream that floods a session whose handler is held.

#include "services/orchestrator/agent_session.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/eventually.h"

namespace assisted::orchestrator {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

agent::v1::AgentMessage ChunkOf(size_t bytes) {
  agent::v1::AgentMessage message;
  message.mutable_log_chunk()->set_data(std::string(bytes, 'x'));
  return message;
}

TEST(InboundQueue, StopsReadingOnceItHoldsItsBoundInBytesAndResumesWhenHalfDrained) {
  InboundQueue queue(/*max_bytes=*/4000);
  EXPECT_TRUE(queue.Push(ChunkOf(1000)));
  EXPECT_TRUE(queue.Push(ChunkOf(1000)));
  EXPECT_TRUE(queue.Push(ChunkOf(1000)));
  EXPECT_FALSE(queue.Push(ChunkOf(1000)));  // ~5,000 bytes held with the overheads: stop
  EXPECT_FALSE(queue.Resumable());
  ASSERT_TRUE(queue.Pop().has_value());
  ASSERT_TRUE(queue.Pop().has_value());
  EXPECT_FALSE(queue.Resumable());  // ~2,500: still more than half
  ASSERT_TRUE(queue.Pop().has_value());
  EXPECT_TRUE(queue.Resumable());
}

TEST(InboundQueue, OneMessageLargerThanTheBoundIsKeptButStopsReading) {
  InboundQueue queue(/*max_bytes=*/1000);
  EXPECT_FALSE(queue.Push(ChunkOf(5000)));
  ASSERT_TRUE(queue.Pop().has_value());
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.bytes(), 0u);
  EXPECT_TRUE(queue.Resumable());
}

TEST(InboundQueue, EmptyMessagesCostTheirOverheadSoAFloodOfThemIsBoundedToo) {
  InboundQueue queue(/*max_bytes=*/InboundQueue::kOverhead * 10);
  agent::v1::AgentMessage heartbeat;
  heartbeat.mutable_heartbeat();
  int read = 1;
  while (queue.Push(heartbeat)) ++read;
  EXPECT_LE(read, 10);
}

TEST(InboundQueue, KeepsArrivalOrder) {
  InboundQueue queue(1 << 20);
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    agent::v1::AgentMessage message;
    message.set_seq(seq);
    queue.Push(message);
  }
  for (uint64_t seq = 1; seq <= 3; ++seq) EXPECT_EQ(queue.Pop()->seq(), seq);
  EXPECT_FALSE(queue.Pop().has_value());
}

types::v1::Step StepOf(types::v1::StepType type, const std::string& id) {
  types::v1::Step step;
  step.set_step_type(type);
  step.set_step_id(id);
  return step;
}

types::v1::StepResult ResultOf(types::v1::StepType type, const std::string& id) {
  types::v1::StepResult result;
  result.set_step_type(type);
  result.set_step_id(id);
  return result;
}

agent::v1::LogChunk LogChunkOf(const std::string& step_id) {
  agent::v1::LogChunk chunk;
  chunk.set_step_id(step_id);
  return chunk;
}

TEST(PushedSteps, AResultForAStepNeverPushedIsRefused) {
  PushedSteps pushed(8);
  pushed.Add(StepOf(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, "ntp-synchronizer-00000001"));
  EXPECT_THAT(pushed.CheckResult(
                  ResultOf(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, "ntp-synchronizer-00000001")),
              IsOk());
  EXPECT_THAT(pushed.CheckResult(ResultOf(types::v1::STEP_TYPE_INVENTORY, "inventory-00000009")),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("inventory-00000009")));
  EXPECT_THAT(pushed.CheckResult(ResultOf(types::v1::STEP_TYPE_INVENTORY, "")),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST(PushedSteps, AResultOfAnotherTypeThanItsStepIsRefused) {
  PushedSteps pushed(8);
  pushed.Add(StepOf(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, "ntp-synchronizer-00000001"));
  EXPECT_THAT(
      pushed.CheckResult(ResultOf(types::v1::STEP_TYPE_INVENTORY, "ntp-synchronizer-00000001")),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("STEP_TYPE_NTP_SYNCHRONIZER")));
}

TEST(PushedSteps, TheOldestStepsAreForgottenPastTheCapacity) {
  PushedSteps pushed(2);
  for (const char* id : {"a-1", "a-2", "a-3"}) {
    pushed.Add(StepOf(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, id));
  }
  pushed.Add(StepOf(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, "a-3"));  // again: no new slot
  EXPECT_THAT(pushed.CheckResult(ResultOf(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, "a-1")),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(pushed.CheckResult(ResultOf(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, "a-2")), IsOk());
  EXPECT_THAT(pushed.CheckResult(ResultOf(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, "a-3")), IsOk());
}

TEST(PushedSteps, LogChunksAreAcceptedOnlyWhileLogsWereAskedFor) {
  PushedSteps pushed(8);
  pushed.Add(StepOf(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, "ntp-synchronizer-00000001"));
  EXPECT_THAT(pushed.CheckLogChunk(LogChunkOf("logs-gather-00000001")),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no logs were asked for")));
  EXPECT_THAT(pushed.CheckLogChunk(LogChunkOf("ntp-synchronizer-00000001")),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(pushed.CheckLogChunk(LogChunkOf("")),
              StatusIs(absl::StatusCode::kFailedPrecondition));

  pushed.Add(StepOf(types::v1::STEP_TYPE_LOGS_GATHER, "logs-gather-00000001"));
  EXPECT_THAT(pushed.CheckLogChunk(LogChunkOf("logs-gather-00000001")), IsOk());
  pushed.Done("logs-gather-00000001");
  EXPECT_THAT(pushed.CheckLogChunk(LogChunkOf("logs-gather-00000001")),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("finished")));
}

TEST(Session, InstructionsItSendsAreThePushedSteps) {
  auto session = std::make_shared<Session>("ipv4:10.0.0.5:4000");
  agent::v1::ServiceMessage instruction;
  *instruction.mutable_instruction()->mutable_step() =
      StepOf(types::v1::STEP_TYPE_LOGS_GATHER, "logs-gather-00000001");
  ASSERT_TRUE(session->Send(instruction));
  EXPECT_THAT(
      session->CheckResult(ResultOf(types::v1::STEP_TYPE_LOGS_GATHER, "logs-gather-00000001")),
      IsOk());
  EXPECT_THAT(session->CheckLogChunk(LogChunkOf("logs-gather-00000001")), IsOk());
  session->StepDone("logs-gather-00000001");
  EXPECT_THAT(session->CheckLogChunk(LogChunkOf("logs-gather-00000001")),
              StatusIs(absl::StatusCode::kFailedPrecondition));

  google::protobuf::RepeatedPtrField<types::v1::Step> ran;
  *ran.Add() = StepOf(types::v1::STEP_TYPE_INVENTORY, "inventory-00000002");
  session->AdoptPushed(ran);
  EXPECT_THAT(session->CheckResult(ResultOf(types::v1::STEP_TYPE_INVENTORY, "inventory-00000002")),
              IsOk());
}

// A handler whose work waits until the test releases it, as when every worker is busy; then
// one worker thread handles it.
class HeldHandler final : public SessionHandler {
 public:
  ~HeldHandler() override {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    if (worker_.joinable()) worker_.join();
  }

  void OnOpen(const std::shared_ptr<Session>& session) override {
    absl::MutexLock lock(&mu_);
    session_ = session;
  }
  void OnFirstMessage(const std::shared_ptr<Session>&) override {
    absl::MutexLock lock(&mu_);
    ++first_messages_;
  }
  void OnMessage(const std::shared_ptr<Session>&, const agent::v1::AgentMessage&) override {
    absl::MutexLock lock(&mu_);
    ++handled_;
  }
  bool Schedule(const std::shared_ptr<Session>& session) override {
    absl::MutexLock lock(&mu_);
    scheduled_.push_back(session);
    return true;
  }
  void OnClosed(const std::shared_ptr<Session>&) override {}

  // Starts the worker: scheduled work, and the work it schedules, is handled from now on.
  void Release() {
    worker_ = std::thread([this] {
      while (true) {
        std::shared_ptr<Session> next;
        {
          absl::MutexLock lock(&mu_);
          auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
            return stopping_ || !scheduled_.empty();
          };
          mu_.Await(absl::Condition(&ready));
          if (scheduled_.empty()) return;
          next = std::move(scheduled_.front());
          scheduled_.erase(scheduled_.begin());
        }
        next->ProcessNext(*this);
      }
    });
  }
  // Waits until the stream is open and its session holds at least `bytes` of messages.
  std::shared_ptr<Session> AwaitQueued(size_t bytes) {
    std::shared_ptr<Session> queued;
    const bool filled = assisted::testing::Eventually(
        [&] {
          absl::MutexLock lock(&mu_);
          if (session_ != nullptr && session_->queued_bytes() >= bytes) queued = session_;
          return queued != nullptr;
        },
        absl::Seconds(20), "the session's queue filled");
    return filled ? queued : nullptr;
  }
  int handled() {
    absl::MutexLock lock(&mu_);
    return handled_;
  }
  int first_messages() {
    absl::MutexLock lock(&mu_);
    return first_messages_;
  }

 private:
  absl::Mutex mu_;
  std::shared_ptr<Session> session_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<Session>> scheduled_ ABSL_GUARDED_BY(mu_);
  int handled_ ABSL_GUARDED_BY(mu_) = 0;
  int first_messages_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread worker_;
};

// AgentService.Connect over sessions that queue at most `max_incoming_bytes`.
class HeldService final : public agent::v1::AgentService::CallbackService {
 public:
  HeldService(HeldHandler& handler, size_t max_incoming_bytes)
      : handler_(handler), max_incoming_bytes_(max_incoming_bytes) {}
  grpc::ServerBidiReactor<agent::v1::AgentMessage, agent::v1::ServiceMessage>* Connect(
      grpc::CallbackServerContext* context) override {
    return new AgentReactor(std::make_shared<Session>(context->peer(), "", max_incoming_bytes_),
                            handler_);
  }

 private:
  HeldHandler& handler_;
  const size_t max_incoming_bytes_;
};

class SessionStreamTest : public ::testing::Test {
 protected:
  void Serve(size_t max_incoming_bytes) {
    service_ = std::make_unique<HeldService>(handler_, max_incoming_bytes);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    stub_ = agent::v1::AgentService::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()));
    context_.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
    stream_ = stub_->Connect(&context_);
  }
  // Writes `messages` on a thread of its own (writes block once the service stops reading),
  // then closes this side.
  void WriteAll(std::vector<agent::v1::AgentMessage> messages) {
    writer_ = std::thread([this, messages = std::move(messages)] {
      for (const agent::v1::AgentMessage& message : messages) {
        if (!stream_->Write(message)) break;
      }
      stream_->WritesDone();
    });
  }
  grpc::Status Finish() {
    writer_.join();
    agent::v1::ServiceMessage ignored;
    while (stream_->Read(&ignored)) {
    }
    return stream_->Finish();
  }
  void TearDown() override {
    if (writer_.joinable()) writer_.join();
    server_->Shutdown(std::chrono::system_clock::now());
  }

  HeldHandler handler_;
  std::unique_ptr<HeldService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<agent::v1::AgentService::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<agent::v1::AgentMessage, agent::v1::ServiceMessage>>
      stream_;
  std::thread writer_;
};

TEST_F(SessionStreamTest, AFloodOfSmallMessagesWaitsForTheHandlerInsteadOfEndingTheStream) {
  Serve(Session::kMaxIncomingBytes);
  agent::v1::AgentMessage heartbeat;
  heartbeat.mutable_heartbeat()->mutable_agent_time()->set_seconds(1);
  WriteAll(std::vector<agent::v1::AgentMessage>(3000, heartbeat));
  // Far more than ever waited at once before (1,024 messages closed the stream), and still
  // far below the byte bound.
  ASSERT_NE(handler_.AwaitQueued(2000 * InboundQueue::kOverhead), nullptr);
  // The handler heard of the first message while it still waited (the admission deadline
  // stops there), and of no other.
  EXPECT_EQ(handler_.first_messages(), 1);
  handler_.Release();
  const grpc::Status ended = Finish();
  EXPECT_TRUE(ended.ok()) << ended.error_code() << ": " << ended.error_message();
  EXPECT_EQ(handler_.handled(), 3000);
}

TEST_F(SessionStreamTest, ASessionPastItsByteBoundStopsReadingAndResumesWhenDrained) {
  constexpr size_t kBound = 64 << 10;
  constexpr size_t kChunk = 16 << 10;
  Serve(kBound);
  agent::v1::AgentMessage chunk;
  chunk.mutable_log_chunk()->set_data(std::string(kChunk, 'x'));
  WriteAll(std::vector<agent::v1::AgentMessage>(100, chunk));  // 1.6 MB
  std::shared_ptr<Session> session = handler_.AwaitQueued(kBound);
  ASSERT_NE(session, nullptr);
  // Reading stopped at the bound: at most the one message that crossed it is over.
  EXPECT_LE(session->queued_bytes(), kBound + kChunk + InboundQueue::kOverhead + 64);
  // Draining resumes reading: every message is handled and the stream ends well.
  handler_.Release();
  const grpc::Status ended = Finish();
  EXPECT_TRUE(ended.ok()) << ended.error_code() << ": " << ended.error_message();
  EXPECT_EQ(handler_.handled(), 100);
}

}  // namespace
}  // namespace assisted::orchestrator
