// File: services/orchestrator/step_results.cc

#include "services/orchestrator/step_results.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/json/bounded.h"
#include "lib/status/status_macros.h"
#include "lib/step_reports/reference_json.h"

namespace assisted::orchestrator {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using step_reports::JsonForm;
using types::v1::StepResult;
using types::v1::StepType;

// The reference agent's exit code for "the discovery media could not be read".
constexpr int kMediaDisconnected = 256;

// A step type whose result carries a typed report: the StepResult member that holds it, the
// Host field that keeps it (none for disk speed: merged into disks_info_report per disk), and
// how an older agent wrote it as text in `output`.
struct Route {
  StepType type;
  const char* member;
  const char* host_field;
  JsonForm text_form;
};

constexpr Route kRoutes[] = {
    {types::v1::STEP_TYPE_INVENTORY, "inventory", "inventory", JsonForm::kObject},
    {types::v1::STEP_TYPE_CONNECTIVITY_CHECK, "connectivity", "connectivity_report",
     JsonForm::kObject},
    {types::v1::STEP_TYPE_FREE_NETWORK_ADDRESSES, "free_addresses", "free_addresses_report",
     JsonForm::kList},
    {types::v1::STEP_TYPE_NTP_SYNCHRONIZER, "ntp_synchronization", "ntp_sources_report",
     JsonForm::kObject},
    {types::v1::STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK, "disk_speed", nullptr, JsonForm::kObject},
    {types::v1::STEP_TYPE_DOMAIN_RESOLUTION, "domain_resolution", "domain_name_resolutions_report",
     JsonForm::kObject},
    {types::v1::STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY, "image_availability",
     "images_status_report", JsonForm::kObject},
    {types::v1::STEP_TYPE_API_VIP_CONNECTIVITY_CHECK, "api_vip_connectivity",
     "api_vip_connectivity_report", JsonForm::kObject},
    {types::v1::STEP_TYPE_TANG_CONNECTIVITY_CHECK, "tang_connectivity", "tang_connectivity_report",
     JsonForm::kObject},
};

const Route* RouteOf(StepType type) {
  for (const Route& route : kRoutes) {
    if (route.type == type) return &route;
  }
  return nullptr;
}

absl::Status ShapeError(const StepResult& result, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(types::v1::StepType_Name(result.step_type()),
                                                 " result ", result.step_id(), ": ", problem));
}

// The report member `result` carries, or nullptr.
const FieldDescriptor* ReportMember(const StepResult& result) {
  if (result.report_case() == StepResult::REPORT_NOT_SET) return nullptr;
  return StepResult::descriptor()->FindFieldByNumber(result.report_case());
}

// OK when the report member is the one of the result's step type and within the size limit.
absl::Status CheckReportMember(const StepResult& result, const Route* route) {
  const FieldDescriptor* member = ReportMember(result);
  if (member == nullptr) return absl::OkStatus();
  const std::string field = absl::StrCat("step_result.", member->name());
  if (route == nullptr || member->name() != route->member) {
    return ShapeError(result, absl::StrCat(field, ": not the report of this step type",
                                           route == nullptr ? " (it has none)" : ""));
  }
  const size_t size = result.GetReflection()->GetMessage(result, member).ByteSizeLong();
  const size_t limit =
      route->type == types::v1::STEP_TYPE_INVENTORY ? kMaxInventoryBytes : kMaxStepOutputBytes;
  if (size > limit) {
    return ShapeError(result,
                      absl::StrCat(field, ": ", size, " bytes, more than the limit of ", limit));
  }
  return absl::OkStatus();
}

// The typed report of `result`: its member, or what an older agent wrote in `output`, parsed
// here once. `parsed` owns the latter.
absl::StatusOr<const Message*> ReportOf(const StepResult& result, const Route& route,
                                        std::unique_ptr<Message>& parsed) {
  const FieldDescriptor* member = StepResult::descriptor()->FindFieldByName(route.member);
  const Message& slot = result.GetReflection()->GetMessage(result, member);
  if (ReportMember(result) != nullptr) return &slot;
  if (result.output().empty()) {
    return ShapeError(result, absl::StrCat("step_result.", route.member, ": missing"));
  }
  parsed.reset(slot.New());
  if (absl::Status status = step_reports::ParseReferenceJson(result.output(), route.text_form,
                                                             "step_result.output", *parsed);
      !status.ok()) {
    return ShapeError(result, status.message());
  }
  return parsed.get();
}

// One disk's measurement merged into the host's disks_info_report: other disks keep theirs.
absl::StatusOr<types::v1::DisksInfo> MergeDiskSpeed(const StepResult& result,
                                                    const types::v1::DiskSpeedCheckResponse& check,
                                                    const types::v1::Host& current) {
  if (check.path().empty()) return ShapeError(result, "step_result.disk_speed.path: missing");
  types::v1::DisksInfo merged;
  for (const types::v1::DiskInfo& disk : current.disks_info_report().disks()) {
    if (disk.path() != check.path()) *merged.add_disks() = disk;
  }
  types::v1::DiskInfo& disk = *merged.add_disks();
  disk.set_path(check.path());
  disk.mutable_disk_speed()->set_tested(true);
  disk.mutable_disk_speed()->set_speed_ms(result.exit_code() == 0 ? check.io_sync_duration() : 0);
  disk.mutable_disk_speed()->set_exit_code(result.exit_code());
  return merged;
}

}  // namespace

absl::Status CheckInventorySize(const types::v1::Inventory& inventory, absl::string_view field) {
  const size_t size = inventory.ByteSizeLong();
  if (size <= kMaxInventoryBytes) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": ", size, " bytes, more than the limit of ", kMaxInventoryBytes));
}

absl::StatusOr<HostFieldsUpdate> NormalizeStepResult(const StepResult& result,
                                                     const types::v1::Host& current) {
  // Before any parse: the text parser below walks the output recursively.
  if (absl::Status bounded = untrusted::CheckJsonBounds(
          result.output(), "step_result.output",
          {.max_bytes = kMaxStepOutputBytes, .max_depth = kMaxStepOutputDepth});
      !bounded.ok()) {
    return ShapeError(result, bounded.message());
  }
  const StepType type = result.step_type();
  const Route* route = RouteOf(type);
  RETURN_IF_ERROR(CheckReportMember(result, route));
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
  // A failed step carries no finding, except these two, whose failure is the finding.
  const bool failure_is_finding = type == types::v1::STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY ||
                                  type == types::v1::STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK;
  const bool reported = ReportMember(result) != nullptr || !result.output().empty();
  if (route == nullptr || (result.exit_code() != 0 && !(failure_is_finding && reported))) {
    return update;  // logs, stop, install...: nothing to keep on the host
  }
  std::unique_ptr<Message> parsed;
  ASSIGN_OR_RETURN(const Message* report, ReportOf(result, *route, parsed));
  if (route->host_field == nullptr) {
    ASSIGN_OR_RETURN(
        *update.fields.mutable_disks_info_report(),
        MergeDiskSpeed(result, static_cast<const types::v1::DiskSpeedCheckResponse&>(*report),
                       current));
    update.paths.emplace_back("disks_info_report");
    return update;
  }
  const FieldDescriptor* field = types::v1::Host::descriptor()->FindFieldByName(route->host_field);
  update.fields.GetReflection()->MutableMessage(&update.fields, field)->CopyFrom(*report);
  update.paths.emplace_back(route->host_field);
  return update;
}

}  // namespace assisted::orchestrator
