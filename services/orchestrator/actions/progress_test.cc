// File: services/orchestrator/actions/progress_test.cc
//
// Every installation progress report, accepted and refused, on an in-memory inventory and a fake
// clock (actions_test_fixture.h): no PostgreSQL, no processes, no sleeping.

#include "services/orchestrator/actions/progress.h"

#include <string>

#include "gtest/gtest.h"
#include "services/orchestrator/actions/actions_test_fixture.h"

namespace assisted::orchestrator::actions {
namespace {

using ::assisted::testing::IsOk;
using install::kKubeconfigName;
using install::kKubeconfigNoIngressName;
using install::kRootCaCertName;
using orchestrator::testing::HostId;
using orchestrator::testing::kInfraEnvId;
using types::v1::Cluster;
using types::v1::Host;

class ProgressActionsTest : public ActionsTest {};

// ---- ApplyHostProgress ---------------------------------------------------------------------

TEST_F(ProgressActionsTest, AnInstallingHostReportingAStageIsInProgressAtThatStage) {
  Store(types::v1::CLUSTER_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING);
  absl::StatusOr<Host> host = actions_.progress().ApplyHostProgress(
      kInfraEnvId, HostId(1), types::v1::HOST_STAGE_STARTING_INSTALLATION, "");
  ASSERT_THAT(host, IsOk());
  EXPECT_EQ(host->status(), types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS) << host->status_info();
  EXPECT_EQ(host->progress().current_stage(), types::v1::HOST_STAGE_STARTING_INSTALLATION);
}

TEST_F(ProgressActionsTest, AStageGoingBackwardsIsRefused) {
  Store(types::v1::CLUSTER_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING);
  ASSERT_THAT(actions_.progress().ApplyHostProgress(
                  kInfraEnvId, HostId(1), types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK, ""),
              IsOk());
  EXPECT_EQ(CodeOf(actions_.progress().ApplyHostProgress(
                kInfraEnvId, HostId(1), types::v1::HOST_STAGE_STARTING_INSTALLATION, "")),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(StoredHost(1).progress().current_stage(), types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK);
}

TEST_F(ProgressActionsTest, AnOsImageWithTheWrongDigestPutsTheHostInErrorSayingWhy) {
  // What the agent's install step reports when the image it streamed does not match the
  // orchestrator's --os-image-sha256 (services/agent/steps/install_test.cc).
  const std::string reason =
      "the OS image's sha256 is " + std::string(64, 'b') + ", expected " + std::string(64, 'a');
  Store(types::v1::CLUSTER_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING);
  ASSERT_THAT(actions_.progress().ApplyHostProgress(
                  kInfraEnvId, HostId(1), types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK, "0%"),
              IsOk());
  absl::StatusOr<Host> host = actions_.progress().ApplyHostProgress(
      kInfraEnvId, HostId(1), types::v1::HOST_STAGE_FAILED, reason);
  ASSERT_THAT(host, IsOk());
  EXPECT_EQ(host->status(), types::v1::HOST_STATUS_ERROR);
  EXPECT_EQ(host->status_info(), "Installation failed: " + reason);
  EXPECT_EQ(host->progress().current_stage(), types::v1::HOST_STAGE_FAILED);
  EXPECT_EQ(host->progress().progress_info(), reason);
}

// ---- UpdateFinalizingProgress --------------------------------------------------------------

TEST_F(ProgressActionsTest, AFinalizingClusterRecordsItsFinalizingStage) {
  Store(types::v1::CLUSTER_STATUS_FINALIZING, types::v1::HOST_STATUS_INSTALLED);
  ASSERT_THAT(actions_.progress().UpdateFinalizingProgress(
                  "c1", types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS),
              IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").progress().finalizing_stage(),
            types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS);
}

TEST_F(ProgressActionsTest, FinalizingStagesOfAClusterNotFinalizingAreRefused) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  EXPECT_EQ(CodeOf(actions_.progress().UpdateFinalizingProgress(
                "c1", types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS)),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(ProgressActionsTest,
       AFinalizingStageReportedAfterTheClusterInstalledIsAcceptedAndChangesNothing) {
  // A single-node cluster can be installed (all hosts done, kubeconfig stored, no operator to
  // wait for) before the installed OS's reporter sends its finalizing stages; refusing them
  // kept the reporter retrying for ever (sno_install_vm_pg_test).
  Store(types::v1::CLUSTER_STATUS_INSTALLED, types::v1::HOST_STATUS_INSTALLED);
  const Cluster before = inventory_.Cluster("c1");
  absl::StatusOr<Cluster> after = actions_.progress().UpdateFinalizingProgress(
      "c1", types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS);
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->status(), types::v1::CLUSTER_STATUS_INSTALLED);
  EXPECT_EQ(inventory_.Cluster("c1").progress().finalizing_stage(),
            before.progress().finalizing_stage());
}

// ---- ReportOperatorStatus ------------------------------------------------------------------

TEST_F(ProgressActionsTest, AMonitoredOperatorsStatusIsRecorded) {
  Cluster cluster = inventory_.Cluster("c1");
  cluster.add_monitored_operators()->set_name("console");
  inventory_.AddCluster(cluster);
  v1::ReportOperatorStatusRequest report;
  report.set_cluster_id("c1");
  report.set_name("console");
  report.set_status(types::v1::OPERATOR_STATUS_AVAILABLE);
  ASSERT_THAT(actions_.progress().ReportOperatorStatus(report), IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").monitored_operators(0).status(),
            types::v1::OPERATOR_STATUS_AVAILABLE);
}

TEST_F(ProgressActionsTest, AnOperatorTheClusterDoesNotMonitorIsNotFound) {
  v1::ReportOperatorStatusRequest report;
  report.set_cluster_id("c1");
  report.set_name("nobody");
  report.set_status(types::v1::OPERATOR_STATUS_AVAILABLE);
  EXPECT_EQ(CodeOf(actions_.progress().ReportOperatorStatus(report)), absl::StatusCode::kNotFound);
}

// ---- UploadIngressCert ---------------------------------------------------------------------

TEST_F(ProgressActionsTest, TheIngressCaJoinsTheAdminKubeconfig) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ASSERT_THAT(actions_.clusters().InstallCluster("c1"), IsOk());  // generates kubeconfig-noingress
  absl::StatusOr<std::optional<std::string>> ca = inventory_.ArtifactContent("c1", kRootCaCertName);
  ASSERT_THAT(ca, IsOk());
  ASSERT_TRUE(ca->has_value());
  ASSERT_THAT(actions_.progress().UploadIngressCert("c1", **ca), IsOk());
  EXPECT_EQ(*inventory_.ArtifactContent("c1", "ingress-ca.crt"), **ca);
  EXPECT_NE(*inventory_.ArtifactContent("c1", kKubeconfigName),
            *inventory_.ArtifactContent("c1", kKubeconfigNoIngressName));
}

TEST_F(ProgressActionsTest, AnIngressCaForAClusterWithoutKubeconfigIsRefused) {
  EXPECT_EQ(CodeOf(actions_.progress().UploadIngressCert("c1", "-----BEGIN CERTIFICATE-----")),
            absl::StatusCode::kFailedPrecondition);
}

// ---- CompleteInstallation ------------------------------------------------------------------

TEST_F(ProgressActionsTest, TheControllersFailureReportPutsAFinalizingClusterInError) {
  Store(types::v1::CLUSTER_STATUS_FINALIZING, types::v1::HOST_STATUS_INSTALLED);
  ASSERT_THAT(actions_.progress().CompleteInstallation("c1", false, "operators degraded"), IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_ERROR);
  EXPECT_NE(inventory_.Cluster("c1").status_info().find("operators degraded"), std::string::npos);
}

TEST_F(ProgressActionsTest, CompletingAnInstallationThatIsNotFinalizingIsRefused) {
  Store(types::v1::CLUSTER_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING);
  EXPECT_EQ(CodeOf(actions_.progress().CompleteInstallation("c1", true, "")),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_INSTALLING);
}

}  // namespace
}  // namespace assisted::orchestrator::actions
