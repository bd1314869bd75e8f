// File: tests/ui/ui_stack.h
//
// What the web UI's tests in Chromium run against: real PostgreSQL, inventory, orchestrator,
// image service and a gateway serving ui/dist (--ui-dir) with JWT auth, and the runner of
// ui/tests/e2e.mjs scenarios (puppeteer-core driving Debian's /usr/bin/chromium); the same
// parts, outside gtest, for bench/ui_latency. The UI's build and npm packages live outside
// Bazel: the tests need ASSISTED_TEST_UI_PROJECT (the ui/ folder, built; `./dev test` builds
// it and sets it) and skip without it, saying so.

#ifndef ASSISTED_TESTS_UI_UI_STACK_H_
#define ASSISTED_TESTS_UI_UI_STACK_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/process/subprocess.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/stack.h"

namespace assisted::testing {

// The stack of the UI's tests and of bench/ui_latency, serving `ui_project`/dist.
StackOptions UiStackOptions(const std::string& ui_project);

// A bearer token of UiStackOptions' local issuer for `user` of `org`, expiring after
// `valid_for` (negative: already expired).
std::string UiToken(const std::string& user, const std::string& org, absl::Duration valid_for);

// The simulated hosts' settings a scenario needs to boot them from the UI's ISO (the fleet
// binary and profiles: runfiles of the test or bench), their state under `state_dir`.
std::map<std::string, std::string> FleetEnv(const std::string& state_dir);

struct UiScenario {
  std::string ui_project;  // the ui/ folder, built
  std::string name;        // flow, latency, … (ui/tests/e2e.mjs)
  std::string base;        // the gateway, "http://127.0.0.1:PORT"
  // Added to what every scenario gets (UI_BASE unless it names another gateway, UI_TOKEN of
  // user demo, CHROMIUM, SCREENSHOT_DIR, HOME).
  std::map<std::string, std::string> env;
  std::string screenshot_dir;
  std::string home;  // Chromium's profile and crash dumps go there
  absl::Duration timeout = absl::Minutes(8);
};
// Runs the scenario with node; what it printed and how it ended (an error only when node could
// not be run).
absl::StatusOr<process::CommandResult> RunUiScenario(UiScenario scenario);

class UiStackTest : public StackTest {
 protected:
  StackOptions Options() const override;
  void SetUp() override;

  static std::string Token(const std::string& user, const std::string& org,
                           absl::Duration valid_for) {
    return UiToken(user, org, valid_for);
  }
  // A file under the test's temporary folder holding `content`; its path.
  static std::string WriteFile(const std::string& name, const std::string& content);
  // Creates cluster `name`.example.com (user-managed networking) through aictl as the user of
  // `token`; its id, or "" with a test failure.
  std::string CreateCluster(const std::string& token, const std::string& name);

  // Another gateway on the stack's backends and keys, serving the UI, with `extra_args`.
  absl::StatusOr<RunningGateway> LaunchUiGateway(std::vector<std::string> extra_args);

  // Runs ui/tests/e2e.mjs `scenario` (RunUiScenario, screenshots to the test's undeclared
  // outputs) with `env`; expects it to exit 0 within `timeout`. Returns what it printed.
  std::string RunScenario(const std::string& scenario, std::map<std::string, std::string> env,
                          absl::Duration timeout = absl::Minutes(8));

  std::string ui_dir_;
  std::string server_;  // the gateway, "http://127.0.0.1:PORT"
};

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_UI_UI_STACK_H_
