// assisted-reporter: runs on an installed host's first boots (assisted-reporter.service of the
// OS image) and reports the host's last installation stages, and for the bootstrap host the
// cluster's completion, to the orchestrator, retrying until it answers (post_reboot.h). Once
// everything is reported it removes its settings file, which holds the controller token; the
// unit runs only while that file exists, so later boots stay quiet.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "lib/config/config.h"
#include "lib/log/log.h"
#include "lib/service/runner.h"
#include "services/agent/post_reboot.h"
#include "services/agent/steps/reporter_settings.h"

int main(int argc, char** argv) {
  namespace service = assisted::service;
  std::string settings_path = "/boot/assisted/reporter.json";
  assisted::config::Parser parser(
      "assisted-reporter",
      "Reports an installed host's stages after its reboot (and, for the bootstrap host, the "
      "cluster's completion) to the orchestrator, with the settings the install step wrote to the "
      "boot partition; removes them once done.");
  parser.String("settings", &settings_path,
                "the install step's reporter settings (services/agent/steps/reporter_settings.h)");
  if (std::optional<int> exit_code = service::ParseCommandLine(parser, argc, argv)) {
    return *exit_code;
  }
  const assisted::log::Logger log(
      std::make_shared<assisted::log::StreamSink>(stderr, assisted::log::Level::kInfo,
                                                  assisted::log::Format::kText),
      "reporter");
  std::ifstream in(settings_path, std::ios::binary);
  if (!in) {
    log.Info("nothing to report", {{"settings", settings_path}});
    return service::kExitOk;
  }
  std::stringstream text;
  text << in.rdbuf();
  const absl::StatusOr<assisted::agent::steps::ReporterSettings> settings =
      assisted::agent::steps::ParseReporterSettings(text.str());
  if (!settings.ok()) {
    log.Error("unusable settings",
              {{"settings", settings_path}, {"error", settings.status().message()}});
    return service::kExitBadConfig;
  }
  log.Info("reporting", {{"orchestrator", settings->access.orchestrator_address},
                         {"cluster_id", settings->cluster_id},
                         {"host_id", settings->host_id}});
  const absl::Status reported = assisted::agent::ReportAll(*settings, {}, log);
  if (!reported.ok()) {
    log.Error("cannot report", {{"error", reported.message()}});
    return service::kExitFailure;
  }
  std::error_code error;
  std::filesystem::remove(settings_path, error);
  if (error) {
    log.Error("reported, but cannot remove the settings",
              {{"settings", settings_path}, {"error", error.message()}});
    return service::kExitFailure;
  }
  // Durably gone before saying so: a machine powered off right after must not report again.
  sync();
  log.Info("everything reported; settings removed");
  return service::kExitOk;
}
