// The orchestrator's agent streams against the real inventory and PostgreSQL: registration,
// instructions, results applied exactly once across reconnects, one live stream per host, and
// what an agent, or anyone reaching the agent port, cannot do: hold streams without registering,
// report on steps it was never given, or crash the orchestrator with a hostile step output.
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "lib/step_reports/reference_json.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/eventually.h"
#include "tests/harness/stack.h"

namespace assisted::testing {
namespace {

namespace inv = ::assisted::inventory::v1;
namespace agent = ::assisted::agent::v1;
using ::testing::HasSubstr;

constexpr char kHost[] = "0a1b2c3d-4e5f-4789-8bcd-ef0123456789";

// The host's NTP report as the REST API shows it (Host.ntp_sources); "" when none is stored.
std::string NtpSourcesText(const types::v1::Host& host) {
  if (!host.has_ntp_sources_report()) return "";
  return step_reports::ToReferenceJson(host.ntp_sources_report(), step_reports::JsonForm::kList);
}

// One agent stream driven by the test.
class Stream {
 public:
  explicit Stream(agent::AgentService::Stub& stub, absl::Duration deadline = absl::Seconds(20)) {
    context_.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
    stream_ = stub.Connect(&context_);
  }

  bool Send(const agent::AgentMessage& message) { return stream_->Write(message); }

  // The next message that is not an instruction (instructions are collected aside).
  std::optional<agent::ServiceMessage> Next() {
    agent::ServiceMessage message;
    while (stream_->Read(&message)) {
      if (message.has_instruction()) {
        instructions_.push_back(message.instruction());
        continue;
      }
      return message;
    }
    return std::nullopt;
  }

  grpc::Status Finish() {
    stream_->WritesDone();
    return AwaitEnd();
  }

  // Reads until the service ends the stream (without closing this side first), and returns how.
  grpc::Status AwaitEnd() {
    agent::ServiceMessage message;
    while (stream_->Read(&message)) {
      if (message.has_instruction()) instructions_.push_back(message.instruction());
    }
    return stream_->Finish();
  }

  // Reads until at least one instruction has been collected; other messages are dropped.
  bool AwaitInstructions() {
    return AwaitInstruction([](const types::v1::Step&) { return true; });
  }
  // Reads until an instruction whose step satisfies `match` has been collected.
  bool AwaitInstruction(const std::function<bool(const types::v1::Step&)>& match) {
    auto seen = [&] {
      for (const agent::Instruction& instruction : instructions_) {
        if (match(instruction.step())) return true;
      }
      return false;
    };
    agent::ServiceMessage message;
    while (!seen() && stream_->Read(&message)) {
      if (message.has_instruction()) instructions_.push_back(message.instruction());
    }
    return seen();
  }

  // The id of the first step of `type` pushed on this stream, read until it arrives ("" if the
  // stream ends first).
  std::string PushedStepId(types::v1::StepType type) {
    AwaitInstruction([type](const types::v1::Step& step) { return step.step_type() == type; });
    for (const agent::Instruction& instruction : instructions_) {
      if (instruction.step().step_type() == type) return instruction.step().step_id();
    }
    return "";
  }

  const std::vector<agent::Instruction>& instructions() const { return instructions_; }

 private:
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<agent::AgentMessage, agent::ServiceMessage>> stream_;
  std::vector<agent::Instruction> instructions_;
};

class AgentStreamTest : public StackTest {
 protected:
  // Streams must register within 2 s (checked every 200 ms), four at a time from one address.
  StackOptions Options() const override {
    return {.orchestrator_flags = {"--agent-registration-deadline=2s", "--monitor-interval=200ms",
                                   "--max-unregistered-agent-streams-per-peer=4"}};
  }

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StackTest::SetUp());
    absl::StatusOr<types::v1::InfraEnv> infra_env = stack().CreateInfraEnv("discovery");
    ASSERT_THAT(infra_env, IsOk());
    infra_env_ = *std::move(infra_env);
  }

  agent::AgentMessage Registration(const std::string& instance) {
    agent::AgentMessage message;
    agent::Register& registration = *message.mutable_register_();
    registration.set_host_id(kHost);
    registration.set_infra_env_id(infra_env_.id());
    registration.set_agent_version("test");
    registration.set_agent_instance_id(instance);
    registration.mutable_inventory()->set_hostname("node-1");
    return message;
  }

