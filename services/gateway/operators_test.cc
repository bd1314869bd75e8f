#include "services/gateway/operators.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::gateway {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using Json = nlohmann::json;

TEST(Operators, NoneCanBeInstalledYetSoTheListsAreEmpty) {
  EXPECT_TRUE(SupportedOperators().empty());
  EXPECT_TRUE(OperatorBundles().empty());
  EXPECT_THAT(CheckSupportedOperator("lvm"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("operator_name: \"lvm\"")));
  EXPECT_THAT(CheckOperatorBundle("virtualization"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("id: \"virtualization\"")));
}

TEST(Operators, AnEmptySelectionIsAcceptedAndAnyOtherIsRefusedNamingTheEntry) {
  EXPECT_THAT(CheckOperatorSelection("olm_operators", Json()), IsOk());
  EXPECT_THAT(CheckOperatorSelection("olm_operators", Json::array()), IsOk());
  EXPECT_THAT(CheckOperatorSelection("olm_operators", Json::parse(R"([{"name":"lvm"}])")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("olm_operators[0].name: \"lvm\" cannot be selected")));
  EXPECT_THAT(
      CheckOperatorSelection("operator_bundles", Json::parse(R"([{"id":"virtualization"}])")),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("operator_bundles[0].id")));
  for (const char* malformed : {R"("lvm")", R"([1])", R"([{"name":3}])", R"([{}])"}) {
    EXPECT_THAT(CheckOperatorSelection("olm_operators", Json::parse(malformed)),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("olm_operators")))
        << malformed;
  }
}

}  // namespace
}  // namespace assisted::gateway
