#include "services/orchestrator/actions/agent_seams.h"

#include "lib/status/status_macros.h"

namespace assisted::orchestrator::actions {

absl::StatusOr<std::vector<types::v1::Step>> InstallStepSource::StepsFor(
    const InstructionInput& input) {
  ASSIGN_OR_RETURN(std::vector<types::v1::Step> steps, fallback_.StepsFor(input));
  if (input.cluster == nullptr || input.host.status() != types::v1::HOST_STATUS_INSTALLING) {
    return steps;
  }
  ASSIGN_OR_RETURN(std::vector<types::v1::Step> install,
                   actions_.InstallInstructions(input.host, *input.cluster));
  for (types::v1::Step& step : install) steps.push_back(std::move(step));
  return steps;
}

}  // namespace assisted::orchestrator::actions
