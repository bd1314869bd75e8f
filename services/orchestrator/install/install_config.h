// File: services/orchestrator/install/install_config.h
//
// install-config.yaml for a cluster, as assisted-service writes it before running the
// installer: apiVersion v1, baseDomain, metadata.name, controlPlane and compute replicas,
// networking (clusterNetwork, machineNetwork, serviceNetwork, networkType), the platform
// (baremetal with the API and Ingress VIPs, or none for single-node and user-managed
// networking), pullSecret, sshKey, proxy with a computed noProxy, imageContentSources for
// mirror registries and additionalTrustBundle; then the user's install_config_overrides (a JSON
// object deep-merged over the document; keys that would contradict what the service manages
// are refused).
//
//   InstallConfigInput input{.cluster = cluster, .pull_secret = secret, .masters = 3};
//   ASSIGN_OR_RETURN(std::string yaml, BuildInstallConfig(input));
//
// Bad input is INVALID_ARGUMENT naming the field ("cluster.base_dns_domain: required",
// "install_config_overrides: \"pullSecret\" may not be overridden").

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_INSTALL_CONFIG_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_INSTALL_CONFIG_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "assisted/types/v1/cluster.pb.h"

namespace assisted::orchestrator::install {

// One imageContentSources entry: pulls from `source` may be served by any of `mirrors`.
struct MirrorSource {
  std::string source;                // e.g. "quay.io/openshift-release-dev/ocp-release"
  std::vector<std::string> mirrors;  // e.g. "registry.local:5000/ocp/release"
};

struct InstallConfigInput {
  const types::v1::Cluster& cluster;
  std::string pull_secret;              // required (JSON auths document)
  std::string additional_trust_bundle;  // PEM; empty for none
  std::vector<MirrorSource> mirrors;
  int masters = 3;  // controlPlane.replicas
  int workers = 0;  // compute[0].replicas
};

// Single-node OpenShift: one control-plane node (control_plane_count 1 or HA mode None).
bool IsSingleNode(const types::v1::Cluster& cluster);

// The domain of the cluster's endpoints: "<name>.<base_dns_domain>".
std::string ClusterDomain(const types::v1::Cluster& cluster);

// The proxy's noProxy: the user's entries, then the machine, cluster and service networks and
// ".<name>.<base domain>", without duplicates; "*" alone when the user gave "*".
std::string ComputeNoProxy(const types::v1::Cluster& cluster);

// Checks install_config_overrides as BuildInstallConfig applies them: empty, or a JSON object
// whose keys are install-config's own (apiVersion, baseDomain, compute, controlPlane, fips,
// networking, platform, proxy, ... as the installer's InstallConfig type has them) and not one
// the service manages (apiVersion, baseDomain, metadata, pullSecret). INVALID_ARGUMENT
// "install_config_overrides: ..." naming the offending key otherwise.
absl::Status CheckInstallConfigOverrides(const std::string& text);

// The document, with overrides applied. See the file comment for errors.
absl::StatusOr<std::string> BuildInstallConfig(const InstallConfigInput& input);

}  // namespace assisted::orchestrator::install

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_INSTALL_CONFIG_H_
