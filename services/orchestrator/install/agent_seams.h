// File: services/orchestrator/install/agent_seams.h
//
// The install work plugged into the agent hub's two seams (services/orchestrator/instructions.h):
// - InstallStepSource: a host in `installing` gets, besides what the wrapped source plans, its
//   STEP_TYPE_INSTALL step (InstallActions::InstallInstructions: image, boot disk, Ignition);
// - InstallProgressSink: AgentMessage.progress goes through InstallActions::ApplyAgentProgress,
//   the same function UpdateHostProgress uses.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_AGENT_SEAMS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_AGENT_SEAMS_H_

#include <vector>

#include "services/orchestrator/install/actions.h"
#include "services/orchestrator/instructions.h"

namespace assisted::orchestrator::install {

class InstallStepSource final : public InstructionSource {
 public:
  // Both must outlive this source.
  InstallStepSource(InstallActions& actions, InstructionSource& fallback)
      : actions_(actions), fallback_(fallback) {}

  absl::StatusOr<std::vector<types::v1::Step>> StepsFor(const InstructionInput& input) override;

 private:
  InstallActions& actions_;
  InstructionSource& fallback_;
};

class InstallProgressSink final : public ProgressSink {
 public:
  explicit InstallProgressSink(InstallActions& actions) : actions_(actions) {}

  absl::Status OnProgress(const types::v1::Host& host,
                          const agent::v1::Progress& progress) override {
    return actions_.ApplyAgentProgress(host, progress);
  }

 private:
  InstallActions& actions_;
};

// A new agent process on a known host fires the host's register event (InstallActions).
class InstallRegistrationSink final : public RegistrationSink {
 public:
  explicit InstallRegistrationSink(InstallActions& actions) : actions_(actions) {}

  absl::StatusOr<types::v1::Host> OnNewAgent(const types::v1::Host& host) override {
    return actions_.RegisterAgain(host);
  }

 private:
  InstallActions& actions_;
};

}  // namespace assisted::orchestrator::install

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_AGENT_SEAMS_H_
