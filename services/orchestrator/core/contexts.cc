// File: services/orchestrator/core/contexts.cc

#include "services/orchestrator/core/contexts.h"

#include <algorithm>

#include "lib/time/proto_time.h"
#include "services/orchestrator/core/inventory_util.h"
#include "services/orchestrator/core/progress.h"

namespace assisted::orchestrator::core {

namespace {

bool SingleNode(const types::v1::Cluster& cluster) {
  return cluster.control_plane_count() == 1 ||
         cluster.high_availability_mode() == types::v1::HIGH_AVAILABILITY_MODE_NONE;
}

Topology TopologyOf(const types::v1::Cluster& cluster) {
  return Topology{SingleNode(cluster) ? 1 : cluster.control_plane_count()};
}

std::vector<HostRoleStatus> RolesAndStatuses(const std::vector<const types::v1::Host*>& hosts) {
  std::vector<HostRoleStatus> out;
  out.reserve(hosts.size());
  for (const types::v1::Host* h : hosts) {
    out.push_back({h->bootstrap() ? types::v1::HOST_ROLE_MASTER : h->role(), h->status()});
  }
  return out;
}

}  // namespace

bool SoftTimeouts(const types::v1::Cluster& cluster, const DecisionSettings& settings) {
  return settings.enable_soft_timeouts && cluster.org_soft_timeouts_enabled();
}

HostContext MakeHostContext(const types::v1::Host& host, const types::v1::Cluster* cluster,
                            const std::vector<const types::v1::Host*>& cluster_hosts,
                            const ValidationResults* validations, absl::Time now,
                            const Timeouts& timeouts, const DecisionSettings& settings) {
  HostContext c;
  c.now = now;
  c.timeouts = &timeouts.host;
  c.bound = cluster != nullptr;
  c.bootstrap = host.bootstrap();
  c.role = host.role();
  c.stage = host.progress().current_stage();
  c.status_updated_at = FromTimestamp(host.status_updated_at());
  c.stage_updated_at = FromTimestamp(host.progress().stage_updated_at());
  c.checked_in_at = FromTimestamp(host.checked_in_at());
  c.media_disconnected = host.media_status() == types::v1::MEDIA_STATUS_DISCONNECTED;
  c.connection_timed_out = host.connection_timed_out();
  c.stage_timed_out = host.progress().stage_timed_out();
  c.logs_info = host.logs_info();
  c.logs_started_at = FromTimestamp(host.logs_started_at());
  c.validations = validations;
  if (const types::v1::Disk* disk = InstallationDisk(host)) {
    c.installation_disk = disk->path();
  } else {
    c.installation_disk = host.installation_disk_path();
  }
  c.day2 = host.kind() == types::v1::HOST_KIND_ADD_TO_EXISTING_CLUSTER_HOST;
  if (cluster == nullptr) return c;
  c.day2 = c.day2 || cluster->kind() == types::v1::CLUSTER_KIND_ADD_HOSTS_CLUSTER;
  c.soft_timeouts = SoftTimeouts(*cluster, settings);
  c.cluster_status = cluster->status();
  c.sno = SingleNode(*cluster);
  auto self = std::find_if(cluster_hosts.begin(), cluster_hosts.end(),
                           [&host](const types::v1::Host* h) { return h->id() == host.id(); });
  c.cluster_succeeds_without_host =
      self != cluster_hosts.end() &&
      SucceedsWithout(RolesAndStatuses(cluster_hosts), TopologyOf(*cluster),
                      static_cast<std::size_t>(self - cluster_hosts.begin()));
  return c;
}

ClusterContext MakeClusterContext(const types::v1::Cluster& cluster,
                                  const std::vector<const types::v1::Host*>& hosts,
                                  const ValidationResults* validations, absl::Time now,
                                  const Timeouts& timeouts, const DecisionSettings& settings,
                                  bool kubeconfig_exists) {
  ClusterContext c;
  c.now = now;
  c.timeouts = &timeouts.cluster;
  c.soft_timeouts = SoftTimeouts(cluster, settings);
  c.vip_dhcp_allocation = cluster.vip_dhcp_allocation();
  c.validations = validations;
  c.hosts = RolesAndStatuses(hosts);
  c.topology = TopologyOf(cluster);
  c.preparation = cluster.last_installation_preparation().status();
  c.status_updated_at = FromTimestamp(cluster.status_updated_at());
  c.install_started_at = FromTimestamp(cluster.install_started_at());
  c.finalizing_stage = cluster.progress().finalizing_stage();
  c.finalizing_stage_started_at = FromTimestamp(cluster.progress().finalizing_stage_started_at());
  c.finalizing_stage_timed_out = cluster.progress().finalizing_stage_timed_out();
  c.kubeconfig_exists = kubeconfig_exists;
  c.operators_available = true;
  for (const types::v1::MonitoredOperator& op : cluster.monitored_operators()) {
    c.max_operator_timeout = std::max(c.max_operator_timeout, absl::Seconds(op.timeout_seconds()));
    c.operators_available =
        c.operators_available && op.status() == types::v1::OPERATOR_STATUS_AVAILABLE;
  }
  c.logs_info = cluster.logs_info();
  c.logs_started_at = FromTimestamp(cluster.controller_logs_started_at());
  return c;
}

types::v1::ClusterProgress ClusterProgressIn(const types::v1::Cluster& cluster,
                                             const std::vector<const types::v1::Host*>& hosts,
                                             types::v1::ClusterStatus to) {
  ClusterProgressInput input;
  input.status = to;
  input.sno = SingleNode(cluster);
  input.finalizing_stage = cluster.progress().finalizing_stage();
  for (const types::v1::Host* host : hosts) {
    input.hosts.push_back(
        {host->role(), host->bootstrap(), host->status(), host->progress().current_stage()});
  }
  for (const types::v1::MonitoredOperator& op : cluster.monitored_operators()) {
    ++input.operators;
    input.operators_available += op.status() == types::v1::OPERATOR_STATUS_AVAILABLE;
  }
  types::v1::ClusterProgress progress = ComputeClusterProgress(input, cluster.progress());
  *progress.mutable_finalizing_stage_started_at() =
      cluster.progress().finalizing_stage_started_at();
  progress.set_finalizing_stage_timed_out(cluster.progress().finalizing_stage_timed_out());
  return progress;
}

}  // namespace assisted::orchestrator::core
