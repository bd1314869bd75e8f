#include "services/agent/steps/domain_resolution.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/steps/orchestrator_view.h"
#include "services/agent/steps/test_util.h"

namespace assisted::agent::steps {
namespace {

using ::assisted::testing::IsOk;
using ::testing::Contains;
using testing::ContextHolder;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeStep;
using testing::OrchestratorDomains;
using testing::ReferenceText;

constexpr StepType kType = types::v1::STEP_TYPE_DOMAIN_RESOLUTION;

TEST(DomainResolution, ResolvesLocalhostWithTheRealResolver) {
  DomainResolution step({});
  ContextHolder holder;
  StepContext context = holder.context();
  StepResult result = step.Run(
      MakeStep(kType,
               {R"({"domains": [{"domain_name": "localhost"}, {"domain_name": "127.0.0.1"}]})"}),
      context);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  auto resolutions = OrchestratorDomains(result);
  ASSERT_THAT(resolutions, IsOk());
  ASSERT_EQ(resolutions->size(), 2u);
  EXPECT_EQ((*resolutions)[0].domain, "localhost");
  EXPECT_TRUE((*resolutions)[0].Resolved());
  const auto& v4 = (*resolutions)[0].ipv4;
  const auto& v6 = (*resolutions)[0].ipv6;
  EXPECT_TRUE(std::find(v4.begin(), v4.end(), "127.0.0.1") != v4.end() ||
              std::find(v6.begin(), v6.end(), "::1") != v6.end())
      << ReferenceText(result);
  EXPECT_THAT((*resolutions)[1].ipv4, ElementsAre("127.0.0.1"));
  EXPECT_TRUE((*resolutions)[1].cnames.empty());
}

TEST(DomainResolution, SimulatedResolverAnswersFromItsHook) {
  SimulationHooks hooks;
  hooks.resolve = [](const std::string& name) {
    ResolvedName r;
    if (name == "api.test.example.com") {
      r.ipv4 = {"192.168.111.5"};
      r.ipv6 = {"fd00::5"};
    }
    if (name == "*.apps.test.example.com") r.cnames = {"ingress.test.example.com"};
    return r;
  };
  DomainResolution step({});
  ContextHolder holder;
  holder.simulation = &hooks;
  StepContext context = holder.context();
  StepResult result = step.Run(MakeStep(kType, {R"({"domains": [
      {"domain_name": "api.test.example.com"}, {"domain_name": "*.apps.test.example.com"},
      {"domain_name": "missing.test.example.com"}]})"}),
                               context);
  ASSERT_EQ(result.exit_code(), 0) << result.error();
  auto resolutions = OrchestratorDomains(result);
  ASSERT_THAT(resolutions, IsOk());
  ASSERT_EQ(resolutions->size(), 3u);
  EXPECT_THAT((*resolutions)[0].ipv4, ElementsAre("192.168.111.5"));
  EXPECT_THAT((*resolutions)[0].ipv6, ElementsAre("fd00::5"));
  EXPECT_THAT((*resolutions)[1].cnames, ElementsAre("ingress.test.example.com"));
  EXPECT_FALSE((*resolutions)[2].Resolved());
  EXPECT_THAT(ReferenceText(result), HasSubstr(R"("cnames":[])"));
}

TEST(DomainResolution, BadArgumentsAreMinusOne) {
  DomainResolution step({.max_domains = 1});
  ContextHolder holder;
  StepContext context = holder.context();
  for (const char* args :
       {R"({})", R"({"domains": "api"})", R"({"domains": [{"domain_name": "a b"}]})",
        R"({"domains": [{"domain_name": ""}]})", R"({"domains": [{"name": "api"}]})",
        R"({"domains": [{"domain_name": "a"}, {"domain_name": "b"}]})"}) {
    StepResult result = step.Run(MakeStep(kType, {args}), context);
    EXPECT_EQ(result.exit_code(), -1) << args;
    EXPECT_THAT(result.error(), HasSubstr("invalid arguments")) << args;
  }
}

}  // namespace
}  // namespace assisted::agent::steps
