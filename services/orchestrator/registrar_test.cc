// File: services/orchestrator/registrar_test.cc
//
// Who may register and what a registration writes, on an in-memory inventory and a fake clock:
// no stream, no PostgreSQL, no sleeping.

#include "services/orchestrator/registrar.h"

#include <string>
#include <variant>

#include "gtest/gtest.h"
#include "lib/time/clock.h"
#include "services/orchestrator/core/testing_fixtures.h"
#include "services/orchestrator/testing/fake_inventory.h"
#include "services/orchestrator/testing/healthy_world.h"

namespace assisted::orchestrator {
namespace {

using testing::AddHealthyCluster;
using testing::HostId;
using testing::kInfraEnvId;

constexpr char kNewHost[] = "00000000-0000-4000-8000-0000000000a1";

// Counts the new agent processes it is told of, leaving the host as it is.
class CountingRegistrations final : public RegistrationSink {
 public:
  absl::StatusOr<types::v1::Host> OnNewAgent(const types::v1::Host& host) override {
    ++new_agents;
    return host;
  }
  int new_agents = 0;
};

class RegistrarTest : public ::testing::Test {
 protected:
  RegistrarTest() { AddHealthyCluster(inventory_, clock_.Now(), /*hosts=*/3); }

  static agent::v1::Register Request(const std::string& host_id, const std::string& instance,
                                     const std::string& infra_env_id = kInfraEnvId) {
    agent::v1::Register request;
    request.set_host_id(host_id);
    request.set_infra_env_id(infra_env_id);
    request.set_agent_instance_id(instance);
    request.set_agent_version("v1");
    *request.mutable_inventory() = core::testing::HealthyHost(1).inventory();
    return request;
  }

  FakeClock clock_;
  testing::FakeInventory inventory_{clock_};
  CountingRegistrations sink_;
  Registrar registrar_{inventory_, {},     "replica-under-test",
                       &sink_,     clock_, log::Logger::Discard()};
  Session session_{"10.0.0.1:1234"};
};

TEST_F(RegistrarTest, ANewHostIsCreatedInItsInfraEnvsClusterHeldByThisReplica) {
  const agent::v1::Register request = Request(kNewHost, "agent-1");
  ASSERT_FALSE(registrar_.Check(session_, request).has_value());
  std::variant<Registration, Refusal> recorded = registrar_.Record(request);
  ASSERT_TRUE(std::holds_alternative<Registration>(recorded));
  const Registration& registration = std::get<Registration>(recorded);
  EXPECT_TRUE(registration.created);
  EXPECT_EQ(registration.host.cluster_id(), "c1");
  const types::v1::Host stored = inventory_.Host(kInfraEnvId, kNewHost);
  EXPECT_EQ(stored.agent_stream_holder(), "replica-under-test");
  EXPECT_EQ(stored.agent_instance_id(), "agent-1");
  EXPECT_EQ(sink_.new_agents, 0);  // a new host is not a known host booted again
}

TEST_F(RegistrarTest, TheSameAgentReconnectingIsOneUpdateAndKeepsItsSequence) {
  std::variant<Registration, Refusal> first = registrar_.Record(Request(HostId(1), "agent-1"));
  ASSERT_TRUE(std::holds_alternative<Registration>(first));
  const int writes = inventory_.host_writes();
  std::variant<Registration, Refusal> again = registrar_.Record(Request(HostId(1), "agent-1"));
  ASSERT_TRUE(std::holds_alternative<Registration>(again));
  EXPECT_FALSE(std::get<Registration>(again).created);
  EXPECT_TRUE(std::get<Registration>(again).same_agent);
  EXPECT_EQ(inventory_.host_writes(), writes + 1);
  EXPECT_EQ(sink_.new_agents, 1);  // the first registration was a new process on a known host
}

TEST_F(RegistrarTest, ANewAgentProcessOnAKnownHostStartsItsSequenceOverAndIsAnnounced) {
  types::v1::Host host = inventory_.Host(kInfraEnvId, HostId(2));
  host.set_agent_instance_id("agent-old");
  host.set_agent_applied_seq(41);
  inventory_.AddHost(host);
  std::variant<Registration, Refusal> recorded = registrar_.Record(Request(HostId(2), "agent-new"));
  ASSERT_TRUE(std::holds_alternative<Registration>(recorded));
  EXPECT_FALSE(std::get<Registration>(recorded).same_agent);
  EXPECT_EQ(inventory_.Host(kInfraEnvId, HostId(2)).agent_applied_seq(), 0u);
  EXPECT_EQ(inventory_.Host(kInfraEnvId, HostId(2)).agent_instance_id(), "agent-new");
  EXPECT_EQ(sink_.new_agents, 1);
}

TEST_F(RegistrarTest, IdsThatAreNotLowerCaseUuidsAreRefusedForGood) {
  std::optional<Refusal> refused =
      registrar_.Check(session_, Request("00000000-0000-4000-8000-0000000000A1", "agent-1"));
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->action, agent::v1::REGISTRATION_ACTION_GIVE_UP);
  EXPECT_EQ(refused->code, grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(RegistrarTest, AHostOfAnUnknownInfraEnvIsRefusedForGoodAndNothingIsStored) {
  const std::string unknown = "00000000-0000-4000-8000-0000000000ff";
  std::variant<Registration, Refusal> recorded =
      registrar_.Record(Request(kNewHost, "agent-1", unknown));
  ASSERT_TRUE(std::holds_alternative<Refusal>(recorded));
  EXPECT_EQ(std::get<Refusal>(recorded).action, agent::v1::REGISTRATION_ACTION_GIVE_UP);
  EXPECT_EQ(std::get<Refusal>(recorded).code, grpc::StatusCode::NOT_FOUND);
  EXPECT_FALSE(inventory_.HasHost(unknown, kNewHost));
}

}  // namespace
}  // namespace assisted::orchestrator
