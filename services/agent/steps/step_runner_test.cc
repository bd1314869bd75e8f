#include "services/agent/steps/step_runner.h"

#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/steps/test_util.h"

namespace assisted::agent::steps {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using testing::MakeStep;

// Shared by the fake executors of one test: how many run now, the most that ever ran at once,
// and a gate that holds them until the test opens it.
class Gate {
 public:
  // Called by an executor: counts it as running and blocks until Open() or cancellation.
  void Enter(const Cancellation& cancellation) {
    absl::MutexLock lock(&mu_);
    ++active_;
    ++entered_;
    max_active_ = std::max(max_active_, active_);
    auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return open_ || cancellation.cancelled();
    };
    // Cancellation is not signalled through mu_, so poll it briefly.
    while (!mu_.AwaitWithTimeout(absl::Condition(&done), absl::Milliseconds(5))) {
    }
    --active_;
  }
  void Open() {
    absl::MutexLock lock(&mu_);
    open_ = true;
  }
  void AwaitEntered(int n) {
    absl::MutexLock lock(&mu_);
    auto reached = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return entered_ >= n; };
    mu_.Await(absl::Condition(&reached));
  }
  int max_active() {
    absl::MutexLock lock(&mu_);
    return max_active_;
  }
  int entered() {
    absl::MutexLock lock(&mu_);
    return entered_;
  }

 private:
  absl::Mutex mu_;
  bool open_ ABSL_GUARDED_BY(mu_) = false;
  int active_ ABSL_GUARDED_BY(mu_) = 0;
  int entered_ ABSL_GUARDED_BY(mu_) = 0;
  int max_active_ ABSL_GUARDED_BY(mu_) = 0;
};

// Waits at the gate (when given), then answers "ok"; refuses any argument other than "good".
class FakeExecutor final : public StepExecutor {
 public:
  FakeExecutor(StepType type, Gate* gate, std::string output = "ok")
      : type_(type), gate_(gate), output_(std::move(output)) {}
  StepType type() const override { return type_; }
  absl::Duration default_timeout() const override { return absl::Seconds(30); }
  StepResult Run(const Step& step, StepContext& context) override {
    for (const std::string& arg : step.args()) {
      if (arg != "good") return InvalidArgsResult(absl::InvalidArgumentError("want \"good\""));
    }
    if (gate_ != nullptr) gate_->Enter(context.cancellation);
    return SuccessResult(output_);
  }

 private:
  StepType type_;
  Gate* gate_;
  std::string output_;
};

class Results {
 public:
  ResultCallback Callback() {
    return [this](StepResult result) {
      absl::MutexLock lock(&mu_);
      results_.push_back(std::move(result));
    };
  }
  std::vector<StepResult> AwaitCount(size_t n) {
    absl::MutexLock lock(&mu_);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return results_.size() >= n; };
    mu_.Await(absl::Condition(&enough));
    return results_;
  }
  size_t size() {
    absl::MutexLock lock(&mu_);
    return results_.size();
  }

 private:
  absl::Mutex mu_;
  std::vector<StepResult> results_ ABSL_GUARDED_BY(mu_);
};

constexpr StepType kInventory = types::v1::STEP_TYPE_INVENTORY;
constexpr StepType kNtp = types::v1::STEP_TYPE_NTP_SYNCHRONIZER;
constexpr StepType kDomains = types::v1::STEP_TYPE_DOMAIN_RESOLUTION;
constexpr StepType kFree = types::v1::STEP_TYPE_FREE_NETWORK_ADDRESSES;

class StepRunnerTest : public ::testing::Test {
 protected:
  std::unique_ptr<StepRunner> MakeRunner(StepRunnerOptions options, std::vector<StepType> types,
                                         Gate* gate, std::string output = "ok") {
    std::vector<std::unique_ptr<StepExecutor>> executors;
    for (StepType type : types)
      executors.push_back(std::make_unique<FakeExecutor>(type, gate, output));
    StepEnvironment env;
    env.processes = &processes_;
    env.clock = &clock_;
    env.log_chunks = &sink_;
    auto runner =
        StepRunner::Create(std::move(options), std::move(executors), env, results_.Callback());
    EXPECT_THAT(runner, IsOk());
    return runner.ok() ? *std::move(runner) : nullptr;
  }

