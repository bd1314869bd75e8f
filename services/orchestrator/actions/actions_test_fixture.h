// File: services/orchestrator/actions/actions_test_fixture.h
//
// The user actions' tests' world: a healthy three-host cluster "c1" in an in-memory inventory
// (testing/fake_inventory.h), a fake clock, the one refresher and every action over them. No
// PostgreSQL, no processes, no sleeping.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_ACTIONS_TEST_FIXTURE_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_ACTIONS_TEST_FIXTURE_H_

#include <string>

#include "gtest/gtest.h"
#include "lib/random/random.h"
#include "lib/testing/status_matchers.h"
#include "lib/time/clock.h"
#include "services/orchestrator/actions/user_actions.h"
#include "services/orchestrator/install/artifacts.h"
#include "services/orchestrator/liveness.h"
#include "services/orchestrator/testing/fake_inventory.h"
#include "services/orchestrator/testing/healthy_world.h"

namespace assisted::orchestrator::actions {

class ActionsTest : public ::testing::Test {
 protected:
  ActionsTest() { orchestrator::testing::AddHealthyCluster(inventory_, clock_.Now()); }

  // The healthy cluster, refreshed: ready, its hosts known.
  void MakeReady() {
    absl::StatusOr<types::v1::Cluster> cluster = actions_.clusters().RefreshCluster("c1");
    ASSERT_THAT(cluster, ::assisted::testing::IsOk());
    ASSERT_EQ(cluster->status(), types::v1::CLUSTER_STATUS_READY) << cluster->status_info();
  }

  // Stores `status` as the cluster's (and `host_status` as every host's, when given: then the
  // three are masters, host 1 the bootstrap), as if the tables had moved them there.
  void Store(types::v1::ClusterStatus status,
             types::v1::HostStatus host_status = types::v1::HOST_STATUS_UNSPECIFIED) {
    types::v1::Cluster cluster = inventory_.Cluster("c1");
    cluster.set_status(status);
    inventory_.AddCluster(cluster);
    if (host_status == types::v1::HOST_STATUS_UNSPECIFIED) return;
    for (int i = 1; i <= 3; ++i) {
      types::v1::Host host =
          inventory_.Host(orchestrator::testing::kInfraEnvId, orchestrator::testing::HostId(i));
      host.set_status(host_status);
      host.set_role(types::v1::HOST_ROLE_MASTER);
      host.set_bootstrap(i == 1);
      inventory_.AddHost(host);
    }
  }

  types::v1::Host StoredHost(int i) const {
    return inventory_.Host(orchestrator::testing::kInfraEnvId, orchestrator::testing::HostId(i));
  }

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
  UserActions actions_{inventory_,
                       {.os_image = {"file:///images/os.raw", std::string(64, 'a')}},
                       clock_,
                       random_,
                       log::Logger::Discard(),
                       {refresher_, events_, files_}};
};

}  // namespace assisted::orchestrator::actions

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_ACTIONS_TEST_FIXTURE_H_
