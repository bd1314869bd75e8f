// The host state machine, as a table of cases: event, state, facts -> expected state. The last
// check of the table test fails when a row of the machine was never exercised, naming it.

#include "services/orchestrator/core/host_state_machine.h"

#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/testing_fixtures.h"
#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator::core {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using types::v1::HostStatus;
using Ev = HostEvent;
using V = ValidationResults;

using namespace host_status;  // NOLINT

constexpr auto kFailure = types::v1::VALIDATION_STATUS_FAILURE;
constexpr auto kPending = types::v1::VALIDATION_STATUS_PENDING;

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

// The facts of a healthy, connected, bound day-1 master with every validation passing, in a
// cluster that is still being defined.
struct Fixture {
  HostTimeouts timeouts;
  V validations = testing::PassingHostValidations();
  HostContext ctx;

  Fixture() {
    ctx.now = kNow;
    ctx.timeouts = &timeouts;
    ctx.role = types::v1::HOST_ROLE_MASTER;
    ctx.status_updated_at = kNow;
    ctx.stage_updated_at = kNow;
    ctx.checked_in_at = kNow;
    ctx.cluster_status = types::v1::CLUSTER_STATUS_INSUFFICIENT;
    ctx.installation_disk = "/dev/sda";
  }
  // Re-points ctx.validations (the fixture may have been copied).
  const HostContext& Context() {
    ctx.validations = &validations;
    return ctx;
  }
};

using Setup = std::function<void(HostContext&, V&)>;

struct Case {
  std::string name;
  Ev event;
  HostStatus from;
  Setup setup;
  HostStatus to;
  std::string info = "";  // substring of status_info, when given
  bool rejected = false;  // no row matches
};

void Nothing(HostContext&, V&) {}
void Silent(HostContext& c, V&) { c.checked_in_at = kNow - absl::Minutes(4); }
void MediaGone(HostContext& c, V&) { c.media_disconnected = true; }
void Day2(HostContext& c, V&) { c.day2 = true; }
void Unbound(HostContext& c, V&) { c.bound = false; }
void AtStage(HostContext& c, types::v1::HostStage stage) { c.stage = stage; }
void Fail(V& v, absl::string_view id) { testing::SetStatus(&v, id, kFailure); }
void Pend(V& v, absl::string_view id) { testing::SetStatus(&v, id, kPending); }
void Cluster(HostContext& c, types::v1::ClusterStatus s) { c.cluster_status = s; }
void StatusAge(HostContext& c, absl::Duration d) { c.status_updated_at = kNow - d; }
void StageAge(HostContext& c, absl::Duration d) { c.stage_updated_at = kNow - d; }

