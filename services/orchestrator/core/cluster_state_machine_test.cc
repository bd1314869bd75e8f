// The cluster state machine, as a table of cases; the table test fails when a row of the
// machine was never exercised, naming it.

#include "services/orchestrator/core/cluster_state_machine.h"

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
using types::v1::ClusterStatus;
using types::v1::HostStatus;
using Ev = ClusterEvent;
using V = ValidationResults;

using namespace cluster_status;  // NOLINT

constexpr auto kMaster = types::v1::HOST_ROLE_MASTER;
constexpr auto kWorker = types::v1::HOST_ROLE_WORKER;
constexpr auto kFailure = types::v1::VALIDATION_STATUS_FAILURE;

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

// Three masters and two workers, all in `status`.
std::vector<HostRoleStatus> Hosts(HostStatus status) {
  return {{kMaster, status},
          {kMaster, status},
          {kMaster, status},
          {kWorker, status},
          {kWorker, status}};
}

struct Fixture {
  ClusterTimeouts timeouts;
  V validations = testing::PassingClusterValidations();
  ClusterContext ctx;

  Fixture() {
    ctx.now = kNow;
    ctx.timeouts = &timeouts;
    ctx.status_updated_at = kNow;
    ctx.install_started_at = kNow;
    ctx.finalizing_stage_started_at = kNow;
    ctx.hosts = Hosts(types::v1::HOST_STATUS_KNOWN);
  }
  const ClusterContext& Context() {
    ctx.validations = &validations;
    return ctx;
  }
};

using Setup = std::function<void(ClusterContext&, V&)>;

struct Case {
  std::string name;
  Ev event;
  ClusterStatus from;
  Setup setup;
  ClusterStatus to;
  std::string info = "";
  bool rejected = false;
};

void Nothing(ClusterContext&, V&) {}
void AllHosts(ClusterContext& c, HostStatus s) { c.hosts = Hosts(s); }

