// Every service binary, started alone as a real process, answers the standard gRPC health check
// over TCP, lists its services through reflection, serves Prometheus metrics, and stops cleanly
// on SIGTERM.
#include <signal.h>

#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/postgres_test.h"
#include "tests/harness/probes.h"
#include "tests/harness/service_launcher.h"

namespace assisted::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsSupersetOf;
using ::testing::Not;
using ::testing::StartsWith;

struct ServiceSpec {
  std::string name;    // as in assisted_build_info{service=…}
  std::string binary;  // runfile path
  bool needs_database;
  std::vector<std::string> services;   // full names it hosts besides health and reflection
  std::vector<std::string> args = {};  // flags beyond the gRPC and metrics addresses
};

void PrintTo(const ServiceSpec& spec, std::ostream* os) { *os << spec.name; }

std::string PrintName(const ::testing::TestParamInfo<ServiceSpec>& info) { return info.param.name; }

class ServicesTest : public PostgresTest, public ::testing::WithParamInterface<ServiceSpec> {
 protected:
  void SetUp() override {
    PostgresTest::SetUp();
    LaunchOptions options{.binary = GetParam().binary};
    if (GetParam().needs_database) options.args.push_back("--postgres-dsn=" + dsn());
    for (const std::string& arg : GetParam().args) options.args.push_back(arg);
    absl::StatusOr<std::unique_ptr<LaunchedService>> launched = LaunchedService::Launch(options);
    ASSERT_THAT(launched, IsOk());
    service_ = *std::move(launched);
  }

  void TearDown() override {
    if (service_ != nullptr && HasFailure()) std::cerr << service_->Log();
  }

  std::unique_ptr<LaunchedService> service_;
};

TEST_P(ServicesTest, HealthCheckAnswersServingForTheServerAndEachService) {
  EXPECT_THAT(CheckHealth(service_->grpc_target(), ""), IsOkAndHolds("SERVING"));
  for (const std::string& name : GetParam().services) {
    EXPECT_THAT(CheckHealth(service_->grpc_target(), name), IsOkAndHolds("SERVING")) << name;
  }
  EXPECT_THAT(CheckHealth(service_->grpc_target(), "no.such.Service"),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_P(ServicesTest, ReflectionListsHealthReflectionAndItsOwnServices) {
  absl::StatusOr<std::vector<std::string>> names = ListServices(service_->grpc_target());
  ASSERT_THAT(names, IsOk());
  std::vector<std::string> expected = GetParam().services;
  expected.push_back("grpc.health.v1.Health");
  expected.push_back("grpc.reflection.v1alpha.ServerReflection");
  EXPECT_THAT(*names, IsSupersetOf(expected));
}

TEST_P(ServicesTest, ServesPrometheusMetricsIncludingRpcCounts) {
  ASSERT_THAT(CheckHealth(service_->grpc_target(), ""), IsOk());
  absl::StatusOr<HttpResponse> response = HttpGet(service_->metrics_url());
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 200);
  EXPECT_THAT(response->content_type, StartsWith("text/plain"));
  // Every sample line has the text exposition format's shape: name{labels} value.
  const std::regex sample(R"(^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? [-+0-9.eEaINnf]+$)");
  for (absl::string_view line : absl::StrSplit(response->body, '\n', absl::SkipEmpty())) {
    if (line[0] == '#') continue;
    EXPECT_TRUE(std::regex_match(std::string(line), sample)) << line;
  }
  EXPECT_THAT(response->body, HasSubstr("# TYPE assisted_build_info gauge"));
  EXPECT_THAT(response->body,
              HasSubstr(absl::StrCat("assisted_build_info{service=\"", GetParam().name, "\"")));
  EXPECT_THAT(response->body, HasSubstr("# TYPE grpc_server_handled_total counter"));
  EXPECT_THAT(response->body,
              HasSubstr("grpc_method=\"Check\",grpc_service=\"grpc.health.v1.Health\""));
}

TEST_P(ServicesTest, AictlHealthSeesItServing) {
  process::LocalProcessRunner runner;
  absl::StatusOr<process::CommandResult> result = runner.Run(
      {.argv = {RunfilePath("services/gateway/cli/aictl"), "health", service_->grpc_target()}});
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->exit_code, 0) << result->stdout_data << result->stderr_data;
  EXPECT_THAT(result->stdout_data, HasSubstr(service_->grpc_target()));
  EXPECT_THAT(result->stdout_data, HasSubstr("SERVING"));
}

TEST_P(ServicesTest, StopsCleanlyOnSigterm) {
  EXPECT_EQ(service_->Stop(), 0);
  EXPECT_THAT(service_->Log(), HasSubstr("stopped"));
  EXPECT_THAT(CheckHealth(service_->grpc_target(), "", absl::Milliseconds(300)), Not(IsOk()));
}

INSTANTIATE_TEST_SUITE_P(EveryService, ServicesTest,
                         ::testing::Values(ServiceSpec{"inventory",
                                                       "services/inventory/assisted-inventory",
                                                       true,
                                                       {"assisted.inventory.v1.InventoryService"}},
                                           ServiceSpec{
                                               "orchestrator",
                                               "services/orchestrator/assisted-orchestrator",
                                               false,
                                               {"assisted.agent.v1.AgentService",
                                                "assisted.orchestrator.v1.ControllerService"},
                                               {"--internal-grpc-listen=127.0.0.1:0"}},
                                           ServiceSpec{"image",
                                                       "services/image/assisted-image",
                                                       false,
                                                       {"assisted.image.v1.ImageService"},
                                                       {"--http-listen=127.0.0.1:0"}},
                                           ServiceSpec{"gateway",
                                                       "services/gateway/assisted-gateway",
                                                       false,
                                                       {},
                                                       {"--http-listen=127.0.0.1:0"}}),
                         PrintName);

}  // namespace
}  // namespace assisted::testing
