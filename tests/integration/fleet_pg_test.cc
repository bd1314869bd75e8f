// Simulated fleets (services/agent/fleet.h, in this process) against the real orchestrator,
// inventory and PostgreSQL: every simulated host registers and is judged on its simulated
// hardware, and the agents' own records agree with what the orchestrator applied.
#include <map>

#include "absl/synchronization/mutex.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "lib/log/log.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/agent/fleet.h"
#include "services/agent/simulation/profile_paths.h"
#include "tests/harness/postgres_test.h"
#include "tests/harness/service_launcher.h"

namespace assisted::testing {
namespace {

namespace inv = ::assisted::inventory::v1;
using ::assisted::agent::Fleet;
using ::assisted::agent::FleetEvent;
using ::assisted::agent::simulation::testing::ProfilePath;

class FleetTest : public PostgresTest {
 protected:
  void SetUp() override {
    PostgresTest::SetUp();
    auto inventory = LaunchedService::Launch(
        {.binary = "services/inventory/assisted-inventory", .args = {"--postgres-dsn=" + dsn()}});
    ASSERT_THAT(inventory, IsOk());
    inventory_ = *std::move(inventory);
    auto orchestrator =
        LaunchedService::Launch({.binary = "services/orchestrator/assisted-orchestrator",
                                 .args = {"--inventory-address=" + inventory_->grpc_target()}});
    ASSERT_THAT(orchestrator, IsOk());
    orchestrator_ = *std::move(orchestrator);
    stub_ = inv::InventoryService::NewStub(
        grpc::CreateChannel(inventory_->grpc_target(), grpc::InsecureChannelCredentials()));
    inv::CreateInfraEnvRequest create;
    create.mutable_infra_env()->set_name("discovery");
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->CreateInfraEnv(&context, create, &infra_env_).ok());
  }

  void TearDown() override {
    if (HasFailure() && orchestrator_ != nullptr) std::cerr << orchestrator_->Log();
  }

  Fleet::Options Options(const std::string& profile, int count) {
    Fleet::Options options;
    options.profile = ProfilePath(profile);
    options.count = count;
    options.orchestrator_address = orchestrator_->grpc_target();
    options.infra_env_id = infra_env_.id();
    options.agent_token = "fleet-token";
    options.state_dir = ::testing::TempDir() + "/fleet-" + profile;
    options.step_threads = 2;
    return options;
  }

  // Follows the infra-env's host changes until every host in `want` has its status, or the
  // deadline passes; returns the last status seen per host.
  std::map<std::string, types::v1::HostStatus> AwaitStatuses(
      const std::map<std::string, types::v1::HostStatus>& want, absl::Duration timeout) {
    std::map<std::string, types::v1::HostStatus> seen;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
    inv::WatchRequest request;
    request.set_from_seq(1);  // from the start: changes made before the watch count too
    request.mutable_filter()->set_infra_env_id(infra_env_.id());
    request.mutable_filter()->add_kinds(inv::RESOURCE_KIND_HOST);
    auto reader = stub_->Watch(&context, request);
    inv::WatchEvent event;
    while (reader->Read(&event)) {
      if (event.status_case() != inv::WatchEvent::kHostStatus) continue;
      seen[event.id()] = event.host_status();
      bool all = true;
      for (const auto& [id, status] : want) all = all && seen.count(id) && seen[id] == status;
      if (all) {
        context.TryCancel();
        break;
      }
    }
    return seen;
  }

  types::v1::Host StoredHost(const std::string& id) {
    inv::GetHostRequest get;
    get.set_infra_env_id(infra_env_.id());
    get.set_id(id);
    types::v1::Host host;
    grpc::ClientContext context;
    EXPECT_TRUE(stub_->GetHost(&context, get, &host).ok()) << id;
    return host;
  }

