// File: services/orchestrator/core/progress.h
//
// Installation progress percentages. A host's percentage is its stage's position in its role's
// stage list (stages.h). The cluster's total weighs the phases as the reference does:
// preparing 10 %, installing 70 %, finalizing 15 % (the last 5 % come with "installed"):
//   preparing  = share of hosts that finished preparing (100 once installing)
//   installing = mean host percentage (100 once finalizing)
//   finalizing = share of monitored operators available, or of the finalizing stages when
//                there are none (100 once installed)
// Progress never goes backwards during an installation: each figure is at least the previous
// one until the installation starts over (the cluster is back before preparing).

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_PROGRESS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_PROGRESS_H_

#include <vector>

#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"

namespace assisted::orchestrator::core {

// The part of a host progress looks at.
struct HostProgressView {
  types::v1::HostRole role = types::v1::HOST_ROLE_UNSPECIFIED;
  bool bootstrap = false;
  types::v1::HostStatus status = types::v1::HOST_STATUS_UNSPECIFIED;
  types::v1::HostStage stage = types::v1::HOST_STAGE_UNSPECIFIED;
};

struct ClusterProgressInput {
  types::v1::ClusterStatus status = types::v1::CLUSTER_STATUS_UNSPECIFIED;
  bool sno = false;
  std::vector<HostProgressView> hosts;
  int operators = 0;            // monitored operators
  int operators_available = 0;  // of which available
  types::v1::FinalizingStage finalizing_stage = types::v1::FINALIZING_STAGE_UNSPECIFIED;
};

// A host's installation percentage (0-100); 100 once installed or added.
int HostPercentage(const HostProgressView& host, bool sno);

// The cluster's progress, never below `previous` while an installation is under way.
types::v1::ClusterProgress ComputeClusterProgress(const ClusterProgressInput& input,
                                                  const types::v1::ClusterProgress& previous);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_PROGRESS_H_
