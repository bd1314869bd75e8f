// File: services/agent/steps/json_args.h
//
// Exception-free reading of step arguments (mostly one JSON document each) and writing of step
// outputs. Every reader names what it expected, so the -1 result tells the orchestrator's
// developers exactly which argument was wrong:
//
//   ASSIGN_OR_RETURN(nlohmann::json request, JsonArg(step, 0, JsonKind::kObject));
//   ASSIGN_OR_RETURN(std::string path, StringField(request, "path", Need::kRequired));

#ifndef ASSISTED_SERVICES_AGENT_STEPS_JSON_ARGS_H_
#define ASSISTED_SERVICES_AGENT_STEPS_JSON_ARGS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "assisted/types/v1/step.pb.h"
#include "nlohmann/json.hpp"

namespace assisted::agent::steps {

enum class JsonKind { kObject, kArray };
enum class Need { kRequired, kOptional };

// INVALID_ARGUMENT unless the step has between `min` and `max` arguments.
absl::Status CheckArgCount(const types::v1::Step& step, size_t min, size_t max);

// Parses argument `index` as a JSON document of `kind`. INVALID_ARGUMENT when the argument is
// missing, is not JSON, or is JSON of another kind.
absl::StatusOr<nlohmann::json> JsonArg(const types::v1::Step& step, size_t index, JsonKind kind);

// The string at `key` of `object`. Missing: an empty string when optional, INVALID_ARGUMENT when
// required. Present with another type, or longer than `max_length`: INVALID_ARGUMENT.
absl::StatusOr<std::string> StringField(const nlohmann::json& object, absl::string_view key,
                                        Need need, size_t max_length = 1024);

// The boolean at `key`; missing: false when optional. INVALID_ARGUMENT otherwise as above.
absl::StatusOr<bool> BoolField(const nlohmann::json& object, absl::string_view key, Need need);

// The number at `key` when present (nullopt when missing and optional).
absl::StatusOr<std::optional<double>> NumberField(const nlohmann::json& object,
                                                  absl::string_view key, Need need);

// The array at `key` (a missing optional key reads as empty), at most `max_items` long.
absl::StatusOr<nlohmann::json> ArrayField(const nlohmann::json& object, absl::string_view key,
                                          Need need, size_t max_items);

// The strings of a JSON array: INVALID_ARGUMENT naming `what` for a non-string element, more
// than `max_items` elements, or one longer than `max_length`.
absl::StatusOr<std::vector<std::string>> StringList(const nlohmann::json& array,
                                                    absl::string_view what, size_t max_items,
                                                    size_t max_length = 1024);

// A DNS name or an IP address literal: 1..253 characters of letters, digits, '-', '.', '_', ':'
// (IPv6), and a leading "*." wildcard when `allow_wildcard`. INVALID_ARGUMENT naming `what`.
absl::Status CheckHostName(absl::string_view name, absl::string_view what,
                           bool allow_wildcard = false);

// An identifier such as a host, cluster or infra-env id: 1..64 letters, digits and '-'.
// INVALID_ARGUMENT naming `what`.
absl::Status CheckId(absl::string_view id, absl::string_view what);

// Compact JSON text. Never throws: invalid UTF-8 in strings (e.g. from a command's output) is
// replaced by U+FFFD.
std::string DumpJson(const nlohmann::json& value);

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_JSON_ARGS_H_
