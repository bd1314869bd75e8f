#include "services/gateway/operators.h"

#include "absl/strings/str_cat.h"
#include "lib/operators/catalog.h"
#include "lib/status/status_macros.h"

namespace assisted::gateway {
namespace {

using Json = nlohmann::json;

constexpr char kNoBundles[] =
    "there are no operator bundles in this service yet (GET /v2/operators/bundles is empty); "
    "select operators one by one in olm_operators";

// What a host needs for `spec` in upstream's host-type-hardware-requirements shape.
Json HostRequirements(const operators::OperatorSpec& spec) {
  Json quantitative = Json::object();
  if (spec.per_host.cpu_cores > 0) quantitative["cpu_cores"] = spec.per_host.cpu_cores;
  if (spec.per_host.ram_mib > 0) quantitative["ram_mib"] = spec.per_host.ram_mib;
  Json qualitative = Json::array();
  if (spec.needs_spare_disk) {
    qualitative.push_back("At least one HDD or SSD disk besides the installation disk");
  }
  return {{"quantitative", quantitative}, {"qualitative", qualitative}};
}

}  // namespace

std::vector<std::string> SupportedOperatorNames() {
  std::vector<std::string> names;
  for (const operators::OperatorSpec& spec : operators::SupportedOperators()) {
    names.emplace_back(spec.name);
  }
  return names;
}

absl::Status CheckSupportedOperator(absl::string_view name) {
  if (operators::FindOperator(name) != nullptr) return absl::OkStatus();
  // The selection's own message, so both say the same.
  absl::Status refused = operators::ResolveSelection({std::string(name)}, "operator_name").status();
  std::string why(refused.message());
  // "operator_name[0].name: ..." reads as the path parameter it is.
  if (const size_t colon = why.find(": "); colon != std::string::npos) why = why.substr(colon + 2);
  return absl::NotFoundError(absl::StrCat("operator_name: ", why));
}

absl::Status CheckOperatorBundle(absl::string_view id) {
  return absl::NotFoundError(
      absl::StrCat("id: \"", id, "\" is not an operator bundle: ", kNoBundles));
}

Json OperatorPreflightRequirements(const types::v1::Cluster& cluster) {
  Json list = Json::array();
  for (const operators::OperatorSpec* selected : operators::SelectedOperators(cluster)) {
    const operators::OperatorSpec& spec = *selected;
    Json dependencies = Json::array();
    for (absl::string_view d : spec.dependencies) dependencies.push_back(std::string(d));
    // The table's per-host needs are added to every host's role (has-cpu-cores-for-role), so
    // both roles show them.
    list.push_back({{"operator_name", std::string(spec.name)},
                    {"dependencies", std::move(dependencies)},
                    {"requirements",
                     {{"master", HostRequirements(spec)}, {"worker", HostRequirements(spec)}}}});
  }
  return list;
}

absl::StatusOr<absl::optional<std::vector<types::v1::MonitoredOperator>>> DecodeOperatorSelection(
    absl::string_view field, const Json& value, const types::v1::Cluster* current) {
  using Result = absl::optional<std::vector<types::v1::MonitoredOperator>>;
  if (value.is_null()) return Result();
  if (!value.is_array()) return absl::InvalidArgumentError(absl::StrCat(field, ": expected array"));
  const bool bundles = field == "operator_bundles";
  const char* key = bundles ? "id" : "name";
  std::vector<std::string> names;
  for (size_t i = 0; i < value.size(); ++i) {
    const Json& entry = value[i];
    const std::string where = absl::StrCat(field, "[", i, "]");
    if (!entry.is_object() || !entry.contains(key) || !entry[key].is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": expected an object with a string \"", key, "\""));
    }
    if (bundles) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ".id: \"", entry["id"].get<std::string>(), "\" cannot be selected: ", kNoBundles));
    }
    for (const auto& [member, member_value] : entry.items()) {
      if (member == "name") continue;
      // Upstream's properties: JSON text of the operator's settings. No operator here has any.
      const bool empty_properties =
          member == "properties" && (member_value.is_null() || member_value == "");
      if (!empty_properties) {
        return absl::InvalidArgumentError(absl::StrCat(where, ".", member,
                                                       member == "properties"
                                                           ? ": the operator has no properties"
                                                           : ": unknown field of operator"));
      }
    }
    names.push_back(entry["name"].get<std::string>());
  }
  if (bundles) return Result();
  ASSIGN_OR_RETURN(std::vector<const operators::OperatorSpec*> chosen,
                   operators::ResolveSelection(names, field));
  std::vector<types::v1::MonitoredOperator> monitored;
  if (current != nullptr) {
    for (const types::v1::MonitoredOperator& op : current->monitored_operators()) {
      if (op.operator_type() != types::v1::OPERATOR_TYPE_OLM) monitored.push_back(op);
    }
  }
  for (const operators::OperatorSpec* spec : chosen) {
    monitored.push_back(operators::MonitoredOperatorOf(*spec));
  }
  return Result(std::move(monitored));
}

}  // namespace assisted::gateway
