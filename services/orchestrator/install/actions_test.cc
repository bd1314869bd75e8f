// File: services/orchestrator/install/actions_test.cc
//
// Every user action of InstallActions, accepted and refused, on an in-memory inventory and a
// fake clock: no PostgreSQL, no processes, no sleeping.

#include "services/orchestrator/install/actions.h"

#include <string>

#include "gtest/gtest.h"
#include "lib/random/random.h"
#include "lib/testing/status_matchers.h"
#include "lib/time/clock.h"
#include "services/orchestrator/install/artifacts.h"
#include "services/orchestrator/install/ignition_configs.h"
#include "services/orchestrator/liveness.h"
#include "services/orchestrator/testing/fake_inventory.h"
#include "services/orchestrator/testing/healthy_world.h"

namespace assisted::orchestrator::install {
namespace {

using ::assisted::testing::IsOk;
using orchestrator::testing::AddHealthyCluster;
using orchestrator::testing::HostId;
using orchestrator::testing::kInfraEnvId;
using types::v1::Cluster;
using types::v1::Host;

class InstallActionsTest : public ::testing::Test {
 protected:
  InstallActionsTest() { AddHealthyCluster(inventory_, clock_.Now()); }

  // The healthy cluster, refreshed: ready, its hosts known.
  void MakeReady() {
    absl::StatusOr<Cluster> cluster = actions_.RefreshCluster("c1");
    ASSERT_THAT(cluster, IsOk());
    ASSERT_EQ(cluster->status(), types::v1::CLUSTER_STATUS_READY) << cluster->status_info();
  }

  // Stores `status` as the cluster's (and `host_status` as every host's, when given: then the
  // three are masters, host 1 the bootstrap), as if the tables had moved them there.
  void Store(types::v1::ClusterStatus status,
             types::v1::HostStatus host_status = types::v1::HOST_STATUS_UNSPECIFIED) {
    Cluster cluster = inventory_.Cluster("c1");
    cluster.set_status(status);
    inventory_.AddCluster(cluster);
    if (host_status == types::v1::HOST_STATUS_UNSPECIFIED) return;
    for (int i = 1; i <= 3; ++i) {
      Host host = inventory_.Host(kInfraEnvId, HostId(i));
      host.set_status(host_status);
      host.set_role(types::v1::HOST_ROLE_MASTER);
      host.set_bootstrap(i == 1);
      inventory_.AddHost(host);
    }
  }

  Host StoredHost(int i) const { return inventory_.Host(kInfraEnvId, HostId(i)); }

  static absl::StatusCode CodeOf(const absl::Status& status) { return status.code(); }
  template <typename T>
  static absl::StatusCode CodeOf(const absl::StatusOr<T>& result) {
    return result.status().code();
  }

  FakeClock clock_;
  orchestrator::testing::FakeInventory inventory_{clock_};
  SystemRandom random_;
  LivenessTracker liveness_{"replica-under-test", clock_};
  InventoryEvents events_{inventory_, {}, clock_, log::Logger::Discard()};
  ArtifactGenerator files_{inventory_, clock_, random_, "replica-under-test"};
  Refresher refresher_{inventory_, {}, clock_, liveness_, events_, log::Logger::Discard(), &files_};
  InstallActions actions_{inventory_,
                          {.os_image = {"file:///images/os.raw", std::string(64, 'a')}},
                          clock_,
                          random_,
                          log::Logger::Discard(),
                          {refresher_, events_, files_}};
};

// ---- InstallCluster ------------------------------------------------------------------------

TEST_F(InstallActionsTest, InstallingAReadyClusterPreparesItWithRolesABootstrapAndItsFiles) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  absl::StatusOr<Cluster> cluster = actions_.InstallCluster("c1");
  ASSERT_THAT(cluster, IsOk());
  EXPECT_EQ(cluster->status(), types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION)
      << cluster->status_info();
  int bootstraps = 0;
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(StoredHost(i).role(), types::v1::HOST_ROLE_MASTER);
    bootstraps += StoredHost(i).bootstrap() ? 1 : 0;
  }
  EXPECT_EQ(bootstraps, 1);
  EXPECT_THAT(inventory_.ArtifactContent("c1", kInstallConfigName), IsOk());
  EXPECT_TRUE(inventory_.ArtifactContent("c1", kInstallConfigName)->has_value());
  EXPECT_EQ(inventory_.Cluster("c1").last_installation_preparation().status(),
            types::v1::INSTALLATION_PREPARATION_STATUS_SUCCESS);
}