  process::LocalProcessRunner processes_;
  FakeClock clock_;
  testing::CollectingSink sink_;
  Results results_;
};

TEST_F(StepRunnerTest, RunsAtMostMaxConcurrentStepsAtOnce) {
  Gate gate;
  auto runner = MakeRunner({.max_concurrent = 2}, {kInventory, kNtp, kDomains, kFree}, &gate);
  for (StepType type : {kInventory, kNtp, kDomains, kFree}) {
    ASSERT_THAT(runner->Submit(MakeStep(type)), IsOk());
  }
  gate.AwaitEntered(2);
  EXPECT_EQ(runner->running(), 2);
  EXPECT_EQ(runner->queued(), 2);
  gate.Open();
  std::vector<StepResult> results = results_.AwaitCount(4);
  EXPECT_EQ(gate.max_active(), 2);
  for (const StepResult& r : results) {
    EXPECT_EQ(r.exit_code(), 0) << r.error();
    EXPECT_EQ(r.output(), "ok");
    EXPECT_TRUE(r.has_started_at() && r.has_finished_at());
  }
}

TEST_F(StepRunnerTest, SecondStepOfATypeWaitsForTheFirst) {
  Gate gate;
  auto runner = MakeRunner({.max_concurrent = 4}, {kInventory, kNtp}, &gate);
  ASSERT_THAT(runner->Submit(MakeStep(kInventory, {}, 1)), IsOk());
  ASSERT_THAT(runner->Submit(MakeStep(kInventory, {}, 2)), IsOk());
  gate.AwaitEntered(1);
  // A step of another type gets through while the second inventory keeps waiting; once it has
  // entered, every idle worker has looked at the queue and left the inventory step there.
  ASSERT_THAT(runner->Submit(MakeStep(kNtp, {}, 3)), IsOk());
  gate.AwaitEntered(2);
  EXPECT_EQ(runner->running(), 2);
  EXPECT_EQ(runner->queued(), 1);
  gate.Open();
  std::vector<StepResult> results = results_.AwaitCount(3);
  EXPECT_EQ(gate.entered(), 3);
  EXPECT_EQ(gate.max_active(), 2);
}

TEST_F(StepRunnerTest, UnknownTypesAreAnsweredWithMinusOne) {
  auto runner = MakeRunner({}, {kInventory}, nullptr);
  ASSERT_THAT(runner->Submit(MakeStep(types::v1::STEP_TYPE_INSTALL)), IsOk());
  Step unspecified;
  unspecified.set_step_id("mystery-00000001");
  ASSERT_THAT(runner->Submit(unspecified), IsOk());
  Step out_of_range = unspecified;
  out_of_range.set_step_id("mystery-00000002");
  out_of_range.set_step_type(static_cast<StepType>(99));
  ASSERT_THAT(runner->Submit(out_of_range), IsOk());
  std::vector<StepResult> results = results_.AwaitCount(3);
  EXPECT_EQ(results[0].exit_code(), -1);
  EXPECT_THAT(results[0].error(), HasSubstr("does not run \"install\""));
  EXPECT_EQ(results[0].step_id(), "install-00000001");
  EXPECT_EQ(results[1].exit_code(), -1);
  EXPECT_THAT(results[1].error(), HasSubstr("unknown step type 0"));
  EXPECT_EQ(results[2].exit_code(), -1);
  EXPECT_THAT(results[2].error(), HasSubstr("unknown step type 99"));
}

