// File: services/orchestrator/core/next_steps.h
//
// Which steps a host's agent should run next, per host state and kind of cluster (day-1, day-2,
// no cluster), with step ids "<type>-<8 hex>" from an injected random source. The selection is
// the reference's instruction manager as data (StepPlan) plus the conditions that drop or
// replace steps; the caller fills each step's arguments (they depend on the other hosts).
//
//   NextSteps next = SelectNextSteps(input, random);
//   for (Step& s : next.steps) s.add_args(builder.ArgsFor(s.step_type(), host, cluster));

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_NEXT_STEPS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_NEXT_STEPS_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/step.pb.h"
#include "assisted/types/v1/validation.pb.h"
#include "lib/random/random.h"

namespace assisted::orchestrator::core {

enum class StepsKind {
  kDay1,     // a host of a cluster being installed
  kDay2,     // a host joining an installed cluster
  kUnbound,  // a host of an infra-env, no cluster
};

absl::string_view StepsKindName(StepsKind kind);

// The steps of one (kind, state) before conditions apply.
const std::vector<types::v1::StepType>& StepPlan(StepsKind kind, types::v1::HostStatus status);

// The states whose plan has steps, for the docs.
std::vector<types::v1::HostStatus> PlannedStates(StepsKind kind);

struct NextStepsInput {
  types::v1::HostStatus status = types::v1::HOST_STATUS_UNSPECIFIED;
  StepsKind kind = StepsKind::kDay1;
  // The agent runs another image than the service's (upgrades enabled): in pre-install states
  // every step is replaced by one upgrade-agent step.
  bool agent_outdated = false;
  // dhcp-lease-allocate runs only with vip_dhcp_allocation and a machine network.
  bool vip_dhcp_with_machine_network = false;
  // installation-disk-speed-check runs once, and never on a host booted from disk.
  bool disk_speed_measured = false;
  bool persistent_boot = false;
  // free-network-addresses is off in kube-api mode.
  bool kube_api_mode = false;
  // logs-gather runs once.
  bool logs_gathered = false;
  // tang-connectivity-check runs only when disk encryption uses Tang.
  bool tang_configured = false;
  // The caller's throttle for connectivity-check (large clusters admit a bounded number of
  // checks per minute); false drops the step this time.
  bool connectivity_admitted = true;
  // DISABLED_STEPS.
  absl::flat_hash_set<types::v1::StepType> disabled;
};

struct NextSteps {
  std::vector<types::v1::Step> steps;  // step_id and step_type set; args for the caller
};

NextSteps SelectNextSteps(const NextStepsInput& input, Random& random);

// "<type>-<8 lowercase hex>", e.g. "inventory-1a2b3c4d".
std::string NewStepId(types::v1::StepType type, Random& random);

// The steps whose results the failing host validations in `validations` were judged on, in
// step-type order, each once. Re-running them is how a transient failure heals (a registry or
// NTP server briefly down, a peer rebooting during the connectivity check): the agent keeps the
// result of work it did, so without a re-run the host would stay insufficient. Failures no step
// can change (hardware sizes, user input) name no step, and neither do informative validations
// (they block nothing, and re-running them would cost a write per host for no gain).
std::vector<types::v1::StepType> StepsToRecheck(
    const google::protobuf::RepeatedPtrField<types::v1::ValidationResult>& validations);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_NEXT_STEPS_H_
