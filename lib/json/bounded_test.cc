#include "lib/json/bounded.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::untrusted {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(CheckJsonBounds, AcceptsDocumentsWithinBothLimits) {
  EXPECT_THAT(CheckJsonBounds(R"({"a":[1,{"b":[]}],"c":"x"})", "doc"), IsOk());
  EXPECT_THAT(CheckJsonBounds(Nested(3), "doc", {.max_bytes = 6, .max_depth = 3}), IsOk());
  EXPECT_THAT(CheckJsonBounds("", "doc"), IsOk());
}

TEST(CheckJsonBounds, RefusesNestingDeeperThanTheLimitNamingTheField) {
  EXPECT_THAT(CheckJsonBounds(Nested(4), "step_result.output", {.max_depth = 3}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("step_result.output"), HasSubstr("3 levels"))));
}

TEST(CheckJsonBounds, RefusesAHugelyNestedDocumentWithoutRecursing) {
  // A million levels would overflow any recursive walker's stack.
  EXPECT_THAT(CheckJsonBounds(Nested(1'000'000), "doc", {.max_bytes = 2'000'000}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(CheckJsonBounds, RefusesTextLongerThanTheLimitNamingTheField) {
  EXPECT_THAT(CheckJsonBounds(std::string(11, ' '), "inventory", {.max_bytes = 10}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("inventory"), HasSubstr("limit of 10"))));
}

TEST(CheckJsonBounds, BracketsInsideStringsDoNotCount) {
  EXPECT_THAT(CheckJsonBounds(R"(["[[[[{{{{", "\"[[[["])", "doc", {.max_depth = 1}), IsOk());
}

TEST(CheckJsonBounds, ExtraClosersDoNotBuyDepth) {
  EXPECT_THAT(CheckJsonBounds("]]]]" + Nested(3), "doc", {.max_depth = 2}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace assisted::untrusted
