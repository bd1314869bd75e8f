// The contexts built from stored records drive the machines end to end.

#include "services/orchestrator/core/contexts.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/orchestrator/core/testing_fixtures.h"

namespace assisted::orchestrator::core {
namespace {

using ::assisted::testing::IsOk;
using namespace types::v1;  // NOLINT

struct World {
  Cluster cluster = testing::HealthyCluster();
  std::vector<Host> hosts;
  Timeouts timeouts;
  ValidationResults validations = testing::PassingHostValidations();

  World() {
    for (int i = 0; i < 5; ++i) {
      hosts.push_back(testing::HealthyHost(i));
      *hosts.back().mutable_status_updated_at() = testing::Ts(testing::kNow);
    }
    hosts[3].set_role(HOST_ROLE_WORKER);
    hosts[4].set_role(HOST_ROLE_WORKER);
  }
  std::vector<const Host*> Pointers() const {
    std::vector<const Host*> out;
    for (const Host& h : hosts) out.push_back(&h);
    return out;
  }
  HostContext For(int i, DecisionSettings settings = {}) const {
    return MakeHostContext(hosts[i], &cluster, Pointers(), &validations, testing::kNow, timeouts,
                           settings);
  }
};

TEST(Contexts, HostContextMirrorsTheRecord) {
  World w;
  w.hosts[0].set_bootstrap(true);
  w.hosts[0].mutable_progress()->set_current_stage(HOST_STAGE_INSTALLING);
  w.hosts[0].set_media_status(MEDIA_STATUS_DISCONNECTED);
  w.cluster.set_status(CLUSTER_STATUS_INSTALLING);
  HostContext c = w.For(0);
  EXPECT_TRUE(c.bound);
  EXPECT_TRUE(c.bootstrap);
  EXPECT_TRUE(c.media_disconnected);
  EXPECT_EQ(c.stage, HOST_STAGE_INSTALLING);
  EXPECT_EQ(c.cluster_status, CLUSTER_STATUS_INSTALLING);
  EXPECT_EQ(c.installation_disk, "/dev/sda");
  EXPECT_EQ(c.checked_in_at, testing::kNow);
  EXPECT_FALSE(c.day2);
  EXPECT_FALSE(c.sno);
}

TEST(Contexts, SoftTimeoutsNeedTheDeploymentAndTheOrganisation) {
  World w;
  EXPECT_FALSE(w.For(0, {true}).soft_timeouts);
  w.cluster.set_org_soft_timeouts_enabled(true);
  EXPECT_FALSE(w.For(0, {false}).soft_timeouts);
  EXPECT_TRUE(w.For(0, {true}).soft_timeouts);
}

TEST(Contexts, DayTwoAndUnbound) {
  World w;
  w.cluster.set_kind(CLUSTER_KIND_ADD_HOSTS_CLUSTER);
  EXPECT_TRUE(w.For(0).day2);
  HostContext unbound =
      MakeHostContext(w.hosts[0], nullptr, {}, nullptr, testing::kNow, w.timeouts, {});
  EXPECT_FALSE(unbound.bound);
}

TEST(Contexts, AStuckWorkerIsExpendableAStuckMasterIsNot) {
  World w;
  for (Host& h : w.hosts) h.set_status(HOST_STATUS_INSTALLING_IN_PROGRESS);
  w.hosts.push_back(testing::HealthyHost(5));
  w.hosts.back().set_role(HOST_ROLE_WORKER);
  w.hosts.back().set_status(HOST_STATUS_INSTALLING_PENDING_USER_ACTION);
  EXPECT_TRUE(w.For(5).cluster_succeeds_without_host);
  w.hosts[0].set_status(HOST_STATUS_INSTALLING_PENDING_USER_ACTION);
  EXPECT_FALSE(w.For(0).cluster_succeeds_without_host);
}

TEST(Contexts, RefreshOfAHealthyKnownHostKeepsItKnown) {
  World w;
  absl::StatusOr<HostDecision> d =
      HostStateMachine().Fire(HostEvent::kRefresh, HOST_STATUS_KNOWN, w.For(0));
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, HOST_STATUS_KNOWN);
}

TEST(Contexts, ClusterContextFromTheRecord) {
  World w;
  w.cluster.set_status(CLUSTER_STATUS_FINALIZING);
  *w.cluster.mutable_status_updated_at() = testing::Ts(testing::kNow - absl::Hours(1));
  *w.cluster.mutable_install_started_at() = testing::Ts(testing::kNow - absl::Hours(2));
  MonitoredOperator* op = w.cluster.add_monitored_operators();
  op->set_status(OPERATOR_STATUS_PROGRESSING);
  op->set_timeout_seconds(7200);
  for (Host& h : w.hosts) h.set_status(HOST_STATUS_INSTALLED);
  ValidationResults cv = testing::PassingClusterValidations();
  ClusterContext c = MakeClusterContext(w.cluster, w.Pointers(), &cv, testing::kNow, w.timeouts, {},
                                        /*kubeconfig_exists=*/true);
  EXPECT_FALSE(c.operators_available);
  EXPECT_EQ(c.max_operator_timeout, absl::Hours(2));
  EXPECT_EQ(c.topology.control_plane_count, 3);
  EXPECT_EQ(c.hosts.size(), 5u);
  absl::StatusOr<ClusterDecision> d =
      ClusterStateMachine().Fire(ClusterEvent::kRefresh, CLUSTER_STATUS_FINALIZING, c);
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, CLUSTER_STATUS_FINALIZING);  // waits for the operator
  w.cluster.mutable_monitored_operators(0)->set_status(OPERATOR_STATUS_AVAILABLE);
  c = MakeClusterContext(w.cluster, w.Pointers(), &cv, testing::kNow, w.timeouts, {}, true);
  d = ClusterStateMachine().Fire(ClusterEvent::kRefresh, CLUSTER_STATUS_FINALIZING, c);
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, CLUSTER_STATUS_INSTALLED);
}

}  // namespace
}  // namespace assisted::orchestrator::core
