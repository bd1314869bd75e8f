// File: services/gateway/cli/agent/node_zero_plan.h
//
// What node 0 does next for the cluster of its ISO, decided from /etc/assisted/cluster.json
// (agent_ignition.h: ClusterJson) and what node 0's REST API shows of the cluster and its hosts.
// Pure: the caller reads the API, applies the plan (PATCH each host, POST install) and asks
// again on the next change; applying a plan twice changes nothing.
//
//   NodeZeroPlan plan = PlanNodeZero(definition, cluster_json, hosts_json);
//   for (const HostUpdate& u : plan.host_updates) PATCH
//   /v2/infra-envs/{u.infra_env_id}/hosts/{u.host_id} u.patch if (plan.start_install) POST
//   /v2/clusters/{id}/actions/install
//
// A registered host is the definition's host that has one of its MACs (the inventory's
// interfaces). Until the installation starts, such a host is given the definition's host name
// (host_name), role (host_role) and the disk its rootDeviceHints select (disks_selected_config).
// The installation starts when the cluster is ready with `expected_hosts` hosts known and no
// update pending, as openshift-install's start-cluster-installation does.

#ifndef ASSISTED_SERVICES_GATEWAY_CLI_AGENT_NODE_ZERO_PLAN_H_
#define ASSISTED_SERVICES_GATEWAY_CLI_AGENT_NODE_ZERO_PLAN_H_

#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace assisted::cli::agent {

struct HostUpdate {
  std::string infra_env_id;
  std::string host_id;
  nlohmann::json patch;  // host-update-params: host_name, host_role, disks_selected_config
};

struct NodeZeroPlan {
  std::vector<HostUpdate> host_updates;
  bool start_install = false;
  // Why the installation does not start yet, for node 0's log; empty once it started.
  std::string waiting_for;
};

// `definition` is cluster.json; `cluster` and `hosts` the REST API's cluster and host list.
// Malformed parts (a host without inventory, an inventory that is not JSON) are skipped.
NodeZeroPlan PlanNodeZero(const nlohmann::json& definition, const nlohmann::json& cluster,
                          const nlohmann::json& hosts);

// The id of the disk among an inventory's `disks` that matches every hint of `hints`
// (cluster.json's root_device_hints), with Metal3's rules: device_name equals the path or a
// by-path link; hctl, serial_number and wwn equal; model and vendor are substrings;
// min_size_gigabytes at most the size; rotational true only for HDDs. Among matches the
// smallest eligible disk wins (Metal3 takes the smallest). nullopt when none matches.
std::optional<std::string> DiskMatchingHints(const nlohmann::json& hints,
                                             const nlohmann::json& disks);

}  // namespace assisted::cli::agent

#endif  // ASSISTED_SERVICES_GATEWAY_CLI_AGENT_NODE_ZERO_PLAN_H_
