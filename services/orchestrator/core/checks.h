// File: services/orchestrator/core/checks.h
//
// Validations are a list of named pure checks `(const Context&) -> {status, message}`, each with
// the fix hint a failure carries (what the user can do about it; the API shows it beside the
// message, so the UI and the docs never keep their own copy). A list is data: the core lists
// (CoreHostChecks, CoreClusterChecks) can be extended by appending checks with new ids without
// touching the runner.
//
//   ValidationResults r = RunChecks(CoreHostChecks(), ctx, disabled_ids);

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_CHECKS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_CHECKS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "assisted/types/v1/validation.pb.h"
#include "services/orchestrator/core/validation_results.h"

namespace assisted::orchestrator::core {

// What a check says: a status and a message a user can act on.
struct CheckResult {
  types::v1::ValidationStatus status;
  std::string message;
};

inline CheckResult Success(std::string message) {
  return {types::v1::VALIDATION_STATUS_SUCCESS, std::move(message)};
}
inline CheckResult Failure(std::string message) {
  return {types::v1::VALIDATION_STATUS_FAILURE, std::move(message)};
}
inline CheckResult Pending(std::string message) {
  return {types::v1::VALIDATION_STATUS_PENDING, std::move(message)};
}

// One named check.
template <typename Ctx>
struct Check {
  absl::string_view id;
  types::v1::ValidationCategory category;
  CheckResult (*run)(const Ctx&);
  // What the user can do when it fails; reported with failures and errors only.
  absl::string_view hint;
};

// Runs every check of `checks` in order. A check whose id is in `disabled` (the deployment's
// DISABLED_*_VALIDATIONS) is not run and reports "disabled", which every gate counts as passed.
// Failures and errors carry their check's hint; other outcomes none.
template <typename Ctx>
ValidationResults RunChecks(const std::vector<Check<Ctx>>& checks, const Ctx& ctx,
                            const absl::flat_hash_set<std::string>& disabled = {}) {
  ValidationResults results;
  for (const Check<Ctx>& check : checks) {
    CheckResult r = disabled.contains(check.id)
                        ? CheckResult{types::v1::VALIDATION_STATUS_DISABLED,
                                      "Validation disabled by the service configuration"}
                        : check.run(ctx);
    const bool failed = r.status == types::v1::VALIDATION_STATUS_FAILURE ||
                        r.status == types::v1::VALIDATION_STATUS_ERROR;
    results.Set({std::string(check.id), r.status, check.category, std::move(r.message),
                 failed ? std::string(check.hint) : std::string()});
  }
  return results;
}

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_CHECKS_H_
