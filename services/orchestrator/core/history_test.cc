// History checker: replays seeded random event sequences through the host and cluster machines
// with random facts (time jumps, validation outcomes, cluster states, reported stages) and
// asserts that
//   - every decided move is an edge of the table (the winning row's event, from-state and
//     to-state), and refresh is never refused for an existing entity;
//   - a host's installation progress never goes backwards: it only moves through
//     kRecordProgress after CheckStageUpdate accepted the stage, and only a reset
//     (kClearInstallation, kResetForRediscovery) starts it over;
//   - a cluster's total progress never goes backwards until the cluster is back before
//     preparing (a new installation).
// Seeds are fixed, so a failure names a reproducible seed.

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "services/orchestrator/core/cluster_state_machine.h"
#include "services/orchestrator/core/host_state_machine.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/progress.h"
#include "services/orchestrator/core/stages.h"
#include "services/orchestrator/core/testing_fixtures.h"
#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator::core {
namespace {

using types::v1::ClusterStatus;
using types::v1::HostStage;
using types::v1::HostStatus;
using types::v1::ValidationStatus;

constexpr int kSequences = 10'000;
constexpr int kEventsPerSequence = 30;

template <typename T>
const T& Pick(std::mt19937& rng, const std::vector<T>& v) {
  return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}

bool Chance(std::mt19937& rng, double p) { return std::bernoulli_distribution(p)(rng); }

// Mostly success, sometimes failure or pending, so that every gate opens and closes.
ValidationStatus RandomOutcome(std::mt19937& rng) {
  int r = std::uniform_int_distribution<int>(0, 99)(rng);
  if (r < 85) return types::v1::VALIDATION_STATUS_SUCCESS;
  if (r < 93) return types::v1::VALIDATION_STATUS_FAILURE;
  return types::v1::VALIDATION_STATUS_PENDING;
}

std::vector<ClusterStatus> AllClusterStatuses() { return ClusterStateMachine().states(); }

// ---- host --------------------------------------------------------------------------------

struct SimHost {
  HostStatus status;
  HostStage stage = types::v1::HOST_STAGE_UNSPECIFIED;
  int percentage = 0;
  absl::Time status_updated_at;
  absl::Time stage_updated_at;
  bool connection_timed_out = false;
  bool stage_timed_out = false;
};

// Returns a failure message, or "" when the step kept every invariant.
std::string HostStep(std::mt19937& rng, SimHost& h, absl::Time& now, const HostTimeouts& timeouts,
                     ValidationResults& validations, StageProfile profile, bool bootstrap, bool sno,
                     bool day2, types::v1::HostRole role) {
  const HostMachine& machine = HostStateMachine();
  now += absl::Seconds(std::uniform_int_distribution<int>(0, 90 * 60)(rng));
  for (absl::string_view id : CoreHostValidationIds()) {
    if (Chance(rng, 0.1)) testing::SetStatus(&validations, id, RandomOutcome(rng));
  }
  HostContext ctx;
  ctx.now = now;
  ctx.timeouts = &timeouts;
  ctx.soft_timeouts = Chance(rng, 0.3);
  ctx.bound = Chance(rng, 0.8);
  ctx.day2 = day2;
  ctx.bootstrap = bootstrap;
  ctx.role = role;
  ctx.stage = h.stage;
  ctx.status_updated_at = h.status_updated_at;
  ctx.stage_updated_at = h.stage_updated_at;
  ctx.checked_in_at = now - absl::Seconds(std::uniform_int_distribution<int>(0, 6 * 60)(rng));
  ctx.media_disconnected = Chance(rng, 0.03);
  ctx.connection_timed_out = h.connection_timed_out;
  ctx.stage_timed_out = h.stage_timed_out;
  ctx.logs_info = static_cast<types::v1::LogsState>(std::uniform_int_distribution<int>(0, 4)(rng));
  ctx.logs_started_at = now - absl::Minutes(std::uniform_int_distribution<int>(0, 30)(rng));
  ctx.validations = &validations;
  ctx.cluster_status = Pick(rng, AllClusterStatuses());
  ctx.sno = sno;
  ctx.cluster_succeeds_without_host = Chance(rng, 0.5);
  // Installing hosts mostly report the next stage; otherwise events and stages are uniform.
  const std::vector<HostStage>& stages = StagesFor(profile);
  const bool installing = h.status == types::v1::HOST_STATUS_INSTALLING ||
                          h.status == types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS ||
                          h.status == types::v1::HOST_STATUS_INSTALLING_PENDING_USER_ACTION;
  auto next = std::find(stages.begin(), stages.end(), h.stage);
  next = next == stages.end() ? stages.begin() : next + 1;
  if (Chance(rng, 0.05)) {
    ctx.reported_stage = types::v1::HOST_STAGE_FAILED;
  } else if (installing && next != stages.end() && Chance(rng, 0.8)) {
    ctx.reported_stage = *next;
  } else {
    ctx.reported_stage = Pick(rng, stages);
  }
  const HostEvent event =
      installing && Chance(rng, 0.6) ? HostEvent::kProgress : Pick(rng, machine.events());

  if (event == HostEvent::kProgress &&
      !CheckStageUpdate(profile, h.stage, ctx.reported_stage).ok()) {
    return "";  // refused with 409 before reaching the machine
  }
  absl::StatusOr<HostDecision> d = machine.Fire(event, h.status, ctx);
  if (!d.ok()) {
    if (event == HostEvent::kRefresh && h.status != types::v1::HOST_STATUS_UNSPECIFIED) {
      return absl::StrCat("refresh refused in ", HostStatusName(h.status));
    }
    return "";  // the action is not allowed in this state: nothing changes
  }
  const HostRow& row = machine.rows()[d->row];
  if (!machine.IsEdge(event, h.status, d->to) || row.event != event ||
      row.to.value_or(h.status) != d->to) {
    return absl::StrCat("move ", HostStatusName(h.status), " -> ", HostStatusName(d->to), " by ",
                        HostEventName(event), " is not an edge of row ", d->row);
  }
  const int before = h.percentage;
  const bool restarts =
      d->Has(HostEffect::kClearInstallation) || d->Has(HostEffect::kResetForRediscovery);
  if (restarts) {
    h.stage = types::v1::HOST_STAGE_UNSPECIFIED;
    h.percentage = 0;
  }
  if (d->Has(HostEffect::kRecordProgress) && ctx.reported_stage != types::v1::HOST_STAGE_FAILED) {
    if (ctx.reported_stage != h.stage) h.stage_updated_at = now;
    h.stage = ctx.reported_stage;
    h.percentage = InstallationPercentage(profile, h.stage);
  }
  if (!restarts && h.percentage < before) {
    return absl::StrCat("progress went backwards from ", before, " to ", h.percentage, " in ",
                        HostStatusName(d->to));
  }
  if (d->Has(HostEffect::kSetConnectionTimedOut)) h.connection_timed_out = true;
  if (d->Has(HostEffect::kClearConnectionTimedOut)) h.connection_timed_out = false;
  if (d->Has(HostEffect::kSetStageTimedOut)) h.stage_timed_out = true;
  if (d->Has(HostEffect::kRefreshStageUpdatedAt)) h.stage_updated_at = now;
  if (d->changed()) h.status_updated_at = now;
  h.status = d->to;
  return "";
}

TEST(History, HostSequencesOnlyFollowTableEdgesAndProgressNeverGoesBack) {
  const HostTimeouts timeouts;
  const std::vector<HostStatus>& states = HostStateMachine().states();
  const std::vector<types::v1::HostRole> roles = {
      types::v1::HOST_ROLE_MASTER, types::v1::HOST_ROLE_WORKER, types::v1::HOST_ROLE_ARBITER,
      types::v1::HOST_ROLE_AUTO_ASSIGN};
  int moves = 0;
  int advances = 0;
  for (int seed = 0; seed < kSequences; ++seed) {
    std::mt19937 rng(seed);
    absl::Time now = absl::FromUnixSeconds(1'700'000'000);
    SimHost h{seed % 3 == 0   ? types::v1::HOST_STATUS_UNSPECIFIED
              : seed % 3 == 1 ? types::v1::HOST_STATUS_INSTALLING
                              : Pick(rng, states)};
    h.status_updated_at = now;
    h.stage_updated_at = now;
    const bool sno = Chance(rng, 0.2);
    const bool bootstrap = Chance(rng, 0.2);
    const bool day2 = Chance(rng, 0.2);
    const types::v1::HostRole role = Pick(rng, roles);
    const StageProfile profile = ProfileOf(role, bootstrap, sno);
    ValidationResults validations = testing::PassingHostValidations();
    for (int i = 0; i < kEventsPerSequence; ++i) {
      HostStatus from = h.status;
      int percentage = h.percentage;
      std::string failure =
          HostStep(rng, h, now, timeouts, validations, profile, bootstrap, sno, day2, role);
      ASSERT_EQ(failure, "") << "seed " << seed << " event " << i << " from "
                             << HostStatusName(from);
      moves += h.status != from;
      advances += h.percentage > percentage;
    }
  }
  EXPECT_GT(advances, kSequences / 2);
  // The walks must actually move, or they prove nothing.
  EXPECT_GT(moves, kSequences * 2);
}

// ---- cluster -----------------------------------------------------------------------------

TEST(History, ClusterSequencesOnlyFollowTableEdgesAndProgressNeverGoesBack) {
  const ClusterTimeouts timeouts;
  const ClusterMachine& machine = ClusterStateMachine();
  const std::vector<HostStatus>& host_states = HostStateMachine().states();
  int moves = 0;
  for (int seed = 0; seed < kSequences; ++seed) {
    std::mt19937 rng(seed);
    absl::Time now = absl::FromUnixSeconds(1'700'000'000);
    ClusterStatus status = Pick(rng, machine.states());
    absl::Time status_updated_at = now;
    types::v1::ClusterProgress progress;
    ValidationResults validations = testing::PassingClusterValidations();
    for (int i = 0; i < kEventsPerSequence; ++i) {
      now += absl::Seconds(std::uniform_int_distribution<int>(0, 3 * 3600)(rng));
      for (absl::string_view id : CoreClusterValidationIds()) {
        if (Chance(rng, 0.1)) testing::SetStatus(&validations, id, RandomOutcome(rng));
      }
      ClusterContext ctx;
      ctx.now = now;
      ctx.timeouts = &timeouts;
      ctx.soft_timeouts = Chance(rng, 0.3);
      ctx.vip_dhcp_allocation = Chance(rng, 0.3);
      ctx.validations = &validations;
      ctx.topology.control_plane_count = Chance(rng, 0.2) ? 1 : 3;
      int host_count = std::uniform_int_distribution<int>(0, 6)(rng);
      for (int k = 0; k < host_count; ++k) {
        ctx.hosts.push_back({k < 3 ? types::v1::HOST_ROLE_MASTER : types::v1::HOST_ROLE_WORKER,
                             Pick(rng, host_states)});
      }
      ctx.preparation = static_cast<types::v1::InstallationPreparationStatus>(
          std::uniform_int_distribution<int>(0, 3)(rng));
      ctx.status_updated_at = status_updated_at;
      ctx.install_started_at = now - absl::Hours(std::uniform_int_distribution<int>(0, 30)(rng));
      ctx.finalizing_stage =
          static_cast<types::v1::FinalizingStage>(std::uniform_int_distribution<int>(0, 7)(rng));
      ctx.finalizing_stage_started_at =
          now - absl::Minutes(std::uniform_int_distribution<int>(0, 700)(rng));
      ctx.finalizing_stage_timed_out = Chance(rng, 0.3);
      ctx.kubeconfig_exists = Chance(rng, 0.5);
      ctx.operators_available = Chance(rng, 0.5);
      ctx.logs_info =
          static_cast<types::v1::LogsState>(std::uniform_int_distribution<int>(0, 4)(rng));
      ctx.logs_started_at = now - absl::Minutes(std::uniform_int_distribution<int>(0, 90)(rng));
      const ClusterEvent event = Pick(rng, machine.events());
      absl::StatusOr<ClusterDecision> d = machine.Fire(event, status, ctx);
      if (!d.ok()) {
        ASSERT_NE(event, ClusterEvent::kRefresh)
            << "seed " << seed << ": refresh refused in " << ClusterStatusName(status);
        continue;
      }
      const ClusterRow& row = machine.rows()[d->row];
      ASSERT_TRUE(machine.IsEdge(event, status, d->to) && row.event == event &&
                  row.to.value_or(status) == d->to)
          << "seed " << seed << ": " << ClusterStatusName(status) << " -> "
          << ClusterStatusName(d->to);
      if (d->changed()) {
        status_updated_at = now;
        ++moves;
      }
      status = d->to;
      ClusterProgressInput in{
          status, ctx.topology.control_plane_count == 1,         {},
          2,      std::uniform_int_distribution<int>(0, 2)(rng), ctx.finalizing_stage};
      for (const HostRoleStatus& h : ctx.hosts) {
        in.hosts.push_back(
            {h.role, false, h.status,
             static_cast<HostStage>(std::uniform_int_distribution<int>(0, 12)(rng))});
      }
      types::v1::ClusterProgress next = ComputeClusterProgress(in, progress);
      const bool new_install =
          next.total_percentage() == 0 && next.installing_stage_percentage() == 0;
      ASSERT_TRUE(new_install || next.total_percentage() >= progress.total_percentage())
          << "seed " << seed << ": cluster progress went back in " << ClusterStatusName(status);
      progress = next;
    }
  }
  EXPECT_GT(moves, kSequences * 2);
}

}  // namespace
}  // namespace assisted::orchestrator::core
