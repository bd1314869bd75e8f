#include "services/agent/steps/ntp_synchronizer.h"

#include <sys/socket.h>

#include <string>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/steps/orchestrator_view.h"
#include "services/agent/steps/test_util.h"
#include "services/agent/steps/unique_fd.h"

namespace assisted::agent::steps {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using testing::ContextHolder;
using ::testing::ElementsAre;
using testing::Exited;
using ::testing::HasSubstr;
using testing::MakeStep;
using testing::OrchestratorNtpSources;
using testing::ReferenceText;
using testing::ScriptedProcessRunner;

constexpr StepType kType = types::v1::STEP_TYPE_NTP_SYNCHRONIZER;

MATCHER_P2(Source, name, state, "") { return arg.name == name && arg.state == state; }

// A UDP server on 127.0.0.1 that answers SNTP requests with its clock set `skew` away from
// the real one (or stays silent), until destroyed.
class TestSntpServer {
 public:
  explicit TestSntpServer(absl::Duration skew, bool silent = false)
      : server_(SOCK_DGRAM, [skew, silent](int fd, const absl::Notification&) {
          NtpPacket request{};
          sockaddr_storage from{};
          socklen_t from_length = sizeof(from);
          const ssize_t n = recvfrom(fd, request.data(), request.size(), 0,
                                     reinterpret_cast<sockaddr*>(&from), &from_length);
          if (n != static_cast<ssize_t>(request.size()) || silent) return;
          NtpPacket reply{};
          reply[0] = (4 << 3) | 4;  // version 4, server
          reply[1] = 2;             // stratum
          std::copy(request.begin() + kNtpTransmitOffset, request.begin() + kNtpTransmitOffset + 8,
                    reply.begin() + kNtpOriginateOffset);
          PutNtpTime(reply, kNtpReceiveOffset, absl::Now() + skew);
          PutNtpTime(reply, kNtpTransmitOffset, absl::Now() + skew);
          sendto(fd, reply.data(), reply.size(), 0, reinterpret_cast<sockaddr*>(&from),
                 from_length);
        }) {}
  int port() const { return server_.port(); }

