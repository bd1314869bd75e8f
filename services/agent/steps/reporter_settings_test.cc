#include "services/agent/steps/reporter_settings.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"

namespace assisted::agent::steps {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

ReporterSettings Example() {
  ReporterSettings settings;
  settings.access = {
      .orchestrator_address = "10.0.2.100:9090",
      .tls = true,
      .ca_bundle_pem = "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n",
      .controller_token = "secret-token",
      .infra_env_id = "11111111-1111-1111-1111-111111111111"};
  settings.cluster_id = "22222222-2222-2222-2222-222222222222";
  settings.host_id = "33333333-3333-3333-3333-333333333333";
  settings.role = "master";
  settings.bootstrap = true;
  settings.sno = true;
  settings.olm_operators = {"lvm"};
  return settings;
}

TEST(ReporterSettingsTest, RoundTrips) {
  const ReporterSettings example = Example();
  auto parsed = ParseReporterSettings(ReporterSettingsJson(example));
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(parsed->access.orchestrator_address, example.access.orchestrator_address);
  EXPECT_TRUE(parsed->access.tls);
  EXPECT_EQ(parsed->access.ca_bundle_pem, example.access.ca_bundle_pem);
  EXPECT_EQ(parsed->access.controller_token, "secret-token");
  EXPECT_EQ(parsed->access.infra_env_id, example.access.infra_env_id);
  EXPECT_EQ(parsed->cluster_id, example.cluster_id);
  EXPECT_EQ(parsed->host_id, example.host_id);
  EXPECT_EQ(parsed->role, "master");
  EXPECT_TRUE(parsed->bootstrap);
  EXPECT_TRUE(parsed->sno);
  EXPECT_EQ(parsed->olm_operators, std::vector<std::string>{"lvm"});
}

TEST(ReporterSettingsTest, BadSettingsNameTheirField) {
  EXPECT_THAT(ParseReporterSettings("not json"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("JSON object")));
  auto without = [](const std::string& field) {
    nlohmann::json object = nlohmann::json::parse(ReporterSettingsJson(Example()));
    object.erase(field);
    return object.dump();
  };
  for (const std::string field :
       {"orchestrator_address", "infra_env_id", "cluster_id", "host_id", "role"}) {
    EXPECT_THAT(ParseReporterSettings(without(field)),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(field)))
        << field;
  }
  nlohmann::json object = nlohmann::json::parse(ReporterSettingsJson(Example()));
  object["role"] = "arbiter";
  EXPECT_THAT(ParseReporterSettings(object.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("role")));
  object = nlohmann::json::parse(ReporterSettingsJson(Example()));
  object["host_id"] = "../etc";
  EXPECT_THAT(ParseReporterSettings(object.dump()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("host_id")));
}

}  // namespace
}  // namespace assisted::agent::steps
