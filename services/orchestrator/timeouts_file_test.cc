#include "services/orchestrator/timeouts_file.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::orchestrator {
namespace {

using ::assisted::testing::IsOk;
using ::testing::HasSubstr;
using namespace types::v1;  // NOLINT

TEST(TimeoutsFile, AnEmptyDocumentKeepsTheDefaults) {
  core::Timeouts defaults;
  defaults.host.disconnection = absl::Seconds(7);
  absl::StatusOr<core::Timeouts> applied = ApplyTimeoutsYaml("", defaults);
  ASSERT_THAT(applied, IsOk());
  EXPECT_EQ(applied->host.disconnection, absl::Seconds(7));
  EXPECT_EQ(applied->cluster.installation, absl::Hours(24));
}

TEST(TimeoutsFile, NamedLimitsReplaceTheirDefaultsOnly) {
  absl::StatusOr<core::Timeouts> applied = ApplyTimeoutsYaml(R"(
host:
  disconnection: 90s
  prepare: 1h30m
  stages:
    Writing image to disk: 45m
    Rebooting: 2h
cluster:
  installation: 12h
  finalizing_stages:
    Waiting for cluster operators: 3h
  finalizing_stages_soft:
    Waiting for cluster operators: 20m
)",
                                                             core::Timeouts{});
  ASSERT_THAT(applied, IsOk());
  EXPECT_EQ(applied->host.disconnection, absl::Seconds(90));
  EXPECT_EQ(applied->host.prepare, absl::Minutes(90));
  EXPECT_EQ(applied->host.Stage(HOST_STAGE_WRITING_IMAGE_TO_DISK, false), absl::Minutes(45));
  EXPECT_EQ(applied->host.Stage(HOST_STAGE_REBOOTING, false), absl::Hours(2));
  EXPECT_EQ(applied->host.Stage(HOST_STAGE_CONFIGURING, false), absl::Minutes(60));
  EXPECT_EQ(applied->host.reclaim, absl::Minutes(60));
  EXPECT_EQ(applied->cluster.installation, absl::Hours(12));
  EXPECT_EQ(applied->cluster.FinalizingStage(FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS, false,
                                             absl::ZeroDuration()),
            absl::Hours(3));
  EXPECT_EQ(applied->cluster.FinalizingStage(FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS, true,
                                             absl::ZeroDuration()),
            absl::Minutes(20));
}

struct Rejected {
  const char* yaml;
  const char* message;
};

class TimeoutsFileRejects : public ::testing::TestWithParam<Rejected> {};

TEST_P(TimeoutsFileRejects, NamingTheKey) {
  absl::StatusOr<core::Timeouts> applied = ApplyTimeoutsYaml(GetParam().yaml, core::Timeouts{});
  ASSERT_FALSE(applied.ok()) << GetParam().yaml;
  EXPECT_EQ(applied.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(applied.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    BadDocuments, TimeoutsFileRejects,
    ::testing::Values(
        Rejected{"host: {disconection: 3m}", "host.disconection: unknown key; known: "},
        Rejected{"host: {prepare: soon}", "host.prepare: \"soon\" is not a duration"},
        Rejected{"host: {prepare: -1m}", "host.prepare: \"-1m\" must be positive"},
        Rejected{"host: {prepare: 0s}", "must be positive"},
        Rejected{"host: {prepare: inf}", "must be positive and finite"},
        Rejected{"host: {prepare: [1m]}", "host.prepare: must be a duration"},
        Rejected{"host: {stages: {Writing image: 3m}}",
                 "host.stages.Writing image: not a stage; stages: "},
        Rejected{"host: {stages: 3m}", "host.stages: must be a mapping"},
        Rejected{"cluster: {finalizing_stages: {Done: x}}", "cluster.finalizing_stages.Done"},
        Rejected{"clusters: {}", "clusters: unknown key; known: cluster, host"},
        Rejected{"host: 3m", "host: must be a mapping"},
        Rejected{"- a\n- b", "(document): must be a mapping"},
        Rejected{"host: {prepare: [", "not YAML"}, Rejected{"? [a, b]\n: 1m", "timeouts: "}));

}  // namespace
}  // namespace assisted::orchestrator