  std::unique_ptr<LaunchedService> inventory_;
  std::unique_ptr<LaunchedService> orchestrator_;
  std::unique_ptr<inv::InventoryService::Stub> stub_;
  types::v1::InfraEnv infra_env_;
};

TEST_F(FleetTest, SimulatedHostsRegisterAndAreJudgedOnTheirHardware) {
  absl::Mutex mu;
  int registrations = 0;
  auto observe = [&](const FleetEvent& event) {
    if (event.kind != FleetEvent::Kind::kRegistered) return;
    absl::MutexLock lock(&mu);
    ++registrations;
  };
  auto workers = Fleet::Start(Options("worker", 4), observe, log::Logger::Discard());
  ASSERT_THAT(workers, IsOk());
  auto small = Fleet::Start(Options("small", 1), observe, log::Logger::Discard());
  ASSERT_THAT(small, IsOk());

  std::map<std::string, types::v1::HostStatus> want;
  for (int i = 0; i < 4; ++i) want[(*workers)->host_id(i)] = types::v1::HOST_STATUS_KNOWN_UNBOUND;
  want[(*small)->host_id(0)] = types::v1::HOST_STATUS_INSUFFICIENT_UNBOUND;
  const auto seen = AwaitStatuses(want, absl::Seconds(60));
  for (const auto& [id, status] : want) {
    ASSERT_TRUE(seen.count(id)) << "no change seen for host " << id;
    EXPECT_EQ(types::v1::HostStatus_Name(seen.at(id)), types::v1::HostStatus_Name(status))
        << id << ": " << StoredHost(id).status_info();
  }
  {
    absl::MutexLock lock(&mu);
    EXPECT_GE(registrations, 5);
  }
  EXPECT_EQ((*workers)->registered(), 4);

  // Distinct simulated hardware per host.
  const types::v1::Host first = StoredHost((*workers)->host_id(0));
  const types::v1::Host second = StoredHost((*workers)->host_id(1));
  EXPECT_EQ(first.inventory().hostname(), "worker-0");
  EXPECT_EQ(second.inventory().hostname(), "worker-1");
  EXPECT_NE(first.inventory().interfaces(0).mac_address(),
            second.inventory().interfaces(0).mac_address());

  // The small host fails on its cores.
  const types::v1::Host tiny = StoredHost((*small)->host_id(0));
  bool cpu_failed = false;
  for (const types::v1::ValidationResult& result : tiny.validations_info()) {
    if (result.id() == "has-min-cpu-cores") {
      cpu_failed = result.status() == types::v1::VALIDATION_STATUS_FAILURE;
    }
  }
  EXPECT_TRUE(cpu_failed) << tiny.DebugString();

  // The agents' own books: seqs 1..n each sent once, and what the orchestrator applied is what
  // it acknowledged to the agent.
  (*workers)->Stop();
  (*small)->Stop();
  for (Fleet* fleet : {workers->get(), small->get()}) {
    const nlohmann::json records = nlohmann::json::parse(fleet->Records());
    ASSERT_EQ(static_cast<int>(records.size()), fleet->size());
    for (const nlohmann::json& agent : records) {
      uint64_t expected = 1;
      for (const nlohmann::json& sent : agent["sent"]) {
        EXPECT_EQ(sent["seq"].get<uint64_t>(), expected++) << agent.dump();
      }
      const uint64_t acknowledged = agent["acknowledged_up_to"].get<uint64_t>();
      EXPECT_LE(acknowledged, expected - 1);
      EXPECT_GE(agent["registrations"].get<int>(), 1);
      const types::v1::Host host = StoredHost(agent["host_id"].get<std::string>());
      EXPECT_EQ(host.agent_instance_id(), agent["instance_id"].get<std::string>());
      EXPECT_GE(host.agent_applied_seq(), acknowledged) << agent.dump();
      EXPECT_LE(host.agent_applied_seq(), expected - 1) << agent.dump();
    }
  }
}

}  // namespace
}  // namespace assisted::testing
