#include "services/agent/steps/inventory_step.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/agent/steps/test_util.h"

namespace assisted::agent::steps {
namespace {

using testing::ContextHolder;
using ::testing::HasSubstr;
using testing::MakeStep;

constexpr StepType kType = types::v1::STEP_TYPE_INVENTORY;

TEST(InventoryStep, ReportsWhatTheCollectorReturns) {
  const std::string inventory = R"({"cpu":{"count":8},"hostname":"master-0"})";
  InventoryStep step([&]() -> absl::StatusOr<std::string> { return inventory; });
  ContextHolder holder;
  StepContext context = holder.context();
  StepResult result = step.Run(MakeStep(kType, {"8f5b9d1c-0a1e-4c39-9a52-1f3c2a7d6e10"}), context);
  EXPECT_EQ(result.exit_code(), 0) << result.error();
  EXPECT_EQ(result.output(), inventory);
}

TEST(InventoryStep, CollectorFailuresAreExitCodeOne) {
  ContextHolder holder;
  StepContext context = holder.context();
  InventoryStep failing([]() -> absl::StatusOr<std::string> {
    return absl::UnavailableError("/sys/block unreadable");
  });
  StepResult result = failing.Run(MakeStep(kType), context);
  EXPECT_EQ(result.exit_code(), 1);
  EXPECT_THAT(result.error(), HasSubstr("/sys/block unreadable"));
  InventoryStep garbage([]() -> absl::StatusOr<std::string> { return std::string("[1,2"); });
  EXPECT_EQ(garbage.Run(MakeStep(kType), context).exit_code(), 1);
}

TEST(InventoryStep, BadArgumentsAreMinusOne) {
  InventoryStep step([]() -> absl::StatusOr<std::string> { return std::string("{}"); });
  ContextHolder holder;
  StepContext context = holder.context();
  EXPECT_EQ(step.Run(MakeStep(kType, {"not a host id"}), context).exit_code(), -1);
  EXPECT_EQ(step.Run(MakeStep(kType, {"a", "b"}), context).exit_code(), -1);
}

}  // namespace
}  // namespace assisted::agent::steps
