// What operators see of a running system, end to end: a compact cluster is installed through
// the gateway's REST API with simulated hosts, then
//   - every service's /metrics passes `promtool check metrics` (Debian's prometheus package),
//     has the process metrics, and the installation metrics say what happened: one cluster
//     created, one installation started with 3 hosts and succeeded, its duration and the hosts'
//     stage durations observed;
//   - every metric deploy/monitoring's alert rules and Grafana dashboard name is exported by
//     some service (a renamed metric would leave a dashboard blank and an alert silent), the
//     gRPC ones under go-grpc-prometheus's names and labels;
//   - the request id a client sends (X-Request-ID) comes back in the response, is on the
//     gateway's access log line and on the orchestrator's log lines for that request, and the
//     events the request caused record it in request_id.
// Real PostgreSQL, inventory, orchestrator, image service and gateway processes.
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/log/log.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "lib/testing/test_files.h"
#include "nlohmann/json.hpp"
#include "services/agent/fleet.h"
#include "services/agent/simulation/profile_paths.h"
#include "tests/harness/eventually.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/probes.h"
#include "tests/harness/stack.h"

namespace assisted::testing {
namespace {

using nlohmann::json;
using ::testing::ContainsRegex;

constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}})";
constexpr char kRequestId[] = "observability-test-install-1";

