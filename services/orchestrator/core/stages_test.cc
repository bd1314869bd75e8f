#include "services/orchestrator/core/stages.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::orchestrator::core {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using namespace types::v1;  // NOLINT: stages read better unqualified

TEST(Stages, ProfilesFollowRoleBootstrapAndTopology) {
  EXPECT_EQ(ProfileOf(HOST_ROLE_MASTER, false, false), StageProfile::kMaster);
  EXPECT_EQ(ProfileOf(HOST_ROLE_MASTER, true, false), StageProfile::kBootstrap);
  EXPECT_EQ(ProfileOf(HOST_ROLE_BOOTSTRAP, false, false), StageProfile::kBootstrap);
  EXPECT_EQ(ProfileOf(HOST_ROLE_ARBITER, false, false), StageProfile::kMaster);
  EXPECT_EQ(ProfileOf(HOST_ROLE_WORKER, false, false), StageProfile::kWorker);
  EXPECT_EQ(ProfileOf(HOST_ROLE_MASTER, true, true), StageProfile::kSno);
}

TEST(Stages, ListsEndWithDoneAndMatchTheReference) {
  EXPECT_EQ(StagesFor(StageProfile::kBootstrap).size(), 11u);
  EXPECT_EQ(StagesFor(StageProfile::kMaster).size(), 8u);
  EXPECT_EQ(StagesFor(StageProfile::kWorker).size(), 9u);
  EXPECT_EQ(StagesFor(StageProfile::kSno).size(), 8u);
  for (StageProfile p : {StageProfile::kBootstrap, StageProfile::kMaster, StageProfile::kWorker,
                         StageProfile::kSno}) {
    EXPECT_EQ(StagesFor(p).front(), HOST_STAGE_STARTING_INSTALLATION);
    EXPECT_EQ(StagesFor(p).back(), HOST_STAGE_DONE);
  }
  // Single-node waits for bootkube before writing its disk.
  EXPECT_EQ(StagesFor(StageProfile::kSno)[2], HOST_STAGE_WAITING_FOR_BOOTKUBE);
}

TEST(Stages, PercentageIsStageIndexOverListLength) {
  EXPECT_EQ(InstallationPercentage(StageProfile::kWorker, HOST_STAGE_UNSPECIFIED), 0);
  EXPECT_EQ(InstallationPercentage(StageProfile::kWorker, HOST_STAGE_STARTING_INSTALLATION), 11);
  EXPECT_EQ(InstallationPercentage(StageProfile::kWorker, HOST_STAGE_REBOOTING), 55);
  EXPECT_EQ(InstallationPercentage(StageProfile::kMaster, HOST_STAGE_REBOOTING), 62);
  EXPECT_EQ(InstallationPercentage(StageProfile::kMaster, HOST_STAGE_DONE), 100);
  EXPECT_EQ(InstallationPercentage(StageProfile::kMaster, HOST_STAGE_WAITING_FOR_IGNITION), 0);
  EXPECT_EQ(InstallationPercentage(StageProfile::kMaster, HOST_STAGE_FAILED), 0);
}

TEST(Stages, AfterRebootTheAgentIsGone) {
  EXPECT_FALSE(IsAfterReboot(HOST_STAGE_WAITING_FOR_CONTROL_PLANE));
  EXPECT_FALSE(IsAfterReboot(HOST_STAGE_UNSPECIFIED));
  EXPECT_TRUE(IsAfterReboot(HOST_STAGE_REBOOTING));
  EXPECT_TRUE(IsAfterReboot(HOST_STAGE_DONE));
}

TEST(Stages, StagesOnlyMoveForward) {
  EXPECT_THAT(CheckStageUpdate(StageProfile::kMaster, HOST_STAGE_UNSPECIFIED,
                               HOST_STAGE_STARTING_INSTALLATION),
              IsOk());
  EXPECT_THAT(CheckStageUpdate(StageProfile::kMaster, HOST_STAGE_INSTALLING, HOST_STAGE_INSTALLING),
              IsOk());
  EXPECT_THAT(CheckStageUpdate(StageProfile::kMaster, HOST_STAGE_REBOOTING, HOST_STAGE_FAILED),
              IsOk());
  EXPECT_THAT(CheckStageUpdate(StageProfile::kMaster, HOST_STAGE_REBOOTING, HOST_STAGE_INSTALLING),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("at \"Rebooting\" and reported \"Installing\"")));
  EXPECT_THAT(
      CheckStageUpdate(StageProfile::kWorker, HOST_STAGE_INSTALLING,
                       HOST_STAGE_WAITING_FOR_BOOTKUBE),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a stage of a worker host")));
}

}  // namespace
}  // namespace assisted::orchestrator::core
