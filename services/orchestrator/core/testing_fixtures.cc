// File: services/orchestrator/core/testing_fixtures.cc

#include "services/orchestrator/core/testing_fixtures.h"

#include <utility>

#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator::core::testing {

namespace {

ValidationResults Passing(const std::vector<absl::string_view>& ids) {
  ValidationResults results;
  for (absl::string_view id : ids) {
    results.Set({std::string(id), types::v1::VALIDATION_STATUS_SUCCESS,
                 types::v1::VALIDATION_CATEGORY_UNSPECIFIED, absl::StrCat(id, " passed")});
  }
  return results;
}

}  // namespace

ValidationResults PassingHostValidations() { return Passing(CoreHostValidationIds()); }

ValidationResults PassingClusterValidations() { return Passing(CoreClusterValidationIds()); }

void SetStatus(ValidationResults* results, absl::string_view id, types::v1::ValidationStatus status,
               std::string message) {
  ValidationOutcome outcome;
  if (const ValidationOutcome* old = results->Find(id)) outcome = *old;
  outcome.id = std::string(id);
  outcome.status = status;
  if (message.empty()) message = absl::StrCat(id, " is ", static_cast<int>(status));
  outcome.message = std::move(message);
  results->Set(std::move(outcome));
}

}  // namespace assisted::orchestrator::core::testing
