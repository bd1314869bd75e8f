// File: services/orchestrator/actions/agent_seams.h
//
// The install work plugged into the agent hub's two seams (services/orchestrator/instructions.h):
// - InstallStepSource: a host in `installing` gets, besides what the wrapped source plans, its
//   STEP_TYPE_INSTALL step (HostActions::InstallInstructions: image, boot disk, Ignition);
// - InstallProgressSink: AgentMessage.progress goes through ProgressActions::ApplyAgentProgress,
//   the same function UpdateHostProgress uses.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_AGENT_SEAMS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_AGENT_SEAMS_H_

#include <vector>

#include "services/orchestrator/actions/host_actions.h"
#include "services/orchestrator/actions/progress.h"
#include "services/orchestrator/instructions.h"

namespace assisted::orchestrator::actions {

class InstallStepSource final : public InstructionSource {
 public:
  // Both must outlive this source.
  InstallStepSource(HostActions& actions, InstructionSource& fallback)
      : actions_(actions), fallback_(fallback) {}

  absl::StatusOr<std::vector<types::v1::Step>> StepsFor(const InstructionInput& input) override;

 private:
  HostActions& actions_;
  InstructionSource& fallback_;
};

class InstallProgressSink final : public ProgressSink {
 public:
  explicit InstallProgressSink(ProgressActions& actions) : actions_(actions) {}

  absl::Status OnProgress(const types::v1::Host& host,
                          const agent::v1::Progress& progress) override {
    return actions_.ApplyAgentProgress(host, progress);
  }

 private:
  ProgressActions& actions_;
};

// A new agent process on a known host fires the host's register event (HostActions::RegisterAgain).
class InstallRegistrationSink final : public RegistrationSink {
 public:
  explicit InstallRegistrationSink(HostActions& actions) : actions_(actions) {}

  absl::StatusOr<types::v1::Host> OnNewAgent(const types::v1::Host& host) override {
    return actions_.RegisterAgain(host);
  }

 private:
  HostActions& actions_;
};

}  // namespace assisted::orchestrator::actions

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_ACTIONS_AGENT_SEAMS_H_