  // An ntp-synchronizer result for the step `step_id`.
  agent::AgentMessage Result(uint64_t seq, const std::string& output, const std::string& step_id) {
    agent::AgentMessage message;
    message.set_seq(seq);
    types::v1::StepResult& result = *message.mutable_step_result();
    result.set_step_id(step_id);
    result.set_step_type(types::v1::STEP_TYPE_NTP_SYNCHRONIZER);
    result.set_exit_code(0);
    result.set_output(output);
    return message;
  }

  types::v1::Host StoredHost() {
    inv::GetHostRequest get;
    get.set_infra_env_id(infra_env_.id());
    get.set_id(kHost);
    types::v1::Host host;
    grpc::ClientContext context;
    EXPECT_TRUE(stack().inventory_stub().GetHost(&context, get, &host).ok());
    return host;
  }

  types::v1::InfraEnv infra_env_;
};

TEST_F(AgentStreamTest, RegistersTheHostAndPushesItsInstructions) {
  Stream stream(stack().agent_stub());
  ASSERT_TRUE(stream.Send(Registration("instance-1")));
  auto registered = stream.Next();
  ASSERT_TRUE(registered.has_value());
  ASSERT_TRUE(registered->has_registered()) << registered->DebugString();
  EXPECT_TRUE(registered->registered().accepted());
  EXPECT_EQ(registered->registered().host_status(), types::v1::HOST_STATUS_DISCOVERING_UNBOUND);
  EXPECT_EQ(registered->registered().last_applied_seq(), 0u);
  const types::v1::Host host = StoredHost();
  EXPECT_EQ(host.inventory().hostname(), "node-1");
  EXPECT_EQ(host.agent_instance_id(), "instance-1");
  // The unbound discovering plan asks for the inventory first. The push may come from the
  // registration's own refresh or from the one the watch feed starts; either way it comes.
  ASSERT_TRUE(stream.AwaitInstructions());
  EXPECT_EQ(stream.instructions()[0].step().step_type(), types::v1::STEP_TYPE_INVENTORY);
  EXPECT_THAT(stream.instructions()[0].step().step_id(), HasSubstr("inventory-"));
}

TEST_F(AgentStreamTest, TheHostIsJudgedOnItsInventoryAndLeavesDiscovering) {
  Stream stream(stack().agent_stub());
  agent::AgentMessage registration = Registration("instance-1");
  types::v1::Inventory& inventory = *registration.mutable_register_()->mutable_inventory();
  inventory.mutable_cpu()->set_count(1);  // too few cores for any role
  inventory.mutable_memory()->set_usable_bytes(int64_t{2} << 30);
  ASSERT_TRUE(stream.Send(registration));
  ASSERT_TRUE(stream.Next().has_value());
  // The registration's refresh judges the host, or the watch feed's if that one was first.
  types::v1::Host host;
  EXPECT_TRUE(Eventually(
      [&] {
        host = StoredHost();
        return Observed{host.status() != types::v1::HOST_STATUS_DISCOVERING_UNBOUND,
                        types::v1::HostStatus_Name(host.status())};
      },
      absl::Seconds(30), "the host judged"));
  EXPECT_EQ(host.status(), types::v1::HOST_STATUS_INSUFFICIENT_UNBOUND) << host.status_info();
  EXPECT_GT(host.validations_info_size(), 0);
  bool cpu_failed = false;
  for (const types::v1::ValidationResult& result : host.validations_info()) {
    if (result.id() == "has-min-cpu-cores") {
      cpu_failed = result.status() == types::v1::VALIDATION_STATUS_FAILURE;
    }
  }
  EXPECT_TRUE(cpu_failed) << host.DebugString();
}