std::vector<Case> Cases() {
  using namespace types::v1;  // NOLINT: cases read better unqualified
  return {
      // ---- user actions ----
      {"cancel while installing", Ev::kCancel, kInstalling, Nothing, kCancelled},
      {"cancel while preparing", Ev::kCancel, kPreparing, Nothing, kReady},
      {"cancel a ready cluster is refused", Ev::kCancel, kReady, Nothing, kReady, "", true},
      {"reset after failure", Ev::kReset, kError, Nothing, kInsufficient},
      {"install", Ev::kPrepareForInstallation, kReady, Nothing, kPreparing},
      {"install an insufficient cluster is refused", Ev::kPrepareForInstallation, kInsufficient,
       Nothing, kInsufficient, "", true},
      {"open to day-2 hosts", Ev::kAllowAddHosts, kInstalled, Nothing, kAddingHosts},

      // ---- before installation ----
      {"no pull secret", Ev::kRefresh, kInsufficient,
       [](ClusterContext&, V& v) {
         testing::SetStatus(&v, cluster_id::kPullSecretSet, kFailure, "The pull secret is not set");
       },
       kPendingForInput, "User input required: The pull secret is not set"},
      {"no VIPs without DHCP", Ev::kRefresh, kReady,
       [](ClusterContext&, V& v) {
         testing::SetStatus(&v, cluster_id::kApiVipsDefined, kFailure, "API VIPs are undefined");
       },
       kPendingForInput, "API VIPs are undefined"},
      {"no VIPs yet with DHCP", Ev::kRefresh, kPendingForInput,
       [](ClusterContext& c, V& v) {
         c.vip_dhcp_allocation = true;
         testing::SetStatus(&v, cluster_id::kApiVipsDefined, kFailure, "API VIPs are undefined");
       },
       kInsufficient, "API VIPs are undefined"},
      {"a host not ready", Ev::kRefresh, kReady,
       [](ClusterContext&, V& v) {
         testing::SetStatus(&v, cluster_id::kAllHostsAreReadyToInstall, kFailure,
                            "The cluster has hosts that are not ready to install");
       },
       kInsufficient, "hosts that are not ready"},
      {"all good", Ev::kRefresh, kInsufficient, Nothing, kReady, "ready to be installed"},

      // ---- preparing ----
      {"preparation timed out", Ev::kRefresh, kPreparing,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_PREPARING_FOR_INSTALLATION);
         c.status_updated_at = kNow - absl::Minutes(11);
       },
       kReady, "timed out"},
      {"everything prepared", Ev::kRefresh, kPreparing,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_PREPARING_SUCCESSFUL);
         c.preparation = INSTALLATION_PREPARATION_STATUS_SUCCESS;
       },
       kInstalling},
      {"a host dropped out", Ev::kRefresh, kPreparing,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_PREPARING_SUCCESSFUL);
         c.hosts[0].status = HOST_STATUS_DISCONNECTED;
       },
       kInsufficient},
      {"a host failed its checks", Ev::kRefresh, kPreparing,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_PREPARING_SUCCESSFUL);
         c.hosts[4].status = HOST_STATUS_PREPARING_FAILED;
       },
       kReady, "a host failed its preparation checks"},
      {"manifest generation failed", Ev::kRefresh, kPreparing,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_PREPARING_SUCCESSFUL);
         c.preparation = INSTALLATION_PREPARATION_STATUS_FAILED;
       },
       kReady, "generating the installation manifests failed"},
      {"still preparing", Ev::kRefresh, kPreparing,
       [](ClusterContext& c, V&) { AllHosts(c, HOST_STATUS_PREPARING_FOR_INSTALLATION); },
       kPreparing},

      // ---- installing ----
      {"waiting for the user but too few hosts left", Ev::kRefresh, kPua,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_ERROR);
         c.hosts[0].status = HOST_STATUS_INSTALLING_PENDING_USER_ACTION;
       },
       kError, "hosts in error"},
      {"user never fixed the hosts", Ev::kRefresh, kPua,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_INSTALLING_PENDING_USER_ACTION);
         c.install_started_at = kNow - absl::Hours(25);
       },
       kError, "24 hours"},
      {"installation took too long (soft)", Ev::kRefresh, kInstalling,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_INSTALLING_IN_PROGRESS);
         c.install_started_at = kNow - absl::Hours(25);
         c.soft_timeouts = true;
       },
       kError, "timed out after 24 hours"},
      {"finalizing took too long", Ev::kRefresh, kFinalizing,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_INSTALLED);
         c.status_updated_at = kNow - absl::Hours(6);
       },
       kError, "finalization timed out after 5 hours"},
      {"finalizing stage timed out", Ev::kRefresh, kFinalizing,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_INSTALLED);
         c.finalizing_stage = FINALIZING_STAGE_ADDING_ROUTER_CA;
         c.finalizing_stage_started_at = kNow - absl::Minutes(71);
       },
       kError, "Adding router ca timed out after 70 minutes"},
      {"OLM stage late but non-failing", Ev::kRefresh, kFinalizing,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_INSTALLED);
         c.finalizing_stage = FINALIZING_STAGE_APPLYING_OLM_MANIFESTS;
         c.finalizing_stage_started_at = kNow - absl::Minutes(11);
       },
       kFinalizing, "taking longer than expected"},
      {"still waiting for the user", Ev::kRefresh, kPua,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_INSTALLING_IN_PROGRESS);
         c.hosts[3].status = HOST_STATUS_INSTALLING_PENDING_USER_ACTION;
       },
       kPua},
      {"user fixed the host", Ev::kRefresh, kPua,
       [](ClusterContext& c, V&) { AllHosts(c, HOST_STATUS_INSTALLING_IN_PROGRESS); }, kInstalling},
      {"user fixed the host, enough installed", Ev::kRefresh, kPua,
       [](ClusterContext& c, V&) { AllHosts(c, HOST_STATUS_INSTALLED); }, kFinalizing},
      {"a host needs the user", Ev::kRefresh, kInstalling,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_INSTALLING_IN_PROGRESS);
         c.hosts[0].status = HOST_STATUS_INSTALLING_PENDING_USER_ACTION;
       },
       kPua, "require user action"},
      {"enough hosts installed", Ev::kRefresh, kInstalling,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_INSTALLED);
         c.hosts.push_back({kWorker, HOST_STATUS_INSTALLING_IN_PROGRESS});
       },
       kFinalizing},
      {"installing normally", Ev::kRefresh, kInstalling,
       [](ClusterContext& c, V&) { AllHosts(c, HOST_STATUS_INSTALLING_IN_PROGRESS); }, kInstalling},
      {"finalizing complete", Ev::kRefresh, kFinalizing,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_INSTALLED);
         c.kubeconfig_exists = true;
         c.operators_available = true;
       },
       kInstalled, "installed"},
      {"a master failed", Ev::kRefresh, kInstalling,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_INSTALLING_IN_PROGRESS);
         c.hosts[1].status = HOST_STATUS_ERROR;
       },
       kError},

      // ---- nothing to do ----
      {"log collection timed out", Ev::kRefresh, kCancelled,
       [](ClusterContext& c, V&) {
         c.logs_info = LOGS_STATE_COLLECTING;
         c.logs_started_at = kNow - absl::Minutes(61);
       },
       kCancelled},
      {"installed stays installed", Ev::kRefresh, kInstalled, Nothing, kInstalled},
      {"finalizing waits for operators", Ev::kRefresh, kFinalizing,
       [](ClusterContext& c, V&) {
         AllHosts(c, HOST_STATUS_INSTALLED);
         c.kubeconfig_exists = true;
       },
       kFinalizing},
  };
}

