// File: services/orchestrator/actions/cluster_actions_test.cc
//
// Every user action on a cluster, accepted and refused, on an in-memory inventory and a fake clock
// (actions_test_fixture.h): no PostgreSQL, no processes, no sleeping.

#include "services/orchestrator/actions/cluster_actions.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "services/orchestrator/actions/actions_test_fixture.h"
#include "services/orchestrator/core/testing_fixtures.h"

namespace assisted::orchestrator::actions {
namespace {

using ::assisted::testing::IsOk;
using install::kInstallConfigName;
using types::v1::Cluster;
using types::v1::Host;

class ClusterActionsTest : public ActionsTest {};

// ---- InstallCluster ------------------------------------------------------------------------

TEST_F(ClusterActionsTest, InstallingAReadyClusterPreparesItWithRolesABootstrapAndItsFiles) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  absl::StatusOr<Cluster> cluster = actions_.clusters().InstallCluster("c1");
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

// Agent-based installs: node 0 holds the infra-env's rendezvous IP and runs the service, so it
// must be the bootstrap host (the last to reboot). Without the IP the chooser takes host 3.
TEST_F(ClusterActionsTest, TheHostHoldingTheInfraEnvsRendezvousIpIsTheBootstrapHost) {
  types::v1::InfraEnv infra_env = *inventory_.GetInfraEnv(orchestrator::testing::kInfraEnvId);
  infra_env.set_rendezvous_ip(core::testing::Ip(1));
  inventory_.AddInfraEnv(infra_env, "signing-key");
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ASSERT_THAT(actions_.clusters().InstallCluster("c1"), IsOk());
  EXPECT_TRUE(StoredHost(1).bootstrap());
  EXPECT_FALSE(StoredHost(2).bootstrap());
  EXPECT_FALSE(StoredHost(3).bootstrap());
}

TEST_F(ClusterActionsTest, InstallingAClusterThatIsNotReadyIsRefusedNamingItsStatus) {
  // InstallCluster refreshes first: without its disks, a host keeps the cluster from ready.
  Host host = StoredHost(2);
  host.mutable_inventory()->clear_disks();
  inventory_.AddHost(host);
  Store(types::v1::CLUSTER_STATUS_INSUFFICIENT);
  absl::StatusOr<Cluster> refused = actions_.clusters().InstallCluster("c1");
  EXPECT_EQ(CodeOf(refused), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("insufficient"), std::string::npos) << refused.status();
  EXPECT_FALSE(inventory_.ArtifactContent("c1", kInstallConfigName)->has_value());
}

// ---- CancelInstallation --------------------------------------------------------------------

TEST_F(ClusterActionsTest, CancellingAnInstallingClusterCancelsItAndItsHosts) {
  Store(types::v1::CLUSTER_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS);
  absl::StatusOr<Cluster> cluster = actions_.clusters().CancelInstallation("c1");
  ASSERT_THAT(cluster, IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_CANCELLED);
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(StoredHost(i).status(), types::v1::HOST_STATUS_CANCELLED);
}

TEST_F(ClusterActionsTest, CancellingAClusterThatIsNotInstallingIsRefused) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  EXPECT_EQ(CodeOf(actions_.clusters().CancelInstallation("c1")),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_READY);
}

// ---- ResetCluster --------------------------------------------------------------------------

TEST_F(ClusterActionsTest, ResettingACancelledClusterResetsItsHostsAndDeletesItsFiles) {
  ASSERT_THAT(inventory_.PutArtifact({.cluster_id = "c1",
                                      .name = kInstallConfigName,
                                      .kind = inventory::v1::ARTIFACT_KIND_INSTALL_CONFIG,
                                      .content = "x"}),
              IsOk());
  Store(types::v1::CLUSTER_STATUS_CANCELLED, types::v1::HOST_STATUS_CANCELLED);
  ASSERT_THAT(actions_.clusters().ResetCluster("c1"), IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_INSUFFICIENT);
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(StoredHost(i).status(), types::v1::HOST_STATUS_RESETTING_PENDING_USER_ACTION);
  }
  EXPECT_FALSE(inventory_.ArtifactContent("c1", kInstallConfigName)->has_value());
}