TEST_F(AgentStreamTest, AResultIsAppliedOnceThoughSentAgainAfterAReconnect) {
  std::string ntp_step;
  {
    Stream stream(stack().agent_stub());
    ASSERT_TRUE(stream.Send(Registration("instance-1")));
    ASSERT_TRUE(stream.Next().has_value());
    ntp_step = stream.PushedStepId(types::v1::STEP_TYPE_NTP_SYNCHRONIZER);
    ASSERT_TRUE(stream.Send(Result(1, R"({"ntp_sources":[]})", ntp_step)));
    auto ack = stream.Next();
    ASSERT_TRUE(ack.has_value() && ack->has_ack()) << (ack ? ack->DebugString() : "none");
    EXPECT_EQ(ack->ack().up_to_seq(), 1u);
    stream.Finish();
  }
  const types::v1::Host applied = StoredHost();
  EXPECT_EQ(applied.agent_applied_seq(), 1u);
  EXPECT_EQ(NtpSourcesText(applied), "[]");  // as the REST API shows it

  Stream again(stack().agent_stub());
  ASSERT_TRUE(again.Send(Registration("instance-1")));
  auto registered = again.Next();
  ASSERT_TRUE(registered.has_value());
  EXPECT_EQ(registered->registered().last_applied_seq(), 1u);
  ASSERT_TRUE(
      again.Send(Result(1, R"({"ntp_sources":[{"source_name":"changed","source_state":"synced"}]})",
                        ntp_step)));  // re-send
  auto ack = again.Next();
  ASSERT_TRUE(ack.has_value() && ack->has_ack());
  EXPECT_EQ(ack->ack().up_to_seq(), 1u);
  const types::v1::Host after = StoredHost();
  EXPECT_EQ(NtpSourcesText(after), "[]");  // not applied twice
  EXPECT_EQ(after.agent_applied_seq(), 1u);
}

TEST_F(AgentStreamTest, ANewAgentProcessStartsItsNumberingAfresh) {
  {
    Stream stream(stack().agent_stub());
    ASSERT_TRUE(stream.Send(Registration("instance-1")));
    ASSERT_TRUE(stream.Next().has_value());
    ASSERT_TRUE(
        stream.Send(Result(1, "{}", stream.PushedStepId(types::v1::STEP_TYPE_NTP_SYNCHRONIZER))));
    ASSERT_TRUE(stream.Next().has_value());
    stream.Finish();
  }
  Stream restarted(stack().agent_stub());
  ASSERT_TRUE(restarted.Send(Registration("instance-2")));
  auto registered = restarted.Next();
  ASSERT_TRUE(registered.has_value());
  EXPECT_EQ(registered->registered().last_applied_seq(), 0u);
  ASSERT_TRUE(restarted.Send(
      Result(1, R"({"ntp_sources":[{"source_name":"second","source_state":"synced"}]})",
             restarted.PushedStepId(types::v1::STEP_TYPE_NTP_SYNCHRONIZER))));
  ASSERT_TRUE(restarted.Next().has_value());
  EXPECT_EQ(NtpSourcesText(StoredHost()), R"([{"source_name":"second","source_state":"synced"}])");
}

// (type, args) of a step: what makes two pushes the same work.
std::string Work(const types::v1::Step& step) {
  return absl::StrCat(types::v1::StepType_Name(step.step_type()), " ",
                      absl::StrJoin(step.args(), " "));
}

