// File: services/orchestrator/core/progress.cc

#include "services/orchestrator/core/progress.h"

#include <algorithm>
#include <cmath>

#include "services/orchestrator/core/stages.h"

namespace assisted::orchestrator::core {

namespace {

using types::v1::ClusterStatus;

// The phase weights of the reference.
constexpr double kPreparingWeight = 0.10;
constexpr double kInstallingWeight = 0.70;
constexpr double kFinalizingWeight = 0.15;
constexpr int kFinalizingStages = types::v1::FINALIZING_STAGE_DONE;  // 1..7 in order

enum class Phase { kBefore, kPreparing, kInstalling, kFinalizing, kInstalled };

Phase PhaseOf(ClusterStatus s) {
  switch (s) {
    case types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION:
      return Phase::kPreparing;
    case types::v1::CLUSTER_STATUS_INSTALLING:
    case types::v1::CLUSTER_STATUS_INSTALLING_PENDING_USER_ACTION:
      return Phase::kInstalling;
    case types::v1::CLUSTER_STATUS_FINALIZING:
      return Phase::kFinalizing;
    case types::v1::CLUSTER_STATUS_INSTALLED:
    case types::v1::CLUSTER_STATUS_ADDING_HOSTS:
      return Phase::kInstalled;
    case types::v1::CLUSTER_STATUS_ERROR:
    case types::v1::CLUSTER_STATUS_CANCELLED:
      return Phase::kInstalling;  // frozen where it stopped (max with previous)
    default:
      return Phase::kBefore;
  }
}

int Share(int part, int whole) { return whole == 0 ? 0 : part * 100 / whole; }

}  // namespace

int HostPercentage(const HostProgressView& host, bool sno) {
  if (host.status == types::v1::HOST_STATUS_INSTALLED ||
      host.status == types::v1::HOST_STATUS_ADDED_TO_EXISTING_CLUSTER) {
    return 100;
  }
  return InstallationPercentage(ProfileOf(host.role, host.bootstrap, sno), host.stage);
}

types::v1::ClusterProgress ComputeClusterProgress(const ClusterProgressInput& in,
                                                  const types::v1::ClusterProgress& previous) {
  types::v1::ClusterProgress p;
  const Phase phase = PhaseOf(in.status);
  if (phase == Phase::kBefore) return p;  // a new installation starts from zero

  int prepared = 0, sum = 0;
  for (const HostProgressView& h : in.hosts) {
    prepared += h.status == types::v1::HOST_STATUS_PREPARING_SUCCESSFUL;
    sum += HostPercentage(h, in.sno);
  }
  const int hosts = static_cast<int>(in.hosts.size());
  int preparing = phase == Phase::kPreparing ? Share(prepared, hosts) : 100;
  int installing = phase >= Phase::kFinalizing   ? 100
                   : phase == Phase::kInstalling ? (hosts ? sum / hosts : 0)
                                                 : 0;
  int finalizing = 0;
  if (phase == Phase::kInstalled) {
    finalizing = 100;
  } else if (phase == Phase::kFinalizing) {
    finalizing = in.operators > 0 ? Share(in.operators_available, in.operators)
                                  : Share(static_cast<int>(in.finalizing_stage), kFinalizingStages);
  }
  preparing = std::max(preparing, previous.preparing_for_installation_stage_percentage());
  installing = std::max(installing, previous.installing_stage_percentage());
  finalizing = std::max(finalizing, previous.finalizing_stage_percentage());
  int total =
      static_cast<int>(std::lround(kPreparingWeight * preparing + kInstallingWeight * installing +
                                   kFinalizingWeight * finalizing));
  if (phase == Phase::kInstalled) total = 100;
  p.set_preparing_for_installation_stage_percentage(preparing);
  p.set_installing_stage_percentage(installing);
  p.set_finalizing_stage_percentage(finalizing);
  p.set_total_percentage(std::max(total, previous.total_percentage()));
  p.set_finalizing_stage(in.finalizing_stage);
  return p;
}

}  // namespace assisted::orchestrator::core
