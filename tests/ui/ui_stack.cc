#include "tests/ui/ui_stack.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/simulation/profile_paths.h"
#include "services/gateway/jwt.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/image_service.h"
#include "tests/harness/probes.h"

namespace assisted::testing {
namespace {

constexpr char kJwtSecret[] = "ui-e2e-test-jwt-secret-0123456789abcdef0123";
constexpr char kUrlKey[] = "ui-e2e-test-url-signing-key-0123456789abcdef";

}  // namespace

std::string UiStackTest::WriteFile(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string UiStackTest::Token(const std::string& user, const std::string& org,
                               absl::Duration valid_for) {
  return *gateway::SignHs256(
      kJwtSecret,
      {{"sub", user}, {"org_id", org}, {"exp", absl::ToUnixSeconds(absl::Now() + valid_for)}});
}

void UiStackTest::SetUp() {
  const char* ui_dir = std::getenv("ASSISTED_TEST_UI_PROJECT");
  if (ui_dir == nullptr || *ui_dir == '\0') {
    GTEST_SKIP() << "ASSISTED_TEST_UI_PROJECT is not set: run through ./dev test, which builds ui/";
  }
  ui_dir_ = ui_dir;
  PostgresTest::SetUp();
  const std::string url_key = WriteFile("url.key", kUrlKey);
  // The "OS image" simulated hosts write and verify.
  std::string os_image(1 << 20, '\0');
  std::mt19937_64 noise(11);
  for (char& byte : os_image) byte = static_cast<char>(noise());
  const std::string os_image_path = WriteFile("os-image.raw", os_image);
  process::LocalProcessRunner runner;
  auto digest = runner.Run({.argv = {"sha256sum", os_image_path}});
  ASSERT_THAT(digest, IsOk());
  ASSERT_EQ(digest->exit_code, 0) << digest->stderr_data;
  const std::string os_image_sha256 = digest->stdout_data.substr(0, 64);

  auto inventory = LaunchedService::Launch(
      {.binary = "services/inventory/assisted-inventory", .args = {"--postgres-dsn=" + dsn()}});
  ASSERT_THAT(inventory, IsOk());
  inventory_ = *std::move(inventory);
  auto orchestrator = LaunchedService::Launch(
      {.binary = "services/orchestrator/assisted-orchestrator",
       .args = {"--inventory-address=" + inventory_->grpc_target(),
                "--url-signing-key-file=" + url_key, "--monitor-interval=200ms",
                "--max-unregistered-agent-streams-per-peer=10000",
                "--os-image-url=file://" + os_image_path, "--os-image-sha256=" + os_image_sha256},
       .internal_grpc = true});
  ASSERT_THAT(orchestrator, IsOk());
  orchestrator_ = *std::move(orchestrator);
  auto image = LaunchImageService({.dir = ::testing::TempDir() + "/ui-e2e",
                                   .inventory_address = inventory_->grpc_target(),
                                   .url_signing_key_file = url_key,
                                   .orchestrator_address = orchestrator_->grpc_target()});
  ASSERT_THAT(image, IsOk());
  image_ = std::move(image->service);
  auto gateway =
      LaunchGatewayService({.inventory_address = inventory_->grpc_target(),
                            .orchestrator_address = orchestrator_->internal_grpc_target(),
                            .image_address = image_->grpc_target(),
                            .jwt_secret_file = WriteFile("jwt.key", kJwtSecret),
                            .url_signing_key_file = url_key,
                            .extra_args = {"--ui-dir=" + ui_dir_ + "/dist"}});
  ASSERT_THAT(gateway, IsOk());
  gateway_ = std::move(gateway->service);
  server_ = gateway->http_base;
}

void UiStackTest::TearDown() {
  if (HasFailure() && gateway_ != nullptr) std::cerr << "--- gateway log\n" << gateway_->Log();
}

std::map<std::string, std::string> UiStackTest::FleetEnv(const std::string& state_dir) {
  return {{"FLEET_BIN", RunfilePath("services/agent/assisted-agent-fleet")},
          {"FLEET_PROFILE", agent::simulation::testing::ProfilePath("master")},
          {"FLEET_STATE_DIR", state_dir}};
}

std::string UiStackTest::RunScenario(const std::string& scenario,
                                     std::map<std::string, std::string> env,
                                     absl::Duration timeout) {
  const char* outputs = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  env["UI_BASE"] = server_;
  env["UI_TOKEN"] = Token("demo", "demo", absl::Hours(1));
  env["CHROMIUM"] = "/usr/bin/chromium";
  env["SCREENSHOT_DIR"] =
      outputs != nullptr ? absl::StrCat(outputs, "/screenshots") : ui_dir_ + "/screenshots";
  env["HOME"] = ::testing::TempDir();  // Chromium writes its profile and crash dumps there
  process::LocalProcessRunner runner;
  auto result = runner.Run({.argv = {"node", ui_dir_ + "/tests/e2e.mjs", scenario},
                            .env = std::move(env),
                            .working_dir = ui_dir_,
                            .timeout = timeout});
  EXPECT_THAT(result, IsOk());
  if (!result.ok()) return "";
  std::cout << result->stdout_data;
  EXPECT_EQ(result->exit_code, 0) << result->stdout_data << result->stderr_data;
  EXPECT_FALSE(result->timed_out);
  return result->stdout_data;
}

}  // namespace assisted::testing