TEST_F(StepRunnerTest, BadArgumentsAndIdsAreAnsweredWithMinusOne) {
  auto runner = MakeRunner({.max_args = 2}, {kInventory}, nullptr);
  ASSERT_THAT(runner->Submit(MakeStep(kInventory, {"bad"}, 1)), IsOk());
  ASSERT_THAT(runner->Submit(MakeStep(kInventory, {"good", "good", "good"}, 2)), IsOk());
  Step wrong_id = MakeStep(kInventory, {}, 3);
  wrong_id.set_step_id("ntp-synchronizer-00000003");
  ASSERT_THAT(runner->Submit(wrong_id), IsOk());
  Step negative = MakeStep(kInventory, {}, 4);
  negative.mutable_timeout()->set_seconds(-5);
  ASSERT_THAT(runner->Submit(negative), IsOk());
  std::vector<StepResult> results = results_.AwaitCount(4);
  auto by_id = [&](absl::string_view id) {
    for (const StepResult& r : results) {
      if (r.step_id() == id) return r;
    }
    return StepResult();
  };
  EXPECT_EQ(by_id("inventory-00000001").exit_code(), -1);
  EXPECT_THAT(by_id("inventory-00000001").error(), HasSubstr("invalid arguments: want \"good\""));
  EXPECT_THAT(by_id("inventory-00000002").error(), HasSubstr("3 arguments, at most 2"));
  EXPECT_THAT(by_id("ntp-synchronizer-00000003").error(), HasSubstr("is not \"inventory-<8 hex"));
  EXPECT_THAT(by_id("inventory-00000004").error(), HasSubstr("negative"));
  for (const StepResult& r : results) EXPECT_EQ(r.exit_code(), -1) << r.step_id();
}

