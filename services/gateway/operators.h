// File: services/gateway/operators.h
//
// The REST face of the operator table (lib/operators/catalog.h): upstream's operator routes
// (GET /v2/supported-operators[/{operator_name}], /v2/operators/bundles[/{id}]), the
// `operators` part of GET …/preflight-requirements, and the cluster fields that select
// operators (olm_operators, operator_bundles). Everything answers from the one table, so the
// routes list exactly what a selection accepts and what the orchestrator validates and installs.
// Upstream's operators without a row are refused by name ("not supported by this service yet");
// there are no operator bundles (upstream's groups of operators) yet: the list is empty and a
// bundle selection is refused.

#ifndef ASSISTED_SERVICES_GATEWAY_OPERATORS_H_
#define ASSISTED_SERVICES_GATEWAY_OPERATORS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "assisted/types/v1/cluster.pb.h"
#include "nlohmann/json.hpp"

namespace assisted::gateway {

// Names of the operators a cluster may select (upstream's V2ListSupportedOperators).
std::vector<std::string> SupportedOperatorNames();

// NOT_FOUND naming `name` unless it is a supported operator: "not supported by this service
// yet" for upstream's others.
absl::Status CheckSupportedOperator(absl::string_view name);
// NOT_FOUND naming `id`: there are no operator bundles yet.
absl::Status CheckOperatorBundle(absl::string_view id);

// Upstream's `operators` of preflight requirements: for every operator `cluster` selected,
// {operator_name, dependencies, requirements: {master|worker: {quantitative, qualitative}}}.
nlohmann::json OperatorPreflightRequirements(const types::v1::Cluster& cluster);

// Reads a request's `field`. "olm_operators" (entries {"name": …, "properties": ""}): null
// changes nothing (nullopt); otherwise the cluster's new monitored operators: those of
// `current` (may be null) that are not OLM selections, then one entry per operator the
// selection installs (dependencies included). "operator_bundles": null or [] (nullopt), any
// entry refused. INVALID_ARGUMENT naming the entry that is malformed, names an operator that
// is not supported, or gives properties an operator does not have.
absl::StatusOr<absl::optional<std::vector<types::v1::MonitoredOperator>>> DecodeOperatorSelection(
    absl::string_view field, const nlohmann::json& value, const types::v1::Cluster* current);

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_OPERATORS_H_
