// File: services/orchestrator/core/next_steps.cc

#include "services/orchestrator/core/next_steps.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "services/orchestrator/core/host_state_machine.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator::core {

namespace {

using types::v1::HostStatus;
using types::v1::StepType;
using namespace host_status;  // NOLINT: the plans read better unqualified
using namespace types::v1;    // NOLINT: ditto for step types

using Plan = std::map<HostStatus, std::vector<StepType>>;

const Plan& Day1() {
  static const Plan* const kPlan = [] {
    auto* plan = new Plan{
        {kKnown,
         {STEP_TYPE_INVENTORY, STEP_TYPE_CONNECTIVITY_CHECK, STEP_TYPE_TANG_CONNECTIVITY_CHECK,
          STEP_TYPE_FREE_NETWORK_ADDRESSES, STEP_TYPE_DHCP_LEASE_ALLOCATE,
          STEP_TYPE_NTP_SYNCHRONIZER, STEP_TYPE_DOMAIN_RESOLUTION, STEP_TYPE_VERIFY_VIPS}},
        {kDiscovering, {STEP_TYPE_INVENTORY}},
        {kDisconnected, {STEP_TYPE_INVENTORY}},
        {kPreparing,
         {STEP_TYPE_DHCP_LEASE_ALLOCATE, STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK,
          STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY}},
        {kInstalling, {STEP_TYPE_INSTALL, STEP_TYPE_DHCP_LEASE_ALLOCATE}},
        {kInProgress, {STEP_TYPE_DHCP_LEASE_ALLOCATE}},
        {kError, {STEP_TYPE_LOGS_GATHER, STEP_TYPE_STOP_INSTALLATION}},
        {kCancelled, {STEP_TYPE_LOGS_GATHER, STEP_TYPE_STOP_INSTALLATION}},
    };
    (*plan)[kInsufficient] = (*plan)[kKnown];
    (*plan)[kPendingForInput] = (*plan)[kKnown];
    return plan;
  }();
  return *kPlan;
}

const Plan& Day2() {
  static const Plan* const kPlan = [] {
    auto* plan = new Plan{
        {kKnown,
         {STEP_TYPE_INVENTORY, STEP_TYPE_CONNECTIVITY_CHECK, STEP_TYPE_API_VIP_CONNECTIVITY_CHECK,
          STEP_TYPE_TANG_CONNECTIVITY_CHECK, STEP_TYPE_NTP_SYNCHRONIZER,
          STEP_TYPE_DOMAIN_RESOLUTION}},
        {kDiscovering, {STEP_TYPE_INVENTORY}},
        {kDisconnected, {STEP_TYPE_INVENTORY}},
        {kPreparing,
         {STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK, STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY}},
        {kInstalling, {STEP_TYPE_INSTALL}},
        {kError, {STEP_TYPE_LOGS_GATHER, STEP_TYPE_STOP_INSTALLATION}},
        {kCancelled, {STEP_TYPE_LOGS_GATHER, STEP_TYPE_STOP_INSTALLATION}},
    };
    (*plan)[kInsufficient] = (*plan)[kKnown];
    (*plan)[kPendingForInput] = (*plan)[kKnown];
    return plan;
  }();
  return *kPlan;
}

const Plan& Unbound() {
  static const auto* const kPlan = new Plan{
      {kDiscoveringUnbound, {STEP_TYPE_INVENTORY, STEP_TYPE_NTP_SYNCHRONIZER}},
      {kInsufficientUnbound, {STEP_TYPE_INVENTORY, STEP_TYPE_NTP_SYNCHRONIZER}},
      {kKnownUnbound, {STEP_TYPE_INVENTORY, STEP_TYPE_NTP_SYNCHRONIZER}},
      {kDisconnectedUnbound, {STEP_TYPE_INVENTORY}},
      {kReclaiming, {STEP_TYPE_DOWNLOAD_BOOT_ARTIFACTS}},
      {kReclaimingRebooting, {STEP_TYPE_REBOOT_FOR_RECLAIM}},
  };
  return *kPlan;
}

const Plan& PlanOf(StepsKind kind) {
  switch (kind) {
    case StepsKind::kDay1:
      return Day1();
    case StepsKind::kDay2:
      return Day2();
    case StepsKind::kUnbound:
      return Unbound();
  }
  return Day1();
}

bool PreInstall(HostStatus s) {
  return s == kDiscovering || s == kKnown || s == kInsufficient || s == kPendingForInput ||
         s == kDisconnected || s == kDiscoveringUnbound || s == kKnownUnbound ||
         s == kInsufficientUnbound || s == kDisconnectedUnbound;
}

// Whether the conditions keep `type` this time.
bool Keep(StepType type, const NextStepsInput& in) {
  if (in.disabled.contains(type)) return false;
  switch (type) {
    case STEP_TYPE_DHCP_LEASE_ALLOCATE:
      return in.vip_dhcp_with_machine_network;
    case STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK:
      return !in.disk_speed_measured && !in.persistent_boot;
    case STEP_TYPE_FREE_NETWORK_ADDRESSES:
      return !in.kube_api_mode;
    case STEP_TYPE_LOGS_GATHER:
      return !in.logs_gathered;
    case STEP_TYPE_TANG_CONNECTIVITY_CHECK:
      return in.tang_configured;
    case STEP_TYPE_CONNECTIVITY_CHECK:
      return in.connectivity_admitted;
    default:
      return true;
  }
}

}  // namespace

