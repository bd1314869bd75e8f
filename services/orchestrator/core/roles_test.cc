#include "services/orchestrator/core/roles.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/orchestrator/core/testing_fixtures.h"

namespace assisted::orchestrator::core {
namespace {

using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using namespace types::v1;  // NOLINT

struct World {
  types::v1::Cluster cluster = testing::HealthyCluster();
  std::vector<types::v1::Host> hosts;

  // Host i with `cores` cores and `gib` GiB of memory, auto-assign.
  void Add(int cores, int gib, HostRole role = HOST_ROLE_AUTO_ASSIGN) {
    types::v1::Host h = testing::HealthyHost(static_cast<int>(hosts.size()));
    h.mutable_inventory()->mutable_cpu()->set_count(cores);
    h.mutable_inventory()->mutable_memory()->set_physical_bytes(int64_t{gib} << 30);
    h.set_role(role);
    hosts.push_back(h);
  }
  ClusterFacts Facts() {
    std::vector<HostView> views;
    for (const types::v1::Host& h : hosts) views.push_back({&h, nullptr});
    return *BuildClusterFacts(&cluster, views, DefaultHwRequirements(), {});
  }
  std::vector<const types::v1::Host*> Pointers() {
    std::vector<const types::v1::Host*> out;
    for (const types::v1::Host& h : hosts) out.push_back(&h);
    return out;
  }
  std::map<std::string, HostRole> Assign() {
    std::map<std::string, HostRole> out;
    for (const RoleAssignment& a : AssignRoles(Pointers(), Facts())) out[a.host_id] = a.role;
    return out;
  }
};

TEST(Roles, WeightIsTheReferenceFormula) {
  World w;
  w.Add(8, 32);
  // (8 - 4) + 0.1 * (32 - 16) + 0.004 * (200 GB = 186.26 GiB - 100)
  EXPECT_NEAR(RoleWeight(w.hosts[0], w.Facts()), 4 + 1.6 + 0.004 * (186.264514923 - 100), 1e-6);
}

TEST(Roles, WeakestCapableHostsBecomeMasters) {
  World w;
  w.Add(16, 64);  // h0 strongest
  w.Add(4, 16);   // h1
  w.Add(8, 32);   // h2
  w.Add(6, 24);   // h3
  w.Add(2, 8);    // h4: too weak for a master
  std::map<std::string, HostRole> roles = w.Assign();
  EXPECT_EQ(roles["h1"], HOST_ROLE_MASTER);
  EXPECT_EQ(roles["h3"], HOST_ROLE_MASTER);
  EXPECT_EQ(roles["h2"], HOST_ROLE_MASTER);
  EXPECT_EQ(roles["h0"], HOST_ROLE_WORKER);
  EXPECT_EQ(roles["h4"], HOST_ROLE_WORKER);
}

TEST(Roles, GpuHostsStayWorkers) {
  World w;
  for (int i = 0; i < 4; ++i) w.Add(8, 32);
  w.hosts[0].mutable_inventory()->add_gpus()->set_vendor_id("10de");
  std::map<std::string, HostRole> roles = w.Assign();
  EXPECT_EQ(roles["h0"], HOST_ROLE_WORKER);
  EXPECT_EQ(roles["h1"], HOST_ROLE_MASTER);
}

TEST(Roles, ChosenRolesCountAndStay) {
  World w;
  w.Add(8, 32, HOST_ROLE_MASTER);
  w.Add(8, 32, HOST_ROLE_WORKER);
  w.Add(8, 32);
  w.Add(8, 32);
  w.Add(8, 32);
  std::map<std::string, HostRole> roles = w.Assign();
  EXPECT_EQ(roles.count("h0"), 0u);
  EXPECT_EQ(roles.count("h1"), 0u);
  EXPECT_EQ(roles["h2"], HOST_ROLE_MASTER);
  EXPECT_EQ(roles["h3"], HOST_ROLE_MASTER);
  EXPECT_EQ(roles["h4"], HOST_ROLE_WORKER);
}

TEST(Roles, TwoNodeControlPlaneGetsAnArbiter) {
  World w;
  w.cluster.set_control_plane_count(2);
  for (int i = 0; i < 4; ++i) w.Add(8, 32);
  std::map<std::string, HostRole> roles = w.Assign();
  EXPECT_EQ(roles["h0"], HOST_ROLE_MASTER);
  EXPECT_EQ(roles["h1"], HOST_ROLE_MASTER);
  EXPECT_EQ(roles["h2"], HOST_ROLE_ARBITER);
  EXPECT_EQ(roles["h3"], HOST_ROLE_WORKER);
}

TEST(Roles, SingleNodeHostIsMasterWhenItFitsSno) {
  World w;
  w.cluster.set_control_plane_count(1);
  w.Add(8, 32);
  EXPECT_EQ(w.Assign()["h0"], HOST_ROLE_MASTER);
  World small;
  small.cluster.set_control_plane_count(1);
  small.Add(4, 32);  // SNO on 4.16 needs 8 cores
  EXPECT_EQ(small.Assign()["h0"], HOST_ROLE_WORKER);
}

TEST(Bootstrap, KeepsAnExistingFlag) {
  World w;
  for (int i = 0; i < 3; ++i) w.Add(8, 32, HOST_ROLE_MASTER);
  w.hosts[0].set_bootstrap(true);
  EXPECT_THAT(ChooseBootstrap(w.Pointers(), w.Facts()), IsOkAndHolds("h0"));
}

TEST(Bootstrap, LastReadyMasterById) {
  World w;
  for (int i = 0; i < 3; ++i) w.Add(8, 32, HOST_ROLE_MASTER);
  w.Add(8, 32, HOST_ROLE_WORKER);
  EXPECT_THAT(ChooseBootstrap(w.Pointers(), w.Facts()), IsOkAndHolds("h2"));
  w.hosts[2].set_status(HOST_STATUS_DISCONNECTED);
  EXPECT_THAT(ChooseBootstrap(w.Pointers(), w.Facts()), IsOkAndHolds("h1"));
}

TEST(Bootstrap, RendezvousHostWhenGiven) {
  World w;
  for (int i = 0; i < 3; ++i) w.Add(8, 32, HOST_ROLE_MASTER);
  w.Add(8, 32, HOST_ROLE_WORKER);
  EXPECT_THAT(ChooseBootstrap(w.Pointers(), w.Facts(), testing::Ip(0)), IsOkAndHolds("h0"));
  EXPECT_THAT(
      ChooseBootstrap(w.Pointers(), w.Facts(), testing::Ip(3)),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("must be a control plane host")));
  EXPECT_THAT(ChooseBootstrap(w.Pointers(), w.Facts(), std::string("192.0.2.1")),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("rendezvousIP")));
}

TEST(Bootstrap, SingleNodeIsItsOwnBootstrap) {
  World w;
  w.cluster.set_control_plane_count(1);
  w.Add(8, 32, HOST_ROLE_MASTER);
  w.hosts[0].set_status(HOST_STATUS_INSUFFICIENT);
  EXPECT_THAT(ChooseBootstrap(w.Pointers(), w.Facts()), IsOkAndHolds("h0"));
}

TEST(Bootstrap, NoMasterNoBootstrap) {
  World w;
  w.Add(8, 32, HOST_ROLE_WORKER);
  EXPECT_THAT(ChooseBootstrap(w.Pointers(), w.Facts()),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

}  // namespace
}  // namespace assisted::orchestrator::core
