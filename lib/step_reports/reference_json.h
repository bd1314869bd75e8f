// File: lib/step_reports/reference_json.h
//
// The agent's typed step reports (assisted/types/v1/step_reports.proto) as the reference's JSON
// text, and back: the one converter between the two. The orchestrator parses once, at its edge,
// what an agent from before typed reports sent as text; the inventory moves a row's stored text
// into the typed fields when it reads the row; the REST gateway renders the typed fields as the
// reference's strings (Host.connectivity, Host.ntp_sources, ...). Nothing else touches the text.
//
//   types::v1::NtpSynchronizationResponse ntp;
//   RETURN_IF_ERROR(ParseReferenceJson(text, JsonForm::kObject, "step_result.output", ntp));
//   std::string shown = ToReferenceJson(host.ntp_sources_report(), JsonForm::kList);

#ifndef ASSISTED_LIB_STEP_REPORTS_REFERENCE_JSON_H_
#define ASSISTED_LIB_STEP_REPORTS_REFERENCE_JSON_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "assisted/types/v1/host.pb.h"
#include "google/protobuf/message.h"

namespace assisted::step_reports {

// How a report's text is laid out.
enum class JsonForm {
  kObject,  // the message as a JSON object: {"ntp_sources": [...]}
  kList,    // the list in the message's first field (a repeated message), bare: [...]
};

// The reference's JSON text of `report`: proto field names; every scalar and list printed, set
// or not, as the reference's agent prints them; fields in field-number order; no whitespace.
std::string ToReferenceJson(const google::protobuf::Message& report, JsonForm form);

// Clears `report` and fills it from the reference's JSON text. Members the message does not have
// are ignored (the reference adds fields over time). INVALID_ARGUMENT starting with `field` when
// `text` is not JSON of that shape. The text is parsed recursively: callers bound untrusted text
// first (lib/json/bounded.h).
absl::Status ParseReferenceJson(absl::string_view text, JsonForm form, absl::string_view field,
                                google::protobuf::Message& report);

// A Host report: the field that held it as the reference's text (15-22) and the typed field that
// holds it now (51-58), with the text's form.
struct HostReportField {
  const char* text;   // e.g. "ntp_sources"
  const char* typed;  // e.g. "ntp_sources_report"
  JsonForm form;
};

// All eight, in Host field order.
absl::Span<const HostReportField> HostReportFields();

// The entry whose typed field is `typed`, or nullptr.
const HostReportField* FindHostReportField(absl::string_view typed);

// Moves each non-empty text field of `host` into its typed field, unless the typed field is set
// already (it is newer), and clears the text. A text that does not parse is dropped: the report
// then counts as not received, as an unreadable one did before, until the agent sends it again.
// Returns how many texts were dropped.
int UpgradeLegacyReports(types::v1::Host& host);

}  // namespace assisted::step_reports

#endif  // ASSISTED_LIB_STEP_REPORTS_REFERENCE_JSON_H_
