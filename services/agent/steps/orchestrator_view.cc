// File: services/agent/steps/orchestrator_view.cc

#include "services/agent/steps/orchestrator_view.h"

#include "absl/strings/str_cat.h"
#include "lib/step_reports/reference_json.h"

namespace assisted::agent::steps::testing {

namespace {

absl::Status Missing(const char* member) {
  return absl::InvalidArgumentError(absl::StrCat("the result has no ", member, " report"));
}

}  // namespace

absl::StatusOr<core::ConnectivityReport> OrchestratorConnectivity(const StepResult& result) {
  if (!result.has_connectivity()) return Missing("connectivity");
  types::v1::Host host;
  *host.mutable_connectivity_report() = result.connectivity();
  return *core::ReportsOf(host).connectivity;
}

absl::StatusOr<std::vector<core::DomainResolution>> OrchestratorDomains(const StepResult& result) {
  if (!result.has_domain_resolution()) return Missing("domain_resolution");
  types::v1::Host host;
  *host.mutable_domain_name_resolutions_report() = result.domain_resolution();
  return *core::ReportsOf(host).domains;
}

absl::StatusOr<std::vector<core::NtpSource>> OrchestratorNtpSources(const StepResult& result) {
  if (!result.has_ntp_synchronization()) return Missing("ntp_synchronization");
  types::v1::Host host;
  *host.mutable_ntp_sources_report() = result.ntp_synchronization();
  return *core::ReportsOf(host).ntp_sources;
}

absl::StatusOr<std::vector<core::ImageStatus>> OrchestratorImages(const StepResult& result) {
  if (!result.has_image_availability()) return Missing("image_availability");
  types::v1::Host host;
  *host.mutable_images_status_report() = result.image_availability();
  return *core::ReportsOf(host).images;
}

absl::StatusOr<std::vector<core::DiskSpeed>> OrchestratorDiskSpeed(const StepResult& result) {
  if (!result.has_disk_speed() || result.disk_speed().path().empty()) return Missing("disk_speed");
  types::v1::Host host;
  types::v1::DiskInfo& disk = *host.mutable_disks_info_report()->add_disks();
  disk.set_path(result.disk_speed().path());
  disk.mutable_disk_speed()->set_tested(true);
  disk.mutable_disk_speed()->set_speed_ms(
      result.exit_code() == 0 ? result.disk_speed().io_sync_duration() : 0);
  disk.mutable_disk_speed()->set_exit_code(result.exit_code());
  return *core::ReportsOf(host).disk_speeds;
}

std::string ReferenceText(const StepResult& result) {
  if (result.report_case() == StepResult::REPORT_NOT_SET) return "";
  const google::protobuf::FieldDescriptor* member =
      StepResult::descriptor()->FindFieldByNumber(result.report_case());
  // free-network-addresses is the one output the reference agent prints as a bare list.
  const step_reports::JsonForm form =
      result.has_free_addresses() ? step_reports::JsonForm::kList : step_reports::JsonForm::kObject;
  return step_reports::ToReferenceJson(result.GetReflection()->GetMessage(result, member), form);
}

}  // namespace assisted::agent::steps::testing