absl::string_view StepsKindName(StepsKind kind) {
  switch (kind) {
    case StepsKind::kDay1:
      return "day-1";
    case StepsKind::kDay2:
      return "day-2";
    case StepsKind::kUnbound:
      return "unbound";
  }
  return "unknown";
}

const std::vector<StepType>& StepPlan(StepsKind kind, HostStatus status) {
  static const auto* const kNone = new std::vector<StepType>();
  const Plan& plan = PlanOf(kind);
  auto it = plan.find(status);
  return it == plan.end() ? *kNone : it->second;
}

std::vector<HostStatus> PlannedStates(StepsKind kind) {
  std::vector<HostStatus> out;
  for (HostStatus s : HostStateMachine().states()) {
    if (!StepPlan(kind, s).empty()) out.push_back(s);
  }
  return out;
}

std::string NewStepId(StepType type, Random& random) {
  char hex[9];
  std::snprintf(hex, sizeof(hex), "%08x", random.Next32());
  return absl::StrCat(StepTypeName(type), "-", hex);
}

std::vector<StepType> StepsToRecheck(
    const google::protobuf::RepeatedPtrField<types::v1::ValidationResult>& validations) {
  // Validation -> the step its failure can come from. A table, so adding a check is one line.
  static const auto* const kSource = new absl::flat_hash_map<absl::string_view, StepType>({
      {host_id::kNtpSynced, types::v1::STEP_TYPE_NTP_SYNCHRONIZER},
      {host_id::kTimeSyncedBetweenHostAndService, types::v1::STEP_TYPE_NTP_SYNCHRONIZER},
      {host_id::kContainerImagesAvailable, types::v1::STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY},
      {host_id::kSufficientInstallationDiskSpeed,
       types::v1::STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK},
      {host_id::kBelongsToMajorityGroup, types::v1::STEP_TYPE_CONNECTIVITY_CHECK},
      {host_id::kSufficientNetworkLatency, types::v1::STEP_TYPE_CONNECTIVITY_CHECK},
      {host_id::kSufficientPacketLoss, types::v1::STEP_TYPE_CONNECTIVITY_CHECK},
      {host_id::kApiDomainNameResolved, types::v1::STEP_TYPE_DOMAIN_RESOLUTION},
      {host_id::kApiIntDomainNameResolved, types::v1::STEP_TYPE_DOMAIN_RESOLUTION},
      {host_id::kAppsDomainNameResolved, types::v1::STEP_TYPE_DOMAIN_RESOLUTION},
      {host_id::kReleaseDomainNameResolved, types::v1::STEP_TYPE_DOMAIN_RESOLUTION},
      {host_id::kDnsWildcardNotConfigured, types::v1::STEP_TYPE_DOMAIN_RESOLUTION},
      {host_id::kIgnitionDownloadable, types::v1::STEP_TYPE_API_VIP_CONNECTIVITY_CHECK},
      {host_id::kHasDefaultRoute, types::v1::STEP_TYPE_INVENTORY},
      {host_id::kBelongsToMachineCidr, types::v1::STEP_TYPE_INVENTORY},
  });
  const std::vector<absl::string_view>& informative = HostValidationGates().informative;
  std::set<StepType> steps;
  for (const types::v1::ValidationResult& validation : validations) {
    if (validation.status() != types::v1::VALIDATION_STATUS_FAILURE &&
        validation.status() != types::v1::VALIDATION_STATUS_ERROR) {
      continue;
    }
    if (std::find(informative.begin(), informative.end(), validation.id()) != informative.end()) {
      continue;  // blocks nothing: not worth a write per host and re-run
    }
    if (auto it = kSource->find(validation.id()); it != kSource->end()) steps.insert(it->second);
  }
  return {steps.begin(), steps.end()};
}

NextSteps SelectNextSteps(const NextStepsInput& input, Random& random) {
  NextSteps out;
  std::vector<StepType> types;
  if (input.agent_outdated && PreInstall(input.status)) {
    types = {STEP_TYPE_UPGRADE_AGENT};
  } else {
    for (StepType t : StepPlan(input.kind, input.status)) {
      if (Keep(t, input)) types.push_back(t);
    }
  }
  for (StepType t : types) {
    types::v1::Step& step = out.steps.emplace_back();
    step.set_step_type(t);
    step.set_step_id(NewStepId(t, random));
  }
  return out;
}

}  // namespace assisted::orchestrator::core