TEST_F(InstallActionsTest, InstallingAClusterThatIsNotReadyIsRefusedNamingItsStatus) {
  // InstallCluster refreshes first: without its disks, a host keeps the cluster from ready.
  Host host = StoredHost(2);
  host.mutable_inventory()->clear_disks();
  inventory_.AddHost(host);
  Store(types::v1::CLUSTER_STATUS_INSUFFICIENT);
  absl::StatusOr<Cluster> refused = actions_.InstallCluster("c1");
  EXPECT_EQ(CodeOf(refused), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("insufficient"), std::string::npos) << refused.status();
  EXPECT_FALSE(inventory_.ArtifactContent("c1", kInstallConfigName)->has_value());
}

// ---- CancelInstallation --------------------------------------------------------------------

TEST_F(InstallActionsTest, CancellingAnInstallingClusterCancelsItAndItsHosts) {
  Store(types::v1::CLUSTER_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS);
  absl::StatusOr<Cluster> cluster = actions_.CancelInstallation("c1");
  ASSERT_THAT(cluster, IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_CANCELLED);
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(StoredHost(i).status(), types::v1::HOST_STATUS_CANCELLED);
}

TEST_F(InstallActionsTest, CancellingAClusterThatIsNotInstallingIsRefused) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  EXPECT_EQ(CodeOf(actions_.CancelInstallation("c1")), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_READY);
}

// ---- ResetCluster --------------------------------------------------------------------------

TEST_F(InstallActionsTest, ResettingACancelledClusterResetsItsHostsAndDeletesItsFiles) {
  ASSERT_THAT(inventory_.PutArtifact({.cluster_id = "c1",
                                      .name = kInstallConfigName,
                                      .kind = inventory::v1::ARTIFACT_KIND_INSTALL_CONFIG,
                                      .content = "x"}),
              IsOk());
  Store(types::v1::CLUSTER_STATUS_CANCELLED, types::v1::HOST_STATUS_CANCELLED);
  ASSERT_THAT(actions_.ResetCluster("c1"), IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_INSUFFICIENT);
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(StoredHost(i).status(), types::v1::HOST_STATUS_RESETTING_PENDING_USER_ACTION);
  }
  EXPECT_FALSE(inventory_.ArtifactContent("c1", kInstallConfigName)->has_value());
}

TEST_F(InstallActionsTest, ResettingAReadyClusterIsRefused) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  EXPECT_EQ(CodeOf(actions_.ResetCluster("c1")), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_READY);
}

// ---- AllowAddWorkers -----------------------------------------------------------------------

TEST_F(InstallActionsTest, AnInstalledClusterOpensToDay2Hosts) {
  Store(types::v1::CLUSTER_STATUS_INSTALLED, types::v1::HOST_STATUS_INSTALLED);
  absl::StatusOr<Cluster> cluster = actions_.AllowAddWorkers("c1");
  ASSERT_THAT(cluster, IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_ADDING_HOSTS);
  EXPECT_EQ(inventory_.Cluster("c1").kind(), types::v1::CLUSTER_KIND_ADD_HOSTS_CLUSTER);
}

TEST_F(InstallActionsTest, AClusterNotInstalledYetDoesNotOpenToDay2Hosts) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  EXPECT_EQ(CodeOf(actions_.AllowAddWorkers("c1")), absl::StatusCode::kFailedPrecondition);
}

// ---- InstallHost (day 2) -------------------------------------------------------------------

TEST_F(InstallActionsTest, ADay2HostOfAnAddingHostsClusterInstallsAsAWorker) {
  // An installation stored the root CA the day-2 host's Ignition config derives from.
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ASSERT_THAT(actions_.InstallCluster("c1"), IsOk());
  Cluster cluster = inventory_.Cluster("c1");
  cluster.set_kind(types::v1::CLUSTER_KIND_ADD_HOSTS_CLUSTER);
  cluster.set_status(types::v1::CLUSTER_STATUS_ADDING_HOSTS);
  inventory_.AddCluster(cluster);
  Host host = StoredHost(3);
  host.set_status(types::v1::HOST_STATUS_KNOWN);
  host.set_role(types::v1::HOST_ROLE_AUTO_ASSIGN);
  inventory_.AddHost(host);
  absl::StatusOr<Host> installed = actions_.InstallHost(kInfraEnvId, HostId(3));
  ASSERT_THAT(installed, IsOk());
  EXPECT_EQ(installed->status(), types::v1::HOST_STATUS_INSTALLING) << installed->status_info();
  EXPECT_EQ(StoredHost(3).role(), types::v1::HOST_ROLE_WORKER);
  EXPECT_TRUE(inventory_.ArtifactContent("c1", HostIgnitionName(HostId(3)))->has_value());
}

TEST_F(InstallActionsTest, AHostOfAClusterNotAddingHostsIsNotInstalledOnItsOwn) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  EXPECT_EQ(CodeOf(actions_.InstallHost(kInfraEnvId, HostId(1))),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(StoredHost(1).status(), types::v1::HOST_STATUS_KNOWN);
}

// ---- ResetHost -----------------------------------------------------------------------------

