// File: services/orchestrator/agent_hub_test.cc
//
// The agent hub on an in-memory inventory and a fake clock, driven message by message on the
// test's thread: registration, result application (exactly once), refresh after a result, the
// Watch, and the monitor's disconnection deadline. No PostgreSQL, no sleeping: the test waits
// for the hub's queued work with WaitIdle and moves time with FakeClock.

#include "services/orchestrator/agent_hub.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "lib/random/random.h"
#include "lib/testing/status_matchers.h"
#include "lib/time/clock.h"
#include "services/orchestrator/core/testing_fixtures.h"
#include "services/orchestrator/events.h"
#include "services/orchestrator/install/artifacts.h"
#include "services/orchestrator/liveness.h"
#include "services/orchestrator/refresher.h"
#include "services/orchestrator/testing/fake_inventory.h"
#include "services/orchestrator/testing/healthy_world.h"

namespace assisted::orchestrator {
namespace {

namespace inv = inventory::v1;
using ::assisted::testing::IsOk;
using testing::AddHealthyCluster;
using testing::HostId;
using testing::kInfraEnvId;

constexpr char kNtpStep[] = "step-ntp";
constexpr char kSyncedNtp[] =
    R"({"ntp_sources":[{"source_name":"pool.ntp.org","source_state":"synced"}]})";

// Every host is asked for the same NTP step (fixed id), so the test can answer it.
class OneStep final : public InstructionSource {
 public:
  absl::StatusOr<std::vector<types::v1::Step>> StepsFor(const InstructionInput&) override {
    types::v1::Step step;
    step.set_step_id(kNtpStep);
    step.set_step_type(types::v1::STEP_TYPE_NTP_SYNCHRONIZER);
    return std::vector<types::v1::Step>{step};
  }
};

class AgentHubTest : public ::testing::Test {
 protected:
  AgentHubTest() {
    AddHealthyCluster(inventory_, clock_.Now(), /*hosts=*/3);
    StartHub(TestOptions());
  }

  static HubOptions TestOptions() {
    HubOptions options;
    options.workers = 1;
    options.monitor_interval = absl::ZeroDuration();  // the test calls MonitorOnce
    options.replica_lease_ttl = absl::ZeroDuration();
    options.follow_watch = false;
    options.replica_id = "replica-under-test";
    options.timeouts.host.disconnection = absl::Minutes(3);
    return options;
  }

  // A hub with `parts` besides the test's steps and clock.
  void StartHub(HubOptions options, HubParts parts = {}) {
    hub_.reset();
    parts.instructions = &steps_;
    parts.clock = &clock_;
    hub_ = std::make_unique<AgentHub>(inventory_, options, random_, log::Logger::Discard(), parts);
  }

  // A stream from a new host (its id not in the inventory), or from HostId(i) of the seeded
  // cluster, registering with agent process `instance` and the hardware of the core's healthy
  // host `hardware`.
  std::shared_ptr<Session> Connect(const std::string& host_id, const std::string& instance,
                                   int hardware = 1) {
    auto session = std::make_shared<Session>("10.0.0.1:1234");
    hub_->OnOpen(session);
    agent::v1::AgentMessage message;
    agent::v1::Register& registration = *message.mutable_register_();
    registration.set_host_id(host_id);
    registration.set_infra_env_id(kInfraEnvId);
    registration.set_agent_instance_id(instance);
    registration.set_agent_version("v1");
    *registration.mutable_inventory() = core::testing::HealthyHost(hardware).inventory();
    hub_->OnMessage(session, message);
    return session;
  }

  void SendNtpResult(const std::shared_ptr<Session>& session, uint64_t seq) {
    agent::v1::AgentMessage message;
    message.set_seq(seq);
    types::v1::StepResult& result = *message.mutable_step_result();
    result.set_step_id(kNtpStep);
    result.set_step_type(types::v1::STEP_TYPE_NTP_SYNCHRONIZER);
    result.set_output(kSyncedNtp);
    hub_->OnMessage(session, message);
  }

