// File: services/orchestrator/install/ignition_configs.h
//
// The Ignition configs of an installation (spec 3.2.0, via lib/ignition's ConfigBuilder):
// - master.ign / worker.ign: OpenShift pointer configs. ignition.config.merge fetches the
//   rendered config from the Machine Config Server at
//   https://api-int.<name>.<domain>:22623/config/<role>, trusting the cluster's root CA
//   (ignition.security.tls.certificateAuthorities).
// - bootstrap.ign: the master pointer plus what the bootstrap host's installer needs on the
//   live system: the pull secret (/root/.docker/config.json), install-config, the admin
//   kubeconfig and root CA under /opt/openshift, the user's manifests under
//   /opt/openshift/{manifests,openshift}/, and the SSH key for user core.
// - host-<id>.ign: the host's role pointer plus /etc/hostname and, when the infra-env has static
//   networking for one of the host's MACs, that host's NetworkManager keyfiles (interfaces
//   renamed from the logical names to the host's real NIC names by MAC), plus the user's
//   per-host ignition_config_overrides merged in.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_IGNITION_CONFIGS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_IGNITION_CONFIGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/infra_env.pb.h"

namespace assisted::orchestrator::install {

// "master" or "worker": the Machine Config Server pool a host of `role` boots from (bootstrap and
// arbiter hosts are masters for the MCS).
absl::string_view PointerRole(types::v1::HostRole role);

// Where hosts of `pool` fetch their configuration: <ignition_endpoint.url>/<pool> when the user
// named it, else https://api-int.<name>.<domain>:22623/config/<pool>.
std::string MachineConfigUrl(const types::v1::Cluster& cluster, absl::string_view pool);

// The pointer config of `pool` ("master" or "worker").
absl::StatusOr<std::string> PointerIgnition(const types::v1::Cluster& cluster,
                                            absl::string_view pool, absl::string_view root_ca_pem);

// A file the bootstrap host gets as it is (the user's manifests, at their ManifestBootstrapPath).
struct BootstrapFile {
  std::string path;
  std::string contents;
};

struct BootstrapInputs {
  absl::string_view root_ca_pem;
  absl::string_view pull_secret;
  absl::string_view install_config;
  absl::string_view kubeconfig;
  std::vector<BootstrapFile> extra_files;
};

absl::StatusOr<std::string> BootstrapIgnition(const types::v1::Cluster& cluster,
                                              const BootstrapInputs& inputs);

// The per-host config. `infra_env` may be null (no static networking). INVALID_ARGUMENT naming
// the field for a host without a role or hostname, bad static networking YAML, or a user
// override that is not an Ignition config.
absl::StatusOr<std::string> HostIgnition(const types::v1::Cluster& cluster,
                                         const types::v1::Host& host,
                                         const types::v1::InfraEnv* infra_env,
                                         absl::string_view root_ca_pem);

// The artifact name of a host's config: "host-<id>.ign".
std::string HostIgnitionName(absl::string_view host_id);

}  // namespace assisted::orchestrator::install

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_IGNITION_CONFIGS_H_