std::vector<Case> Cases() {
  using namespace types::v1;  // NOLINT: cases read better unqualified
  return {
      // ---- register ----
      // The inventory creates a host in its first status; registration only meets stored hosts.
      {"no register row for a host that does not exist", Ev::kRegister, kNew, Nothing, kNew, "",
       true},
      {"known host registers again", Ev::kRegister, kKnown, Nothing, kDiscovering},
      {"agent restarted while preparing", Ev::kRegister, kPreparingSuccessful, Nothing, kKnown},
      {"day-1 host booted the ISO after Rebooting", Ev::kRegister, kInProgress,
       [](HostContext& c, V&) { AtStage(c, HOST_STAGE_REBOOTING); }, kInstallingPua,
       "fix boot order to boot from disk /dev/sda"},
      {"day-2 host booted the ISO after Done", Ev::kRegister, kAdded,
       [](HostContext& c, V&) {
         c.day2 = true;
         AtStage(c, HOST_STAGE_DONE);
       },
       kInstallingPua},
      {"host restarted mid-install", Ev::kRegister, kInstalling, Nothing, kError,
       "unexpectedly restarted"},
      {"failed host registers", Ev::kRegister, kError, Nothing, kError},
      {"installed host registers", Ev::kRegister, kInstalled, Nothing, kInstalled},
      {"pool host registers", Ev::kRegister, kKnownUnbound, Unbound, kDiscoveringUnbound},
      {"unbound host rebooted into discovery as asked", Ev::kRegister, kUnbindingPua, Unbound,
       kDiscoveringUnbound},
      {"cancelled host may not register", Ev::kRegister, kCancelled, Nothing, kCancelled, "", true},
      {"pending-user-action host at another stage may not register", Ev::kRegister, kInstallingPua,
       [](HostContext& c, V&) { AtStage(c, HOST_STAGE_CONFIGURING); }, kInstallingPua, "", true},

      // ---- progress ----
      {"installer reports Failed", Ev::kProgress, kInProgress,
       [](HostContext& c, V&) {
         c.reported_stage = HOST_STAGE_FAILED;
         c.reason = "disk write error";
       },
       kError, "Installation failed: disk write error"},
      {"day-2 host reaches Done", Ev::kProgress, kInProgress,
       [](HostContext& c, V&) {
         c.day2 = true;
         c.reported_stage = HOST_STAGE_DONE;
       },
       kAdded},
      {"day-1 host reaches Done", Ev::kProgress, kInProgress,
       [](HostContext& c, V&) { c.reported_stage = HOST_STAGE_DONE; }, kInstalled},
      {"first stage reported", Ev::kProgress, kInstalling,
       [](HostContext& c, V&) { c.reported_stage = HOST_STAGE_STARTING_INSTALLATION; },
       kInProgress},
      {"user fixed the boot order", Ev::kProgress, kInstallingPua,
       [](HostContext& c, V&) { c.reported_stage = HOST_STAGE_CONFIGURING; }, kInProgress},
      {"late progress on installed host", Ev::kProgress, kInstalled,
       [](HostContext& c, V&) { c.reported_stage = HOST_STAGE_JOINED; }, kInstalled},
      {"progress on known host is refused", Ev::kProgress, kKnown, Nothing, kKnown, "", true},

      // ---- user and cluster actions ----
      {"cancel while installing", Ev::kCancel, kInProgress, Nothing, kCancelled},
      {"cancel while preparing", Ev::kCancel, kPreparing, Nothing, kKnown},
      {"cancel a known host", Ev::kCancel, kKnown, Nothing, kKnown},
      {"install a day-2 host", Ev::kInstall, kKnown, Day2, kInstalling},
      {"install a day-1 host directly is refused", Ev::kInstall, kKnown, Nothing, kKnown, "", true},
      {"reset an installed host", Ev::kReset, kInstalled, Nothing, kResettingPua,
       "booting into the discovery image"},

      // ---- refresh: preparation ----
      {"cluster starts preparing", Ev::kRefresh, kKnown,
       [](HostContext& c, V&) { Cluster(c, CLUSTER_STATUS_PREPARING_FOR_INSTALLATION); },
       kPreparing},
      {"auto-assign host does not prepare", Ev::kRefresh, kKnown,
       [](HostContext& c, V&) {
         Cluster(c, CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);
         c.role = HOST_ROLE_AUTO_ASSIGN;
       },
       kKnown},
      {"both checks passed", Ev::kRefresh, kPreparing,
       [](HostContext& c, V&) { Cluster(c, CLUSTER_STATUS_PREPARING_FOR_INSTALLATION); },
       kPreparingSuccessful},
      {"prepared host waits for the cluster", Ev::kRefresh, kPreparingSuccessful,
       [](HostContext& c, V&) { Cluster(c, CLUSTER_STATUS_PREPARING_FOR_INSTALLATION); },
       kPreparingSuccessful},
      {"cluster installs", Ev::kRefresh, kPreparingSuccessful,
       [](HostContext& c, V&) { Cluster(c, CLUSTER_STATUS_INSTALLING); }, kInstalling},
      {"cluster stopped preparing", Ev::kRefresh, kPreparing,
       [](HostContext& c, V&) { Cluster(c, CLUSTER_STATUS_READY); }, kKnown},
      {"slow installation disk", Ev::kRefresh, kPreparing,
       [](HostContext& c, V& v) {
         Cluster(c, CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);
         testing::SetStatus(&v, host_id::kSufficientInstallationDiskSpeed, kFailure,
                            "Disk speed 25 ms exceeds 10 ms");
       },
       kInsufficient, "Disk speed 25 ms exceeds 10 ms"},
      {"checks never reported", Ev::kRefresh, kPreparing,
       [](HostContext& c, V& v) {
         Cluster(c, CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);
         StatusAge(c, absl::Minutes(18));
         Pend(v, host_id::kContainerImagesAvailable);
       },
       kPreparingFailed, "17 minutes"},
      {"image pull failed", Ev::kRefresh, kPreparing,
       [](HostContext& c, V& v) {
         Cluster(c, CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);
         testing::SetStatus(&v, host_id::kContainerImagesAvailable, kFailure,
                            "Failed to pull quay.io/x");
       },
       kPreparingFailed, "Failed to pull quay.io/x"},
      {"checks still running", Ev::kRefresh, kPreparing,
       [](HostContext& c, V& v) {
         Cluster(c, CLUSTER_STATUS_PREPARING_FOR_INSTALLATION);
         Pend(v, host_id::kSufficientInstallationDiskSpeed);
       },
       kPreparing},
      {"failed preparation ends", Ev::kRefresh, kPreparingFailed,
       [](HostContext& c, V&) { Cluster(c, CLUSTER_STATUS_READY); }, kKnown},
      {"prepared host, cluster gave up", Ev::kRefresh, kPreparingSuccessful,
       [](HostContext& c, V&) { Cluster(c, CLUSTER_STATUS_READY); }, kKnown},
      {"failed preparation while cluster still preparing", Ev::kRefresh, kPreparingFailed,
       [](HostContext& c, V&) { Cluster(c, CLUSTER_STATUS_PREPARING_FOR_INSTALLATION); },
       kPreparingFailed},
      {"known host goes silent", Ev::kRefresh, kKnown, Silent, kDisconnected},
      {"known host loses its media", Ev::kRefresh, kKnown, MediaGone, kDisconnected},
      {"preparing host goes silent", Ev::kRefresh, kPreparing, Silent, kDisconnected,
       "while preparing"},

      // ---- refresh: installation ----
      {"cluster failed", Ev::kRefresh, kInProgress,
       [](HostContext& c, V&) { Cluster(c, CLUSTER_STATUS_ERROR); }, kError, "cluster that failed"},
      {"install never started", Ev::kRefresh, kInstalling,
       [](HostContext& c, V&) { StatusAge(c, absl::Minutes(21)); }, kError,
       "timeout while starting installation"},
      {"agent lost during install (hard)", Ev::kRefresh, kInProgress,
       [](HostContext& c, V& v) {
         Silent(c, v);
         AtStage(c, HOST_STAGE_INSTALLING);
       },
       kError, "timeout while connecting"},
      {"agent lost during install (soft)", Ev::kRefresh, kInProgress,
       [](HostContext& c, V&) {
         c.checked_in_at = kNow - absl::Minutes(10);
         c.soft_timeouts = true;
       },
       kInProgress, "continues"},
      {"agent back during install (soft)", Ev::kRefresh, kInstalling,
       [](HostContext& c, V&) {
         c.soft_timeouts = true;
         c.connection_timed_out = true;
       },
       kInstalling},
      {"waiting stage while cluster waits on the user", Ev::kRefresh, kInProgress,
       [](HostContext& c, V&) {
         AtStage(c, HOST_STAGE_WAITING_FOR_CONTROL_PLANE);
         StageAge(c, absl::Hours(3));
         Cluster(c, CLUSTER_STATUS_INSTALLING_PENDING_USER_ACTION);
       },
       kInProgress},
      {"stage timed out (hard)", Ev::kRefresh, kInProgress,
       [](HostContext& c, V&) {
         AtStage(c, HOST_STAGE_CONFIGURING);
         StageAge(c, absl::Minutes(61));
       },
       kError, "stage Configuring took longer than expected 60 minutes"},
      {"stage timed out (soft)", Ev::kRefresh, kInProgress,
       [](HostContext& c, V&) {
         AtStage(c, HOST_STAGE_CONFIGURING);
         StageAge(c, absl::Minutes(61));
         c.soft_timeouts = true;
       },
       kInProgress, "taking longer than expected"},
      {"rebooting took too long", Ev::kRefresh, kInProgress,
       [](HostContext& c, V&) {
         AtStage(c, HOST_STAGE_REBOOTING);
         StageAge(c, absl::Minutes(41));
       },
       kInstallingPua, "verify that it boots from the OpenShift installation disk /dev/sda"},
      {"pending user action timed out, cluster fine without host", Ev::kRefresh, kInstallingPua,
       [](HostContext& c, V&) {
         StatusAge(c, absl::Minutes(61));
         c.cluster_succeeds_without_host = true;
         Cluster(c, CLUSTER_STATUS_INSTALLING_PENDING_USER_ACTION);
       },
       kError, "within 60 minutes"},
      {"installing normally", Ev::kRefresh, kInProgress,
       [](HostContext& c, V&) { AtStage(c, HOST_STAGE_INSTALLING); }, kInProgress},

      // ---- refresh: discovery ----
      {"no inventory yet", Ev::kRefresh, kDisconnected,
       [](HostContext&, V& v) { Pend(v, host_id::kHasInventory); }, kDiscovering},
      {"fully truncated inventory", Ev::kRefresh, kDiscovering,
       [](HostContext&, V& v) { Fail(v, host_id::kInventoryNotFullyTruncated); }, kDiscovering},
      {"too few cores", Ev::kRefresh, kKnown,
       [](HostContext&, V& v) {
         testing::SetStatus(&v, host_id::kHasMinCpuCores, kFailure,
                            "The host has 2 CPU cores, 4 are required");
       },
       kInsufficient, "minimum hardware requirements: The host has 2 CPU cores, 4 are required"},
      {"machine CIDR not set", Ev::kRefresh, kDiscovering,
       [](HostContext&, V& v) {
         testing::SetStatus(&v, host_id::kMachineCidrDefined, kPending,
                            "Machine network CIDR is undefined");
       },
       kPendingForInput, "Waiting for user input: Machine network CIDR is undefined"},
      {"hostname clash", Ev::kRefresh, kKnown,
       [](HostContext&, V& v) {
         testing::SetStatus(&v, host_id::kHostnameUnique, kFailure,
                            "Hostname node1 is not unique in cluster");
       },
       kInsufficient, "failing validation(s): Hostname node1 is not unique"},
      {"everything passes", Ev::kRefresh, kInsufficient, Nothing, kKnown, "ready to be installed"},

      // ---- refresh: pool ----
      {"pool host goes silent", Ev::kRefresh, kKnownUnbound,
       [](HostContext& c, V& v) {
         Unbound(c, v);
         Silent(c, v);
       },
       kDisconnectedUnbound},
      {"pool host without inventory", Ev::kRefresh, kDisconnectedUnbound,
       [](HostContext& c, V& v) {
         Unbound(c, v);
         Pend(v, host_id::kHasInventory);
       },
       kDiscoveringUnbound},
      {"pool host with a bad hostname", Ev::kRefresh, kKnownUnbound,
       [](HostContext& c, V& v) {
         Unbound(c, v);
         testing::SetStatus(&v, host_id::kHostnameValid, kFailure,
                            "Hostname localhost is forbidden");
       },
       kInsufficientUnbound, "localhost is forbidden"},
      {"pool host ready", Ev::kRefresh, kDiscoveringUnbound, Unbound, kKnownUnbound},

      // ---- late binding ----
      {"pool host is bound", Ev::kBind, kKnownUnbound, Unbound, kBinding, "being bound"},
      {"silent pool host is bound", Ev::kBind, kDisconnectedUnbound, Unbound, kBinding},
      {"insufficient pool host may not be bound", Ev::kBind, kInsufficientUnbound, Unbound,
       kInsufficientUnbound, "", true},
      {"bound host may not be bound again", Ev::kBind, kKnown, Nothing, kKnown, "", true},
      {"binding host is judged in its cluster", Ev::kRefresh, kBinding, Nothing, kKnown,
       "ready to be installed"},
      {"binding host without inventory is discovering", Ev::kRefresh, kBinding,
       [](HostContext&, V& v) { Pend(v, host_id::kHasInventory); }, kDiscovering},
      {"known host is unbound", Ev::kUnbind, kKnown, Nothing, kUnbinding, "being unbound"},
      {"installed host is unbound: reboot needed", Ev::kUnbind, kInstalled, Nothing, kUnbindingPua,
       "reboot it into the discovery image"},
      {"pool host may not be unbound", Ev::kUnbind, kKnownUnbound, Unbound, kKnownUnbound, "",
       true},
      {"unbinding host is judged in the pool", Ev::kRefresh, kUnbinding, Unbound, kKnownUnbound,
       "ready to be bound"},
      {"unbound host pending user action waits", Ev::kRefresh, kUnbindingPua, Unbound,
       kUnbindingPua},

      // ---- refresh: nothing to do ----
      {"log collection timed out", Ev::kRefresh, kError,
       [](HostContext& c, V&) {
         c.logs_info = LOGS_STATE_REQUESTED;
         c.logs_started_at = kNow - absl::Minutes(3);
       },
       kError},
      {"cancelled host stays", Ev::kRefresh, kCancelled, Nothing, kCancelled},
      {"legacy disabled host stays", Ev::kRefresh, kDisabled, Nothing, kDisabled},
      {"legacy disabled pool host stays", Ev::kRefresh, kDisabledUnbound, Nothing,
       kDisabledUnbound},
      {"refresh of a host that does not exist", Ev::kRefresh, kNew, Nothing, kNew, "", true},
  };
}

