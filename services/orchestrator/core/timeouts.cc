// File: services/orchestrator/core/timeouts.cc

#include "services/orchestrator/core/timeouts.h"

#include <algorithm>

namespace assisted::orchestrator::core {

absl::Duration HostTimeouts::EffectivePrepare() const {
  return std::max(prepare, std::max(disk_speed_check, image_availability) + absl::Minutes(1));
}

absl::Duration HostTimeouts::Stage(types::v1::HostStage s, bool sno) const {
  if (sno && s == types::v1::HOST_STAGE_REBOOTING) return sno_rebooting;
  auto it = stage.find(s);
  return it == stage.end() ? other_stage : it->second;
}

absl::Duration ClusterTimeouts::FinalizingStage(types::v1::FinalizingStage stage, bool soft,
                                                absl::Duration max_operator_timeout) const {
  absl::Duration limit = other_finalizing_stage;
  if (auto hard = finalizing_stage_hard.find(stage); hard != finalizing_stage_hard.end()) {
    limit = hard->second;
  }
  if (soft) {
    if (auto it = finalizing_stage_soft.find(stage); it != finalizing_stage_soft.end()) {
      limit = it->second;
    }
  }
  if (stage == types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV_INITIALIZATION ||
      stage == types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV) {
    limit = std::max(limit, max_operator_timeout);
  }
  return limit;
}

bool LogCollectionTimedOut(types::v1::LogsState state, absl::Time started_at, absl::Time now,
                           absl::Duration pending, absl::Duration collection) {
  switch (state) {
    case types::v1::LOGS_STATE_REQUESTED:
      return now - started_at > pending;
    case types::v1::LOGS_STATE_COLLECTING:
      return now - started_at > collection;
    default:
      return false;
  }
}

}  // namespace assisted::orchestrator::core