TEST(ClusterStateMachine, EveryCaseAndEveryRow) {
  const ClusterMachine& machine = ClusterStateMachine();
  testing::RowCoverage<ClusterMachine> coverage(machine);
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    Fixture f;
    c.setup(f.ctx, f.validations);
    absl::StatusOr<ClusterDecision> d = machine.Fire(c.event, c.from, f.Context());
    if (c.rejected) {
      EXPECT_THAT(d, StatusIs(absl::StatusCode::kFailedPrecondition));
      continue;
    }
    ASSERT_THAT(d, IsOk());
    coverage.Record(d->row);
    EXPECT_EQ(ClusterStatusName(d->to), ClusterStatusName(c.to)) << machine.rows()[d->row].doc;
    if (!c.info.empty()) {
      EXPECT_THAT(d->status_info, HasSubstr(c.info));
    }
  }
  EXPECT_THAT(coverage.Unexercised(), ::testing::IsEmpty());
}

TEST(ClusterStateMachine, TwoWorkersNeededWhenTwoOrMoreWereAssigned) {
  Fixture f;
  f.ctx.hosts = Hosts(types::v1::HOST_STATUS_INSTALLED);
  f.ctx.hosts[3].status = types::v1::HOST_STATUS_ERROR;  // one of two workers failed
  absl::StatusOr<ClusterDecision> d =
      ClusterStateMachine().Fire(Ev::kRefresh, kInstalling, f.Context());
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, kError);
}

TEST(ClusterStateMachine, SingleNodeNeedsOnlyItsMaster) {
  Fixture f;
  f.ctx.topology.control_plane_count = 1;
  f.ctx.hosts = {{kMaster, types::v1::HOST_STATUS_INSTALLED}};
  absl::StatusOr<ClusterDecision> d =
      ClusterStateMachine().Fire(Ev::kRefresh, kInstalling, f.Context());
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->to, kFinalizing);
}

TEST(ClusterStateMachine, OlmStageLimitRaisedToTheOperatorTimeout) {
  Fixture f;
  f.ctx.hosts = Hosts(types::v1::HOST_STATUS_INSTALLED);
  f.ctx.finalizing_stage = types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV;
  f.ctx.finalizing_stage_started_at = kNow - absl::Minutes(100);
  f.ctx.max_operator_timeout = absl::Minutes(120);
  absl::StatusOr<ClusterDecision> d =
      ClusterStateMachine().Fire(Ev::kRefresh, kFinalizing, f.Context());
  ASSERT_THAT(d, IsOk());
  EXPECT_FALSE(d->Has(ClusterEffect::kSetFinalizingStageTimedOut));
}

TEST(ClusterStateMachine, RefreshDecidesForEveryState) {
  for (ClusterStatus s : ClusterStateMachine().states()) {
    for (HostStatus hs : {types::v1::HOST_STATUS_KNOWN, types::v1::HOST_STATUS_ERROR,
                          types::v1::HOST_STATUS_INSTALLING_PENDING_USER_ACTION}) {
      Fixture f;
      f.ctx.hosts = Hosts(hs);
      f.validations = V();
      EXPECT_THAT(ClusterStateMachine().Fire(Ev::kRefresh, s, f.Context()), IsOk())
          << ClusterStatusName(s);
    }
  }
}

TEST(ClusterStateMachine, HasTwelveStates) {
  EXPECT_EQ(ClusterStateMachine().states().size(), 12u);
}

// ---- effects as fields -------------------------------------------------------------------

ClusterDecision DecisionWith(std::vector<ClusterEffect> effects) {
  ClusterDecision d{kPreparing, kInstalling};
  d.effects = std::move(effects);
  return d;
}

TEST(ClusterEffectFields, StartingTheInstallationRecordsWhen) {
  const ClusterFieldsUpdate update = ClusterEffectFields(
      testing::HealthyCluster(), DecisionWith({ClusterEffect::kStartInstallation}), kNow);
  EXPECT_THAT(update.paths, ::testing::ElementsAre("install_started_at"));
  EXPECT_EQ(update.fields.install_started_at().seconds(), absl::ToUnixSeconds(kNow));
}

TEST(ClusterEffectFields, ResetForgetsThePreparationAndTheProgress) {
  types::v1::Cluster cluster = testing::HealthyCluster();
  cluster.mutable_last_installation_preparation()->set_status(
      types::v1::INSTALLATION_PREPARATION_STATUS_SUCCESS);
  cluster.mutable_progress()->set_total_percentage(55);
  const ClusterFieldsUpdate update =
      ClusterEffectFields(cluster, DecisionWith({ClusterEffect::kResetHosts}), kNow);
  update.ApplyTo(cluster);
  EXPECT_FALSE(cluster.has_last_installation_preparation());
  EXPECT_EQ(cluster.progress().total_percentage(), 0);
}

TEST(ClusterEffectFields, CancellingTheHostsIsNotAFieldOfTheCluster) {
  EXPECT_TRUE(ClusterEffectFields(testing::HealthyCluster(),
                                  DecisionWith({ClusterEffect::kCancelHosts}), kNow)
                  .empty());
}

}  // namespace
}  // namespace assisted::orchestrator::core