TEST(HostStateMachine, EveryCaseAndEveryRow) {
  const HostMachine& machine = HostStateMachine();
  testing::RowCoverage<HostMachine> coverage(machine);
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    Fixture f;
    c.setup(f.ctx, f.validations);
    absl::StatusOr<HostDecision> d = machine.Fire(c.event, c.from, f.Context());
    if (c.rejected) {
      EXPECT_THAT(d, StatusIs(absl::StatusCode::kFailedPrecondition));
      continue;
    }
    ASSERT_THAT(d, IsOk());
    coverage.Record(d->row);
    EXPECT_EQ(HostStatusName(d->to), HostStatusName(c.to)) << machine.rows()[d->row].doc;
    if (!c.info.empty()) {
      EXPECT_THAT(d->status_info, HasSubstr(c.info));
    }
  }
  // Rows no case above exercised: add a case for each.
  EXPECT_THAT(coverage.Unexercised(), ::testing::IsEmpty());
}

TEST(HostStateMachine, BootstrapHostGetsTwoMoreMinutesBeforeDisconnection) {
  Fixture f;
  f.ctx.checked_in_at = kNow - absl::Minutes(4);
  EXPECT_FALSE(HostConnected(f.Context()));
  f.ctx.bootstrap = true;
  EXPECT_TRUE(HostConnected(f.Context()));
  f.ctx.checked_in_at = kNow - absl::Minutes(5) - absl::Seconds(1);
  EXPECT_FALSE(HostConnected(f.Context()));
}