TEST_F(ClusterActionsTest, ResettingAReadyClusterIsRefused) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  EXPECT_EQ(CodeOf(actions_.clusters().ResetCluster("c1")), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_READY);
}

// ---- AllowAddWorkers -----------------------------------------------------------------------

TEST_F(ClusterActionsTest, AnInstalledClusterOpensToDay2Hosts) {
  Store(types::v1::CLUSTER_STATUS_INSTALLED, types::v1::HOST_STATUS_INSTALLED);
  absl::StatusOr<Cluster> cluster = actions_.clusters().AllowAddWorkers("c1");
  ASSERT_THAT(cluster, IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_ADDING_HOSTS);
  EXPECT_EQ(inventory_.Cluster("c1").kind(), types::v1::CLUSTER_KIND_ADD_HOSTS_CLUSTER);
}

TEST_F(ClusterActionsTest, AClusterNotInstalledYetDoesNotOpenToDay2Hosts) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  EXPECT_EQ(CodeOf(actions_.clusters().AllowAddWorkers("c1")),
            absl::StatusCode::kFailedPrecondition);
}

// ---- Customisations ------------------------------------------------------------------------

TEST_F(ClusterActionsTest, IgnoredValidationsAreStoredWhenKnownAndIgnorable) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  v1::SetIgnoredValidationsRequest request;
  request.set_cluster_id("c1");
  request.add_ignored_host_validations("has-min-cpu-cores");
  request.add_ignored_cluster_validations("all");
  ASSERT_THAT(actions_.clusters().SetIgnoredValidations(request), IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").ignored_host_validations(0), "has-min-cpu-cores");
  EXPECT_EQ(inventory_.Cluster("c1").ignored_cluster_validations(0), "all");

  for (const char* bad : {"connected", "no-such-check", "pull-secret-set"}) {
    v1::SetIgnoredValidationsRequest refused;
    refused.set_cluster_id("c1");
    refused.add_ignored_host_validations(bad);
    absl::StatusOr<Cluster> result = actions_.clusters().SetIgnoredValidations(refused);
    EXPECT_EQ(CodeOf(result), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(result.status().message().find(bad), std::string::npos) << result.status();
  }
  EXPECT_EQ(inventory_.Cluster("c1").ignored_host_validations(0), "has-min-cpu-cores");
}

TEST_F(ClusterActionsTest, CustomisationsAreRefusedOnceTheInstallationBegan) {
  Store(types::v1::CLUSTER_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING);
  v1::SetIgnoredValidationsRequest request;
  request.set_cluster_id("c1");
  EXPECT_EQ(CodeOf(actions_.clusters().SetIgnoredValidations(request)),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CodeOf(actions_.clusters().UpdateInstallConfig("c1", R"({"fips":true})")),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(inventory_.Cluster("c1").install_config_overrides().empty());
}

TEST_F(ClusterActionsTest, InstallConfigOverridesAreCheckedStoredAndRendered) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ASSERT_THAT(actions_.clusters().UpdateInstallConfig("c1", R"({"fips":true})"), IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").install_config_overrides(), R"({"fips":true})");
  absl::StatusOr<std::string> document = actions_.clusters().GetInstallConfig("c1");
  ASSERT_THAT(document, IsOk());
  EXPECT_NE(document->find("fips: true"), std::string::npos) << *document;
  // A key of install-config whose value cannot merge into the document is refused too.
  for (const char* bad : {R"({"metadata":{}})", R"({"fipz":true})", "[]", "{"}) {
    EXPECT_EQ(CodeOf(actions_.clusters().UpdateInstallConfig("c1", bad)),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
  EXPECT_EQ(inventory_.Cluster("c1").install_config_overrides(), R"({"fips":true})");
}

// ---- User manifests -------------------------------------------------------------------------

constexpr char kCalico[] = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: calico\n";

v1::ClusterManifest Manifest(const std::string& folder, const std::string& file,
                             const std::string& content) {
  v1::ClusterManifest manifest;
  manifest.mutable_ref()->set_cluster_id("c1");
  manifest.mutable_ref()->set_folder(folder);
  manifest.mutable_ref()->set_file_name(file);
  manifest.set_content(content);
  return manifest;
}

TEST_F(ClusterActionsTest, AThirdPartyNetworkWaitsForItsManifestsWhichTheBootstrapThenApplies) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  Cluster calico = inventory_.Cluster("c1");
  calico.set_network_type(types::v1::NETWORK_TYPE_CALICO);
  inventory_.AddCluster(calico);
  absl::StatusOr<Cluster> waiting = actions_.clusters().RefreshCluster("c1");
  ASSERT_THAT(waiting, IsOk());
  EXPECT_EQ(waiting->status(), types::v1::CLUSTER_STATUS_INSUFFICIENT);
  EXPECT_NE(waiting->status_info().find("manifests"), std::string::npos) << waiting->status_info();

  ASSERT_THAT(actions_.clusters().CreateManifest(Manifest("openshift", "50-calico.yaml", kCalico)),
              IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_READY)
      << inventory_.Cluster("c1").status_info();
  ASSERT_THAT(actions_.clusters().InstallCluster("c1"), IsOk());
  absl::StatusOr<std::optional<std::string>> bootstrap =
      inventory_.ArtifactContent("c1", install::kBootstrapIgnitionName);
  ASSERT_THAT(bootstrap, IsOk());
  ASSERT_TRUE(bootstrap->has_value());
  EXPECT_NE((*bootstrap)->find("/opt/openshift/openshift/50-calico.yaml"), std::string::npos);
}

// The race of a manifest write and an installation start: the installation moves the cluster to
// preparing-for-installation right after the write checked that the cluster is customisable.
// The inventory checks the status again in the write itself, so the write is refused (409)
// rather than stored after bootstrap.ign was made without it; the same for update and delete.
TEST_F(ClusterActionsTest, AManifestWrittenAsTheInstallationStartsIsRefusedNotLost) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ClusterActions& clusters = actions_.clusters();
  ASSERT_THAT(clusters.CreateManifest(Manifest("openshift", "a.yaml", kCalico)), IsOk());
  const auto start_installing = [&] {
    Cluster cluster = inventory_.Cluster("c1");
    cluster.set_status(types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);
    inventory_.AddCluster(cluster);
  };
  inventory_.AfterNextGetCluster(start_installing);
  EXPECT_EQ(CodeOf(clusters.CreateManifest(Manifest("openshift", "b.yaml", kCalico))),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CodeOf(clusters.GetManifest(Manifest("openshift", "b.yaml", "").ref())),
            absl::StatusCode::kNotFound);

  for (const bool deleting : {false, true}) {
    Cluster ready = inventory_.Cluster("c1");
    ready.set_status(types::v1::CLUSTER_STATUS_READY);
    inventory_.AddCluster(ready);
    inventory_.AfterNextGetCluster(start_installing);
    absl::StatusCode code;
    if (deleting) {
      code = CodeOf(clusters.DeleteManifest(Manifest("openshift", "a.yaml", "").ref()));
    } else {
      v1::UpdateClusterManifestRequest update;
      *update.mutable_ref() = Manifest("openshift", "a.yaml", "").ref();
      update.set_updated_content("kind: Changed\n");
      code = CodeOf(clusters.UpdateManifest(update));
    }
    EXPECT_EQ(code, absl::StatusCode::kFailedPrecondition) << (deleting ? "delete" : "update");
    absl::StatusOr<v1::ClusterManifest> kept =
        clusters.GetManifest(Manifest("openshift", "a.yaml", "").ref());
    ASSERT_THAT(kept, IsOk());
    EXPECT_EQ(kept->content(), kCalico);
  }
}

TEST_F(ClusterActionsTest, ManifestsAreCreatedListedReadMovedAndDeleted) {
  ClusterActions& clusters = actions_.clusters();
  ASSERT_THAT(clusters.CreateManifest(Manifest("openshift", "b.yaml", kCalico)), IsOk());
  ASSERT_THAT(clusters.CreateManifest(Manifest("manifests", "a.json", R"({"kind":"A"})")), IsOk());
  EXPECT_EQ(CodeOf(clusters.CreateManifest(Manifest("openshift", "b.yaml", kCalico))),
            absl::StatusCode::kAlreadyExists);
  absl::StatusOr<v1::ListClusterManifestsResponse> listed = clusters.ListManifests("c1");
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->manifests_size(), 2);
  EXPECT_EQ(listed->manifests(0).folder(), "manifests");
  EXPECT_EQ(listed->manifests(1).file_name(), "b.yaml");

  v1::UpdateClusterManifestRequest move;
  *move.mutable_ref() = Manifest("openshift", "b.yaml", "").ref();
  move.set_updated_folder("manifests");
  move.set_updated_file_name("c.yaml");
  absl::StatusOr<v1::ClusterManifest> moved = clusters.UpdateManifest(move);
  ASSERT_THAT(moved, IsOk());
  EXPECT_EQ(moved->content(), kCalico);
  EXPECT_EQ(CodeOf(clusters.GetManifest(move.ref())), absl::StatusCode::kNotFound);
  absl::StatusOr<v1::ClusterManifest> read = clusters.GetManifest(moved->ref());
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->content(), kCalico);
  // Renaming YAML to .json must hold JSON; moving onto an existing file is refused.
  v1::UpdateClusterManifestRequest to_json;
  *to_json.mutable_ref() = moved->ref();
  to_json.set_updated_file_name("c.json");
  EXPECT_EQ(CodeOf(clusters.UpdateManifest(to_json)), absl::StatusCode::kInvalidArgument);
  to_json.set_updated_file_name("a.json");
  to_json.set_updated_content(R"({"kind":"B"})");
  EXPECT_EQ(CodeOf(clusters.UpdateManifest(to_json)), absl::StatusCode::kAlreadyExists);

  ASSERT_THAT(clusters.DeleteManifest(moved->ref()), IsOk());
  EXPECT_EQ(CodeOf(clusters.DeleteManifest(moved->ref())), absl::StatusCode::kNotFound);
  EXPECT_EQ(clusters.ListManifests("c1")->manifests_size(), 1);
}

