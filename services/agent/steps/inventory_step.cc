// File: services/agent/steps/inventory_step.cc

#include "services/agent/steps/inventory_step.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "services/agent/steps/json_args.h"

namespace assisted::agent::steps {

StepResult InventoryStep::Run(const Step& step, StepContext& context) {
  absl::Status args = CheckArgCount(step, 0, 1);
  if (args.ok() && step.args_size() == 1) args = CheckId(step.args(0), "host id");
  if (!args.ok()) return InvalidArgsResult(args);
  if (!collect_) return FailureResult(1, "no inventory collector configured");
  absl::StatusOr<std::string> inventory = collect_();
  if (!inventory.ok()) {
    context.log.Warning("inventory failed", {{"error", inventory.status().message()}});
    return FailureResult(
        1, absl::StrCat("cannot collect the inventory: ", inventory.status().message()));
  }
  const nlohmann::json parsed =
      nlohmann::json::parse(*inventory, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object())
    return FailureResult(1, "the inventory collector returned no JSON object");
  return SuccessResult(*std::move(inventory));
}

}  // namespace assisted::agent::steps
