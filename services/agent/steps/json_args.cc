// File: services/agent/steps/json_args.cc

#include "services/agent/steps/json_args.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace assisted::agent::steps {

namespace {

using nlohmann::json;

// The value at `key`, nullptr when absent; INVALID_ARGUMENT when absent but required, or when
// `object` is not an object at all.
absl::StatusOr<const json*> Field(const json& object, absl::string_view key, Need need) {
  if (!object.is_object()) return absl::InvalidArgumentError("expected a JSON object");
  auto it = object.find(std::string(key));
  if (it == object.end() || it->is_null()) {
    if (need == Need::kRequired)
      return absl::InvalidArgumentError(absl::StrCat("missing \"", key, "\""));
    return nullptr;
  }
  return &*it;
}

absl::Status WrongType(absl::string_view key, absl::string_view expected) {
  return absl::InvalidArgumentError(absl::StrCat("\"", key, "\" must be ", expected));
}

}  // namespace

absl::Status CheckArgCount(const types::v1::Step& step, size_t min, size_t max) {
  const size_t n = step.args_size();
  if (n < min || n > max) {
    return absl::InvalidArgumentError(
        min == max ? absl::StrCat("expected ", min, " argument(s), got ", n)
                   : absl::StrCat("expected ", min, " to ", max, " arguments, got ", n));
  }
  return absl::OkStatus();
}

absl::StatusOr<json> JsonArg(const types::v1::Step& step, size_t index, JsonKind kind) {
  if (index >= static_cast<size_t>(step.args_size())) {
    return absl::InvalidArgumentError(absl::StrCat("missing argument ", index));
  }
  const std::string& text = step.args(index);
  json value = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  const bool ok = kind == JsonKind::kObject ? value.is_object() : value.is_array();
  if (value.is_discarded() || !ok) {
    return absl::InvalidArgumentError(absl::StrCat("argument ", index, " must be a JSON ",
                                                   kind == JsonKind::kObject ? "object" : "array"));
  }
  return value;
}

absl::StatusOr<std::string> StringField(const json& object, absl::string_view key, Need need,
                                        size_t max_length) {
  absl::StatusOr<const json*> field = Field(object, key, need);
  if (!field.ok()) return field.status();
  if (*field == nullptr) return std::string();
  if (!(*field)->is_string()) return WrongType(key, "a string");
  const std::string& value = (*field)->get_ref<const std::string&>();
  if (value.size() > max_length) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", key, "\" is longer than ", max_length, " characters"));
  }
  return value;
}

absl::StatusOr<bool> BoolField(const json& object, absl::string_view key, Need need) {
  absl::StatusOr<const json*> field = Field(object, key, need);
  if (!field.ok()) return field.status();
  if (*field == nullptr) return false;
  if (!(*field)->is_boolean()) return WrongType(key, "true or false");
  return (*field)->get<bool>();
}

absl::StatusOr<std::optional<double>> NumberField(const json& object, absl::string_view key,
                                                  Need need) {
  absl::StatusOr<const json*> field = Field(object, key, need);
  if (!field.ok()) return field.status();
  if (*field == nullptr) return std::optional<double>();
  if (!(*field)->is_number()) return WrongType(key, "a number");
  return std::optional<double>((*field)->get<double>());
}

absl::StatusOr<json> ArrayField(const json& object, absl::string_view key, Need need,
                                size_t max_items) {
  absl::StatusOr<const json*> field = Field(object, key, need);
  if (!field.ok()) return field.status();
  if (*field == nullptr) return json::array();
  if (!(*field)->is_array()) return WrongType(key, "an array");
  if ((*field)->size() > max_items) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", key, "\" has more than ", max_items, " elements"));
  }
  return **field;
}

absl::StatusOr<std::vector<std::string>> StringList(const json& array, absl::string_view what,
                                                    size_t max_items, size_t max_length) {
  if (!array.is_array()) return absl::InvalidArgumentError(absl::StrCat(what, " must be a list"));
  if (array.size() > max_items) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " has more than ", max_items, " elements"));
  }
  std::vector<std::string> out;
  out.reserve(array.size());
  for (const json& element : array) {
    if (!element.is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(what, " must contain only strings"));
    }
    const std::string& value = element.get_ref<const std::string&>();
    if (value.size() > max_length) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " has an element longer than ", max_length, " characters"));
    }
    out.push_back(value);
  }
  return out;
}

absl::Status CheckHostName(absl::string_view name, absl::string_view what, bool allow_wildcard) {
  absl::string_view rest = name;
  if (allow_wildcard) absl::ConsumePrefix(&rest, "*.");
  bool ok = !rest.empty() && name.size() <= 253;
  for (char c : rest) {
    if (!absl::ascii_isalnum(c) && c != '-' && c != '.' && c != '_' && c != ':') ok = false;
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " \"", name.substr(0, 64), "\" is not a host name or address"));
  }
  return absl::OkStatus();
}

absl::Status CheckId(absl::string_view id, absl::string_view what) {
  const bool ok = !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
    return absl::ascii_isalnum(c) || c == '-';
  });
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(what, " \"", id.substr(0, 64), "\" is not an id"));
}

std::string DumpJson(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace assisted::agent::steps
