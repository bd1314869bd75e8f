// File: lib/step_reports/reference_json.cc

#include "lib/step_reports/reference_json.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "nlohmann/json.hpp"

namespace assisted::step_reports {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// The repeated message field a kList text is the list of.
const FieldDescriptor& ListField(const Message& report) {
  const FieldDescriptor* field = report.GetDescriptor()->field(0);
  // Every list-form report is declared so (step_reports.proto); a mistake is a programming error.
  if (field == nullptr || !field->is_repeated() ||
      field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
    std::abort();
  }
  return *field;
}

std::string MessageText(const Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string text;
  // Printing a message of plain scalars, strings and lists cannot fail.
  (void)google::protobuf::util::MessageToJsonString(message, &text, options);
  return text;
}

}  // namespace

std::string ToReferenceJson(const Message& report, JsonForm form) {
  if (form == JsonForm::kObject) return MessageText(report);
  const FieldDescriptor& field = ListField(report);
  const google::protobuf::Reflection& r = *report.GetReflection();
  std::string text = "[";
  for (int i = 0; i < r.FieldSize(report, &field); ++i) {
    absl::StrAppend(&text, i == 0 ? "" : ",", MessageText(r.GetRepeatedMessage(report, &field, i)));
  }
  text += "]";
  return text;
}

absl::Status ParseReferenceJson(absl::string_view text, JsonForm form, absl::string_view field,
                                Message& report) {
  report.Clear();
  std::string object(text);
  if (form == JsonForm::kList) {
    nlohmann::json list = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!list.is_array()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": expected a JSON list"));
    }
    object = nlohmann::json{{ListField(report).name(), std::move(list)}}.dump();
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  const auto parsed = google::protobuf::util::JsonStringToMessage(object, &report, options);
  if (!parsed.ok()) {
    report.Clear();
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": not a ", report.GetDescriptor()->name(), ": ", parsed.message().ToString()));
  }
  return absl::OkStatus();
}

absl::Span<const HostReportField> HostReportFields() {
  static constexpr HostReportField kFields[] = {
      {"connectivity", "connectivity_report", JsonForm::kObject},
      {"api_vip_connectivity", "api_vip_connectivity_report", JsonForm::kObject},
      {"tang_connectivity", "tang_connectivity_report", JsonForm::kObject},
      {"free_addresses", "free_addresses_report", JsonForm::kList},
      {"ntp_sources", "ntp_sources_report", JsonForm::kList},
      {"disks_info", "disks_info_report", JsonForm::kList},
      {"images_status", "images_status_report", JsonForm::kList},
      {"domain_name_resolutions", "domain_name_resolutions_report", JsonForm::kObject},
  };
  return kFields;
}

const HostReportField* FindHostReportField(absl::string_view typed) {
  for (const HostReportField& field : HostReportFields()) {
    if (typed == field.typed) return &field;
  }
  return nullptr;
}

int UpgradeLegacyReports(types::v1::Host& host) {
  const google::protobuf::Descriptor& descriptor = *host.GetDescriptor();
  const google::protobuf::Reflection& r = *host.GetReflection();
  int dropped = 0;
  for (const HostReportField& report : HostReportFields()) {
    const FieldDescriptor* text = descriptor.FindFieldByName(report.text);
    const FieldDescriptor* typed = descriptor.FindFieldByName(report.typed);
    const std::string stored = r.GetString(host, text);
    if (stored.empty()) continue;
    r.ClearField(&host, text);
    if (r.HasField(host, typed)) continue;
    Message* target = r.MutableMessage(&host, typed);
    if (!ParseReferenceJson(stored, report.form, report.text, *target).ok()) {
      r.ClearField(&host, typed);
      ++dropped;
    }
  }
  return dropped;
}

}  // namespace assisted::step_reports