  FakeClock clock_;
  testing::FakeInventory inventory_{clock_};
  SystemRandom random_;
  OneStep steps_;
  std::unique_ptr<AgentHub> hub_;
};

TEST_F(AgentHubTest, ANewHostIsCreatedDiscoveringHeldByThisReplicaAndAnnounced) {
  const std::string id = "00000000-0000-4000-8000-0000000000a1";
  std::vector<inv::WatchEvent> changes;
  auto watch = inventory_.Watch({inv::RESOURCE_KIND_HOST}, false,
                                {.on_change = [&](const inv::WatchEvent& change) {
                                  if (change.id() == id) changes.push_back(change);
                                }});
  std::shared_ptr<Session> session = Connect(id, "agent-1");
  hub_->WaitIdle();
  EXPECT_FALSE(session->closed());
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes[0].change_type(), inv::CHANGE_TYPE_CREATED);
  EXPECT_EQ(changes[0].host_status(), types::v1::HOST_STATUS_DISCOVERING);
  const types::v1::Host host = inventory_.Host(kInfraEnvId, id);
  EXPECT_EQ(host.cluster_id(), "c1");  // the infra-env's cluster
  EXPECT_EQ(host.agent_stream_holder(), "replica-under-test");
  EXPECT_EQ(host.agent_instance_id(), "agent-1");
  EXPECT_EQ(hub_->registered_hosts(), 1);
  bool announced = false;
  for (const types::v1::Event& event : inventory_.Events()) {
    announced =
        announced || (event.name() == "host_registration_succeeded" && event.host_id() == id);
  }
  EXPECT_TRUE(announced);
}

TEST_F(AgentHubTest, AHostOfAnUnknownInfraEnvIsRefusedAndNothingIsStored) {
  auto session = std::make_shared<Session>("10.0.0.1:1234");
  hub_->OnOpen(session);
  agent::v1::AgentMessage message;
  message.mutable_register_()->set_host_id(HostId(7));
  message.mutable_register_()->set_infra_env_id("00000000-0000-4000-8000-0000000000ff");
  hub_->OnMessage(session, message);
  EXPECT_TRUE(session->closed());
  EXPECT_FALSE(inventory_.HasHost("00000000-0000-4000-8000-0000000000ff", HostId(7)));
  EXPECT_EQ(hub_->registered_hosts(), 0);
}

// A herd registering at once: an agent that gave up waiting for its Registered (and dialled
// again) leaves its registration queued; handling it would cost a write and a refresh for a
// stream nobody listens on.
TEST_F(AgentHubTest, ARegistrationWhoseAgentHungUpBeforeAWorkerTookItIsDroppedUnstored) {
  const std::string id = "00000000-0000-4000-8000-0000000000a2";
  auto session = std::make_shared<Session>("10.0.0.1:1234");
  hub_->OnOpen(session);
  // The stream ended (as when the agent gave up waiting, or its connection broke).
  session->Close(grpc::Status(grpc::StatusCode::CANCELLED, "the agent gave up"));
  agent::v1::AgentMessage message;
  message.mutable_register_()->set_host_id(id);
  message.mutable_register_()->set_infra_env_id(kInfraEnvId);
  message.mutable_register_()->set_agent_instance_id("agent-1");
  *message.mutable_register_()->mutable_inventory() = core::testing::HealthyHost(1).inventory();
  hub_->OnMessage(session, message);
  hub_->WaitIdle();
  EXPECT_FALSE(inventory_.HasHost(kInfraEnvId, id));
  EXPECT_EQ(hub_->registered_hosts(), 0);
}

TEST_F(AgentHubTest, AKnownHostReconnectingIsUpdatedNotCreatedAgain) {
  std::shared_ptr<Session> session = Connect(HostId(1), "agent-1");
  hub_->WaitIdle();
  const types::v1::Host host = inventory_.Host(kInfraEnvId, HostId(1));
  EXPECT_EQ(host.agent_stream_holder(), "replica-under-test");
  EXPECT_EQ(host.agent_instance_id(), "agent-1");
  for (const types::v1::Event& event : inventory_.Events()) {
    EXPECT_NE(event.name(), "host_registration_succeeded");
  }
}

TEST_F(AgentHubTest, AStepResultIsAppliedOnceAndItsRepeatIsNotAppliedAgain) {
  std::shared_ptr<Session> session = Connect(HostId(1), "agent-1");
  hub_->WaitIdle();
  SendNtpResult(session, 1);
  hub_->WaitIdle();
  types::v1::Host host = inventory_.Host(kInfraEnvId, HostId(1));
  EXPECT_EQ(host.agent_applied_seq(), 1u);
  ASSERT_EQ(host.ntp_sources_report().ntp_sources_size(), 1);
  EXPECT_EQ(host.ntp_sources_report().ntp_sources(0).source_state(), "synced");
  const int writes = inventory_.host_writes();
  SendNtpResult(session, 1);  // the same message again
  hub_->WaitIdle();
  EXPECT_EQ(inventory_.host_writes(), writes);
  EXPECT_FALSE(session->closed());
}

// The host's clock is stored as read at checked_in_at: every write that moves checked_in_at
// moves the clock by as much, or half an hour of quiet before a result reads as half an hour of
// clock skew (HubTest.AQuietConnectedHostsClockStaysInSyncHoweverLongItIsQuiet failed so).
TEST_F(AgentHubTest, AResultAfterALongQuietKeepsTheHostsClockInStepWithItsCheckIn) {
  auto session = std::make_shared<Session>("10.0.0.1:1234");
  hub_->OnOpen(session);
  agent::v1::AgentMessage message;
  agent::v1::Register& registration = *message.mutable_register_();
  registration.set_host_id(HostId(1));
  registration.set_infra_env_id(kInfraEnvId);
  registration.set_agent_instance_id("agent-1");
  registration.set_agent_version("v1");
  *registration.mutable_inventory() = core::testing::HealthyHost(1).inventory();
  *registration.mutable_agent_time() = core::testing::Ts(clock_.Now());
  hub_->OnMessage(session, message);
  hub_->WaitIdle();

  clock_.Advance(absl::Minutes(30));
  SendNtpResult(session, 1);
  hub_->WaitIdle();
  const types::v1::Host host = inventory_.Host(kInfraEnvId, HostId(1));
  EXPECT_EQ(host.timestamp().seconds(), host.checked_in_at().seconds()) << host.DebugString();
  EXPECT_EQ(host.status(), types::v1::HOST_STATUS_KNOWN) << host.status_info();
}

TEST_F(AgentHubTest, AResultResentAfterAReconnectOfTheSameAgentIsNotAppliedAgain) {
  std::shared_ptr<Session> first = Connect(HostId(1), "agent-1");
  hub_->WaitIdle();
  SendNtpResult(first, 1);
  hub_->WaitIdle();
  hub_->OnClosed(first);
  hub_->WaitIdle();
  std::shared_ptr<Session> second = Connect(HostId(1), "agent-1");
  hub_->WaitIdle();
  const int writes = inventory_.host_writes();
  SendNtpResult(second, 1);  // the agent did not see the Ack and sends it again
  hub_->WaitIdle();
  EXPECT_EQ(inventory_.host_writes(), writes);
  EXPECT_EQ(inventory_.Host(kInfraEnvId, HostId(1)).agent_applied_seq(), 1u);
}

// Acks are cumulative (agent_service.proto): acknowledging seq 2 while seq 1 could not be stored
// would tell the agent to drop seq 1, and the host's fence (agent_applied_seq 2) would then turn
// its re-send away as applied before. A message that cannot be stored now ends the stream
// instead, and nothing after it on that stream is applied: the agent sends both again, in
// order, on its next stream. (An inventory replica killed mid-install answers UNAVAILABLE.)
TEST_F(AgentHubTest, AResultThatCannotBeStoredNowEndsTheStreamAndNoLaterResultOvertakesIt) {
  std::shared_ptr<Session> first = Connect(HostId(1), "agent-1");
  hub_->WaitIdle();
  inventory_.FailNext("UpdateHost", absl::UnavailableError("the inventory replica went away"));
  SendNtpResult(first, 1);
  hub_->WaitIdle();
  EXPECT_TRUE(first->closed());
  SendNtpResult(first, 2);  // already read from the stream before it ended
  hub_->WaitIdle();
  EXPECT_EQ(inventory_.Host(kInfraEnvId, HostId(1)).agent_applied_seq(), 0u);

  hub_->OnClosed(first);
  hub_->WaitIdle();
  std::shared_ptr<Session> second = Connect(HostId(1), "agent-1");
  hub_->WaitIdle();
  SendNtpResult(second, 1);  // applied now, not turned away by a fence that passed it
  hub_->WaitIdle();
  EXPECT_EQ(inventory_.Host(kInfraEnvId, HostId(1)).agent_applied_seq(), 1u);
  EXPECT_FALSE(second->closed());
}

TEST_F(AgentHubTest, AResultForAStepNeverSentIsRejectedAndNotStored) {
  std::shared_ptr<Session> session = Connect(HostId(1), "agent-1");
  hub_->WaitIdle();
  agent::v1::AgentMessage message;
  message.set_seq(1);
  message.mutable_step_result()->set_step_id("never-sent");
  message.mutable_step_result()->set_step_type(types::v1::STEP_TYPE_NTP_SYNCHRONIZER);
  message.mutable_step_result()->set_output(
      R"({"ntp_sources":[{"source_name":"rogue.example","source_state":"synced"}]})");
  hub_->OnMessage(session, message);
  hub_->WaitIdle();
  const types::v1::Host host = inventory_.Host(kInfraEnvId, HostId(1));
  // The registered host may carry its fixture's report; the rogue source must not be in it.
  for (const types::v1::NtpSource& source : host.ntp_sources_report().ntp_sources()) {
    EXPECT_NE(source.source_name(), "rogue.example");
  }
  EXPECT_EQ(host.agent_applied_seq(), 0u);
}

TEST_F(AgentHubTest, RegistrationsAndResultsRefreshTheClusterByTheTables) {
  std::vector<std::shared_ptr<Session>> sessions;
  for (int i = 1; i <= 3; ++i) sessions.push_back(Connect(HostId(i), "agent", i));
  hub_->WaitIdle();
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(inventory_.Host(kInfraEnvId, HostId(i)).status(), types::v1::HOST_STATUS_KNOWN)
        << inventory_.Host(kInfraEnvId, HostId(i)).status_info();
  }
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_READY)
      << inventory_.Cluster("c1").status_info();
}

