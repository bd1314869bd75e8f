// The demo flow end to end, driven only through the gateway's REST API with aictl (run in
// process, the same code as the binary): register a cluster and an infra-env, download the
// discovery ISO, boot simulated hosts from the Ignition read back out of that ISO's embed area,
// wait for ready, set a role, install, follow progress to installed, fetch credentials. Real
// PostgreSQL, inventory, orchestrator, image service and gateway processes; JWT auth on.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/log/log.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "services/agent/fleet.h"
#include "services/agent/simulation/profile_paths.h"
#include "services/gateway/jwt.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/install_checks.h"
#include "tests/harness/probes.h"
#include "tests/harness/stack.h"

namespace assisted::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr char kJwtSecret[] = "demo-flow-test-jwt-secret-0123456789abcdef";
constexpr char kUrlKey[] = "demo-flow-test-url-signing-key-0123456789abcdef";
constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}})";
constexpr char kSshKey[] =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl demo";

std::string WriteFile(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

using Outcome = AictlOutcome;

class DemoFlowTest : public StackTest {
 protected:
  StackOptions Options() const override {
    return {.orchestrator_flags = {"--monitor-interval=200ms"},
            .os_image_mib = 2,
            .authenticate_agents = true,
            .image = true,
            .gateway = true,
            .jwt_secret = kJwtSecret,
            .url_signing_key = kUrlKey};
  }

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StackTest::SetUp());
    server_ = stack().gateway_http();
    base_iso_size_ = std::filesystem::file_size(stack().base_iso());

    Outcome token = Aictl({"token", "issue", "--secret-file=" + stack().jwt_secret_file(),
                           "--user=demo", "--org=demo"},
                          /*with_token=*/false);
    ASSERT_EQ(token.code, 0) << token.err;
    token_ = token.Trimmed();
  }

  void TearDown() override {
    if (fleet_ != nullptr) fleet_->Stop();
    StackTest::TearDown();
  }

  // aictl with `args`, against this test's gateway, as the demo user unless told otherwise.
  Outcome Aictl(const std::vector<std::string>& args, bool with_token = true) {
    return RunAictl(server_, with_token ? token_ : "", args);
  }

  std::unique_ptr<agent::Fleet> fleet_;
  std::string server_, token_;
  uintmax_t base_iso_size_ = 0;
};

