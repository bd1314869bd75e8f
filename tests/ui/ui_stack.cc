#include "tests/ui/ui_stack.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/simulation/profile_paths.h"
#include "services/gateway/jwt.h"
#include "tests/harness/gateway_service.h"
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

std::string UiStackTest::CreateCluster(const std::string& token, const std::string& name) {
  AictlOutcome created = RunAictl(
      server_, token,
      {"clusters", "create", "--name=" + name, "--base-domain=example.com",
       "--openshift-version=4.16", "--user-managed-networking",
       "--pull-secret-file=" + WriteFile("ps.json", R"({"auths":{"q":{"auth":"eDp5"}}})")});
  EXPECT_EQ(created.code, 0) << created.err;
  return created.code == 0 ? created.Trimmed() : "";
}

absl::StatusOr<RunningGateway> UiStackTest::LaunchUiGateway(std::vector<std::string> extra_args) {
  extra_args.insert(extra_args.begin(), "--ui-dir=" + ui_dir_ + "/dist");
  return LaunchGatewayService(
      {.inventory_address = stack().inventory().grpc_target(),
       .orchestrator_address = stack().orchestrator().internal_grpc_target(),
       .image_address = stack().image().grpc_target(),
       .jwt_secret_file = stack().jwt_secret_file(),
       .url_signing_key_file = stack().url_signing_key_file(),
       .extra_args = std::move(extra_args)});
}

std::string UiToken(const std::string& user, const std::string& org, absl::Duration valid_for) {
  return *gateway::SignHs256(
      kJwtSecret,
      {{"sub", user}, {"org_id", org}, {"exp", absl::ToUnixSeconds(absl::Now() + valid_for)}});
}

StackOptions UiStackOptions(const std::string& ui_project) {
  return {.orchestrator_flags = {"--monitor-interval=200ms",
                                 "--max-unregistered-agent-streams-per-peer=10000"},
          .os_image_mib = 1,  // what simulated hosts write and verify
          .authenticate_agents = true,
          .image = true,
          .gateway = true,
          .gateway_flags = {"--ui-dir=" + ui_project + "/dist"},
          .jwt_secret = kJwtSecret,
          .url_signing_key = kUrlKey};
}

StackOptions UiStackTest::Options() const { return UiStackOptions(ui_dir_); }

void UiStackTest::SetUp() {
  const char* ui_dir = std::getenv("ASSISTED_TEST_UI_PROJECT");
  if (ui_dir == nullptr || *ui_dir == '\0') {
    GTEST_SKIP() << "ASSISTED_TEST_UI_PROJECT is not set: run through ./dev test, which builds ui/";
  }
  ui_dir_ = ui_dir;
  ASSERT_NO_FATAL_FAILURE(StackTest::SetUp());
  server_ = stack().gateway_http();
}

std::map<std::string, std::string> FleetEnv(const std::string& state_dir) {
  return {{"FLEET_BIN", RunfilePath("services/agent/assisted-agent-fleet")},
          {"FLEET_PROFILE", agent::simulation::testing::ProfilePath("master")},
          {"FLEET_WORKER_PROFILE", agent::simulation::testing::ProfilePath("worker")},
          {"FLEET_STATE_DIR", state_dir}};
}

absl::StatusOr<process::CommandResult> RunUiScenario(UiScenario scenario) {
  std::map<std::string, std::string>& env = scenario.env;
  env.emplace("UI_BASE", scenario.base);
  env.emplace("UI_TOKEN", UiToken("demo", "demo", absl::Hours(1)));
  env["CHROMIUM"] = "/usr/bin/chromium";
  env["SCREENSHOT_DIR"] = scenario.screenshot_dir;
  env["HOME"] = scenario.home;
  process::LocalProcessRunner runner;
  return runner.Run({.argv = {"node", scenario.ui_project + "/tests/e2e.mjs", scenario.name},
                     .env = std::move(env),
                     .working_dir = scenario.ui_project,
                     .timeout = scenario.timeout});
}

std::string UiStackTest::RunScenario(const std::string& scenario,
                                     std::map<std::string, std::string> env,
                                     absl::Duration timeout) {
  const char* outputs = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  absl::StatusOr<process::CommandResult> result =
      RunUiScenario({.ui_project = ui_dir_,
                     .name = scenario,
                     .base = server_,
                     .env = std::move(env),
                     .screenshot_dir = outputs != nullptr ? absl::StrCat(outputs, "/screenshots")
                                                          : ui_dir_ + "/screenshots",
                     .home = ::testing::TempDir(),
                     .timeout = timeout});
  EXPECT_THAT(result, IsOk());
  if (!result.ok()) return "";
  std::cout << result->stdout_data;
  EXPECT_EQ(result->exit_code, 0) << result->stdout_data << result->stderr_data;
  EXPECT_FALSE(result->timed_out);
  return result->stdout_data;
}

}  // namespace assisted::testing