TEST_F(AgentHubTest, AHostWhoseStreamClosedGoesDisconnectedOnceTheTimeoutPassed) {
  std::shared_ptr<Session> session = Connect(HostId(1), "agent-1");
  hub_->WaitIdle();
  ASSERT_EQ(inventory_.Host(kInfraEnvId, HostId(1)).status(), types::v1::HOST_STATUS_KNOWN);
  hub_->OnClosed(session);
  hub_->WaitIdle();
  EXPECT_TRUE(inventory_.Host(kInfraEnvId, HostId(1)).agent_stream_holder().empty());

  clock_.Advance(absl::Minutes(2));
  hub_->MonitorOnce();
  hub_->WaitIdle();
  EXPECT_EQ(inventory_.Host(kInfraEnvId, HostId(1)).status(), types::v1::HOST_STATUS_KNOWN);

  clock_.Advance(absl::Minutes(1) + absl::Seconds(1));
  hub_->MonitorOnce();
  hub_->WaitIdle();
  EXPECT_EQ(inventory_.Host(kInfraEnvId, HostId(1)).status(), types::v1::HOST_STATUS_DISCONNECTED);
}

TEST_F(AgentHubTest, AHostWhoseStreamCameBackBeforeTheTimeoutStaysConnected) {
  std::shared_ptr<Session> session = Connect(HostId(1), "agent-1");
  hub_->WaitIdle();
  hub_->OnClosed(session);
  hub_->WaitIdle();
  clock_.Advance(absl::Minutes(1));
  std::shared_ptr<Session> again = Connect(HostId(1), "agent-1");
  hub_->WaitIdle();
  clock_.Advance(absl::Minutes(5));
  hub_->MonitorOnce();
  hub_->WaitIdle();
  EXPECT_NE(inventory_.Host(kInfraEnvId, HostId(1)).status(), types::v1::HOST_STATUS_DISCONNECTED);
}