 private:
  testing::LoopbackServer server_;
};

// chronyc is not installed.
absl::StatusOr<process::CommandResult> NoChrony(const process::Command& command) {
  return absl::NotFoundError(absl::StrCat("cannot run ", command.argv[0]));
}

TEST(Sntp, MeasuresTheOffsetOfAServer) {
  TestSntpServer server(absl::Minutes(3));
  RealClock clock;
  absl::StatusOr<SntpAnswer> answer =
      QuerySntp("127.0.0.1", server.port(), absl::Seconds(2), clock);
  ASSERT_THAT(answer, IsOk());
  EXPECT_LT(absl::AbsDuration(answer->offset - absl::Minutes(3)), absl::Milliseconds(50));
  EXPECT_GE(answer->delay, absl::ZeroDuration() - absl::Milliseconds(1));
  EXPECT_EQ(answer->stratum, 2);
}

TEST(Sntp, SilentServerTimesOut) {
  TestSntpServer server(absl::ZeroDuration(), /*silent=*/true);
  RealClock clock;
  EXPECT_THAT(QuerySntp("127.0.0.1", server.port(), absl::Milliseconds(100), clock),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
}

TEST(NtpSynchronizer, WithoutChronyAsksEachSourceOverSntp) {
  TestSntpServer good(absl::Milliseconds(3));
  TestSntpServer skewed(absl::Hours(1));
  TestSntpServer silent(absl::ZeroDuration(), /*silent=*/true);
  ScriptedProcessRunner processes(NoChrony);
  ContextHolder holder;
  holder.processes = &processes;
  StepContext context = holder.context();
  // All three listen on 127.0.0.1; the port is per executor, so run it once per server.
  struct Case {
    int port;
    const char* state;
  };
  for (const Case& c : {Case{good.port(), "synced"}, Case{skewed.port(), "not_combined"},
                        Case{silent.port(), "unreachable"}}) {
    NtpSynchronizer step({.sntp_port = c.port, .sntp_timeout = absl::Milliseconds(200)});
    StepResult result = step.Run(MakeStep(kType, {R"({"ntp_source": " 127.0.0.1 ,"})"}), context);
    ASSERT_EQ(result.exit_code(), 0) << result.error();
    EXPECT_THAT(OrchestratorNtpSources(result),
                IsOkAndHolds(ElementsAre(Source("127.0.0.1", c.state))))
        << ReferenceText(result);
  }
}

TEST(NtpSynchronizer, WithoutChronyOrSourcesAsksTheDefaultServers) {
  TestSntpServer good(absl::ZeroDuration());
  ScriptedProcessRunner processes(NoChrony);
  ContextHolder holder;
  holder.processes = &processes;
  StepContext context = holder.context();
  NtpSynchronizer step({.sntp_port = good.port(), .default_servers = {"localhost"}});
  StepResult result = step.Run(MakeStep(kType), context);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  EXPECT_THAT(OrchestratorNtpSources(result),
              IsOkAndHolds(ElementsAre(Source("localhost", "synced"))));
}

TEST(NtpSynchronizer, WithChronyAddsMissingSourcesAndReportsChronysView) {
  int listings = 0;
  ScriptedProcessRunner processes(
      [&](const process::Command& c) -> absl::StatusOr<process::CommandResult> {
        if (c.argv == std::vector<std::string>{"chronyc", "-c", "-n", "sources"}) {
          std::string csv =
              "^,*,192.0.2.10,2,6,377,12,0.000012,0.000010,0.010\n"
              "^,-,192.0.2.11,3,6,377,40,0.001,0.001,0.02\n"
              "^,x,192.0.2.12,3,6,377,40,0.5,0.5,0.02\n";
          if (++listings > 1) csv += "^,?,192.0.2.20,0,6,0,-,0.0,0.0,0.0\n";
          return Exited(0, csv);
        }
        return Exited(0);
      });
  ContextHolder holder;
  holder.processes = &processes;
  StepContext context = holder.context();
  NtpSynchronizer step({});
  StepResult result =
      step.Run(MakeStep(kType, {R"({"ntp_source": "192.0.2.10,192.0.2.20"})"}), context);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  EXPECT_THAT(processes.commands(),
              ElementsAre(ElementsAre("chronyc", "-c", "-n", "sources"),
                          ElementsAre("chronyc", "add", "server", "192.0.2.20", "iburst"),
                          ElementsAre("chronyc", "-c", "-n", "sources")));
  EXPECT_THAT(OrchestratorNtpSources(result),
              IsOkAndHolds(
                  ElementsAre(Source("192.0.2.10", "synced"), Source("192.0.2.11", "not_combined"),
                              Source("192.0.2.12", "error"), Source("192.0.2.20", "unreachable"))));
}

TEST(NtpSynchronizer, SimulatedHostReportsScriptedSources) {
  SimulationHooks hooks;
  hooks.ntp = [](const std::vector<std::string>& requested) {
    std::vector<NtpSourceState> out = {{"clock.sim", "synced"}};
    for (const std::string& r : requested) out.push_back({r, "combined"});
    return out;
  };
  ContextHolder holder;
  holder.simulation = &hooks;
  StepContext context = holder.context();
  NtpSynchronizer step({});
  StepResult result = step.Run(MakeStep(kType, {R"({"ntp_source": "ntp.example.com"})"}), context);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  EXPECT_THAT(OrchestratorNtpSources(result),
              IsOkAndHolds(ElementsAre(Source("clock.sim", "synced"),
                                       Source("ntp.example.com", "combined"))));
}

TEST(NtpSynchronizer, BadArgumentsAreMinusOne) {
  ContextHolder holder;
  StepContext context = holder.context();
  NtpSynchronizer step({.max_sources = 2});
  for (const char* args : {R"({"ntp_source": 5})", R"({"ntp_source": "a b"})",
                           R"({"ntp_source": "a,b,c"})", R"(["pool.ntp.org"])", "{"}) {
    StepResult result = step.Run(MakeStep(kType, {args}), context);
    EXPECT_EQ(result.exit_code(), -1) << args;
    EXPECT_THAT(result.error(), HasSubstr("invalid arguments")) << args;
  }
}

}  // namespace
}  // namespace assisted::agent::steps
