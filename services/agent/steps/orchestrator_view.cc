// File: services/agent/steps/orchestrator_view.cc

#include "services/agent/steps/orchestrator_view.h"

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace assisted::agent::steps::testing {

namespace {

using nlohmann::json;

// The member `key` of the output object, as JSON text; INVALID_ARGUMENT when absent.
absl::StatusOr<std::string> Member(const StepResult& result, const char* key) {
  json j = json::parse(result.output(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains(key)) {
    return absl::InvalidArgumentError(absl::StrCat("output has no \"", key, "\""));
  }
  return j[key].dump();
}

}  // namespace

absl::StatusOr<core::ConnectivityReport> OrchestratorConnectivity(const StepResult& result) {
  return core::ParseConnectivity(result.output());
}

absl::StatusOr<std::vector<core::DomainResolution>> OrchestratorDomains(const StepResult& result) {
  return core::ParseDomainResolutions(result.output());
}

absl::StatusOr<std::vector<core::NtpSource>> OrchestratorNtpSources(const StepResult& result) {
  absl::StatusOr<std::string> column = Member(result, "ntp_sources");
  if (!column.ok()) return column.status();
  return core::ParseNtpSources(*column);
}

absl::StatusOr<std::vector<core::ImageStatus>> OrchestratorImages(const StepResult& result) {
  absl::StatusOr<std::string> column = Member(result, "images");
  if (!column.ok()) return column.status();
  return core::ParseImagesStatus(*column);
}

absl::StatusOr<std::vector<core::DiskSpeed>> OrchestratorDiskSpeed(const StepResult& result) {
  json j = json::parse(result.output(), nullptr, /*allow_exceptions=*/false);
  // A failed check reports only the path; its exit code is what the validation reads.
  const bool measured =
      j.is_object() && j.contains("io_sync_duration") && j["io_sync_duration"].is_number_integer();
  if (!j.is_object() || !j.contains("path") || !j["path"].is_string() ||
      (result.exit_code() == 0 && !measured)) {
    return absl::InvalidArgumentError("output lacks path or io_sync_duration");
  }
  json column = json::array({{{"path", j["path"]},
                              {"disk_speed",
                               {{"tested", true},
                                {"speed_ms", measured ? j["io_sync_duration"] : json(0)},
                                {"exit_code", result.exit_code()}}}}});
  return core::ParseDisksInfo(column.dump());
}

}  // namespace assisted::agent::steps::testing
