// File: services/gateway/operators.h
//
// The OLM operators and operator bundles this service can install, as upstream's operator
// routes (GET /v2/supported-operators, /v2/operators/bundles) and cluster fields
// (olm_operators, operator_bundles) name them. None yet: the operator framework (issue 19,
// item 3) is not built, so both lists are empty, every named operator or bundle is NOT_FOUND,
// and a cluster that selects one is refused (INVALID_ARGUMENT naming the entry) rather than
// installed without it. The one place that says so: the routes and the decoding both ask here.

#ifndef ASSISTED_SERVICES_GATEWAY_OPERATORS_H_
#define ASSISTED_SERVICES_GATEWAY_OPERATORS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace assisted::gateway {

// Names of the operators a cluster may select (upstream's V2ListSupportedOperators).
const std::vector<std::string>& SupportedOperators();
// Ids of the operator bundles a cluster may select (upstream's V2ListBundles).
const std::vector<std::string>& OperatorBundles();

// NOT_FOUND naming `name` unless it is a supported operator (resp. a bundle).
absl::Status CheckSupportedOperator(absl::string_view name);
absl::Status CheckOperatorBundle(absl::string_view id);

// A request's `field` ("olm_operators": entries {"name": …}; "operator_bundles": entries
// {"id": …}): OK for null or []; INVALID_ARGUMENT naming the first entry that selects what
// cannot be installed (every entry, while the lists above are empty) or is malformed.
absl::Status CheckOperatorSelection(absl::string_view field, const nlohmann::json& value);

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_OPERATORS_H_
