// File: services/orchestrator/core/testing_fixtures.h
//
// Test helpers shared by the core's tests: validation results where everything passes (tests
// then flip the one id they are about) and a row-coverage recorder that names the table rows a
// table-driven test never exercised.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_TESTING_FIXTURES_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_TESTING_FIXTURES_H_

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "services/orchestrator/core/engine.h"
#include "services/orchestrator/core/validation_results.h"

namespace assisted::orchestrator::core::testing {

// Every core host (cluster) validation with status success.
ValidationResults PassingHostValidations();
ValidationResults PassingClusterValidations();

// Sets one id's status (and message) in `results`.
void SetStatus(ValidationResults* results, absl::string_view id, types::v1::ValidationStatus status,
               std::string message = "");

// Records which rows of a machine fired and lists the ones that never did.
template <typename Machine>
class RowCoverage {
 public:
  explicit RowCoverage(const Machine& machine) : machine_(machine) {}

  void Record(std::size_t row) { fired_.insert(row); }

  // "row 12 (RefreshHost from known: <guard> -> <to>): <doc>" for every row never fired.
  std::vector<std::string> Unexercised() const {
    std::vector<std::string> out;
    const auto& rows = machine_.rows();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (fired_.count(i)) continue;
      std::vector<std::string> from;
      for (auto s : rows[i].from) from.emplace_back(machine_.naming().state(s));
      out.push_back(absl::StrCat("row ", i, " (", machine_.naming().event(rows[i].event), " from {",
                                 absl::StrJoin(from, ", "), "} when ", rows[i].guard.name, " -> ",
                                 rows[i].to ? machine_.naming().state(*rows[i].to) : "same",
                                 "): ", rows[i].doc));
    }
    return out;
  }

 private:
  const Machine& machine_;
  std::set<std::size_t> fired_;
};

}  // namespace assisted::orchestrator::core::testing

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_TESTING_FIXTURES_H_
