// File: services/orchestrator/core/validation_results.cc

#include "services/orchestrator/core/validation_results.h"

#include <utility>

#include "absl/strings/str_join.h"

namespace assisted::orchestrator::core {

using types::v1::ValidationStatus;

void ValidationResults::Set(ValidationOutcome outcome) {
  auto [it, inserted] = index_.try_emplace(outcome.id, outcomes_.size());
  if (inserted) {
    outcomes_.push_back(std::move(outcome));
  } else {
    outcomes_[it->second] = std::move(outcome);
  }
}

void ValidationResults::Ignore(const std::vector<std::string>& ids,
                               const std::vector<absl::string_view>& never) {
  never_ignored_.insert(never.begin(), never.end());
  for (const std::string& id : ids) {
    if (id == "all") ignore_all_ = true;
    ignored_.insert(id);
  }
}

bool ValidationResults::IsIgnored(absl::string_view id) const {
  return !never_ignored_.contains(id) && (ignore_all_ || ignored_.contains(id));
}

const ValidationOutcome* ValidationResults::Find(absl::string_view id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &outcomes_[it->second];
}

ValidationStatus ValidationResults::StatusOf(absl::string_view id) const {
  const ValidationOutcome* o = Find(id);
  return o == nullptr ? types::v1::VALIDATION_STATUS_UNSPECIFIED : o->status;
}

bool ValidationResults::Passed(absl::string_view id) const {
  switch (StatusOf(id)) {
    case types::v1::VALIDATION_STATUS_SUCCESS:
    case types::v1::VALIDATION_STATUS_SUCCESS_SUPPRESS_OUTPUT:
    case types::v1::VALIDATION_STATUS_DISABLED:
      return true;
    default:
      return IsIgnored(id);
  }
}

bool ValidationResults::PassedOrPending(absl::string_view id) const {
  return Passed(id) || StatusOf(id) == types::v1::VALIDATION_STATUS_PENDING;
}

bool ValidationResults::Failed(absl::string_view id) const {
  ValidationStatus s = StatusOf(id);
  return (s == types::v1::VALIDATION_STATUS_FAILURE || s == types::v1::VALIDATION_STATUS_ERROR) &&
         !IsIgnored(id);
}

bool ValidationResults::Pending(absl::string_view id) const {
  ValidationStatus s = StatusOf(id);
  return (s == types::v1::VALIDATION_STATUS_PENDING ||
          s == types::v1::VALIDATION_STATUS_UNSPECIFIED) &&
         !IsIgnored(id);
}

bool ValidationResults::AllPassed(const std::vector<absl::string_view>& ids,
                                  bool pending_ok) const {
  for (absl::string_view id : ids) {
    if (!(pending_ok ? PassedOrPending(id) : Passed(id))) return false;
  }
  return true;
}

std::string ValidationResults::Blocking(const std::vector<absl::string_view>& ids,
                                        bool pending_ok) const {
  std::vector<absl::string_view> messages;
  for (absl::string_view id : ids) {
    if (pending_ok ? PassedOrPending(id) : Passed(id)) continue;
    const ValidationOutcome* o = Find(id);
    messages.push_back(o == nullptr || o->message.empty() ? id : o->message);
  }
  return absl::StrJoin(messages, " ; ");
}

void ValidationResults::ToProto(
    google::protobuf::RepeatedPtrField<types::v1::ValidationResult>* out) const {
  for (const ValidationOutcome& o : outcomes_) {
    types::v1::ValidationResult* r = out->Add();
    r->set_id(o.id);
    r->set_status(o.status);
    r->set_category(o.category);
    r->set_message(o.message);
    r->set_hint(o.hint);
  }
}

}  // namespace assisted::orchestrator::core
