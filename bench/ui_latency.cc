// bench/ui_latency: from a host's status change in the inventory to the browser's DOM showing
// it, with --hosts simulated hosts on the cluster screen, in Debian's headless Chromium against
// the real services (tests/ui/ui_stack.h: PostgreSQL, inventory, orchestrator, image service,
// gateway serving ui/dist). The browser side is ui/tests/e2e.mjs's "latency" scenario: each of
// --samples changes renames a host through the REST API so that its status moves (known ->
// insufficient by another host's name, and back), and times each hop on this machine's clock:
//   judge          PATCH sent -> the inventory holds the new status (status_updated_at)
//   push           that commit -> the browser has the change stream's answer naming it
//   render         that answer -> the host's row shows the new status
//   change_to_dom  commit -> row (push + render): the figure the issue asks for
//   row_reread     the answer -> the browser has re-read the rest of the host's row
//   patch_answer   the PATCH's own round trip
// each as _p50_ms, _p99_ms and _max_ms.
//
//   ./dev bench ui_latency [--hosts=100] [--samples=100] [--ui-project=ui]
// Needs ui/ built with its npm packages (./dev bench does that) and node and /usr/bin/chromium.
// Last line: {"bench":"ui_latency","hosts":…,"samples":…,"change_to_dom_p50_ms":…, …,"cores":…}
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bench/run_folder.h"
#include "lib/config/config.h"
#include "lib/service/runner.h"
#include "nlohmann/json.hpp"
#include "tests/harness/postgres_server.h"
#include "tests/harness/stack.h"
#include "tests/ui/ui_stack.h"

namespace {

namespace harness = ::assisted::testing;

struct Options {
  int hosts = 100;
  int samples = 100;
  std::string ui_project;
  absl::Duration timeout = absl::Minutes(40);
};

int Fail(const std::string& what) {
  std::cerr << "ui_latency: " << what << "\n";
  return 1;
}

// The scenario's last line that is a JSON object: its figures.
nlohmann::ordered_json FiguresOf(const std::string& printed) {
  std::vector<absl::string_view> lines = absl::StrSplit(printed, '\n', absl::SkipWhitespace());
  for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
    nlohmann::ordered_json figures =
        nlohmann::ordered_json::parse(*line, nullptr, /*allow_exceptions=*/false);
    if (figures.is_object()) return figures;
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  const char* project = std::getenv("ASSISTED_TEST_UI_PROJECT");
  options.ui_project = project != nullptr && *project != '\0' ? project : "ui";
  assisted::config::Parser parser(
      "ui_latency",
      "A host's status change in the inventory to the browser's DOM, hop by hop, with many "
      "hosts on screen.");
  parser.Int("hosts", &options.hosts, "simulated hosts on the cluster screen").Range(2, 1000);
  parser.Int("samples", &options.samples, "status changes timed").Range(1, 10000);
  parser.String("ui-project", &options.ui_project,
                "the ui/ folder, built (default: $ASSISTED_TEST_UI_PROJECT, else ./ui)");
  parser.Duration("timeout", &options.timeout, "give up after this long")
      .Range(absl::Minutes(1), absl::Hours(4));
  if (std::optional<int> exit_code = assisted::service::ParseCommandLine(parser, argc, argv)) {
    return *exit_code;
  }
  options.ui_project = std::filesystem::absolute(options.ui_project).lexically_normal().string();
  options.ui_project = std::string(absl::StripSuffix(options.ui_project, "/"));
  if (!std::filesystem::exists(options.ui_project + "/dist/index.html")) {
    return Fail(options.ui_project + " holds no built UI (dist/index.html): ./dev bench builds it");
  }
  absl::StatusOr<assisted::bench::RunFolder> folder =
      assisted::bench::RunFolder::Create("ui-latency-bench");
  if (!folder.ok()) return Fail(std::string(folder.status().message()));
  const std::string& dir = folder->path();

  std::cout << "starting PostgreSQL and the services\n" << std::flush;
  auto postgres = harness::PostgresServer::Start();
  if (!postgres.ok()) return Fail(std::string(postgres.status().message()));
  auto dsn = (*postgres)->CreateDatabase();
  if (!dsn.ok()) return Fail(std::string(dsn.status().message()));
  auto stack = harness::Stack::Start(*dsn, harness::UiStackOptions(options.ui_project));
  if (!stack.ok()) return Fail(std::string(stack.status().message()));

  std::map<std::string, std::string> env = harness::FleetEnv(dir + "/fleet");
  env["UI_HOSTS"] = absl::StrCat(options.hosts);
  env["UI_SAMPLES"] = absl::StrCat(options.samples);
  std::cout << "booting " << options.hosts << " simulated hosts, then " << options.samples
            << " status changes in Chromium\n"
            << std::flush;
  auto result = harness::RunUiScenario({.ui_project = options.ui_project,
                                        .name = "latency",
                                        .base = (*stack)->gateway_http(),
                                        .env = std::move(env),
                                        .screenshot_dir = dir + "/screenshots",
                                        .home = dir,
                                        .timeout = options.timeout});
  if (!result.ok()) return Fail(std::string(result.status().message()));
  std::cout << result->stdout_data << std::flush;
  if (!result->ok()) {
    return Fail(absl::StrCat("the scenario ended with ", result->exit_code,
                             result->timed_out ? " (timed out)" : "", ": ", result->stderr_data,
                             "\nservice logs:\n", (*stack)->Logs()));
  }
  nlohmann::ordered_json figures = FiguresOf(result->stdout_data);
  if (!figures.is_object()) return Fail("the scenario printed no figures");
  nlohmann::ordered_json last = {{"bench", "ui_latency"}};
  last.update(figures);
  std::cout << last.dump() << "\n";
  return 0;
}
