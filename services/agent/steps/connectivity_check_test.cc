#include "services/agent/steps/connectivity_check.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/steps/orchestrator_view.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/test_util.h"

namespace assisted::agent::steps {
namespace {

using ::assisted::testing::IsOk;
using testing::ContextHolder;
using ::testing::HasSubstr;
using testing::MakeStep;
using testing::OrchestratorConnectivity;
using testing::ReferenceText;

constexpr StepType kType = types::v1::STEP_TYPE_CONNECTIVITY_CHECK;

std::string WriteArpTable(const std::string& body) {
  const std::string path = ::testing::TempDir() + "/arp";
  std::ofstream(path) << "IP address       HW type     Flags       HW address            Mask     "
                         "Device\n"
                      << body;
  return path;
}

// Two remote hosts: "host-a" at 127.0.0.1 (where a probe listener runs) and "host-b" at
// 127.0.0.2 (nothing listens).
constexpr char kTwoHosts[] = R"([
  {"host_id": "host-b", "nics": [{"name": "eth0", "mac": "AA:BB:CC:00:00:02",
                                  "ip_addresses": ["127.0.0.2/8"]}]},
  {"host_id": "host-a", "nics": [{"name": "eth0", "mac": "aa:bb:cc:00:00:01",
                                  "ip_addresses": ["127.0.0.1/8", "127.0.0.1"]}]}
])";

// Quick probes (`probes` per address, no pause between them) and no neighbour table.
ConnectivityCheckOptions QuickOptions(ProbeOptions probe, int probes) {
  ConnectivityCheckOptions options;
  options.probe = probe;
  options.probes_per_address = probes;
  options.probe_interval = absl::ZeroDuration();
  options.probe_timeout = absl::Milliseconds(500);
  options.neighbour_table = "/nonexistent";
  return options;
}

// Runs one connectivity check with `args` on a real (or, given hooks, simulated) host.
StepResult RunCheck(const ConnectivityCheckOptions& options, const std::string& args,
                    const SimulationHooks* simulation = nullptr) {
  ConnectivityCheck check(options);
  ContextHolder holder;
  holder.simulation = simulation;
  StepContext context = holder.context();
  return check.Run(MakeStep(kType, {args}), context);
}

TEST(ConnectivityCheck, TcpProbesMeasureLossAndRttAndNeighboursGiveL2) {
  absl::StatusOr<std::unique_ptr<ProbeListener>> listener = ProbeListener::Start("127.0.0.1", 0);
  ASSERT_THAT(listener, IsOk());
  ConnectivityCheckOptions options = QuickOptions(
      {.method = ProbeMethod::kTcp, .tcp_port = (*listener)->port(), .refused_is_answer = false},
      3);
  // host-b's address answers ARP with a MAC that is not one of host-b's NICs (an IP conflict).
  options.neighbour_table = WriteArpTable(
      "127.0.0.1        0x1         0x2         aa:bb:cc:00:00:01     *        lo\n"
      "127.0.0.2        0x1         0x2         de:ad:be:ef:00:09     *        lo\n"
      "127.0.0.3        0x1         0x0         00:00:00:00:00:00     *        lo\n");
  StepResult result = RunCheck(options, kTwoHosts);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  auto report = OrchestratorConnectivity(result);
  ASSERT_THAT(report, IsOk());
  ASSERT_EQ(report->remote_hosts.size(), 2u);

  const auto& a = report->remote_hosts[0];
  EXPECT_EQ(a.host_id, "host-a");
  ASSERT_EQ(a.l3.size(), 1u);  // the two spellings of 127.0.0.1 are one address
  EXPECT_EQ(a.l3[0].remote_ip, "127.0.0.1");
  EXPECT_TRUE(a.l3[0].successful);
  EXPECT_EQ(a.l3[0].packet_loss_percentage, 0);
  EXPECT_GT(a.l3[0].average_rtt_ms, 0);
  EXPECT_LT(a.l3[0].average_rtt_ms, 500);
  ASSERT_EQ(a.l2.size(), 1u);
  EXPECT_EQ(a.l2[0].outgoing_nic, "lo");
  EXPECT_TRUE(a.l2[0].successful);
  EXPECT_TRUE(a.mtu.empty());

  const auto& b = report->remote_hosts[1];
  EXPECT_EQ(b.host_id, "host-b");
  ASSERT_EQ(b.l3.size(), 1u);
  EXPECT_FALSE(b.l3[0].successful);
  EXPECT_EQ(b.l3[0].packet_loss_percentage, 100);
  ASSERT_EQ(b.l2.size(), 1u);
  EXPECT_FALSE(b.l2[0].successful);
  EXPECT_THAT(ReferenceText(result), HasSubstr("\"remote_mac\":\"de:ad:be:ef:00:09\""));
  EXPECT_THAT(ReferenceText(result), HasSubstr("\"outgoing_ip_address\":\"127.0.0.1\""));
}