TEST_F(InstallActionsTest, AFailedHostIsResetUntilItBootsTheDiscoveryImage) {
  Store(types::v1::CLUSTER_STATUS_ERROR, types::v1::HOST_STATUS_ERROR);
  absl::StatusOr<Host> reset = actions_.ResetHost(kInfraEnvId, HostId(1));
  ASSERT_THAT(reset, IsOk());
  EXPECT_EQ(reset->status(), types::v1::HOST_STATUS_RESETTING_PENDING_USER_ACTION);
}

TEST_F(InstallActionsTest, ADisconnectedHostIsNotReset) {
  Store(types::v1::CLUSTER_STATUS_INSUFFICIENT, types::v1::HOST_STATUS_DISCONNECTED);
  EXPECT_EQ(CodeOf(actions_.ResetHost(kInfraEnvId, HostId(1))),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(StoredHost(1).status(), types::v1::HOST_STATUS_DISCONNECTED);
}

// ---- UpdateHost ----------------------------------------------------------------------------

v1::UpdateHostRequest HostEdit(int i, const std::string& path) {
  v1::UpdateHostRequest request;
  request.set_infra_env_id(kInfraEnvId);
  request.set_host_id(HostId(i));
  request.mutable_update_mask()->add_paths(path);
  return request;
}

TEST_F(InstallActionsTest, AUserChosenRoleIsStoredAndJudged) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  v1::UpdateHostRequest request = HostEdit(1, "role");
  request.mutable_host()->set_role(types::v1::HOST_ROLE_WORKER);
  absl::StatusOr<Host> updated = actions_.UpdateHost(request);
  ASSERT_THAT(updated, IsOk());
  EXPECT_EQ(StoredHost(1).role(), types::v1::HOST_ROLE_WORKER);
  // Two masters cannot make the three the cluster asks for.
  EXPECT_NE(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_READY);
}

TEST_F(InstallActionsTest, ARoleThatIsNoRoleIsRefusedAndNothingChanges) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  v1::UpdateHostRequest request = HostEdit(1, "role");
  request.mutable_host()->set_role(types::v1::HOST_ROLE_BOOTSTRAP);
  EXPECT_EQ(CodeOf(actions_.UpdateHost(request)), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(StoredHost(1).role(), types::v1::HOST_ROLE_AUTO_ASSIGN);
}

TEST_F(InstallActionsTest, AnEligibleInstallationDiskIsStoredWithItsPath) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  v1::UpdateHostRequest request = HostEdit(1, "installation_disk_id");
  request.mutable_host()->set_installation_disk_id(StoredHost(1).inventory().disks(0).id());
  ASSERT_THAT(actions_.UpdateHost(request), IsOk());
  EXPECT_EQ(StoredHost(1).installation_disk_path(), StoredHost(1).inventory().disks(0).path());
}

TEST_F(InstallActionsTest, ADiskTheHostDoesNotHaveIsRefused) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  v1::UpdateHostRequest request = HostEdit(1, "installation_disk_id");
  request.mutable_host()->set_installation_disk_id("no-such-disk");
  EXPECT_EQ(CodeOf(actions_.UpdateHost(request)), absl::StatusCode::kInvalidArgument);
}

TEST_F(InstallActionsTest, AHostIsNotEditedOnceItsInstallationBegan) {
  Store(types::v1::CLUSTER_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING);
  v1::UpdateHostRequest request = HostEdit(1, "requested_hostname");
  request.mutable_host()->set_requested_hostname("late");
  EXPECT_EQ(CodeOf(actions_.UpdateHost(request)), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(StoredHost(1).requested_hostname(), "");
}

TEST_F(InstallActionsTest, AnEditOnAnOlderVersionOfTheHostIsAborted) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  v1::UpdateHostRequest request = HostEdit(1, "requested_hostname");
  request.mutable_host()->set_requested_hostname("stale");
  request.set_resource_version(StoredHost(1).resource_version() - 1);
  EXPECT_EQ(CodeOf(actions_.UpdateHost(request)), absl::StatusCode::kAborted);
}

// ---- ApplyHostProgress ---------------------------------------------------------------------

TEST_F(InstallActionsTest, AnInstallingHostReportingAStageIsInProgressAtThatStage) {
  Store(types::v1::CLUSTER_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING);
  absl::StatusOr<Host> host = actions_.ApplyHostProgress(
      kInfraEnvId, HostId(1), types::v1::HOST_STAGE_STARTING_INSTALLATION, "");
  ASSERT_THAT(host, IsOk());
  EXPECT_EQ(host->status(), types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS) << host->status_info();
  EXPECT_EQ(host->progress().current_stage(), types::v1::HOST_STAGE_STARTING_INSTALLATION);
}

