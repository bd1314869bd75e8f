// Faults on the agents' streams, with the real orchestrator, inventory and PostgreSQL:
//   - the orchestrator is killed with SIGKILL while 50 simulated agents are connected and
//     started again on the same address: every agent registers again within the backoff bound,
//     and the agents' own books show that no result was lost or applied twice;
//   - an agent process is frozen (SIGSTOP): the server's keepalive drops its stream, the host
//     becomes disconnected within the configured time, and it heals when the agent is resumed.
#include <signal.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/log/log.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/agent/fleet.h"
#include "services/agent/simulation/profile_paths.h"
#include "tests/harness/host_watch.h"
#include "tests/harness/probes.h"
#include "tests/harness/stack.h"

namespace assisted::testing {
namespace {

namespace inv = ::assisted::inventory::v1;
using ::assisted::agent::Fleet;
using ::assisted::agent::FleetEvent;
using ::assisted::agent::simulation::testing::ProfilePath;
using types::v1::HOST_STATUS_DISCONNECTED_UNBOUND;
using types::v1::HOST_STATUS_KNOWN_UNBOUND;

class AgentFaultTest : public StackTest {
 protected:
  // The orchestrator with short time limits: a stream whose peer stops answering pings is
  // dropped after ~2 s, and a host without a stream is disconnected 2 s later.
  StackOptions Options() const override {
    return {.orchestrator_flags = {"--host-disconnection-timeout=2s", "--monitor-interval=200ms",
                                   "--grpc-keepalive-time=1s", "--grpc-keepalive-timeout=1s",
                                   // The whole fleet reconnects at once from this one address.
                                   "--max-unregistered-agent-streams-per-peer=1000"}};
  }

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StackTest::SetUp());
    absl::StatusOr<types::v1::InfraEnv> infra_env = stack().CreateInfraEnv("faults");
    ASSERT_THAT(infra_env, IsOk());
    infra_env_ = *std::move(infra_env);
  }

  types::v1::Host StoredHost(const std::string& id) {
    inv::GetHostRequest get;
    get.set_infra_env_id(infra_env_.id());
    get.set_id(id);
    types::v1::Host host;
    grpc::ClientContext context;
    EXPECT_TRUE(stack().inventory_stub().GetHost(&context, get, &host).ok()) << id;
    return host;
  }

  types::v1::InfraEnv infra_env_;
};

// What each agent of a fleet has been through, from the fleet's observer; waits are on
// conditions, never sleeps.
class FleetBooks {
 public:
  agent::FleetObserver Observer() {
    return [this](const FleetEvent& event) {
      absl::MutexLock lock(&mu_);
      if (event.kind == FleetEvent::Kind::kRegistered) ++registrations_[event.agent];
      // A registration acknowledges what the orchestrator had applied: a result applied just
      // before the kill, whose Ack died with it, is acknowledged that way and never re-sent.
      if (event.kind == FleetEvent::Kind::kAcknowledged ||
          event.kind == FleetEvent::Kind::kRegistered) {
        acknowledged_[event.agent] = std::max(acknowledged_[event.agent], event.seq);
      }
    };
  }

  // Waits until each of `agents` agents registered at least `times` times.
  bool AwaitRegistrations(int agents, int times, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    const auto all = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      if (static_cast<int>(registrations_.size()) < agents) return false;
      for (const auto& [agent, count] : registrations_) {
        if (count < times) return false;
      }
      return true;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&all), timeout);
  }

  // Waits until agent i has been acknowledged up to at least `seqs[i]`.
  bool AwaitAcknowledged(const std::map<int, uint64_t>& seqs, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    const auto all = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      for (const auto& [agent, seq] : seqs) {
        if (acknowledged_[agent] < seq) return false;
      }
      return true;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&all), timeout);
  }

 private:
  absl::Mutex mu_;
  std::map<int, int> registrations_ ABSL_GUARDED_BY(mu_);
  std::map<int, uint64_t> acknowledged_ ABSL_GUARDED_BY(mu_);
};

// The highest seq each agent (by index) has sent, from Fleet::Records().
std::map<int, uint64_t> LastSent(const nlohmann::json& records) {
  std::map<int, uint64_t> last;
  for (const nlohmann::json& agent : records) {
    uint64_t& seq = last[agent["agent"].get<int>()];
    for (const nlohmann::json& message : agent["sent"]) {
      seq = std::max(seq, message["seq"].get<uint64_t>());
    }
  }
  return last;
}

