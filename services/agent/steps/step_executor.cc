// File: services/agent/steps/step_executor.cc

#include "services/agent/steps/step_executor.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace assisted::agent::steps {

std::string StepTypeName(StepType type) {
  // Derived from the enum's own names so the list cannot drift from the proto.
  if (type == types::v1::STEP_TYPE_UNSPECIFIED || !types::v1::StepType_IsValid(type)) return "";
  constexpr absl::string_view kPrefix = "STEP_TYPE_";
  const std::string& name = types::v1::StepType_Name(type);
  if (!absl::StartsWith(name, kPrefix)) return "";
  return absl::AsciiStrToLower(
      absl::StrReplaceAll(absl::string_view(name).substr(kPrefix.size()), {{"_", "-"}}));
}

absl::Duration StepContext::Remaining() const {
  return std::max(absl::ZeroDuration(), deadline - clock.Now());
}

StepResult SuccessResult(std::string output) {
  StepResult result;
  result.set_exit_code(0);
  result.set_output(std::move(output));
  return result;
}

StepResult FailureResult(int exit_code, absl::string_view error, std::string output) {
  StepResult result;
  result.set_exit_code(exit_code);
  result.set_error(std::string(error));
  result.set_output(std::move(output));
  return result;
}

StepResult InvalidArgsResult(const absl::Status& status) {
  return FailureResult(kExitInvalid, absl::StrCat("invalid arguments: ", status.message()));
}

}  // namespace assisted::agent::steps
