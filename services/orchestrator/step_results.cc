// File: services/orchestrator/step_results.cc

#include "services/orchestrator/step_results.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "lib/json/bounded.h"
#include "nlohmann/json.hpp"
#include "services/orchestrator/core/agent_reports.h"

namespace assisted::orchestrator {
namespace {

using nlohmann::json;
using types::v1::StepType;

// The reference agent's exit code for "the discovery media could not be read".
constexpr int kMediaDisconnected = 256;

absl::Status ShapeError(const types::v1::StepResult& result, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(types::v1::StepType_Name(result.step_type()),
                                                 " result ", result.step_id(), ": ", problem));
}

// Checks `text` with the core parser `parse` and stores it in the string field `path`.
template <typename Parser>
absl::Status Store(const types::v1::StepResult& result, std::string text, const char* path,
                   Parser parse, HostFieldsUpdate& update) {
  if (absl::Status parsed = parse(text).status(); !parsed.ok()) {
    return ShapeError(result, parsed.message());
  }
  const auto* field = types::v1::Host::descriptor()->FindFieldByName(path);
  update.fields.GetReflection()->SetString(&update.fields, field, std::move(text));
  update.paths.emplace_back(path);
  return absl::OkStatus();
}

// The member `key` of the JSON object in the result's output, as JSON text.
absl::StatusOr<std::string> Unwrap(const types::v1::StepResult& result, const char* key) {
  const json document = json::parse(result.output(), nullptr, /*allow_exceptions=*/false);
  if (!document.is_object() || !document.contains(key)) {
    return ShapeError(result, absl::StrCat("output is not an object with \"", key, "\""));
  }
  return document[key].dump();
}

absl::Status Inventory(const types::v1::StepResult& result, HostFieldsUpdate& update) {
  if (result.has_inventory()) {
    *update.fields.mutable_inventory() = result.inventory();
  } else {
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;
    const auto parsed = google::protobuf::util::JsonStringToMessage(
        result.output(), update.fields.mutable_inventory(), options);
    if (!parsed.ok()) {
      return ShapeError(result,
                        absl::StrCat("output is not an inventory: ", parsed.message().ToString()));
    }
  }
  update.paths.emplace_back("inventory");
  return absl::OkStatus();
}

// free-network-addresses has no core reader: [{"network", "free_addresses": [...]}].
absl::StatusOr<bool> ParseFreeAddresses(absl::string_view text) {
  const json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
  bool valid = document.is_array();
  for (const json& network : valid ? document : json::array()) {
    valid = valid && network.is_object() && network.contains("network") &&
            network["network"].is_string() &&
            network.value("free_addresses", json::array()).is_array();
  }
  if (!valid) return absl::InvalidArgumentError("not a list of {network, free_addresses}");
  return true;
}

// One disk's measurement merged into the host's disks_info: other disks keep theirs.
absl::StatusOr<std::string> DiskSpeed(const types::v1::StepResult& result,
                                      const types::v1::Host& current) {
  const json output = json::parse(result.output(), nullptr, /*allow_exceptions=*/false);
  if (!output.is_object() || !output.contains("path") || !output["path"].is_string()) {
    return ShapeError(result, "output has no \"path\"");
  }
  const bool measured =
      output.contains("io_sync_duration") && output["io_sync_duration"].is_number();
  if (result.exit_code() == 0 && !measured) {
    return ShapeError(result, "a successful check must report \"io_sync_duration\"");
  }
  json disks = json::parse(current.disks_info(), nullptr, /*allow_exceptions=*/false);
  if (!disks.is_array()) disks = json::array();  // nothing stored yet, or unreadable: start over
  json merged = json::array();
  for (json& disk : disks) {
    if (!disk.is_object() || disk.value("path", "") != output["path"]) {
      merged.push_back(std::move(disk));
    }
  }
  merged.push_back({{"path", output["path"]},
                    {"disk_speed",
                     {{"tested", true},
                      {"speed_ms", measured ? output["io_sync_duration"] : json(0)},
                      {"exit_code", result.exit_code()}}}});
  return merged.dump();
}

}  // namespace

