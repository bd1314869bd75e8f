// Services start in any order, as pods do: each is started before the peers it calls (gateway,
// then image, then orchestrator, and the inventory last), and the first requests made once the
// last one serves succeed at once. Before, a channel whose first connection attempts were
// refused sat in gRPC's reconnect backoff and failed calls fast with "Connection refused" for
// up to two minutes after its peer came up (`./dev demo` failed most warm runs that way).
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/image_service.h"
#include "tests/harness/postgres_test.h"
#include "tests/harness/probes.h"
#include "tests/harness/service_launcher.h"

namespace assisted::testing {
namespace {

constexpr char kJwtSecret[] = "start-order-test-jwt-secret-0123456789abcdef";
constexpr char kUrlKey[] = "start-order-test-url-signing-key-0123456789abcdef";
constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}})";

std::string WriteFile(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

class StartOrderTest : public PostgresTest {
 protected:
  void TearDown() override {
    if (!HasFailure()) return;
    for (const auto* service : {&gateway_, &orchestrator_, &inventory_, &image_}) {
      if (*service != nullptr) std::cerr << "--- log\n" << (*service)->Log();
    }
  }

  std::unique_ptr<LaunchedService> gateway_, image_, orchestrator_, inventory_;
};

// The inventory started while PostgreSQL is down (both units start together on node 0 of the
// agent-based flow) waits for it instead of exiting: it failed at once with "the database
// system is starting up" or a missing socket.
TEST_F(StartOrderTest, TheInventoryStartedBeforePostgreSqlWaitsForIt) {
  ASSERT_THAT(Server()->StopServer(), IsOk());
  absl::StatusOr<std::unique_ptr<LaunchedService>> launched;
  std::thread launch([&] {
    launched = LaunchedService::Launch(
        {.binary = "services/inventory/assisted-inventory",
         .args = {"--postgres-dsn=" + dsn(), "--postgres-connect-timeout=2m"},
         .ready_timeout = absl::Minutes(3)});
  });
  const absl::Status restarted = Server()->StartAgain();
  launch.join();
  ASSERT_THAT(restarted, IsOk());
  // (pg_ctl waits about a second for the server; the inventory tries within milliseconds.)
  ASSERT_THAT(launched, IsOk());
}

TEST_F(StartOrderTest, ServicesStartedBeforeTheirPeersServeTheFirstRequestsOnceAllAreUp) {
  auto inventory_port = FreePort(), orchestrator_port = FreePort(),
       orchestrator_internal_port = FreePort(), image_port = FreePort(), http_port = FreePort();
  ASSERT_THAT(inventory_port, IsOk());
  ASSERT_THAT(orchestrator_port, IsOk());
  ASSERT_THAT(orchestrator_internal_port, IsOk());
  ASSERT_THAT(image_port, IsOk());
  ASSERT_THAT(http_port, IsOk());
  const std::string inventory = absl::StrCat("127.0.0.1:", *inventory_port);
  const std::string orchestrator = absl::StrCat("127.0.0.1:", *orchestrator_port);
  const std::string url_key = WriteFile("url.key", kUrlKey);
  const std::string jwt_key = WriteFile("jwt.key", kJwtSecret);

  auto gateway = LaunchedService::Launch(
      {.binary = "services/gateway/assisted-gateway",
       .args = {absl::StrCat("--http-listen=127.0.0.1:", *http_port),
                "--inventory-address=" + inventory,
                absl::StrCat("--orchestrator-address=127.0.0.1:", *orchestrator_internal_port),
                absl::StrCat("--image-address=127.0.0.1:", *image_port),
                "--jwt-secret-file=" + jwt_key, "--url-signing-key-file=" + url_key}});
  ASSERT_THAT(gateway, IsOk());
  gateway_ = *std::move(gateway);
  auto image = LaunchImageService({.dir = ::testing::TempDir() + "/start-order-image",
                                   .inventory_address = inventory,
                                   .url_signing_key_file = url_key,
                                   .orchestrator_address = orchestrator,
                                   .grpc_port = *image_port});
  ASSERT_THAT(image, IsOk());
  image_ = std::move(image->service);
  auto orchestrator_service =
      LaunchedService::Launch({.binary = "services/orchestrator/assisted-orchestrator",
                               .args = {"--inventory-address=" + inventory},
                               .grpc_port = *orchestrator_port,
                               .internal_grpc = true,
                               .internal_grpc_port = *orchestrator_internal_port});
  ASSERT_THAT(orchestrator_service, IsOk());
  orchestrator_ = *std::move(orchestrator_service);
  auto inventory_service =
      LaunchedService::Launch({.binary = "services/inventory/assisted-inventory",
                               .args = {"--postgres-dsn=" + dsn()},
                               .grpc_port = *inventory_port});
  ASSERT_THAT(inventory_service, IsOk());
  inventory_ = *std::move(inventory_service);

  // The first requests, made the moment the last service serves: no retry here.
  const std::string server = absl::StrCat("http://127.0.0.1:", *http_port);
  AictlOutcome token = RunAictl(
      server, "", {"token", "issue", "--secret-file=" + jwt_key, "--user=demo", "--org=demo"});
  ASSERT_EQ(token.code, 0) << token.err;
  auto aictl = [&](const std::vector<std::string>& args) {
    return RunAictl(server, token.Trimmed(), args);
  };
  const std::string pull_secret = WriteFile("pull-secret.json", kPullSecret);
  AictlOutcome cluster = aictl({"clusters", "create", "--name=first", "--base-domain=example.com",
                                "--openshift-version=4.16", "--pull-secret-file=" + pull_secret});
  ASSERT_EQ(cluster.code, 0) << cluster.err;
  const std::string cluster_id = cluster.Trimmed();
  AictlOutcome infra_env = aictl(
      {"infra-envs", "create", "--cluster=" + cluster_id, "--pull-secret-file=" + pull_secret});
  ASSERT_EQ(infra_env.code, 0) << infra_env.err;
  // The image service reads the infra-env from the inventory it could not reach at start.
  AictlOutcome download = aictl({"iso", "download", infra_env.Trimmed(),
                                 "--output-file=" + ::testing::TempDir() + "/first.iso"});
  EXPECT_EQ(download.code, 0) << download.err;
  AictlOutcome install = aictl({"clusters", "install", cluster_id});
  // Refused by the orchestrator's state machine (no hosts), which it could only say after
  // reading the cluster from the inventory: an answer, not "unavailable".
  EXPECT_EQ(install.code, 1) << install.err;
  EXPECT_EQ(install.err.find("unavailable"), std::string::npos) << install.err;

  auto ready = HttpGet(absl::StrCat("http://127.0.0.1:", *http_port, "/ready"));
  ASSERT_THAT(ready, IsOk());
  EXPECT_EQ(ready->status, 200) << ready->body;
}

}  // namespace
}  // namespace assisted::testing
