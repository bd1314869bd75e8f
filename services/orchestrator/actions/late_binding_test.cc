// File: services/orchestrator/actions/late_binding_test.cc
//
// Late binding through OrchestratorService (BindHost, UnbindHost) on an in-memory inventory and
// a fake clock (actions_test_fixture.h): a pool host (an infra-env without a cluster) is bound
// and judged in the cluster by the one refresher, unbound back into the pool, and every refusal
// names the field at fault. No PostgreSQL, no processes, no sleeping.

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/orchestrator/actions/actions_test_fixture.h"
#include "services/orchestrator/actions/orchestrator_service.h"

namespace assisted::orchestrator::actions {
namespace {

using orchestrator::testing::HostId;
using orchestrator::testing::kInfraEnvId;
using ::testing::HasSubstr;
using types::v1::Cluster;
using types::v1::Host;

constexpr char kPoolInfraEnvId[] = "00000000-0000-4000-8000-0000000000e2";

class LateBindingTest : public ActionsTest {
 protected:
  // Host 3 of the healthy cluster, moved to the pool of an infra-env without a cluster (owned
  // by `owner`, of `architecture`), as its agent registered there: known-unbound.
  void MoveHostThreeToThePool(
      const std::string& owner = "",
      types::v1::CpuArchitecture architecture = types::v1::CPU_ARCHITECTURE_X86_64) {
    types::v1::InfraEnv pool;
    pool.set_id(kPoolInfraEnvId);
    pool.set_cpu_architecture(architecture);
    pool.mutable_owner()->set_user_name(owner);
    inventory_.AddInfraEnv(pool, "signing-key");
    Host host = StoredHost(3);
    host.set_infra_env_id(kPoolInfraEnvId);
    host.clear_cluster_id();
    host.set_status(types::v1::HOST_STATUS_KNOWN_UNBOUND);
    inventory_.RemoveHost(kInfraEnvId, HostId(3));
    inventory_.AddHost(host);
  }

  Host PoolHost() const { return inventory_.Host(kPoolInfraEnvId, HostId(3)); }

  grpc::Status Bind(const std::string& cluster_id, Host* answer,
                    const std::string& infra_env_id = kPoolInfraEnvId) {
    v1::BindHostRequest request;
    request.set_infra_env_id(infra_env_id);
    request.set_host_id(HostId(3));
    request.set_cluster_id(cluster_id);
    return service_.BindHost(nullptr, &request, answer);
  }
  grpc::Status Unbind(Host* answer, const std::string& infra_env_id = kPoolInfraEnvId,
                      int host = 3) {
    v1::UnbindHostRequest request;
    request.set_infra_env_id(infra_env_id);
    request.set_host_id(HostId(host));
    return service_.UnbindHost(nullptr, &request, answer);
  }

  OrchestratorServiceImpl service_{actions_};
};

MATCHER_P2(GrpcFails, code, text, "") {
  *result_listener << "status " << arg.error_code() << ": " << arg.error_message();
  return arg.error_code() == code && arg.error_message().find(text) != std::string::npos;
}

TEST_F(LateBindingTest, APoolHostBoundToAClusterIsJudgedKnownThere) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ASSERT_NO_FATAL_FAILURE(MoveHostThreeToThePool());
  Host bound;
  grpc::Status status = Bind("c1", &bound);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(bound.cluster_id(), "c1");
  EXPECT_EQ(bound.status(), types::v1::HOST_STATUS_KNOWN) << bound.status_info();
  EXPECT_EQ(PoolHost().status(), types::v1::HOST_STATUS_KNOWN);
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_READY);
  bool told = false;
  for (const types::v1::Event& event : inventory_.Events()) {
    told |= event.message().find("being bound") != std::string::npos;
  }
  EXPECT_TRUE(told) << "no event says the host was being bound";
}

TEST_F(LateBindingTest, BindingIsRefusedNamingTheField) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ASSERT_NO_FATAL_FAILURE(MoveHostThreeToThePool());
  Host answer;
  EXPECT_THAT(Bind("", &answer), GrpcFails(grpc::INVALID_ARGUMENT, "cluster_id: required"));
  EXPECT_THAT(Bind("c9", &answer), GrpcFails(grpc::NOT_FOUND, "cluster_id: cluster c9"));
  // A host bound already (host 1 registered into the cluster's own infra-env).
  v1::BindHostRequest again;
  again.set_infra_env_id(kInfraEnvId);
  again.set_host_id(HostId(1));
  again.set_cluster_id("c1");
  EXPECT_THAT(service_.BindHost(nullptr, &again, &answer),
              GrpcFails(grpc::FAILED_PRECONDITION, "already bound to cluster c1"));
  // A cluster that no longer accepts hosts.
  Store(types::v1::CLUSTER_STATUS_INSTALLING);
  EXPECT_THAT(Bind("c1", &answer),
              GrpcFails(grpc::FAILED_PRECONDITION, "cluster_id: cluster c1 is installing"));
  EXPECT_EQ(PoolHost().status(), types::v1::HOST_STATUS_KNOWN_UNBOUND);
  EXPECT_EQ(PoolHost().cluster_id(), "");
}