TEST(ConnectivityCheck, RefusedConnectionMeansTheHostIsUp) {
  // Nobody listens on port 1.
  StepResult result = RunCheck(QuickOptions({.method = ProbeMethod::kTcp, .tcp_port = 1}, 2),
                               R"([{"host_id":"h1","nics":[{"ip_addresses":["127.0.0.5/8"]}]}])");
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  auto report = OrchestratorConnectivity(result);
  ASSERT_THAT(report, IsOk());
  ASSERT_EQ(report->remote_hosts.size(), 1u);
  EXPECT_TRUE(report->remote_hosts[0].l3[0].successful);
  EXPECT_TRUE(report->remote_hosts[0].l2.empty());
}

TEST(ConnectivityCheck, UsesIcmpWhereTheKernelAllowsIt) {
  Prober prober({});
  if (!prober.UsesIcmp(net::Family::kIpv4)) GTEST_SKIP() << "no ICMP socket permitted here";
  // Port 1 is closed and refusals do not count: only ICMP can succeed.
  const std::string v6 = prober.UsesIcmp(net::Family::kIpv6) ? R"(, "::1/128")" : "";
  StepResult result = RunCheck(
      QuickOptions({.tcp_port = 1, .refused_is_answer = false}, 2),
      absl::StrCat(R"([{"host_id":"h1","nics":[{"ip_addresses":["127.0.0.1/8")", v6, "]}]}]"));
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  auto report = OrchestratorConnectivity(result);
  ASSERT_THAT(report, IsOk());
  for (const auto& probe : report->remote_hosts[0].l3) {
    EXPECT_TRUE(probe.successful) << probe.remote_ip;
    EXPECT_EQ(probe.packet_loss_percentage, 0) << probe.remote_ip;
  }
}

TEST(ConnectivityCheck, SimulatedHostAnswersFromItsHooks) {
  SimulationHooks hooks;
  hooks.probe = [](const net::IpAddress& a) -> std::optional<absl::Duration> {
    if (a.ToString() == "192.168.111.21") return absl::Microseconds(800);
    return std::nullopt;
  };
  hooks.neighbour_mac = [](const net::IpAddress& a) -> std::optional<std::string> {
    if (a.ToString() == "192.168.111.21") return "52:54:00:00:00:21";
    return std::nullopt;
  };
  StepResult result = RunCheck(QuickOptions({}, 2), R"([
    {"host_id":"h1","nics":[{"mac":"52:54:00:00:00:21","ip_addresses":["192.168.111.21/24"]}]},
    {"host_id":"h2","nics":[{"mac":"52:54:00:00:00:22","ip_addresses":["192.168.111.22/24"]}]}
  ])",
                               &hooks);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  auto report = OrchestratorConnectivity(result);
  ASSERT_THAT(report, IsOk());
  ASSERT_EQ(report->remote_hosts.size(), 2u);
  EXPECT_TRUE(report->remote_hosts[0].l3[0].successful);
  EXPECT_NEAR(report->remote_hosts[0].l3[0].average_rtt_ms, 0.8, 1e-9);
  EXPECT_TRUE(report->remote_hosts[0].l2[0].successful);
  EXPECT_FALSE(report->remote_hosts[1].l3[0].successful);
  EXPECT_TRUE(report->remote_hosts[1].l2.empty());
}

TEST(ConnectivityCheck, BadArgumentsAreMinusOne) {
  ConnectivityCheck check({});
  ContextHolder holder;
  StepContext context = holder.context();
  for (const char* args : {"not json", R"({"host_id":"h"})",
                           R"([{"host_id":"h","nics":[{"ip_addresses":["300.1.1.1"]}]}])",
                           R"([{"host_id":"h"},{"host_id":"h"}])", R"([{"nics":[]}])",
                           R"([{"host_id":"h; rm -rf /"}])",
                           R"([{"host_id":"h","nics":[{"ip_addresses":"10.0.0.1"}]}])"}) {
    StepResult result = check.Run(MakeStep(kType, {args}), context);
    EXPECT_EQ(result.exit_code(), -1) << args;
    EXPECT_THAT(result.error(), HasSubstr("invalid arguments")) << args;
  }
  EXPECT_EQ(check.Run(MakeStep(kType, {}), context).exit_code(), -1);
}

TEST(ConnectivityCheck, TooManyAddressesAreRefused) {
  ConnectivityCheckOptions options;
  options.max_addresses = 1;
  StepResult result =
      RunCheck(options, R"([{"host_id":"h","nics":[{"ip_addresses":["10.0.0.1","10.0.0.2"]}]}])");
  EXPECT_EQ(result.exit_code(), -1);
  EXPECT_THAT(result.error(), HasSubstr("2 addresses to check, at most 1"));
}

TEST(NeighbourTable, ParsesCompleteEntriesOnly) {
  std::vector<Neighbour> n = ParseArpTable(
      "IP address       HW type     Flags       HW address            Mask     Device\n"
      "192.0.2.1        0x1         0x2         02:FC:00:00:00:05     *        eth0\n"
      "192.0.2.2        0x1         0x0         00:00:00:00:00:00     *        eth0\n"
      "garbage\n");
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].address.ToString(), "192.0.2.1");
  EXPECT_EQ(n[0].mac, "02:fc:00:00:00:05");
  EXPECT_EQ(n[0].device, "eth0");
}

}  // namespace
}  // namespace assisted::agent::steps
