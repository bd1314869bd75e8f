#include "services/agent/steps/free_addresses.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/agent/steps/orchestrator_view.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/test_util.h"

namespace assisted::agent::steps {
namespace {

using ::assisted::testing::IsOk;
using testing::ContextHolder;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeStep;
using testing::ReferenceText;

constexpr StepType kType = types::v1::STEP_TYPE_FREE_NETWORK_ADDRESSES;

std::vector<std::string> FreeOf(const StepResult& result, size_t network) {
  nlohmann::json j = nlohmann::json::parse(ReferenceText(result), nullptr, false);
  std::vector<std::string> out;
  if (!j.is_array() || j.size() <= network) return out;
  for (const auto& a : j[network]["free_addresses"]) out.push_back(a.get<std::string>());
  return out;
}

TEST(FreeAddresses, ReportsAddressesThatNeitherAnswerNorHoldANeighbourEntry) {
  // 127.0.0.3 answers probes (a listener); 127.0.0.5 only answers ARP (a neighbour entry).
  absl::StatusOr<std::unique_ptr<ProbeListener>> listener = ProbeListener::Start("127.0.0.3", 0);
  ASSERT_THAT(listener, IsOk());
  const std::string arp = ::testing::TempDir() + "/arp";
  std::ofstream(arp)
      << "IP address       HW type     Flags       HW address            Mask     "
         "Device\n"
         "127.0.0.5        0x1         0x2         52:54:00:aa:bb:cc     *        lo\n";
  FreeAddressesOptions options;
  options.probe = {
      .method = ProbeMethod::kTcp, .tcp_port = (*listener)->port(), .refused_is_answer = false};
  options.probe_timeout = absl::Milliseconds(300);
  options.max_parallel = 4;
  options.neighbour_table = arp;
  FreeAddresses step(options);
  ContextHolder holder;
  StepContext context = holder.context();

  StepResult result =
      step.Run(MakeStep(kType, {R"(["127.0.0.0/29", "127.0.1.8/31", "fd00::/120"])"}), context);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  EXPECT_THAT(ReferenceText(result), HasSubstr(R"("free_addresses":[)"));
  EXPECT_THAT(FreeOf(result, 0), ElementsAre("127.0.0.1", "127.0.0.2", "127.0.0.4", "127.0.0.6"));
  EXPECT_THAT(FreeOf(result, 1), ElementsAre("127.0.1.8", "127.0.1.9"));  // a /31 has no broadcast
  nlohmann::json j = nlohmann::json::parse(ReferenceText(result), nullptr, false);
  ASSERT_EQ(j.size(), 2u);  // the IPv6 network is skipped
  EXPECT_EQ(j[0]["network"], "127.0.0.0/29");
}

TEST(FreeAddresses, SimulatedNetworkAnswersFromItsHooks) {
  SimulationHooks hooks;
  hooks.probe = [](const net::IpAddress& a) -> std::optional<absl::Duration> {
    if (a.ToString() == "10.0.0.1") return absl::Milliseconds(1);
    return std::nullopt;
  };
  FreeAddresses step({});
  ContextHolder holder;
  holder.simulation = &hooks;
  StepContext context = holder.context();
  StepResult result = step.Run(MakeStep(kType, {R"(["10.0.0.0/30"])"}), context);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  EXPECT_THAT(FreeOf(result, 0), ElementsAre("10.0.0.2"));
}

TEST(FreeAddresses, RefusesBadOrOversizedNetworks) {
  FreeAddresses step({.max_addresses = 256});
  ContextHolder holder;
  StepContext context = holder.context();
  struct Case {
    const char* args;
    const char* error;
  };
  for (const Case& c :
       {Case{R"(["10.0.0.0/23"])", "more than 256 addresses"},
        Case{R"(["10.0.0.0/24", "10.0.1.0/30"])", "more than 256 addresses"},
        Case{R"(["10.0.0.1/24"])", "did you mean 10.0.0.0/24"}, Case{R"(["banana"])", "banana"},
        Case{R"([42])", "only strings"}, Case{R"("10.0.0.0/24")", "JSON array"}}) {
    StepResult result = step.Run(MakeStep(kType, {c.args}), context);
    EXPECT_EQ(result.exit_code(), -1) << c.args;
    EXPECT_THAT(result.error(), HasSubstr(c.error)) << c.args;
  }
}

}  // namespace
}  // namespace assisted::agent::steps