TEST_F(StepRunnerTest, IdsThatCannotBeEchoedAreRefusedWithoutAResult) {
  auto runner = MakeRunner({}, {kInventory}, nullptr);
  Step step = MakeStep(kInventory);
  step.set_step_id("inventory-\n");
  EXPECT_THAT(runner->Submit(step), StatusIs(absl::StatusCode::kInvalidArgument));
  step.set_step_id("");
  EXPECT_THAT(runner->Submit(step), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(results_.size(), 0u);
}

TEST_F(StepRunnerTest, OverrunningStepIsReportedAsMinusOneAndCancelled) {
  Gate gate;  // never opened: the executor returns only when cancelled
  auto runner = MakeRunner({.max_concurrent = 2}, {kInventory}, &gate);
  Step step = MakeStep(kInventory, {}, 1);
  step.mutable_timeout()->set_seconds(5);
  ASSERT_THAT(runner->Submit(step), IsOk());
  ASSERT_THAT(runner->Submit(MakeStep(kInventory, {}, 2)), IsOk());
  gate.AwaitEntered(1);
  clock_.Advance(absl::Seconds(4));
  runner->CheckDeadlines();
  EXPECT_EQ(results_.size(), 0u);
  clock_.Advance(absl::Seconds(2));
  runner->CheckDeadlines();
  std::vector<StepResult> results = results_.AwaitCount(1);
  EXPECT_EQ(results[0].step_id(), "inventory-00000001");
  EXPECT_EQ(results[0].exit_code(), -1);
  EXPECT_THAT(results[0].error(), HasSubstr("deadline"));
  // The cancelled executor returns; its own result is dropped and the next inventory starts.
  gate.AwaitEntered(2);
  gate.Open();
  results = results_.AwaitCount(2);
  runner->Stop();
  ASSERT_EQ(results_.size(), 2u);
  EXPECT_EQ(results[1].step_id(), "inventory-00000002");
  EXPECT_EQ(results[1].exit_code(), 0);
}

TEST_F(StepRunnerTest, HugeTimeoutsAreCappedByMaxTimeout) {
  Gate gate;  // never opened
  auto runner = MakeRunner({.max_timeout = absl::Minutes(1)}, {kInventory}, &gate);
  Step step = MakeStep(kInventory);
  step.mutable_timeout()->set_seconds(std::numeric_limits<int64_t>::max());
  ASSERT_THAT(runner->Submit(step), IsOk());
  gate.AwaitEntered(1);
  clock_.Advance(absl::Minutes(1));
  runner->CheckDeadlines();
  std::vector<StepResult> results = results_.AwaitCount(1);
  EXPECT_EQ(results[0].exit_code(), -1);
  EXPECT_THAT(results[0].error(), HasSubstr("deadline"));
}

TEST_F(StepRunnerTest, DuplicateIdsInFlightAreIgnored) {
  Gate gate;
  auto runner = MakeRunner({}, {kInventory}, &gate);
  ASSERT_THAT(runner->Submit(MakeStep(kInventory)), IsOk());
  EXPECT_THAT(runner->Submit(MakeStep(kInventory)), StatusIs(absl::StatusCode::kAlreadyExists));
  gate.Open();
  results_.AwaitCount(1);
  runner->Stop();
  EXPECT_EQ(results_.size(), 1u);
}

TEST_F(StepRunnerTest, FullQueueRejectsWithMinusOne) {
  Gate gate;
  auto runner = MakeRunner({.max_concurrent = 1, .max_queued = 1}, {kInventory}, &gate);
  ASSERT_THAT(runner->Submit(MakeStep(kInventory, {}, 1)), IsOk());
  gate.AwaitEntered(1);
  ASSERT_THAT(runner->Submit(MakeStep(kInventory, {}, 2)), IsOk());
  ASSERT_THAT(runner->Submit(MakeStep(kInventory, {}, 3)), IsOk());
  std::vector<StepResult> results = results_.AwaitCount(1);
  EXPECT_EQ(results[0].step_id(), "inventory-00000003");
  EXPECT_EQ(results[0].exit_code(), -1);
  EXPECT_THAT(results[0].error(), HasSubstr("busy"));
  gate.Open();
  results_.AwaitCount(3);
}

TEST_F(StepRunnerTest, StopRejectsWaitingStepsAndCancelsRunningOnes) {
  Gate gate;  // never opened
  auto runner = MakeRunner({.max_concurrent = 1}, {kInventory, kNtp}, &gate);
  ASSERT_THAT(runner->Submit(MakeStep(kInventory)), IsOk());
  ASSERT_THAT(runner->Submit(MakeStep(kNtp)), IsOk());
  gate.AwaitEntered(1);
  runner->Stop();
  std::vector<StepResult> results = results_.AwaitCount(2);
  EXPECT_EQ(results[0].step_id(), "ntp-synchronizer-00000001");
  EXPECT_THAT(results[0].error(), HasSubstr("agent stopping"));
  EXPECT_EQ(results[1].step_id(), "inventory-00000001");
  EXPECT_THAT(runner->Submit(MakeStep(kNtp, {}, 2)),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST_F(StepRunnerTest, OversizedOutputBecomesMinusOne) {
  auto runner = MakeRunner({.max_output_bytes = 4}, {kInventory}, nullptr, "too long");
  ASSERT_THAT(runner->Submit(MakeStep(kInventory)), IsOk());
  std::vector<StepResult> results = results_.AwaitCount(1);
  EXPECT_EQ(results[0].exit_code(), -1);
  EXPECT_THAT(results[0].error(), HasSubstr("exceeds the limit"));
  EXPECT_EQ(results[0].output(), "");
}

TEST(StepRunnerCreate, RefusesTwoExecutorsOfOneType) {
  process::LocalProcessRunner processes;
  FakeClock clock;
  testing::CollectingSink sink;
  std::vector<std::unique_ptr<StepExecutor>> executors;
  executors.push_back(std::make_unique<FakeExecutor>(kInventory, nullptr));
  executors.push_back(std::make_unique<FakeExecutor>(kInventory, nullptr));
  StepEnvironment env{&processes, &clock, &sink};
  EXPECT_THAT(StepRunner::Create({}, std::move(executors), env, [](StepResult) {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("two executors")));
}

TEST(StepTypeName, FollowsTheProtoEnum) {
  EXPECT_EQ(StepTypeName(types::v1::STEP_TYPE_CONNECTIVITY_CHECK), "connectivity-check");
  EXPECT_EQ(StepTypeName(types::v1::STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK),
            "installation-disk-speed-check");
  EXPECT_EQ(StepTypeName(types::v1::STEP_TYPE_UNSPECIFIED), "");
  EXPECT_EQ(StepTypeName(static_cast<StepType>(99)), "");
}

}  // namespace
}  // namespace assisted::agent::steps
