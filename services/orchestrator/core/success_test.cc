#include "services/orchestrator/core/success.h"

#include "gtest/gtest.h"

namespace assisted::orchestrator::core {
namespace {

using namespace types::v1;  // NOLINT

constexpr auto kOk = HOST_STATUS_INSTALLED;
constexpr auto kBad = HOST_STATUS_ERROR;

bool Installed(const std::vector<HostRoleStatus>& hosts, int control_plane = 3) {
  return EnoughHosts(hosts, Topology{control_plane}, {kOk});
}

TEST(Success, AllExpectedMastersAreNeeded) {
  EXPECT_TRUE(
      Installed({{HOST_ROLE_MASTER, kOk}, {HOST_ROLE_BOOTSTRAP, kOk}, {HOST_ROLE_MASTER, kOk}}));
  EXPECT_FALSE(
      Installed({{HOST_ROLE_MASTER, kOk}, {HOST_ROLE_MASTER, kOk}, {HOST_ROLE_MASTER, kBad}}));
  EXPECT_FALSE(Installed({{HOST_ROLE_MASTER, kOk},
                          {HOST_ROLE_MASTER, kOk},
                          {HOST_ROLE_MASTER, kOk},
                          {HOST_ROLE_MASTER, kOk}},
                         5));
}

TEST(Success, TwoWorkersOnlyWhenTwoOrMoreAssigned) {
  std::vector<HostRoleStatus> hosts = {{HOST_ROLE_MASTER, kOk},
                                       {HOST_ROLE_MASTER, kOk},
                                       {HOST_ROLE_MASTER, kOk},
                                       {HOST_ROLE_WORKER, kBad}};
  EXPECT_TRUE(Installed(hosts));  // one worker assigned: not required
  hosts.push_back({HOST_ROLE_WORKER, kOk});
  EXPECT_FALSE(Installed(hosts));  // two assigned, one installed
  hosts.push_back({HOST_ROLE_WORKER, kOk});
  EXPECT_TRUE(Installed(hosts));  // three assigned, two installed
}

TEST(Success, SingleNodeNeedsOneMasterNoWorker) {
  EXPECT_TRUE(Installed({{HOST_ROLE_MASTER, kOk}}, 1));
  EXPECT_FALSE(Installed({{HOST_ROLE_MASTER, kBad}}, 1));
}

TEST(Success, AssignedArbiterIsNeeded) {
  std::vector<HostRoleStatus> hosts = {
      {HOST_ROLE_MASTER, kOk}, {HOST_ROLE_MASTER, kOk}, {HOST_ROLE_ARBITER, kBad}};
  EXPECT_FALSE(Installed(hosts, 2));
  hosts[2].status = kOk;
  EXPECT_TRUE(Installed(hosts, 2));
}

TEST(Success, ZeroControlPlaneCountMeansThree) {
  EXPECT_FALSE(Installed({{HOST_ROLE_MASTER, kOk}}, 0));
}

TEST(Success, SucceedsWithoutAFailedWorkerButNotWithoutAMaster) {
  std::vector<HostRoleStatus> hosts = {
      {HOST_ROLE_MASTER, HOST_STATUS_INSTALLED},
      {HOST_ROLE_MASTER, HOST_STATUS_INSTALLING_IN_PROGRESS},
      {HOST_ROLE_MASTER, HOST_STATUS_INSTALLING},
      {HOST_ROLE_WORKER, HOST_STATUS_INSTALLED},
      {HOST_ROLE_WORKER, HOST_STATUS_INSTALLED},
      {HOST_ROLE_WORKER, HOST_STATUS_INSTALLING_PENDING_USER_ACTION}};
  EXPECT_TRUE(SucceedsWithout(hosts, Topology{}, 5));
  EXPECT_FALSE(SucceedsWithout(hosts, Topology{}, 2));
}

}  // namespace
}  // namespace assisted::orchestrator::core
