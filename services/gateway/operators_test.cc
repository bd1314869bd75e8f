#include "services/gateway/operators.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::gateway {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Json = nlohmann::json;

TEST(Operators, TheTableIsWhatIsListed) {
  EXPECT_THAT(SupportedOperatorNames(), ElementsAre("lso", "lvm"));
  EXPECT_THAT(CheckSupportedOperator("lvm"), IsOk());
  EXPECT_THAT(CheckSupportedOperator("odf"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("operator_name: \"odf\" is not supported by this service yet")));
  EXPECT_THAT(
      CheckSupportedOperator("bogus"),
      StatusIs(absl::StatusCode::kNotFound, HasSubstr("\"bogus\" is not a known operator")));
  EXPECT_THAT(CheckOperatorBundle("virtualization"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("id: \"virtualization\"")));
}

TEST(Operators, ASelectionBecomesOlmMonitoredOperatorsKeepingTheBuiltinOnes) {
  types::v1::Cluster current;
  current.add_monitored_operators()->set_name("console");  // builtin
  current.mutable_monitored_operators(0)->set_operator_type(types::v1::OPERATOR_TYPE_BUILTIN);
  auto decoded = DecodeOperatorSelection(
      "olm_operators", Json::parse(R"([{"name":"lvm","properties":""}])"), &current);
  ASSERT_THAT(decoded, IsOk());
  ASSERT_TRUE(decoded->has_value());
  ASSERT_EQ((*decoded)->size(), 2u);
  EXPECT_EQ((**decoded)[0].name(), "console");
  EXPECT_EQ((**decoded)[1].name(), "lvm");
  EXPECT_EQ((**decoded)[1].operator_type(), types::v1::OPERATOR_TYPE_OLM);
  EXPECT_EQ((**decoded)[1].namespace_(), "openshift-storage");

  // [] deselects every operator; null changes nothing.
  decoded = DecodeOperatorSelection("olm_operators", Json::array(), &current);
  ASSERT_THAT(decoded, IsOk());
  ASSERT_EQ((*decoded)->size(), 1u);
  decoded = DecodeOperatorSelection("olm_operators", Json(), &current);
  ASSERT_THAT(decoded, IsOk());
  EXPECT_FALSE(decoded->has_value());
}

TEST(Operators, WhatCannotBeInstalledIsRefusedNamingTheEntry) {
  EXPECT_THAT(DecodeOperatorSelection("olm_operators",
                                      Json::parse(R"([{"name":"lso"},{"name":"odf"}])"), nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("olm_operators[1].name: \"odf\" is not supported by this "
                                 "service yet")));
  EXPECT_THAT(
      DecodeOperatorSelection("olm_operators",
                              Json::parse(R"([{"name":"lvm","properties":"{\"a\":1}"}])"), nullptr),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("olm_operators[0].properties: the operator has no properties")));
  EXPECT_THAT(DecodeOperatorSelection("operator_bundles", Json::array(), nullptr), IsOk());
  EXPECT_THAT(DecodeOperatorSelection("operator_bundles",
                                      Json::parse(R"([{"id":"virtualization"}])"), nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("operator_bundles[0].id")));
  for (const char* malformed :
       {R"("lvm")", R"([1])", R"([{"name":3}])", R"([{}])", R"([{"name":"lvm","bogus":1}])"}) {
    EXPECT_THAT(DecodeOperatorSelection("olm_operators", Json::parse(malformed), nullptr),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("olm_operators")))
        << malformed;
  }
}

TEST(Operators, PreflightListsTheSelectedOperatorsRequirements) {
  types::v1::Cluster cluster;
  EXPECT_EQ(OperatorPreflightRequirements(cluster), Json::array());
  auto selected =
      DecodeOperatorSelection("olm_operators", Json::parse(R"([{"name":"lvm"}])"), nullptr);
  ASSERT_THAT(selected, IsOk());
  for (auto& op : **selected) *cluster.add_monitored_operators() = op;
  const Json operators = OperatorPreflightRequirements(cluster);
  ASSERT_EQ(operators.size(), 1u);
  EXPECT_EQ(operators[0]["operator_name"], "lvm");
  EXPECT_EQ(operators[0]["requirements"]["master"]["quantitative"],
            (Json{{"cpu_cores", 1}, {"ram_mib", 1200}}));
  EXPECT_EQ(operators[0]["requirements"]["worker"]["qualitative"].size(), 1u);
}

}  // namespace
}  // namespace assisted::gateway
