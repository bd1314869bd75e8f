#include "services/orchestrator/core/next_steps.h"

#include <regex>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/orchestrator/core/host_state_machine.h"

namespace assisted::orchestrator::core {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using namespace host_status;  // NOLINT
using namespace types::v1;    // NOLINT

std::vector<StepType> Types(const NextSteps& n) {
  std::vector<StepType> out;
  for (const Step& s : n.steps) out.push_back(s.step_type());
  return out;
}

// Everything allowed: the plan comes through unfiltered.
NextStepsInput Open(HostStatus status, StepsKind kind) {
  NextStepsInput in;
  in.status = status;
  in.kind = kind;
  in.vip_dhcp_with_machine_network = true;
  in.tang_configured = true;
  return in;
}

NextSteps Select(const NextStepsInput& in) {
  SeededRandom random(1);
  return SelectNextSteps(in, random);
}

TEST(NextSteps, Day1KnownHostRunsTheDiscoveryChecks) {
  NextSteps n = Select(Open(kKnown, StepsKind::kDay1));
  EXPECT_THAT(Types(n),
              ElementsAre(STEP_TYPE_INVENTORY, STEP_TYPE_CONNECTIVITY_CHECK,
                          STEP_TYPE_TANG_CONNECTIVITY_CHECK, STEP_TYPE_FREE_NETWORK_ADDRESSES,
                          STEP_TYPE_DHCP_LEASE_ALLOCATE, STEP_TYPE_NTP_SYNCHRONIZER,
                          STEP_TYPE_DOMAIN_RESOLUTION, STEP_TYPE_VERIFY_VIPS));
  EXPECT_EQ(Types(Select(Open(kInsufficient, StepsKind::kDay1))), Types(n));
  EXPECT_EQ(Types(Select(Open(kPendingForInput, StepsKind::kDay1))), Types(n));
}

TEST(NextSteps, Day1InstallFlow) {
  EXPECT_THAT(Types(Select(Open(kDiscovering, StepsKind::kDay1))),
              ElementsAre(STEP_TYPE_INVENTORY));
  EXPECT_THAT(Types(Select(Open(kPreparing, StepsKind::kDay1))),
              ElementsAre(STEP_TYPE_DHCP_LEASE_ALLOCATE, STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK,
                          STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY));
  EXPECT_THAT(Types(Select(Open(kInstalling, StepsKind::kDay1))),
              ElementsAre(STEP_TYPE_INSTALL, STEP_TYPE_DHCP_LEASE_ALLOCATE));
  EXPECT_THAT(Types(Select(Open(kInProgress, StepsKind::kDay1))),
              ElementsAre(STEP_TYPE_DHCP_LEASE_ALLOCATE));
  NextSteps failed = Select(Open(kError, StepsKind::kDay1));
  EXPECT_THAT(Types(failed), ElementsAre(STEP_TYPE_LOGS_GATHER, STEP_TYPE_STOP_INSTALLATION));
}

TEST(NextSteps, Day2AddsApiVipCheckAndDropsVipWork) {
  EXPECT_THAT(Types(Select(Open(kKnown, StepsKind::kDay2))),
              ElementsAre(STEP_TYPE_INVENTORY, STEP_TYPE_CONNECTIVITY_CHECK,
                          STEP_TYPE_API_VIP_CONNECTIVITY_CHECK, STEP_TYPE_TANG_CONNECTIVITY_CHECK,
                          STEP_TYPE_NTP_SYNCHRONIZER, STEP_TYPE_DOMAIN_RESOLUTION));
  EXPECT_THAT(Types(Select(Open(kInstalling, StepsKind::kDay2))), ElementsAre(STEP_TYPE_INSTALL));
  EXPECT_THAT(Types(Select(Open(kInProgress, StepsKind::kDay2))), IsEmpty());
}

TEST(NextSteps, UnboundAndReclaim) {
  EXPECT_THAT(Types(Select(Open(kKnownUnbound, StepsKind::kUnbound))),
              ElementsAre(STEP_TYPE_INVENTORY, STEP_TYPE_NTP_SYNCHRONIZER));
  EXPECT_THAT(Types(Select(Open(kReclaiming, StepsKind::kUnbound))),
              ElementsAre(STEP_TYPE_DOWNLOAD_BOOT_ARTIFACTS));
  NextSteps reboot = Select(Open(kReclaimingRebooting, StepsKind::kUnbound));
  EXPECT_THAT(Types(reboot), ElementsAre(STEP_TYPE_REBOOT_FOR_RECLAIM));
}

TEST(NextSteps, BindingHostsGetNoSteps) {
  for (HostStatus s : {kBinding, kUnbinding, kUnbindingPua}) {
    NextSteps n = Select(Open(s, StepsKind::kDay1));
    EXPECT_THAT(n.steps, IsEmpty());
  }
}

TEST(NextSteps, OutdatedAgentOnlyUpgradesBeforeInstallation) {
  NextStepsInput in = Open(kKnown, StepsKind::kDay1);
  in.agent_outdated = true;
  EXPECT_THAT(Types(Select(in)), ElementsAre(STEP_TYPE_UPGRADE_AGENT));
  in.status = kInstalling;
  EXPECT_THAT(Types(Select(in)), ElementsAre(STEP_TYPE_INSTALL, STEP_TYPE_DHCP_LEASE_ALLOCATE));
}

TEST(NextSteps, ConditionsDropSteps) {
  NextStepsInput in = Open(kKnown, StepsKind::kDay1);
  in.vip_dhcp_with_machine_network = false;
  in.tang_configured = false;
  in.kube_api_mode = true;
  in.connectivity_admitted = false;
  in.disabled = {STEP_TYPE_VERIFY_VIPS};
  EXPECT_THAT(Types(Select(in)), ElementsAre(STEP_TYPE_INVENTORY, STEP_TYPE_NTP_SYNCHRONIZER,
                                             STEP_TYPE_DOMAIN_RESOLUTION));
  NextStepsInput prep = Open(kPreparing, StepsKind::kDay1);
  prep.disk_speed_measured = true;
  EXPECT_THAT(Types(Select(prep)),
              ElementsAre(STEP_TYPE_DHCP_LEASE_ALLOCATE, STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY));
  prep.disk_speed_measured = false;
  prep.persistent_boot = true;
  EXPECT_THAT(Types(Select(prep)),
              ElementsAre(STEP_TYPE_DHCP_LEASE_ALLOCATE, STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY));
  NextStepsInput failed = Open(kCancelled, StepsKind::kDay1);
  failed.logs_gathered = true;
  EXPECT_THAT(Types(Select(failed)), ElementsAre(STEP_TYPE_STOP_INSTALLATION));
}

TEST(NextSteps, StepIdsAreTypeDashEightHexAndComeFromTheRandomSource) {
  SeededRandom a(42), b(42);
  std::string id = NewStepId(STEP_TYPE_CONNECTIVITY_CHECK, a);
  EXPECT_TRUE(std::regex_match(id, std::regex("connectivity-check-[0-9a-f]{8}"))) << id;
  EXPECT_EQ(id, NewStepId(STEP_TYPE_CONNECTIVITY_CHECK, b));
  NextSteps n = Select(Open(kKnown, StepsKind::kDay1));
  for (const Step& s : n.steps) {
    EXPECT_TRUE(std::regex_match(s.step_id(), std::regex("[a-z-]+-[0-9a-f]{8}"))) << s.step_id();
  }
}

TEST(NextSteps, FailingValidationsNameTheStepsTheirResultsCameFrom) {
  google::protobuf::RepeatedPtrField<ValidationResult> validations;
  auto add = [&](const char* id, ValidationStatus status) {
    ValidationResult& v = *validations.Add();
    v.set_id(id);
    v.set_status(status);
  };
  add("has-min-memory", VALIDATION_STATUS_FAILURE);  // hardware: no step changes it
  add("ntp-synced", VALIDATION_STATUS_SUCCESS);      // passing: nothing to re-run
  add("api-domain-name-resolved-correctly", VALIDATION_STATUS_FAILURE);
  add("apps-domain-name-resolved-correctly", VALIDATION_STATUS_FAILURE);  // the same step once
  add("belongs-to-majority-group", VALIDATION_STATUS_ERROR);
  add("container-images-available", VALIDATION_STATUS_PENDING);  // not measured yet
  EXPECT_THAT(StepsToRecheck(validations),
              ElementsAre(STEP_TYPE_CONNECTIVITY_CHECK, STEP_TYPE_DOMAIN_RESOLUTION));
  validations.Clear();
  add("container-images-available", VALIDATION_STATUS_FAILURE);
  add("time-synced-between-host-and-service", VALIDATION_STATUS_FAILURE);
  add("release-domain-name-resolved-correctly", VALIDATION_STATUS_FAILURE);  // informative
  EXPECT_THAT(StepsToRecheck(validations),
              ElementsAre(STEP_TYPE_NTP_SYNCHRONIZER, STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY));
  EXPECT_THAT(StepsToRecheck({}), IsEmpty());
}

TEST(NextSteps, PlannedStatesListTheStatesWithSteps) {
  std::vector<HostStatus> day1 = PlannedStates(StepsKind::kDay1);
  EXPECT_NE(std::find(day1.begin(), day1.end(), kKnown), day1.end());
  EXPECT_EQ(std::find(day1.begin(), day1.end(), kBinding), day1.end());  // no steps
  EXPECT_EQ(std::find(day1.begin(), day1.end(), kInstalled), day1.end());
}

}  // namespace
}  // namespace assisted::orchestrator::core