absl::Status CheckInventorySize(const types::v1::Inventory& inventory, absl::string_view field) {
  const size_t size = inventory.ByteSizeLong();
  if (size <= kMaxInventoryBytes) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": ", size, " bytes, more than the limit of ", kMaxInventoryBytes));
}

absl::StatusOr<HostFieldsUpdate> NormalizeStepResult(const types::v1::StepResult& result,
                                                     const types::v1::Host& current) {
  // Before any parse: everything below walks the output recursively.
  if (absl::Status bounded = untrusted::CheckJsonBounds(
          result.output(), "step_result.output",
          {.max_bytes = kMaxStepOutputBytes, .max_depth = kMaxStepOutputDepth});
      !bounded.ok()) {
    return ShapeError(result, bounded.message());
  }
  if (absl::Status sized = CheckInventorySize(result.inventory(), "step_result.inventory");
      !sized.ok()) {
    return ShapeError(result, sized.message());
  }
  HostFieldsUpdate update;
  if (result.exit_code() == kMediaDisconnected) {
    update.fields.set_media_status(types::v1::MEDIA_STATUS_DISCONNECTED);
    update.paths.emplace_back("media_status");
    return update;
  }
  if (current.media_status() == types::v1::MEDIA_STATUS_DISCONNECTED) {
    // Any other answer means the agent read its media again.
    update.fields.set_media_status(types::v1::MEDIA_STATUS_CONNECTED);
    update.paths.emplace_back("media_status");
  }
  const StepType type = result.step_type();
  // A failed step carries no finding, except these two, whose failure is the finding.
  const bool failure_is_finding = type == types::v1::STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY ||
                                  type == types::v1::STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK;
  if (result.exit_code() != 0 && !(failure_is_finding && !result.output().empty())) {
    return update;
  }
  absl::Status stored;
  switch (type) {
    case types::v1::STEP_TYPE_INVENTORY:
      stored = Inventory(result, update);
      break;
    case types::v1::STEP_TYPE_CONNECTIVITY_CHECK:
      stored = Store(result, result.output(), "connectivity", core::ParseConnectivity, update);
      break;
    case types::v1::STEP_TYPE_FREE_NETWORK_ADDRESSES:
      stored = Store(result, result.output(), "free_addresses", ParseFreeAddresses, update);
      break;
    case types::v1::STEP_TYPE_NTP_SYNCHRONIZER: {
      absl::StatusOr<std::string> text = Unwrap(result, "ntp_sources");
      stored = text.ok() ? Store(result, *text, "ntp_sources", core::ParseNtpSources, update)
                         : text.status();
      break;
    }
    case types::v1::STEP_TYPE_DOMAIN_RESOLUTION:
      stored = Store(result, result.output(), "domain_name_resolutions",
                     core::ParseDomainResolutions, update);
      break;
    case types::v1::STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY: {
      absl::StatusOr<std::string> text = Unwrap(result, "images");
      stored = text.ok() ? Store(result, *text, "images_status", core::ParseImagesStatus, update)
                         : text.status();
      break;
    }
    case types::v1::STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK: {
      absl::StatusOr<std::string> text = DiskSpeed(result, current);
      stored = text.ok() ? Store(result, *text, "disks_info", core::ParseDisksInfo, update)
                         : text.status();
      break;
    }
    case types::v1::STEP_TYPE_API_VIP_CONNECTIVITY_CHECK:
      stored =
          Store(result, result.output(), "api_vip_connectivity", core::ParseReachability, update);
      break;
    case types::v1::STEP_TYPE_TANG_CONNECTIVITY_CHECK:
      stored = Store(result, result.output(), "tang_connectivity", core::ParseReachability, update);
      break;
    default:
      break;  // logs, stop, install...: nothing to keep on the host
  }
  if (!stored.ok()) return stored;
  return update;
}

}  // namespace assisted::orchestrator
