#include "services/orchestrator/core/timeouts.h"

#include "gtest/gtest.h"

namespace assisted::orchestrator::core {
namespace {

using namespace types::v1;  // NOLINT

TEST(Timeouts, DefaultsAreTheReferences) {
  HostTimeouts h;
  EXPECT_EQ(h.disconnection, absl::Minutes(3));
  EXPECT_EQ(h.bootstrap_extra_disconnection, absl::Minutes(2));
  EXPECT_EQ(h.installing_without_progress, absl::Minutes(20));
  EXPECT_EQ(h.pending_user_action, absl::Minutes(60));
  EXPECT_EQ(h.reclaim, absl::Minutes(60));
  ClusterTimeouts c;
  EXPECT_EQ(c.prepare, absl::Minutes(10));
  EXPECT_EQ(c.installation, absl::Hours(24));
  EXPECT_EQ(c.finalizing, absl::Hours(5));
}

TEST(Timeouts, PreparationFitsBothChecksPlusAMinute) {
  HostTimeouts h;
  EXPECT_EQ(h.EffectivePrepare(), absl::Minutes(17));
  h.prepare = absl::Minutes(30);
  EXPECT_EQ(h.EffectivePrepare(), absl::Minutes(30));
}

TEST(Timeouts, StageLimits) {
  HostTimeouts h;
  EXPECT_EQ(h.Stage(HOST_STAGE_WRITING_IMAGE_TO_DISK, false), absl::Minutes(30));
  EXPECT_EQ(h.Stage(HOST_STAGE_COPYING_REGISTRY_DATA_TO_DISK, false), absl::Minutes(90));
  EXPECT_EQ(h.Stage(HOST_STAGE_WAITING_FOR_IGNITION, false), absl::Hours(24));
  EXPECT_EQ(h.Stage(HOST_STAGE_REBOOTING, false), absl::Minutes(40));
  EXPECT_EQ(h.Stage(HOST_STAGE_REBOOTING, true), absl::Minutes(80));
  EXPECT_EQ(h.Stage(HOST_STAGE_DONE, false), absl::Minutes(60));
}

TEST(Timeouts, FinalizingStageLimitsHardSoftAndOperators) {
  ClusterTimeouts c;
  auto stage = FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS;
  EXPECT_EQ(c.FinalizingStage(stage, false, absl::ZeroDuration()), absl::Hours(10));
  EXPECT_EQ(c.FinalizingStage(stage, true, absl::ZeroDuration()), absl::Minutes(70));
  EXPECT_EQ(c.FinalizingStage(FINALIZING_STAGE_APPLYING_OLM_MANIFESTS, true, absl::ZeroDuration()),
            absl::Minutes(10));
  EXPECT_EQ(
      c.FinalizingStage(FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV, false, absl::Hours(2)),
      absl::Hours(2));
}

TEST(Timeouts, LogCollection) {
  absl::Time t0 = absl::FromUnixSeconds(1000);
  auto timed_out = [&](LogsState s, absl::Duration elapsed) {
    return LogCollectionTimedOut(s, t0, t0 + elapsed, absl::Minutes(2), absl::Minutes(10));
  };
  EXPECT_FALSE(timed_out(LOGS_STATE_REQUESTED, absl::Minutes(2)));
  EXPECT_TRUE(timed_out(LOGS_STATE_REQUESTED, absl::Minutes(3)));
  EXPECT_FALSE(timed_out(LOGS_STATE_COLLECTING, absl::Minutes(9)));
  EXPECT_TRUE(timed_out(LOGS_STATE_COLLECTING, absl::Minutes(11)));
  EXPECT_FALSE(timed_out(LOGS_STATE_COMPLETED, absl::Hours(11)));
}

}  // namespace
}  // namespace assisted::orchestrator::core
