// File: services/orchestrator/core/timeouts.h
//
// Every time limit the state machines enforce, with the reference's defaults. The service fills
// a Timeouts from its configuration once at start-up and hands it to the state-machine contexts;
// nothing in the core reads the environment.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_TIMEOUTS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_TIMEOUTS_H_

#include <map>

#include "absl/time/time.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/common.pb.h"
#include "assisted/types/v1/host.pb.h"

namespace assisted::orchestrator::core {

struct HostTimeouts {
  // A host whose agent has not been heard from for this long is disconnected
  // (HOST_MAX_DISCONNECTION_TIME). Enforced only before the Rebooting stage: after it the agent is
  // gone by design.
  absl::Duration disconnection = absl::Minutes(3);
  // Extra tolerance for the bootstrap host, whose resolv.conf is rewritten mid-install.
  absl::Duration bootstrap_extra_disconnection = absl::Minutes(2);
  // PREPARE_FOR_INSTALLATION_HOST_TIMEOUT; see EffectivePrepare().
  absl::Duration prepare = absl::Minutes(8);
  // How long the disk-speed and the image-availability checks may run (DISK_CHECK_TIMEOUT,
  // IMAGE_AVAILABILITY_TIMEOUT).
  absl::Duration disk_speed_check = absl::Minutes(8);
  absl::Duration image_availability = absl::Minutes(16);
  // A host in `installing` that reports no stage for this long failed to start installing.
  absl::Duration installing_without_progress = absl::Minutes(20);
  // HOST_INSTALLING_PENDING_USER_ACTION_TIMEOUT.
  absl::Duration pending_user_action = absl::Minutes(60);
  // reclaiming / reclaiming-rebooting give up after this long.
  absl::Duration reclaim = absl::Minutes(60);
  // Log upload: HOST_LOG_PENDING_TIMEOUT from "requested", HOST_LOG_COLLECTION_TIMEOUT from
  // "collecting".
  absl::Duration log_pending = absl::Minutes(2);
  absl::Duration log_collection = absl::Minutes(10);
  // Per-stage limits (HOST_STAGE_<STAGE>_TIMEOUT), measured from the stage's last update.
  std::map<types::v1::HostStage, absl::Duration> stage = {
      {types::v1::HOST_STAGE_STARTING_INSTALLATION, absl::Minutes(30)},
      {types::v1::HOST_STAGE_INSTALLING, absl::Minutes(60)},
      {types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK, absl::Minutes(30)},
      {types::v1::HOST_STAGE_COPYING_REGISTRY_DATA_TO_DISK, absl::Minutes(90)},
      {types::v1::HOST_STAGE_WAITING_FOR_CONTROL_PLANE, absl::Minutes(60)},
      {types::v1::HOST_STAGE_WAITING_FOR_BOOTKUBE, absl::Minutes(60)},
      {types::v1::HOST_STAGE_WAITING_FOR_CONTROLLER, absl::Minutes(60)},
      {types::v1::HOST_STAGE_REBOOTING, absl::Minutes(40)},
      {types::v1::HOST_STAGE_WAITING_FOR_IGNITION, absl::Hours(24)},
      {types::v1::HOST_STAGE_CONFIGURING, absl::Minutes(60)},
      {types::v1::HOST_STAGE_JOINED, absl::Minutes(60)},
  };
  // Stages not in `stage`.
  absl::Duration other_stage = absl::Minutes(60);
  // Rebooting on single-node OpenShift (it reboots into a bootstrap-in-place control plane).
  absl::Duration sno_rebooting = absl::Minutes(80);

  // The host preparation limit: the configured one, raised so that both checks fit plus a minute
  // (the reference's rule): 17 minutes with the defaults.
  absl::Duration EffectivePrepare() const;
  // The limit of `stage`; `sno` selects the single-node Rebooting limit.
  absl::Duration Stage(types::v1::HostStage stage, bool sno) const;
};

struct ClusterTimeouts {
  // preparing-for-installation falls back to ready after this long without a failed host.
  absl::Duration prepare = absl::Minutes(10);
  // INSTALLATION_TIMEOUT, from install_started_at.
  absl::Duration installation = absl::Hours(24);
  // FINALIZING_TIMEOUT, from status_updated_at (hard-timeout mode only).
  absl::Duration finalizing = absl::Hours(5);
  // LOG_PENDING_TIMEOUT / LOG_COLLECTION_TIMEOUT.
  absl::Duration log_pending = absl::Minutes(10);
  absl::Duration log_collection = absl::Minutes(60);
  // Finalizing stage limits (FINALIZING_STAGE_<NAME>_TIMEOUT) in hard and soft mode.
  std::map<types::v1::FinalizingStage, absl::Duration> finalizing_stage_hard = {
      {types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS, absl::Hours(10)},
      {types::v1::FINALIZING_STAGE_ADDING_ROUTER_CA, absl::Minutes(70)},
      {types::v1::FINALIZING_STAGE_APPLYING_OLM_MANIFESTS, absl::Minutes(10)},
      {types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV_INITIALIZATION, absl::Minutes(70)},
      {types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV, absl::Minutes(70)},
      {types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATOR_SETUP_JOBS, absl::Minutes(10)},
      {types::v1::FINALIZING_STAGE_DONE, absl::Minutes(70)},
  };
  std::map<types::v1::FinalizingStage, absl::Duration> finalizing_stage_soft = {
      {types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS, absl::Minutes(70)},
  };
  // Finalizing stages in neither table.
  absl::Duration other_finalizing_stage = absl::Minutes(70);

  // The limit of a finalizing stage: the soft table (falling back to the hard one) in soft mode;
  // the two OLM CSV stages are raised to the longest monitored operator's own timeout.
  absl::Duration FinalizingStage(types::v1::FinalizingStage stage, bool soft,
                                 absl::Duration max_operator_timeout) const;
};

// Whether log collection started at `started_at` has run out of time: "requested" waits at most
// `pending`, "collecting" at most `collection`; other states never time out.
bool LogCollectionTimedOut(types::v1::LogsState state, absl::Time started_at, absl::Time now,
                           absl::Duration pending, absl::Duration collection);

struct Timeouts {
  HostTimeouts host;
  ClusterTimeouts cluster;
};

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_TIMEOUTS_H_