TEST_F(InstallActionsTest, AStageGoingBackwardsIsRefused) {
  Store(types::v1::CLUSTER_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING);
  ASSERT_THAT(actions_.ApplyHostProgress(kInfraEnvId, HostId(1),
                                         types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK, ""),
              IsOk());
  EXPECT_EQ(CodeOf(actions_.ApplyHostProgress(kInfraEnvId, HostId(1),
                                              types::v1::HOST_STAGE_STARTING_INSTALLATION, "")),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(StoredHost(1).progress().current_stage(), types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK);
}

// ---- UpdateFinalizingProgress --------------------------------------------------------------

TEST_F(InstallActionsTest, AFinalizingClusterRecordsItsFinalizingStage) {
  Store(types::v1::CLUSTER_STATUS_FINALIZING, types::v1::HOST_STATUS_INSTALLED);
  ASSERT_THAT(actions_.UpdateFinalizingProgress(
                  "c1", types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS),
              IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").progress().finalizing_stage(),
            types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS);
}

TEST_F(InstallActionsTest, FinalizingStagesOfAClusterNotFinalizingAreRefused) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  EXPECT_EQ(CodeOf(actions_.UpdateFinalizingProgress(
                "c1", types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS)),
            absl::StatusCode::kFailedPrecondition);
}

// ---- ReportOperatorStatus ------------------------------------------------------------------

TEST_F(InstallActionsTest, AMonitoredOperatorsStatusIsRecorded) {
  Cluster cluster = inventory_.Cluster("c1");
  cluster.add_monitored_operators()->set_name("console");
  inventory_.AddCluster(cluster);
  v1::ReportOperatorStatusRequest report;
  report.set_cluster_id("c1");
  report.set_name("console");
  report.set_status(types::v1::OPERATOR_STATUS_AVAILABLE);
  ASSERT_THAT(actions_.ReportOperatorStatus(report), IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").monitored_operators(0).status(),
            types::v1::OPERATOR_STATUS_AVAILABLE);
}

TEST_F(InstallActionsTest, AnOperatorTheClusterDoesNotMonitorIsNotFound) {
  v1::ReportOperatorStatusRequest report;
  report.set_cluster_id("c1");
  report.set_name("nobody");
  report.set_status(types::v1::OPERATOR_STATUS_AVAILABLE);
  EXPECT_EQ(CodeOf(actions_.ReportOperatorStatus(report)), absl::StatusCode::kNotFound);
}

// ---- UploadIngressCert ---------------------------------------------------------------------

TEST_F(InstallActionsTest, TheIngressCaJoinsTheAdminKubeconfig) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ASSERT_THAT(actions_.InstallCluster("c1"), IsOk());  // generates kubeconfig-noingress
  absl::StatusOr<std::optional<std::string>> ca = inventory_.ArtifactContent("c1", kRootCaCertName);
  ASSERT_THAT(ca, IsOk());
  ASSERT_TRUE(ca->has_value());
  ASSERT_THAT(actions_.UploadIngressCert("c1", **ca), IsOk());
  EXPECT_EQ(*inventory_.ArtifactContent("c1", "ingress-ca.crt"), **ca);
  EXPECT_NE(*inventory_.ArtifactContent("c1", kKubeconfigName),
            *inventory_.ArtifactContent("c1", kKubeconfigNoIngressName));
}

TEST_F(InstallActionsTest, AnIngressCaForAClusterWithoutKubeconfigIsRefused) {
  EXPECT_EQ(CodeOf(actions_.UploadIngressCert("c1", "-----BEGIN CERTIFICATE-----")),
            absl::StatusCode::kFailedPrecondition);
}

// ---- CompleteInstallation ------------------------------------------------------------------

TEST_F(InstallActionsTest, TheControllersFailureReportPutsAFinalizingClusterInError) {
  Store(types::v1::CLUSTER_STATUS_FINALIZING, types::v1::HOST_STATUS_INSTALLED);
  ASSERT_THAT(actions_.CompleteInstallation("c1", false, "operators degraded"), IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_ERROR);
  EXPECT_NE(inventory_.Cluster("c1").status_info().find("operators degraded"), std::string::npos);
}

TEST_F(InstallActionsTest, CompletingAnInstallationThatIsNotFinalizingIsRefused) {
  Store(types::v1::CLUSTER_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING);
  EXPECT_EQ(CodeOf(actions_.CompleteInstallation("c1", true, "")),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_INSTALLING);
}

// ---- RegisterAgain -------------------------------------------------------------------------

TEST_F(InstallActionsTest, AKnownHostWhoseAgentRestartedIsDiscoveredAgain) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  absl::StatusOr<Host> host = actions_.RegisterAgain(StoredHost(1));
  ASSERT_THAT(host, IsOk());
  EXPECT_EQ(host->status(), types::v1::HOST_STATUS_DISCOVERING);
}

}  // namespace
}  // namespace assisted::orchestrator::install
