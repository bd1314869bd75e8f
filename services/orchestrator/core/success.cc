// File: services/orchestrator/core/success.cc

#include "services/orchestrator/core/success.h"

#include <algorithm>
#include <limits>

namespace assisted::orchestrator::core {

namespace {

// Counts assigned roles over all hosts and qualifying ones over all but `skip`.
bool Enough(const std::vector<HostRoleStatus>& hosts, const Topology& topology,
            std::initializer_list<types::v1::HostStatus> statuses, std::size_t skip) {
  const int control_plane = topology.control_plane_count <= 0 ? 3 : topology.control_plane_count;
  int masters = 0, arbiters = 0, workers = 0, assigned_arbiters = 0, assigned_workers = 0;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const HostRoleStatus& h = hosts[i];
    const bool counts =
        i != skip && std::find(statuses.begin(), statuses.end(), h.status) != statuses.end();
    switch (h.role) {
      case types::v1::HOST_ROLE_MASTER:
      case types::v1::HOST_ROLE_BOOTSTRAP:
        masters += counts;
        break;
      case types::v1::HOST_ROLE_ARBITER:
        ++assigned_arbiters;
        arbiters += counts;
        break;
      case types::v1::HOST_ROLE_WORKER:
        ++assigned_workers;
        workers += counts;
        break;
      default:
        break;
    }
  }
  if (masters < control_plane) return false;
  if (assigned_arbiters > 0 && arbiters < 1) return false;
  if (control_plane == 1) return true;  // single-node: no worker needed
  return assigned_workers < 2 || workers >= 2;
}

}  // namespace

bool EnoughHosts(const std::vector<HostRoleStatus>& hosts, const Topology& topology,
                 std::initializer_list<types::v1::HostStatus> statuses) {
  return Enough(hosts, topology, statuses, std::numeric_limits<std::size_t>::max());
}

bool SucceedsWithout(const std::vector<HostRoleStatus>& hosts, const Topology& topology,
                     std::size_t skip) {
  return Enough(hosts, topology,
                {types::v1::HOST_STATUS_INSTALLING, types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS,
                 types::v1::HOST_STATUS_INSTALLED},
                skip);
}

}  // namespace assisted::orchestrator::core
