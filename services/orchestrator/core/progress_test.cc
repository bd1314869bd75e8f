#include "services/orchestrator/core/progress.h"

#include "gtest/gtest.h"

namespace assisted::orchestrator::core {
namespace {

using namespace types::v1;  // NOLINT

ClusterProgressInput Cluster(ClusterStatus status, HostStatus host_status, HostStage stage) {
  ClusterProgressInput in;
  in.status = status;
  for (int i = 0; i < 3; ++i) in.hosts.push_back({HOST_ROLE_MASTER, i == 0, host_status, stage});
  in.hosts.push_back({HOST_ROLE_WORKER, false, host_status, stage});
  return in;
}

TEST(Progress, HostPercentageFollowsItsRoleStages) {
  EXPECT_EQ(HostPercentage(
                {HOST_ROLE_WORKER, false, HOST_STATUS_INSTALLING_IN_PROGRESS, HOST_STAGE_REBOOTING},
                false),
            55);
  EXPECT_EQ(HostPercentage(
                {HOST_ROLE_MASTER, true, HOST_STATUS_INSTALLING_IN_PROGRESS, HOST_STAGE_REBOOTING},
                false),
            72);  // bootstrap: 8th of 11
  EXPECT_EQ(
      HostPercentage({HOST_ROLE_MASTER, false, HOST_STATUS_INSTALLED, HOST_STAGE_JOINED}, false),
      100);
}

TEST(Progress, PhasesWeighTenSeventyFifteen) {
  ClusterProgress none;
  ClusterProgress p =
      ComputeClusterProgress(Cluster(CLUSTER_STATUS_PREPARING_FOR_INSTALLATION,
                                     HOST_STATUS_PREPARING_SUCCESSFUL, HOST_STAGE_UNSPECIFIED),
                             none);
  EXPECT_EQ(p.preparing_for_installation_stage_percentage(), 100);
  EXPECT_EQ(p.total_percentage(), 10);

  p = ComputeClusterProgress(
      Cluster(CLUSTER_STATUS_INSTALLING, HOST_STATUS_INSTALLING_IN_PROGRESS, HOST_STAGE_DONE), p);
  EXPECT_EQ(p.installing_stage_percentage(), 100);
  EXPECT_EQ(p.total_percentage(), 80);

  ClusterProgressInput fin =
      Cluster(CLUSTER_STATUS_FINALIZING, HOST_STATUS_INSTALLED, HOST_STAGE_DONE);
  fin.operators = 4;
  fin.operators_available = 2;
  p = ComputeClusterProgress(fin, p);
  EXPECT_EQ(p.finalizing_stage_percentage(), 50);
  EXPECT_EQ(p.total_percentage(), 88);

  p = ComputeClusterProgress(
      Cluster(CLUSTER_STATUS_INSTALLED, HOST_STATUS_INSTALLED, HOST_STAGE_DONE), p);
  EXPECT_EQ(p.total_percentage(), 100);
}

TEST(Progress, FinalizingWithoutOperatorsUsesTheStage) {
  ClusterProgressInput fin =
      Cluster(CLUSTER_STATUS_FINALIZING, HOST_STATUS_INSTALLED, HOST_STAGE_DONE);
  fin.finalizing_stage = FINALIZING_STAGE_APPLYING_OLM_MANIFESTS;  // 3 of 7
  EXPECT_EQ(ComputeClusterProgress(fin, {}).finalizing_stage_percentage(), 42);
}

TEST(Progress, NeverGoesBackwardsDuringAnInstallation) {
  ClusterProgress high;
  high.set_installing_stage_percentage(60);
  high.set_total_percentage(52);
  // A host dropped to error: the mean falls, the figure does not.
  ClusterProgress p = ComputeClusterProgress(
      Cluster(CLUSTER_STATUS_INSTALLING, HOST_STATUS_ERROR, HOST_STAGE_INSTALLING), high);
  EXPECT_EQ(p.installing_stage_percentage(), 60);
  EXPECT_GE(p.total_percentage(), 52);
}

TEST(Progress, ANewInstallationStartsFromZero) {
  ClusterProgress high;
  high.set_total_percentage(80);
  ClusterProgress p = ComputeClusterProgress(
      Cluster(CLUSTER_STATUS_INSUFFICIENT, HOST_STATUS_KNOWN, HOST_STAGE_UNSPECIFIED), high);
  EXPECT_EQ(p.total_percentage(), 0);
}

}  // namespace
}  // namespace assisted::orchestrator::core