std::string ReadRunfile(const std::string& path) {
  std::ifstream in(RunfilePath(path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The value of the sample `series` (name with its labels exactly as exposed, e.g.
// `x_total{result="failed"}`) in a Prometheus text exposition; -1 when absent.
double Sample(const std::string& exposition, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    if (absl::ConsumePrefix(&line, series) && absl::ConsumePrefix(&line, " ")) {
      double value = -1;
      return absl::SimpleAtod(line, &value) ? value : -1;
    }
  }
  return -1;
}

// The metric families ("# TYPE name type") an exposition declares.
std::set<std::string> Families(const std::string& exposition) {
  std::set<std::string> names;
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    if (absl::ConsumePrefix(&line, "# TYPE ")) {
      names.insert(std::string(line.substr(0, line.find(' '))));
    }
  }
  return names;
}

class ObservabilityTest : public StackTest {
 protected:
  StackOptions Options() const override {
    return {.orchestrator_flags = {"--monitor-interval=200ms"},
            .os_image_mib = 2,
            .image = true,
            .gateway = true};
  }

  void TearDown() override {
    if (fleet_ != nullptr) fleet_->Stop();
    StackTest::TearDown();
  }

  AictlOutcome Aictl(const std::vector<std::string>& args) {
    return RunAictl(stack().gateway_http(), token_, args);
  }

  // Every service's /metrics, by service.
  std::map<std::string, std::string> ScrapeAll() {
    std::map<std::string, std::string> scraped;
    const std::map<std::string, LaunchedService*> services = {
        {"inventory", &stack().inventory()},
        {"orchestrator", &stack().orchestrator()},
        {"image", &stack().image()},
        {"gateway", &stack().gateway()}};
    for (const auto& [name, service] : services) {
      absl::StatusOr<HttpResponse> response = HttpGet(service->metrics_url());
      EXPECT_THAT(response, IsOk()) << name;
      if (response.ok()) scraped[name] = response->body;
    }
    return scraped;
  }

  std::unique_ptr<agent::Fleet> fleet_;
  std::string token_;
};

TEST_F(ObservabilityTest, MetricsLogsAndEventsTellWhatAnInstallationDid) {
  AictlOutcome token = RunAictl(
      stack().gateway_http(), "",
      {"token", "issue", "--secret-file=" + stack().jwt_secret_file(), "--user=ops", "--org=ops"});
  ASSERT_EQ(token.code, 0) << token.err;
  token_ = token.Trimmed();
  absl::StatusOr<std::string> pull_secret = WriteTestFile("pull-secret.json", kPullSecret);
  ASSERT_THAT(pull_secret, IsOk());
  absl::StatusOr<std::string> cluster_yaml =
      WriteTestFile("cluster.yaml",
                    "name: ops\nbase_dns_domain: example.com\nopenshift_version: \"4.16\"\n"
                    "control_plane_count: 3\nmachine_networks:\n  - cidr: 192.168.122.0/24\n"
                    "api_vips:\n  - ip: 192.168.122.5\ningress_vips:\n  - ip: 192.168.122.6\n");
  ASSERT_THAT(cluster_yaml, IsOk());
  AictlOutcome cluster = Aictl(
      {"clusters", "create", "--file=" + *cluster_yaml, "--pull-secret-file=" + *pull_secret});
  ASSERT_EQ(cluster.code, 0) << cluster.err;
  const std::string cluster_id = cluster.Trimmed();
  AictlOutcome infra_env = Aictl(
      {"infra-envs", "create", "--cluster=" + cluster_id, "--pull-secret-file=" + *pull_secret});
  ASSERT_EQ(infra_env.code, 0) << infra_env.err;

  agent::Fleet::Options options;
  options.profile = agent::simulation::testing::ProfilePath("master");
  options.count = 3;
  options.orchestrator_address = orchestrator().grpc_target();
  options.infra_env_id = infra_env.Trimmed();
  options.agent_token = "observability-token";
  options.state_dir = ::testing::TempDir() + "/hosts";
  options.seed = cluster_id;
  options.stage_delay = absl::Milliseconds(50);
  auto fleet = agent::Fleet::Start(options, nullptr, log::Logger::Discard());
  ASSERT_THAT(fleet, IsOk());
  fleet_ = *std::move(fleet);
  AictlOutcome ready =
      Aictl({"wait", cluster_id, "--for=ready", "--hosts=3", "--timeout=2m", "--interval=200ms"});
  ASSERT_EQ(ready.code, 0) << ready.out << ready.err;

  // The install, named by the client.
  absl::StatusOr<HttpResponse> install =
      HttpRequest("POST",
                  absl::StrCat(stack().gateway_http(), "/api/assisted-install/v2/clusters/",
                               cluster_id, "/actions/install"),
                  {"Authorization: Bearer " + token_, absl::StrCat("X-Request-ID: ", kRequestId)});
  ASSERT_THAT(install, IsOk());
  ASSERT_EQ(install->status, 202) << install->body;
  EXPECT_EQ(install->headers["x-request-id"], kRequestId);
  AictlOutcome installed =
      Aictl({"wait", cluster_id, "--for=installed", "--timeout=3m", "--interval=100ms"});
  ASSERT_EQ(installed.code, 0) << installed.out << installed.err;

  // Logs and events name the request.
  const std::string id_field = absl::StrCat("request_id.{1,3}", kRequestId);
  EXPECT_THAT(stack().gateway().Log(),
              ContainsRegex(absl::StrCat("gateway.access.*POST.*", id_field)));
  EXPECT_THAT(stack().orchestrator().Log(), ContainsRegex(id_field));
  absl::StatusOr<HttpResponse> events =
      HttpRequest("GET",
                  absl::StrCat(stack().gateway_http(),
                               "/api/assisted-install/v2/events?cluster_id=", cluster_id),
                  {"Authorization: Bearer " + token_});
  ASSERT_THAT(events, IsOk());
  ASSERT_EQ(events->status, 200) << events->body;
  int named = 0;
  for (const json& event : json::parse(events->body)) {
    if (event.value("request_id", "") == kRequestId) ++named;
  }
  EXPECT_GT(named, 0) << "no event of the install names its request: " << events->body;

  // Metrics: well formed, and they tell the story.
  std::map<std::string, std::string> scraped;
  const std::string started =
      R"(assisted_cluster_installations_started_total{openshift_version="4.16"})";
  const std::string succeeded =
      R"(assisted_cluster_installations_finished_total{openshift_version="4.16",result="succeeded"})";
  EXPECT_TRUE(Eventually(
      [&] {
        scraped = ScrapeAll();
        const std::string& orchestrator = scraped["orchestrator"];
        return Observed{Sample(orchestrator, succeeded) == 1,
                        absl::StrCat("succeeded ", Sample(orchestrator, succeeded))};
      },
      absl::Seconds(30), "the installation counted as succeeded"));
  const std::string& orchestrator = scraped["orchestrator"];
  EXPECT_EQ(Sample(orchestrator, started), 1);
  EXPECT_EQ(
      Sample(
          orchestrator,
          R"(assisted_cluster_installations_finished_total{openshift_version="4.16",result="failed"})"),
      -1);
  EXPECT_EQ(Sample(orchestrator,
                   R"(assisted_cluster_installation_duration_seconds_count{result="succeeded"})"),
            1);
  EXPECT_EQ(Sample(orchestrator, "assisted_cluster_installation_hosts_count"), 1);
  EXPECT_EQ(Sample(orchestrator, "assisted_cluster_installation_hosts_sum"), 3);
  EXPECT_GE(
      Sample(
          orchestrator,
          R"(assisted_host_installation_stage_duration_seconds_count{stage="Writing image to disk"})"),
      3)
      << orchestrator;
  EXPECT_EQ(Sample(scraped["inventory"], "assisted_clusters_created_total"), 1);
  // gRPC series labelled as go-grpc-prometheus labels them, which community dashboards query.
  EXPECT_EQ(Sample(scraped["inventory"],
                   R"(grpc_server_handled_total{grpc_code="OK",grpc_method="CreateCluster",)"
                   R"(grpc_service="assisted.inventory.v1.InventoryService",grpc_type="unary"})"),
            1)
      << scraped["inventory"];
  EXPECT_GE(Sample(orchestrator,
                   R"(grpc_server_msg_received_total{grpc_method="Connect",)"
                   R"(grpc_service="assisted.agent.v1.AgentService",grpc_type="bidi_stream"})"),
            3)
      << orchestrator;

  process::LocalProcessRunner runner;
  std::set<std::string> exported;
  for (const auto& [service, exposition] : scraped) {
    absl::StatusOr<process::CommandResult> checked =
        runner.Run({.argv = {"promtool", "check", "metrics"}, .stdin_data = exposition});
    ASSERT_THAT(checked, IsOk()) << "promtool (Debian's prometheus; ./dev test installs it)";
    EXPECT_TRUE(checked->ok()) << service << ": " << checked->stdout_data << checked->stderr_data;
    EXPECT_GT(Sample(exposition, "process_resident_memory_bytes"), 0) << service;
    for (const std::string& family : Families(exposition)) exported.insert(family);
  }

  // Every series the dashboard and the alerts name is exported (histograms by their family).
  const std::string monitoring = ReadRunfile("deploy/monitoring/alerts.yaml") +
                                 ReadRunfile("deploy/monitoring/grafana-dashboard.json");
  // grpc_server_* are go-grpc-prometheus's names (grpc_code, grpc_method, … are label names).
  const std::regex name(R"((assisted|process|grpc_server)_[a-z_]+)");
  std::set<std::string> named_metrics;
  for (std::sregex_iterator it(monitoring.begin(), monitoring.end(), name), end; it != end; ++it) {
    std::string metric = it->str();
    for (const char* suffix : {"_bucket", "_count", "_sum"}) {
      if (absl::EndsWith(metric, suffix) && !exported.count(metric)) {
        metric.resize(metric.size() - std::string(suffix).size());
      }
    }
    named_metrics.insert(metric);
  }
  EXPECT_GT(named_metrics.size(), 10u);
  for (const std::string& metric : named_metrics) {
    EXPECT_TRUE(exported.count(metric))
        << metric << " is named in deploy/monitoring, exported by no service";
  }
}

}  // namespace
}  // namespace assisted::testing