TEST_F(LateBindingTest, AHostOfAnotherArchitectureIsNotBound) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ASSERT_NO_FATAL_FAILURE(MoveHostThreeToThePool("", types::v1::CPU_ARCHITECTURE_AARCH64));
  Host answer;
  EXPECT_THAT(Bind("c1", &answer),
              GrpcFails(grpc::INVALID_ARGUMENT, "cluster_id: cluster c1 installs x86_64"));
  EXPECT_EQ(PoolHost().status(), types::v1::HOST_STATUS_KNOWN_UNBOUND);
}

TEST_F(LateBindingTest, AHostOfAnInfraEnvOfAnotherClusterIsNotBound) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ASSERT_NO_FATAL_FAILURE(MoveHostThreeToThePool());
  types::v1::InfraEnv pool = *inventory_.GetInfraEnv(kPoolInfraEnvId);
  pool.set_cluster_id("c2");
  inventory_.AddInfraEnv(pool, "signing-key");
  Host answer;
  EXPECT_THAT(
      Bind("c1", &answer),
      GrpcFails(grpc::INVALID_ARGUMENT, "cluster_id: the host's infra-env belongs to cluster c2"));
}

TEST_F(LateBindingTest, BindingAHostIntoAnotherTenantsClusterIsRefused) {
  // Attack: alice's host (her infra-env) bound into bob's cluster would hand bob a machine and
  // alice's discovery data. The cluster is not alice's: as absent as any unknown cluster.
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ASSERT_NO_FATAL_FAILURE(MoveHostThreeToThePool("alice"));
  Cluster bobs = inventory_.Cluster("c1");
  bobs.mutable_owner()->set_user_name("bob");
  inventory_.AddCluster(bobs);
  Host answer;
  EXPECT_THAT(Bind("c1", &answer), GrpcFails(grpc::NOT_FOUND, "cluster_id: cluster c1 not found"));
  EXPECT_EQ(PoolHost().status(), types::v1::HOST_STATUS_KNOWN_UNBOUND);
  EXPECT_EQ(PoolHost().cluster_id(), "");
}

TEST_F(LateBindingTest, AnUnboundHostReturnsToThePoolAndItsClusterIsJudgedWithoutIt) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ASSERT_NO_FATAL_FAILURE(MoveHostThreeToThePool());
  Host answer;
  ASSERT_TRUE(Bind("c1", &answer).ok());
  grpc::Status status = Unbind(&answer);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(answer.cluster_id(), "");
  EXPECT_EQ(answer.status(), types::v1::HOST_STATUS_KNOWN_UNBOUND) << answer.status_info();
  EXPECT_EQ(answer.role(), types::v1::HOST_ROLE_AUTO_ASSIGN);
  // Two masters of three: the cluster is no longer ready.
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_INSUFFICIENT);
}

TEST_F(LateBindingTest, AnInstalledHostUnboundWaitsForARebootIntoTheDiscoveryImage) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ASSERT_NO_FATAL_FAILURE(MoveHostThreeToThePool());
  Host answer;
  ASSERT_TRUE(Bind("c1", &answer).ok());
  Host installed = PoolHost();
  installed.set_status(types::v1::HOST_STATUS_INSTALLED);
  installed.set_bootstrap(true);
  inventory_.AddHost(installed);
  Store(types::v1::CLUSTER_STATUS_INSTALLED);
  grpc::Status status = Unbind(&answer);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(answer.status(), types::v1::HOST_STATUS_UNBINDING_PENDING_USER_ACTION);
  EXPECT_THAT(answer.status_info(), HasSubstr("reboot it into the discovery image"));
  EXPECT_EQ(answer.cluster_id(), "");
  EXPECT_FALSE(answer.bootstrap());
  // The user rebooted it: a new agent process registers into the pool.
  absl::StatusOr<Host> registered = actions_.hosts().RegisterAgain(PoolHost());
  ASSERT_THAT(registered, ::assisted::testing::IsOk());
  EXPECT_EQ(registered->status(), types::v1::HOST_STATUS_DISCOVERING_UNBOUND);
}

TEST_F(LateBindingTest, UnbindingIsRefusedNamingWhy) {
  ASSERT_NO_FATAL_FAILURE(MakeReady());
  ASSERT_NO_FATAL_FAILURE(MoveHostThreeToThePool());
  Host answer;
  EXPECT_THAT(Unbind(&answer), GrpcFails(grpc::FAILED_PRECONDITION, "is not bound to a cluster"));
  // Host 1 registered into the cluster's own infra-env: it has no pool to return to.
  EXPECT_THAT(Unbind(&answer, kInfraEnvId, 1),
              GrpcFails(grpc::FAILED_PRECONDITION, "infra-env belongs to cluster c1"));
  EXPECT_EQ(StoredHost(1).cluster_id(), "c1");
}

}  // namespace
}  // namespace assisted::orchestrator::actions