TEST_F(AgentStreamTest, AReconnectingAgentIsPushedOnlyWorkItHasNotRunYet) {
  // A host of a cluster, so that a cluster change can make one step's arguments new.
  inv::CreateClusterRequest create_cluster;
  types::v1::Cluster& spec = *create_cluster.mutable_cluster();
  spec.set_name("reconnect");
  spec.set_openshift_version("4.16");
  spec.set_base_dns_domain("example.com");
  create_cluster.set_pull_secret(R"({"auths":{"quay.io":{"auth":"eDp5"}}})");
  types::v1::Cluster cluster;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stack().inventory_stub().CreateCluster(&context, create_cluster, &cluster).ok());
  }
  inv::CreateInfraEnvRequest create_infra_env;
  create_infra_env.mutable_infra_env()->set_name("reconnect");
  create_infra_env.mutable_infra_env()->set_cluster_id(cluster.id());
  types::v1::InfraEnv bound;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(stack().inventory_stub().CreateInfraEnv(&context, create_infra_env, &bound).ok());
  }
  auto registration = [&](const std::vector<agent::Instruction>& steps_run) {
    agent::AgentMessage message = Registration("instance-1");
    message.mutable_register_()->set_infra_env_id(bound.id());
    for (const agent::Instruction& instruction : steps_run) {
      *message.mutable_register_()->add_steps_run() = instruction.step();
    }
    return message;
  };

  Stream first(stack().agent_stub());
  ASSERT_TRUE(first.Send(registration({})));
  ASSERT_TRUE(first.AwaitInstructions());
  first.Finish();  // collects what else was pushed before the stream closed
  absl::flat_hash_set<std::string> run;
  for (const agent::Instruction& instruction : first.instructions()) {
    run.insert(Work(instruction.step()));
  }

  // The same agent process comes back reporting what it ran: none of it is pushed again, only
  // the step whose arguments a later change makes new.
  Stream again(stack().agent_stub());
  ASSERT_TRUE(again.Send(registration(first.instructions())));
  auto registered = again.Next();
  ASSERT_TRUE(registered.has_value() && registered->registered().accepted());
  inv::UpdateClusterRequest update;
  update.mutable_cluster()->set_id(cluster.id());
  update.mutable_cluster()->set_additional_ntp_source("marker.example.com");
  update.mutable_update_mask()->add_paths("additional_ntp_source");
  {
    types::v1::Cluster updated;
    grpc::ClientContext context;
    ASSERT_TRUE(stack().inventory_stub().UpdateCluster(&context, update, &updated).ok());
  }
  ASSERT_TRUE(again.AwaitInstruction([](const types::v1::Step& step) {
    return absl::StrContains(absl::StrJoin(step.args(), " "), "marker.example.com");
  }));
  for (const agent::Instruction& instruction : again.instructions()) {
    EXPECT_FALSE(run.contains(Work(instruction.step())))
        << "pushed again: " << Work(instruction.step());
  }
  again.Finish();

  // Without the report, a reconnect is a fresh start: the same work is pushed again.
  Stream unreported(stack().agent_stub());
  ASSERT_TRUE(unreported.Send(registration({})));
  ASSERT_TRUE(unreported.AwaitInstructions());
  unreported.Finish();
  bool repeated = false;
  for (const agent::Instruction& instruction : unreported.instructions()) {
    repeated = repeated || run.contains(Work(instruction.step()));
  }
  EXPECT_TRUE(repeated);
}

TEST_F(AgentStreamTest, ANewerConnectionFromTheSameHostReplacesTheOlderOne) {
  Stream first(stack().agent_stub());
  ASSERT_TRUE(first.Send(Registration("instance-1")));
  ASSERT_TRUE(first.Next().has_value());
  Stream second(stack().agent_stub());
  ASSERT_TRUE(second.Send(Registration("instance-1")));
  ASSERT_TRUE(second.Next().has_value());
  EXPECT_FALSE(first.Next().has_value());
  const grpc::Status ended = first.Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::ABORTED);
  EXPECT_THAT(ended.error_message(), HasSubstr("replaced by a newer connection"));
}

