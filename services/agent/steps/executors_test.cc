// The real executors behind a StepRunner: every type is served once, bad input and unknown
// types come back as -1 results, and a step that overruns its deadline is reported as -1.

#include "services/agent/steps/executors.h"

#include <set>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/steps/orchestrator_view.h"
#include "services/agent/steps/step_runner.h"
#include "services/agent/steps/test_util.h"

namespace assisted::agent::steps {
namespace {

using ::assisted::testing::IsOk;
using ::testing::HasSubstr;
using testing::MakeStep;

TEST(MakeExecutors, CoversEachTypeOnce) {
  std::set<int> types;
  for (const auto& e : MakeExecutors({}, nullptr)) {
    EXPECT_TRUE(types.insert(e->type()).second) << StepTypeName(e->type());
    EXPECT_GT(e->default_timeout(), absl::ZeroDuration());
  }
  EXPECT_EQ(types.size(), 12u);
}

class RunnerWithRealExecutors : public ::testing::Test {
 protected:
  void Start(ExecutorsConfig config) {
    StepEnvironment env{&processes_, &clock_, &sink_};
    auto runner = StepRunner::Create(
        {.watchdog_tick = absl::Milliseconds(10)},
        MakeExecutors(std::move(config),
                      []() -> absl::StatusOr<std::string> { return std::string(R"({"cpu":{}})"); }),
        env, [this](StepResult r) {
          absl::MutexLock lock(&mu_);
          results_.push_back(std::move(r));
        });
    ASSERT_THAT(runner, IsOk());
    runner_ = *std::move(runner);
  }
  std::vector<StepResult> Await(size_t n) {
    absl::MutexLock lock(&mu_);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return results_.size() >= n; };
    mu_.Await(absl::Condition(&enough));
    return results_;
  }
  StepResult ById(const std::vector<StepResult>& results, const std::string& id) {
    for (const StepResult& r : results) {
      if (r.step_id() == id) return r;
    }
    ADD_FAILURE() << "no result for " << id;
    return StepResult();
  }

  process::LocalProcessRunner processes_;
  RealClock clock_;
  testing::CollectingSink sink_;
  absl::Mutex mu_;
  std::vector<StepResult> results_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<StepRunner> runner_;
};

TEST_F(RunnerWithRealExecutors, AnswersGoodBadAndUnknownSteps) {
  Start({});
  ASSERT_THAT(runner_->Submit(MakeStep(types::v1::STEP_TYPE_INVENTORY)), IsOk());
  ASSERT_THAT(runner_->Submit(MakeStep(types::v1::STEP_TYPE_DOMAIN_RESOLUTION,
                                       {R"({"domains":[{"domain_name":"localhost"}]})"})),
              IsOk());
  ASSERT_THAT(runner_->Submit(MakeStep(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, {"[not json"})),
              IsOk());
  ASSERT_THAT(runner_->Submit(MakeStep(types::v1::STEP_TYPE_DHCP_LEASE_ALLOCATE, {"{}"})), IsOk());
  std::vector<StepResult> results = Await(4);

  StepResult inventory = ById(results, "inventory-00000001");
  EXPECT_EQ(inventory.exit_code(), 0);
  EXPECT_EQ(inventory.output(), R"({"cpu":{}})");
  StepResult domains = ById(results, "domain-resolution-00000001");
  EXPECT_EQ(domains.exit_code(), 0) << domains.error();
  EXPECT_THAT(testing::OrchestratorDomains(domains), IsOk());
  StepResult ntp = ById(results, "ntp-synchronizer-00000001");
  EXPECT_EQ(ntp.exit_code(), -1);
  EXPECT_THAT(ntp.error(), HasSubstr("invalid arguments"));
  StepResult dhcp = ById(results, "dhcp-lease-allocate-00000001");
  EXPECT_EQ(dhcp.exit_code(), -1);
  EXPECT_THAT(dhcp.error(), HasSubstr("does not run \"dhcp-lease-allocate\""));
}

TEST_F(RunnerWithRealExecutors, StepOverrunningItsDeadlineIsMinusOne) {
  // logs-gather whose first command would take 5 s, inside a 300 ms step: the command is killed
  // when the step's time is up and the step is reported as overrun.
  ExecutorsConfig config;
  config.logs.commands = {{"slow.log", {"sleep", "5"}}};
  config.logs.paths = {};
  config.logs.work_dir = ::testing::TempDir();
  Start(config);

  Step step = MakeStep(types::v1::STEP_TYPE_LOGS_GATHER, {"{}"});
  step.mutable_timeout()->set_nanos(300'000'000);
  const absl::Time start = absl::Now();
  ASSERT_THAT(runner_->Submit(step), IsOk());
  std::vector<StepResult> results = Await(1);
  EXPECT_EQ(results[0].exit_code(), -1);
  EXPECT_THAT(results[0].error(), HasSubstr("deadline"));
  runner_->Stop();  // waits for the executor to return
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  EXPECT_EQ(Await(1).size(), 1u);  // its own late result was dropped
  EXPECT_TRUE(sink_.chunks().empty() || sink_.chunks().back().last());
}

}  // namespace
}  // namespace assisted::agent::steps