TEST_F(AgentHubTest, AStreamThatDoesNotRegisterInTimeIsClosedByTheMonitor) {
  auto session = std::make_shared<Session>("10.0.0.1:1234");
  hub_->OnOpen(session);
  clock_.Advance(absl::Hours(1));
  hub_->MonitorOnce();
  EXPECT_TRUE(session->closed());
}

TEST_F(AgentHubTest, EachUnregisteredStreamIsClosedAtItsOwnDeadlineAndARegisteredOneNever) {
  auto early = std::make_shared<Session>("10.0.0.1:1000");
  hub_->OnOpen(early);
  std::shared_ptr<Session> registered = Connect(HostId(1), "agent-1");
  hub_->WaitIdle();
  clock_.Advance(absl::Seconds(20));
  auto late = std::make_shared<Session>("10.0.0.2:1000");
  hub_->OnOpen(late);

  clock_.Advance(absl::Seconds(11));  // 31 s after the first opened, 11 s after the second
  hub_->MonitorOnce();
  EXPECT_TRUE(early->closed());
  EXPECT_FALSE(late->closed());
  hub_->OnClosed(early);

  clock_.Advance(absl::Seconds(20));  // the second one's 30 s have passed
  hub_->MonitorOnce();
  EXPECT_TRUE(late->closed());
  EXPECT_FALSE(registered->closed());
}

