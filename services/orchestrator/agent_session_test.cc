// The decisions that bound what one agent stream can make the orchestrator hold: its waiting
// messages by bytes, and the results and log chunks it may send by the steps it was pushed.

#include "services/orchestrator/agent_session.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

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

}  // namespace
}  // namespace assisted::orchestrator
