// File: services/orchestrator/core/cluster_facts.h
//
// What the validations of many hosts share, computed once per cluster evaluation: the
// requirements for the cluster's version, its parsed machine networks, who uses which hostname
// and IP address, every host's role, and the connectivity majority groups. Building it is
// O(hosts x addresses) plus the majority groups (O(hosts^2)); each host's validations then
// cost O(own data + hosts).

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_CLUSTER_FACTS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_CLUSTER_FACTS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "lib/net/ip.h"
#include "lib/operators/catalog.h"
#include "lib/version/ocp_version.h"
#include "services/orchestrator/core/agent_reports.h"
#include "services/orchestrator/core/hw_requirements.h"
#include "services/orchestrator/core/majority.h"

namespace assisted::orchestrator::core {

// Deployment settings the validations need.
struct ValidationSettings {
  // The agent image hosts must run (AGENT_DOCKER_IMAGE); checked only when upgrades are on.
  std::string agent_image;
  bool agent_upgrade_enabled = false;
};

// A host of the cluster with its parsed reports.
struct HostView {
  const types::v1::Host* host = nullptr;
  const HostReports* reports = nullptr;
};

struct ClusterFacts {
  const types::v1::Cluster* cluster = nullptr;  // nullptr: unbound hosts (infra-env pool)
  HwRequirements requirements;
  version::OcpVersion version;
  std::string architecture;                 // "x86_64", ...
  std::vector<net::Cidr> machine_networks;  // the parseable ones
  bool sno = false;
  bool day2 = false;
  bool user_managed_networking = false;
  bool user_managed_load_balancer = false;
  int control_plane_count = 3;
  int host_count = 0;
  absl::flat_hash_map<std::string, int> hostname_count;
  struct AddressUser {
    std::string host_id;
    std::string mac;
  };
  absl::flat_hash_map<std::string, std::vector<AddressUser>> address_users;  // canonical ip
  absl::flat_hash_map<std::string, types::v1::HostRole> roles;               // host id
  MajorityGroups majority;  // L2 per machine network, or L3 per family (see UsesL3)
  ValidationSettings settings;
  // The OLM operators the cluster selected (lib/operators/catalog.h), and what they add
  // together to every host's role requirement (has-cpu-cores-for-role, has-memory-for-role).
  std::vector<const operators::OperatorSpec*> operators;
  operators::HostExtras operator_extras;

  // Whether the cluster selected the operator `name`.
  bool Selected(absl::string_view name) const;

  // Connectivity is judged on routed (L3) links with user-managed networking or a user-managed
  // load balancer, on the machine networks' links (L2) otherwise.
  bool UsesL3() const { return user_managed_networking || user_managed_load_balancer; }
};

// Builds the facts. `cluster` may be null (unbound hosts: default requirements, no networks).
// INVALID_ARGUMENT when the cluster's openshift_version does not parse.
absl::StatusOr<ClusterFacts> BuildClusterFacts(const types::v1::Cluster* cluster,
                                               const std::vector<HostView>& hosts,
                                               const HwRequirementsCatalog& catalog,
                                               const ValidationSettings& settings);

// The DNS names the domain-resolution step must resolve for `cluster` and the host validations
// read back: api.<name>.<base>, api-int.<name>.<base>, *.apps.<name>.<base>, the wildcard probe
// validateNoWildcardDNS.<name>.<base>, and the release image's registry host when known.
struct ClusterDomains {
  std::string api;
  std::string api_int;
  std::string apps;
  std::string wildcard_probe;
  std::string release;  // empty when the release image is unknown
};
ClusterDomains DomainsOf(const types::v1::Cluster& cluster);

// <ignition_endpoint.url>/<pool> when the user named the machine-config server hosts of `cluster`
// fetch their configuration from (an imported cluster's, or one behind a load balancer); nullopt
// when they did not, and the cluster's own API is the source.
std::optional<std::string> UserIgnitionEndpointUrl(const types::v1::Cluster& cluster,
                                                   absl::string_view pool);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_CLUSTER_FACTS_H_
