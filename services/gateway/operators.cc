#include "services/gateway/operators.h"

#include "absl/strings/str_cat.h"

namespace assisted::gateway {
namespace {

// Selections are refused even for listed names: nothing stores or installs them until the
// operator framework exists, and accepting a selection that is then dropped would be a lie.
// Whoever fills the lists above makes the cluster keep and install what is selected.
constexpr char kWhy[] =
    "no operator can be installed by this service yet (GET /v2/supported-operators and "
    "/v2/operators/bundles list what can)";

}  // namespace

const std::vector<std::string>& SupportedOperators() {
  static const auto* names = new std::vector<std::string>{};
  return *names;
}

const std::vector<std::string>& OperatorBundles() {
  static const auto* ids = new std::vector<std::string>{};
  return *ids;
}

absl::Status CheckSupportedOperator(absl::string_view name) {
  for (const std::string& known : SupportedOperators()) {
    if (known == name) return absl::OkStatus();
  }
  return absl::NotFoundError(
      absl::StrCat("operator_name: \"", name, "\" is not a supported operator: ", kWhy));
}

absl::Status CheckOperatorBundle(absl::string_view id) {
  for (const std::string& known : OperatorBundles()) {
    if (known == id) return absl::OkStatus();
  }
  return absl::NotFoundError(absl::StrCat("id: \"", id, "\" is not an operator bundle: ", kWhy));
}

absl::Status CheckOperatorSelection(absl::string_view field, const nlohmann::json& value) {
  if (value.is_null()) return absl::OkStatus();
  if (!value.is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": expected array"));
  }
  if (value.empty()) return absl::OkStatus();
  // Every selection is refused (kWhy), so the first entry is the one to name.
  const char* key = field == "operator_bundles" ? "id" : "name";
  const nlohmann::json& entry = value[0];
  const std::string where = absl::StrCat(field, "[0]");
  if (!entry.is_object() || !entry.contains(key) || !entry[key].is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": expected an object with a string \"", key, "\""));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      where, ".", key, ": \"", entry[key].get<std::string>(), "\" cannot be selected: ", kWhy));
}

}  // namespace assisted::gateway