TEST_F(AgentStreamTest, RefusesStreamsThatDoNotStartWithAValidRegistration) {
  Stream unregistered(stack().agent_stub());
  ASSERT_TRUE(unregistered.Send(Result(1, "{}", "ntp-synchronizer-0000abcd")));
  EXPECT_EQ(unregistered.Finish().error_code(), grpc::StatusCode::FAILED_PRECONDITION);

  Stream unknown(stack().agent_stub());
  agent::AgentMessage registration = Registration("instance-1");
  registration.mutable_register_()->set_infra_env_id("00000000-0000-4000-8000-000000000000");
  ASSERT_TRUE(unknown.Send(registration));
  auto refused = unknown.Next();
  ASSERT_TRUE(refused.has_value());
  EXPECT_FALSE(refused->registered().accepted());
  EXPECT_EQ(refused->registered().next_action(), agent::REGISTRATION_ACTION_GIVE_UP);
  EXPECT_EQ(unknown.Finish().error_code(), grpc::StatusCode::NOT_FOUND);

  Stream bad(stack().agent_stub());
  registration.mutable_register_()->set_host_id("NOT-A-UUID");
  ASSERT_TRUE(bad.Send(registration));
  EXPECT_EQ(bad.Finish().error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

// Expects the next messages to be a Reject of `seq` whose reason contains `reason`, then its Ack
// (a refused message counts as consumed: the agent does not send it again).
void ExpectRejected(Stream& stream, uint64_t seq, const std::string& reason) {
  auto rejected = stream.Next();
  ASSERT_TRUE(rejected.has_value() && rejected->has_reject())
      << (rejected ? rejected->DebugString() : "the stream ended");
  EXPECT_EQ(rejected->reject().seq(), seq);
  EXPECT_THAT(rejected->reject().reason(), HasSubstr(reason));
  auto ack = stream.Next();
  ASSERT_TRUE(ack.has_value() && ack->has_ack()) << (ack ? ack->DebugString() : "none");
  EXPECT_EQ(ack->ack().up_to_seq(), seq);
}

TEST_F(AgentStreamTest, AResultForAStepNeverPushedIsNotApplied) {
  Stream stream(stack().agent_stub());
  ASSERT_TRUE(stream.Send(Registration("instance-1")));
  ASSERT_TRUE(stream.Next().has_value());
  ASSERT_TRUE(
      stream.Send(Result(1, R"({"ntp_sources":[{"source_name":"forged","source_state":"synced"}]})",
                         "ntp-synchronizer-0000abcd")));
  ExpectRejected(stream, 1, "no such step was pushed");
  // Nor is a log bundle nobody asked for.
  agent::AgentMessage chunk;
  chunk.set_seq(2);
  chunk.mutable_log_chunk()->set_step_id("logs-gather-0000abcd");
  chunk.mutable_log_chunk()->set_data("unasked");
  chunk.mutable_log_chunk()->set_last(true);
  ASSERT_TRUE(stream.Send(chunk));
  ExpectRejected(stream, 2, "no logs were asked for");
  EXPECT_EQ(NtpSourcesText(StoredHost()), "");
}

TEST_F(AgentStreamTest, ADeeplyNestedStepOutputIsRefusedAndTheOrchestratorLives) {
  Stream stream(stack().agent_stub());
  ASSERT_TRUE(stream.Send(Registration("instance-1")));
  ASSERT_TRUE(stream.Next().has_value());
  const std::string ntp = stream.PushedStepId(types::v1::STEP_TYPE_NTP_SYNCHRONIZER);
  constexpr int kDepth = 400'000;  // under 1 MiB, enough to overflow a recursive walk
  ASSERT_TRUE(stream.Send(Result(
      1, R"({"ntp_sources":)" + std::string(kDepth, '[') + std::string(kDepth, ']') + "}", ntp)));
  ExpectRejected(stream, 1, "step_result.output");
  // The same stream goes on working.
  ASSERT_TRUE(stream.Send(
      Result(2, R"({"ntp_sources":[{"source_name":"after","source_state":"synced"}]})", ntp)));
  auto ack = stream.Next();
  ASSERT_TRUE(ack.has_value() && ack->has_ack()) << (ack ? ack->DebugString() : "none");
  EXPECT_EQ(ack->ack().up_to_seq(), 2u);
  EXPECT_EQ(NtpSourcesText(StoredHost()), R"([{"source_name":"after","source_state":"synced"}])");
}

TEST_F(AgentStreamTest, AStreamThatNeverRegistersIsClosedAfterTheDeadline) {
  // The client gives up after 10 s: without the service's deadline this fails, never hangs.
  Stream idle(stack().agent_stub(), absl::Seconds(10));
  const grpc::Status ended = idle.AwaitEnd();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_THAT(ended.error_message(), HasSubstr("did not register within 2s"));
}

TEST_F(AgentStreamTest, UnregisteredStreamsFromOnePeerAreCapped) {
  std::vector<std::unique_ptr<Stream>> idle;
  for (int i = 0; i < 5; ++i) {
    idle.push_back(std::make_unique<Stream>(stack().agent_stub(), absl::Seconds(10)));
  }
  int refused = 0, overdue = 0;
  for (const std::unique_ptr<Stream>& stream : idle) {
    const grpc::Status ended = stream->AwaitEnd();
    if (ended.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
        absl::StrContains(ended.error_message(), "too many unregistered agent streams")) {
      ++refused;
    } else if (ended.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED &&
               absl::StrContains(ended.error_message(), "did not register")) {
      ++overdue;
    } else {
      ADD_FAILURE() << ended.error_code() << ": " << ended.error_message();
    }
  }
  EXPECT_EQ(refused, 1);
  EXPECT_EQ(overdue, 4);
}

}  // namespace
}  // namespace assisted::testing