TEST_F(ClusterActionsTest, BadManifestsAndManifestsOfAnInstallingClusterAreRefused) {
  ClusterActions& clusters = actions_.clusters();
  EXPECT_EQ(CodeOf(clusters.CreateManifest(Manifest("tmp", "a.yaml", kCalico))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(clusters.CreateManifest(Manifest("manifests", "a.sh", kCalico))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(clusters.CreateManifest(Manifest("manifests", "a.yaml", "{"))),
            absl::StatusCode::kInvalidArgument);
  ASSERT_THAT(clusters.CreateManifest(Manifest("manifests", "a.yaml", kCalico)), IsOk());
  Store(types::v1::CLUSTER_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING);
  EXPECT_EQ(CodeOf(clusters.CreateManifest(Manifest("manifests", "b.yaml", kCalico))),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CodeOf(clusters.DeleteManifest(Manifest("manifests", "a.yaml", "").ref())),
            absl::StatusCode::kFailedPrecondition);
  // Reading stays possible.
  EXPECT_THAT(clusters.GetManifest(Manifest("manifests", "a.yaml", "").ref()), IsOk());
}

// ---- Questions answered from the validations' rules -----------------------------------------

TEST_F(ClusterActionsTest, PreflightRequirementsAreTheValidationsRowsInAnyStatus) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  Store(types::v1::CLUSTER_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING);
  absl::StatusOr<v1::PreflightRequirements> rows =
      actions_.clusters().GetPreflightRequirements("c1");
  ASSERT_THAT(rows, IsOk());
  EXPECT_GT(rows->master().cpu_cores(), 0);
  EXPECT_TRUE(rows->master().has_network_latency_threshold_ms());
  EXPECT_TRUE(rows->has_arbiter());
  EXPECT_EQ(CodeOf(actions_.clusters().GetPreflightRequirements("no-such-cluster")),
            absl::StatusCode::kNotFound);
}

TEST_F(ClusterActionsTest, SupportedPlatformsAreThoseOfEveryHost) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  absl::StatusOr<v1::GetSupportedPlatformsResponse> platforms =
      actions_.clusters().GetSupportedPlatforms("c1");
  ASSERT_THAT(platforms, IsOk());
  ASSERT_GE(platforms->platforms_size(), 1);
  EXPECT_EQ(platforms->platforms(0), types::v1::PLATFORM_TYPE_BAREMETAL);
  EXPECT_EQ(CodeOf(actions_.clusters().GetSupportedPlatforms("no-such-cluster")),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace assisted::orchestrator::actions
