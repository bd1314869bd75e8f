// File: services/gateway/cli/agent/ztp_manifests.h
//
// The cluster definition as ZTP manifests, what `aictl agent create cluster-manifests` writes
// into DIR/cluster-manifests/ (the same resources openshift-install agent writes; the reference
// is agent-and-image.md §6.1):
//   agent-cluster-install.yaml  AgentClusterInstall (extensions.hive.openshift.io/v1beta1):
//                               networks, VIPs, provisionRequirements, SSH key, platformType
//   cluster-deployment.yaml     ClusterDeployment (hive.openshift.io/v1): name, base domain,
//                               pull secret reference
//   infraenv.yaml               InfraEnv (agent-install.openshift.io/v1beta1): SSH key, NTP,
//                               the label NMStateConfigs are selected by
//   nmstateconfig.yaml          one NMStateConfig per host with static networking (its NMState
//                               document and interfaces[] with their MACs)
//   pull-secret.yaml            Secret (kubernetes.io/dockerconfigjson)
// Every resource lives in the namespace named after the cluster. There is no
// cluster-image-set.yaml: this product installs the release its orchestrator is configured
// with (--os-image-url), not one named per cluster. Mirrors, the trust bundle, host roles and
// root device hints have no field in these resources and stay in the two YAML files.

#ifndef ASSISTED_SERVICES_GATEWAY_CLI_AGENT_ZTP_MANIFESTS_H_
#define ASSISTED_SERVICES_GATEWAY_CLI_AGENT_ZTP_MANIFESTS_H_

#include <map>
#include <string>

#include "services/gateway/cli/agent/cluster_definition.h"

namespace assisted::cli::agent {

// File name -> YAML text. nmstateconfig.yaml is absent when no host has static networking.
std::map<std::string, std::string> ZtpManifests(const ClusterDefinition& definition);

}  // namespace assisted::cli::agent

#endif  // ASSISTED_SERVICES_GATEWAY_CLI_AGENT_ZTP_MANIFESTS_H_