TEST_F(AgentHubTest, AChangeMadeElsewhereReachesTheHubThroughTheWatch) {
  HubOptions options;
  options.workers = 1;
  options.monitor_interval = absl::ZeroDuration();
  options.replica_lease_ttl = absl::ZeroDuration();
  options.replica_id = "replica-under-test";
  StartHub(options);  // follows the Watch
  std::vector<std::shared_ptr<Session>> sessions;
  for (int i = 1; i <= 3; ++i) sessions.push_back(Connect(HostId(i), "agent", i));
  hub_->WaitIdle();
  ASSERT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_READY);
  // A user (through another replica) takes host 2's disks away: the hub refreshes the cluster.
  core::HostFieldsUpdate no_disks;
  *no_disks.fields.mutable_inventory() = inventory_.Host(kInfraEnvId, HostId(2)).inventory();
  no_disks.fields.mutable_inventory()->clear_disks();
  no_disks.Mark("inventory");
  ASSERT_THAT(inventory_.UpdateHost(kInfraEnvId, HostId(2), no_disks, 0),
              ::assisted::testing::IsOk());
  hub_->WaitIdle();
  EXPECT_EQ(inventory_.Host(kInfraEnvId, HostId(2)).status(), types::v1::HOST_STATUS_INSUFFICIENT);
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_INSUFFICIENT);
}

// The hub with the refresher the orchestrator runs: one that generates a preparing cluster's
// installation files (under their lease).
class AgentHubInstallFilesTest : public AgentHubTest {
 protected:
  AgentHubInstallFilesTest() {
    StartHub(TestOptions(), {.events = &events_, .liveness = &liveness_, .refresher = &refresher_});
  }
  ~AgentHubInstallFilesTest() override { hub_.reset(); }  // before the parts it uses

  LivenessTracker liveness_{"replica-under-test", clock_};
  InventoryEvents events_{inventory_, {}, clock_, log::Logger::Discard()};
  install::ArtifactGenerator files_{inventory_, clock_, random_, "replica-under-test"};
  Refresher refresher_{inventory_, {}, clock_, liveness_, events_, log::Logger::Discard(), &files_};
};

// A replica killed while it generated a cluster's installation files leaves their lease held
// until it expires; the hosts wait in preparing-successful, and no agent message or user action
// asks again. The monitor refreshes hosts in that state every interval, so the first refresh
// after the lease expired generates the files (ReplicasInstallTest once waited 180 s for them).
TEST_F(AgentHubInstallFilesTest,
       HostsWaitingForFilesWhoseLeaseADeadReplicaHeldGetThemOnceItExpires) {
  const std::string pull_secret = inventory_.GetPullSecret("c1").value();
  types::v1::Cluster cluster = inventory_.Cluster("c1");
  cluster.set_status(types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);
  inventory_.AddCluster(cluster, pull_secret);
  for (int i = 1; i <= 3; ++i) {
    types::v1::Host host = inventory_.Host(kInfraEnvId, HostId(i));
    host.set_status(types::v1::HOST_STATUS_PREPARING_SUCCESSFUL);
    host.set_role(types::v1::HOST_ROLE_MASTER);
    host.set_bootstrap(i == 1);
    inventory_.AddHost(host);
  }
  ASSERT_THAT(inventory_.AcquireLease("install-artifacts-c1", "replica-gone", absl::Seconds(60)),
              IsOk());
  std::vector<std::shared_ptr<Session>> sessions;
  for (int i = 1; i <= 3; ++i) sessions.push_back(Connect(HostId(i), "agent", i));
  hub_->WaitIdle();
  hub_->MonitorOnce();
  hub_->WaitIdle();
  ASSERT_THAT(inventory_.ArtifactContent("c1", install::kInstallConfigName), IsOk());
  EXPECT_FALSE(inventory_.ArtifactContent("c1", install::kInstallConfigName)->has_value())
      << "generated while another replica held the lease";

  clock_.Advance(absl::Seconds(61));  // the dead replica's lease expires; nobody says a word
  hub_->MonitorOnce();
  hub_->WaitIdle();
  EXPECT_TRUE(inventory_.ArtifactContent("c1", install::kInstallConfigName)->has_value());
  EXPECT_EQ(inventory_.Cluster("c1").last_installation_preparation().status(),
            types::v1::INSTALLATION_PREPARATION_STATUS_SUCCESS)
      << inventory_.Cluster("c1").status_info();
}

}  // namespace
}  // namespace assisted::orchestrator
