// File: services/orchestrator/core/validation_results.h
//
// The outcomes of one evaluation of a host's or a cluster's validations, and the questions the
// state machines ask of them ("did has-min-cpu-cores pass?"). A failure the user chose to ignore
// (ignored_host_validations / ignored_cluster_validations) stays visible as a failure but counts
// as passed for every gate.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_VALIDATION_RESULTS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_VALIDATION_RESULTS_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "assisted/types/v1/validation.pb.h"
#include "google/protobuf/repeated_field.h"

namespace assisted::orchestrator::core {

// One evaluated validation.
struct ValidationOutcome {
  std::string id;
  types::v1::ValidationStatus status = types::v1::VALIDATION_STATUS_UNSPECIFIED;
  types::v1::ValidationCategory category = types::v1::VALIDATION_CATEGORY_UNSPECIFIED;
  std::string message;
  std::string hint;  // failures and errors: what the user can do about it
};

class ValidationResults {
 public:
  // Adds an outcome, replacing an earlier one with the same id.
  void Set(ValidationOutcome outcome);

  // Marks ids as ignored by the user; "all" ignores every id. No id of `never` is ignored,
  // listed or by "all" (validation_ids.h: the non-ignorable ids).
  void Ignore(const std::vector<std::string>& ids,
              const std::vector<absl::string_view>& never = {});

  // The outcome of `id`, or nullptr when it was not evaluated.
  const ValidationOutcome* Find(absl::string_view id) const;

  // UNSPECIFIED when `id` was not evaluated.
  types::v1::ValidationStatus StatusOf(absl::string_view id) const;

  // success, success-suppress-output or disabled; or ignored. A missing id has not passed.
  bool Passed(absl::string_view id) const;
  // Passed, or pending (not measured yet).
  bool PassedOrPending(absl::string_view id) const;
  // failure or error, and not ignored.
  bool Failed(absl::string_view id) const;
  // pending (or not evaluated), and not ignored.
  bool Pending(absl::string_view id) const;

  // Whether every id passed (PassedOrPending for `pending_ok`).
  bool AllPassed(const std::vector<absl::string_view>& ids, bool pending_ok = false) const;

  // The messages of the ids in `ids` that did not pass, in `ids` order, joined with " ; " —
  // the reference's status_info format. Empty when all passed.
  std::string Blocking(const std::vector<absl::string_view>& ids, bool pending_ok = false) const;

  const std::vector<ValidationOutcome>& outcomes() const { return outcomes_; }

  // Appends every outcome as a ValidationResult.
  void ToProto(google::protobuf::RepeatedPtrField<types::v1::ValidationResult>* out) const;

 private:
  bool IsIgnored(absl::string_view id) const;

  std::vector<ValidationOutcome> outcomes_;
  absl::flat_hash_map<std::string, std::size_t> index_;
  absl::flat_hash_set<std::string> ignored_;
  absl::flat_hash_set<std::string> never_ignored_;
  bool ignore_all_ = false;
};

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_VALIDATION_RESULTS_H_