TEST(HostStateMachine, SilenceAfterRebootingIsExpected) {
  Fixture f;
  f.ctx.checked_in_at = kNow - absl::Hours(2);
  f.ctx.stage = types::v1::HOST_STAGE_REBOOTING;
  EXPECT_TRUE(HostConnected(f.Context()));
  absl::StatusOr<HostDecision> d = HostStateMachine().Fire(Ev::kRefresh, kInProgress, f.Context());
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, kInProgress);
}

TEST(HostStateMachine, SingleNodeRebootingGetsEightyMinutes) {
  Fixture f;
  f.ctx.sno = true;
  f.ctx.stage = types::v1::HOST_STAGE_REBOOTING;
  f.ctx.stage_updated_at = kNow - absl::Minutes(60);
  absl::StatusOr<HostDecision> d = HostStateMachine().Fire(Ev::kRefresh, kInProgress, f.Context());
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, kInProgress);
  f.ctx.stage_updated_at = kNow - absl::Minutes(81);
  d = HostStateMachine().Fire(Ev::kRefresh, kInProgress, f.Context());
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, kInstallingPua);
}

TEST(HostStateMachine, KnownHostGoesInsufficientWhenDiskShrinks) {
  Fixture f;
  testing::SetStatus(&f.validations, host_id::kHasMinValidDisks, kFailure,
                     "No eligible disks were found, please check specific disks to see why");
  absl::StatusOr<HostDecision> d = HostStateMachine().Fire(Ev::kRefresh, kKnown, f.Context());
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, kInsufficient);
  EXPECT_THAT(d->status_info, HasSubstr("No eligible disks"));
}