TEST_F(DemoFlowTest, CompactClusterFromRegistrationToCredentialsOverRest) {
  // Without a token nothing is reachable, and scripts can tell (exit 4).
  Outcome anonymous = Aictl({"clusters", "list"}, /*with_token=*/false);
  EXPECT_EQ(anonymous.code, 4) << anonymous.err;
  EXPECT_THAT(anonymous.err, HasSubstr("401"));

  const std::string pull_secret = WriteFile("pull-secret.json", kPullSecret);
  const std::string ssh_key = WriteFile("id.pub", kSshKey);
  const std::string cluster_yaml =
      WriteFile("cluster.yaml",
                "name: demo\nbase_dns_domain: example.com\nopenshift_version: \"4.16\"\n"
                "control_plane_count: 3\nmachine_networks:\n  - cidr: 192.168.122.0/24\n"
                "api_vips:\n  - ip: 192.168.122.5\ningress_vips:\n  - ip: 192.168.122.6\n");
  Outcome cluster = Aictl({"clusters", "create", "--file=" + cluster_yaml,
                           "--pull-secret-file=" + pull_secret, "--ssh-key-file=" + ssh_key});
  ASSERT_EQ(cluster.code, 0) << cluster.err;
  const std::string cluster_id = cluster.Trimmed();
  ASSERT_EQ(cluster_id.size(), 36u) << cluster.out;

  Outcome infra_env = Aictl({"infra-envs", "create", "--cluster=" + cluster_id,
                             "--pull-secret-file=" + pull_secret, "--ssh-key-file=" + ssh_key});
  ASSERT_EQ(infra_env.code, 0) << infra_env.err;
  const std::string infra_env_id = infra_env.Trimmed();

  const std::string iso = ::testing::TempDir() + "/discovery.iso";
  Outcome download = Aictl({"iso", "download", infra_env_id, "--output-file=" + iso});
  ASSERT_EQ(download.code, 0) << download.err;
  EXPECT_THAT(download.err, HasSubstr("100%"));
  EXPECT_EQ(std::filesystem::file_size(iso), base_iso_size_);  // spliced, never grown

  // Not ready yet: waiting gives up with exit 3.
  Outcome early =
      Aictl({"wait", cluster_id, "--for=installed", "--timeout=1s", "--interval=200ms"});
  EXPECT_EQ(early.code, 3) << early.err;

  // Three simulated hosts boot that ISO: orchestrator, infra-env and agent token come from the
  // Ignition in its embed area.
  agent::Fleet::Options options;
  options.profile = agent::simulation::testing::ProfilePath("master");
  options.count = 3;
  options.state_dir = ::testing::TempDir() + "/demo-hosts";
  options.seed = cluster_id;
  options.stage_delay = absl::Milliseconds(50);
  ASSERT_THAT(agent::ApplyDiscoveryIso(iso, options), IsOk());
  EXPECT_EQ(options.orchestrator_address, orchestrator().grpc_target());
  EXPECT_EQ(options.infra_env_id, infra_env_id);
  EXPECT_FALSE(options.agent_token.empty());
  auto fleet = agent::Fleet::Start(options, nullptr, log::Logger::Discard());
  ASSERT_THAT(fleet, IsOk());
  fleet_ = *std::move(fleet);

  Outcome ready =
      Aictl({"wait", cluster_id, "--for=ready", "--hosts=3", "--timeout=2m", "--interval=200ms"});
  ASSERT_EQ(ready.code, 0) << ready.out << ready.err;
  EXPECT_THAT(ready.out, HasSubstr("cluster demo: ready"));

  Outcome hosts = Aictl({"hosts", "list", "--cluster=" + cluster_id, "-o", "json"});
  ASSERT_EQ(hosts.code, 0) << hosts.err;
  const json listed = json::parse(hosts.out);
  ASSERT_EQ(listed.size(), 3u);
  for (const json& host : listed) EXPECT_EQ(host["status"], "known") << host.dump();
  Outcome table = Aictl({"hosts", "list", "--cluster=" + cluster_id});
  EXPECT_THAT(table.out, HasSubstr("master-0"));
  EXPECT_THAT(table.out, HasSubstr("FAILING VALIDATIONS"));

  Outcome role = Aictl({"hosts", "set-role", "master-1", "master", "--cluster=" + cluster_id});
  EXPECT_EQ(role.code, 0) << role.err;
  EXPECT_THAT(role.out, HasSubstr("master-1: role master"));
  Outcome bad_role = Aictl({"hosts", "set-role", "master-1", "captain", "--cluster=" + cluster_id});
  EXPECT_EQ(bad_role.code, 1);
  EXPECT_THAT(bad_role.err, HasSubstr("host_role"));

  Outcome install = Aictl({"clusters", "install", cluster_id});
  ASSERT_EQ(install.code, 0) << install.err;
  Outcome again = Aictl({"clusters", "install", cluster_id});
  EXPECT_EQ(again.code, 1);
  EXPECT_THAT(again.err, HasSubstr("409"));

  Outcome installed =
      Aictl({"wait", cluster_id, "--for=installed", "--timeout=3m", "--interval=100ms"});
  ASSERT_EQ(installed.code, 0) << installed.out << installed.err;
  EXPECT_THAT(installed.out, HasSubstr("cluster demo: installed 100%"));
  for (const char* name : {"master-0", "master-1", "master-2"}) {
    EXPECT_THAT(installed.out, ::testing::ContainsRegex(absl::StrCat(name, " +master +installed")));
  }

  const std::string credentials = ::testing::TempDir() + "/credentials";
  std::filesystem::create_directories(credentials);
  Outcome fetched = Aictl({"credentials", cluster_id, "--output-dir=" + credentials});
  ASSERT_EQ(fetched.code, 0) << fetched.err;
  std::ifstream kubeconfig_file(credentials + "/kubeconfig");
  std::stringstream kubeconfig;
  kubeconfig << kubeconfig_file.rdbuf();
  ExpectKubeconfigVerifies(kubeconfig.str(), "demo-flow-kubeconfig");
  EXPECT_EQ(std::filesystem::status(credentials + "/kubeadmin-password").permissions() &
                std::filesystem::perms::group_read,
            std::filesystem::perms::none);

  Outcome events = Aictl({"events", cluster_id, "--limit=500"});
  EXPECT_EQ(events.code, 0) << events.err;
  EXPECT_THAT(events.out, HasSubstr("installed"));
}

}  // namespace
}  // namespace assisted::testing
