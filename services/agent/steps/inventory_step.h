// File: services/agent/steps/inventory_step.h
//
// inventory: report the host's hardware inventory.
//   args:   [] or [host_id]
//   output: the Inventory JSON (reference §1.6) exactly as the injected collector returns it.
// The collector (the hardware inventory library, or a fixture tree when simulating) is given by
// the composition root; a collector error or text that is not a JSON object gives exit code 1.

#ifndef ASSISTED_SERVICES_AGENT_STEPS_INVENTORY_STEP_H_
#define ASSISTED_SERVICES_AGENT_STEPS_INVENTORY_STEP_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

// Returns the inventory JSON. Called on a runner thread; never twice at once.
using InventoryCollector = std::function<absl::StatusOr<std::string>()>;

class InventoryStep final : public StepExecutor {
 public:
  explicit InventoryStep(InventoryCollector collect) : collect_(std::move(collect)) {}

  StepType type() const override { return types::v1::STEP_TYPE_INVENTORY; }
  absl::Duration default_timeout() const override { return absl::Minutes(3); }
  StepResult Run(const Step& step, StepContext& context) override;

 private:
  const InventoryCollector collect_;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_INVENTORY_STEP_H_