TEST(HostStateMachine, IgnoredValidationDoesNotBlock) {
  Fixture f;
  testing::SetStatus(&f.validations, host_id::kBelongsToMajorityGroup, kFailure, "no majority");
  f.validations.Ignore({std::string(host_id::kBelongsToMajorityGroup)});
  absl::StatusOr<HostDecision> d =
      HostStateMachine().Fire(Ev::kRefresh, kInsufficient, f.Context());
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, kKnown);
}

TEST(HostStateMachine, InformativeValidationsNeverBlock) {
  Fixture f;
  for (absl::string_view id : HostValidationGates().informative) {
    testing::SetStatus(&f.validations, id, kFailure);
  }
  absl::StatusOr<HostDecision> d =
      HostStateMachine().Fire(Ev::kRefresh, kInsufficient, f.Context());
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, kKnown);
}

TEST(HostStateMachine, UnmeasuredDiskSpeedAndImagesDoNotBlockKnown) {
  Fixture f;
  Pend(f.validations, host_id::kSufficientInstallationDiskSpeed);
  Pend(f.validations, host_id::kContainerImagesAvailable);
  absl::StatusOr<HostDecision> d = HostStateMachine().Fire(Ev::kRefresh, kDiscovering, f.Context());
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, kKnown);
}

TEST(HostStateMachine, RefreshDecidesForEveryExistingState) {
  // The monitor must never be told "not allowed": every state has a refresh row that matches
  // whatever the facts are, here the worst ones.
  for (HostStatus s : HostStateMachine().states()) {
    if (s == kNew) continue;
    for (bool silent : {false, true}) {
      Fixture f;
      if (silent) f.ctx.checked_in_at = kNow - absl::Hours(1);
      f.validations = V();  // nothing evaluated
      EXPECT_THAT(HostStateMachine().Fire(Ev::kRefresh, s, f.Context()), IsOk())
          << HostStatusName(s) << (silent ? " silent" : "");
    }
  }
}