TEST_F(AgentFaultTest, AKilledOrchestratorLosesNoResultAndEveryAgentComesBack) {
  constexpr int kAgents = 50;
  FleetBooks books;
  Fleet::Options options;
  options.profile = ProfilePath("worker");
  options.count = kAgents;
  options.orchestrator_address = orchestrator().grpc_target();
  options.infra_env_id = infra_env_.id();
  options.agent_token = "fault-token";
  options.state_dir = ::testing::TempDir() + "/fault-fleet";
  options.step_threads = 2;
  auto fleet = Fleet::Start(options, books.Observer(), log::Logger::Discard());
  ASSERT_THAT(fleet, IsOk());
  std::vector<std::string> ids;
  for (int i = 0; i < kAgents; ++i) ids.push_back((*fleet)->host_id(i));

  const StatusWatch judged = WatchHostsUntil(
      stack().inventory_stub(), infra_env_.id(), 1,
      [&](const HostStatuses& seen) { return AllAre(seen, ids, HOST_STATUS_KNOWN_UNBOUND); },
      absl::Seconds(90));
  ASSERT_TRUE(judged.done) << judged.error << " " << StoredHost(ids[0]).status_info();
  ASSERT_TRUE(books.AwaitRegistrations(kAgents, 1, absl::Seconds(1)));

  // What every agent had sent when the orchestrator died, acknowledged or not.
  const std::map<int, uint64_t> sent_before_kill =
      LastSent(nlohmann::json::parse((*fleet)->Records()));
  orchestrator().Kill();
  ASSERT_THAT(stack().RestartOrchestrator(), IsOk());
  const absl::Time restarted_at = absl::Now();
  // The backoff is 1 s × 1.6 per attempt, at most 120 s: every agent is back well within it.
  EXPECT_TRUE(books.AwaitRegistrations(kAgents, 2, absl::Seconds(120)));
  std::cerr << kAgents << " agents registered again "
            << absl::FormatDuration(absl::Now() - restarted_at) << " after the restart\n";
  EXPECT_EQ((*fleet)->registered(), kAgents);
  // Nothing sent before the kill is lost: each agent keeps unacknowledged results and sends
  // them again, and is acknowledged only once the orchestrator has applied them.
  EXPECT_TRUE(books.AwaitAcknowledged(sent_before_kill, absl::Seconds(60)));

  (*fleet)->Stop();

  // The agents' books: each seq sent once in order; everything sent before the kill, and
  // everything acknowledged after, is what the orchestrator applied (its fence is the highest
  // seq applied for the agent's instance, and a re-sent seq at or below it is never applied).
  const nlohmann::json records = nlohmann::json::parse((*fleet)->Records());
  ASSERT_EQ(static_cast<int>(records.size()), kAgents);
  for (const nlohmann::json& agent : records) {
    uint64_t expected = 1;
    for (const nlohmann::json& sent : agent["sent"]) {
      EXPECT_EQ(sent["seq"].get<uint64_t>(), expected++) << agent.dump();
    }
    const uint64_t last_sent = expected - 1;
    const uint64_t acknowledged = agent["acknowledged_up_to"].get<uint64_t>();
    EXPECT_GE(acknowledged, sent_before_kill.at(agent["agent"].get<int>())) << agent.dump();
    EXPECT_GE(agent["registrations"].get<int>(), 2) << agent.dump();
    const types::v1::Host host = StoredHost(agent["host_id"].get<std::string>());
    EXPECT_EQ(host.agent_instance_id(), agent["instance_id"].get<std::string>());
    EXPECT_GE(host.agent_applied_seq(), acknowledged) << agent.dump();
    EXPECT_LE(host.agent_applied_seq(), last_sent) << agent.dump();
  }
}

TEST_F(AgentFaultTest, AFrozenAgentMakesItsHostDisconnectedAndItHealsWhenResumed) {
  constexpr char kHost[] = "5d6b2b0e-7c2f-4d5c-9b8e-3a7c1f2e4d60";
  const std::string log_path = ::testing::TempDir() + "/frozen-agent.log";
  auto agent = process::Subprocess::Start(
      {RunfilePath("services/agent/assisted-agent"),
       "--orchestrator-address=" + orchestrator().grpc_target(),
       "--infra-env-id=" + infra_env_.id(), std::string("--host-id=") + kHost,
       "--agent-token=frozen-token", "--simulate=" + ProfilePath("worker"),
       "--state-dir=" + ::testing::TempDir() + "/frozen-agent", "--probe-port=0"},
      {}, log_path);
  ASSERT_THAT(agent, IsOk());
  const std::vector<std::string> ids = {kHost};
  const auto agent_log = [&] { return ReadFile(log_path, "agent log").value_or(""); };

  const StatusWatch known = WatchHostsUntil(
      stack().inventory_stub(), infra_env_.id(), 1,
      [&](const HostStatuses& seen) { return AllAre(seen, ids, HOST_STATUS_KNOWN_UNBOUND); },
      absl::Seconds(60));
  ASSERT_TRUE(known.done) << known.error << " " << agent_log();

  (*agent)->Signal(SIGSTOP);
  const absl::Time frozen_at = absl::Now();
  const StatusWatch lost = WatchHostsUntil(
      stack().inventory_stub(), infra_env_.id(), known.last_seq,
      [&](const HostStatuses& seen) { return AllAre(seen, ids, HOST_STATUS_DISCONNECTED_UNBOUND); },
      absl::Seconds(60));
  EXPECT_TRUE(lost.done) << lost.error << " " << StoredHost(kHost).status_info();
  std::cerr << "disconnected " << absl::FormatDuration(absl::Now() - frozen_at)
            << " after SIGSTOP (keepalive 1 s + 1 s, disconnection timeout 2 s)\n";

  (*agent)->Signal(SIGCONT);
  const StatusWatch healed = WatchHostsUntil(
      stack().inventory_stub(), infra_env_.id(), lost.last_seq,
      [&](const HostStatuses& seen) { return AllAre(seen, ids, HOST_STATUS_KNOWN_UNBOUND); },
      absl::Seconds(120));
  EXPECT_TRUE(healed.done) << healed.error << " " << StoredHost(kHost).status_info() << "\n"
                           << agent_log();

  (*agent)->Signal(SIGTERM);
  EXPECT_THAT((*agent)->Wait(absl::Seconds(15)), IsOkAndHolds(0));
}

}  // namespace
}  // namespace assisted::testing
