// File: services/orchestrator/core/success.h
//
// When does a cluster installation count as having "enough" hosts? The reference's success
// criteria: every expected control-plane node (control_plane_count masters; with an arbiter
// assigned, the arbiter too) and, when two or more workers were assigned, at least two workers.
// Single-node OpenShift needs its one master and no worker.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_SUCCESS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_SUCCESS_H_

#include <initializer_list>
#include <vector>

#include "assisted/types/v1/host.pb.h"

namespace assisted::orchestrator::core {

// What the cluster expects.
struct Topology {
  int control_plane_count = 3;  // 1 = single-node; 0 is read as 3
};

// The part of a host the criteria look at.
struct HostRoleStatus {
  types::v1::HostRole role = types::v1::HOST_ROLE_UNSPECIFIED;
  types::v1::HostStatus status = types::v1::HOST_STATUS_UNSPECIFIED;
};

// Whether the hosts whose status is in `statuses` meet the criteria. Bootstrap counts as
// master.
bool EnoughHosts(const std::vector<HostRoleStatus>& hosts, const Topology& topology,
                 std::initializer_list<types::v1::HostStatus> statuses);

// The same question for "everyone except host `skip`" being installed or still able to install:
// would the cluster still succeed if that host failed?
bool SucceedsWithout(const std::vector<HostRoleStatus>& hosts, const Topology& topology,
                     std::size_t skip);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_SUCCESS_H_