TEST(HostStateMachine, AnInstalledHostsNewAgentChangesNothing) {
  // No production code would carry out an effect here (the agent is answered Registered like
  // any other), so the row decides none.
  Fixture f;
  absl::StatusOr<HostDecision> d = HostStateMachine().Fire(Ev::kRegister, kInstalled, f.Context());
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, kInstalled);
  EXPECT_THAT(d->effects, ::testing::IsEmpty());
}

TEST(HostStateMachine, HasTwentyEightStatesAndEightEvents) {
  // 28 states plus the pseudo-state "no host yet"; only the events the product fires.
  EXPECT_EQ(HostStateMachine().states().size(), 29u);
  EXPECT_EQ(HostStateMachine().events().size(), 8u);
}

// ---- effects as fields -------------------------------------------------------------------

HostDecision DecisionWith(std::vector<HostEffect> effects) {
  HostDecision d{kKnown, kPreparing};
  d.effects = std::move(effects);
  return d;
}

TEST(HostEffectFields, PreparingAgainForgetsTheLastPreparationsChecks) {
  types::v1::Host host = testing::HealthyHost(1);
  *host.mutable_images_status_report() = testing::PulledImagesStatus();
  *host.mutable_disks_info_report() = testing::FastDisksInfo();
  const HostFieldsUpdate update =
      HostEffectFields(host, DecisionWith({HostEffect::kResetInstallationPreparation}), kNow);
  EXPECT_THAT(update.paths,
              ::testing::UnorderedElementsAre("images_status_report", "disks_info_report"));
  types::v1::Host written = host;
  update.ApplyTo(written);
  EXPECT_FALSE(written.has_images_status_report());
  EXPECT_FALSE(written.has_disks_info_report());
  EXPECT_EQ(written.inventory().hostname(), host.inventory().hostname());
}

TEST(HostEffectFields, StageEffectsEditTheStoredProgressTogether) {
  types::v1::Host host = testing::HealthyHost(1);
  host.mutable_progress()->set_current_stage(types::v1::HOST_STAGE_WAITING_FOR_CONTROL_PLANE);
  host.mutable_progress()->set_installation_percentage(40);
  const HostFieldsUpdate update = HostEffectFields(
      host, DecisionWith({HostEffect::kSetStageTimedOut, HostEffect::kRefreshStageUpdatedAt}),
      kNow);
  EXPECT_THAT(update.paths, ::testing::ElementsAre("progress"));
  EXPECT_EQ(update.fields.progress().current_stage(),
            types::v1::HOST_STAGE_WAITING_FOR_CONTROL_PLANE);
  EXPECT_EQ(update.fields.progress().installation_percentage(), 40);
  EXPECT_TRUE(update.fields.progress().stage_timed_out());
  EXPECT_EQ(update.fields.progress().stage_updated_at().seconds(), absl::ToUnixSeconds(kNow));
}

TEST(HostEffectFields, ProgressRecordedOffTheRecordWritesNothing) {
  EXPECT_TRUE(
      HostEffectFields(testing::HealthyHost(1), DecisionWith({HostEffect::kRecordProgress}), kNow)
          .empty());
}

TEST(HostEffectFields, UnbindingReleasesTheHostFromItsCluster) {
  types::v1::Host host = testing::HealthyHost(1);
  host.set_cluster_id("c1");
  host.set_role(types::v1::HOST_ROLE_MASTER);
  host.set_bootstrap(true);
  types::v1::Host written = host;
  HostEffectFields(host, DecisionWith({HostEffect::kUnbindFromCluster}), kNow).ApplyTo(written);
  EXPECT_EQ(written.cluster_id(), "");
  EXPECT_EQ(written.role(), types::v1::HOST_ROLE_AUTO_ASSIGN);
  EXPECT_FALSE(written.bootstrap());
  EXPECT_EQ(written.inventory().hostname(), host.inventory().hostname());  // kept for the pool
}

}  // namespace
}  // namespace assisted::orchestrator::core
