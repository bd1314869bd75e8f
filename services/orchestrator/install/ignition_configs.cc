#include "services/orchestrator/install/ignition_configs.h"

#include <map>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/ignition/config_builder.h"
#include "lib/nmstate/keyfile.h"
#include "lib/nmstate/network_state.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"
#include "services/orchestrator/core/cluster_facts.h"
#include "services/orchestrator/core/inventory_util.h"
#include "services/orchestrator/install/install_config.h"

namespace assisted::orchestrator::install {
namespace {

constexpr char kKeyfileDir[] = "/etc/NetworkManager/system-connections";

absl::Status Invalid(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", problem));
}

ignition::ConfigBuilder Pointer(const types::v1::Cluster& cluster, absl::string_view pool,
                                absl::string_view root_ca_pem) {
  ignition::ConfigBuilder builder;
  builder.AddMergeConfig({.source = MachineConfigUrl(cluster, pool)});
  builder.AddCertificateAuthority(ignition::InlineResource(root_ca_pem));
  return builder;
}

// logical NIC name -> the host's NIC name, for the static network entry whose MACs the host has;
// nullopt when none matches.
std::optional<std::pair<int, std::map<std::string, std::string>>> MatchStaticNetwork(
    const types::v1::InfraEnv& infra_env, const types::v1::Host& host) {
  std::map<std::string, std::string> nic_by_mac;
  for (const types::v1::Interface& nic : host.inventory().interfaces()) {
    if (std::optional<std::string> mac = nmstate::CanonicalMac(nic.mac_address())) {
      nic_by_mac[*mac] = nic.name();
    }
  }
  for (int i = 0; i < infra_env.static_network_config_size(); ++i) {
    const types::v1::HostStaticNetworkConfig& config = infra_env.static_network_config(i);
    std::map<std::string, std::string> names;
    for (const types::v1::MacInterfaceMapEntry& entry : config.mac_interface_map()) {
      std::optional<std::string> mac = nmstate::CanonicalMac(entry.mac_address());
      if (!mac) continue;
      if (auto it = nic_by_mac.find(*mac); it != nic_by_mac.end()) {
        names[entry.logical_nic_name()] =
            it->second.empty() ? entry.logical_nic_name() : it->second;
      }
    }
    if (!names.empty()) return std::make_pair(i, std::move(names));
  }
  return std::nullopt;
}

void Rename(std::string& name, const std::map<std::string, std::string>& names) {
  if (auto it = names.find(name); it != names.end()) name = it->second;
}

absl::Status AddStaticNetwork(const types::v1::InfraEnv& infra_env, const types::v1::Host& host,
                              ignition::ConfigBuilder& builder) {
  auto match = MatchStaticNetwork(infra_env, host);
  if (!match) return absl::OkStatus();
  const std::string field =
      absl::StrCat("infra_env.static_network_config[", match->first, "].network_yaml");
  absl::StatusOr<nmstate::NetworkState> state =
      nmstate::ParseNetworkState(infra_env.static_network_config(match->first).network_yaml());
  if (!state.ok()) return Invalid(field, state.status().message());
  for (nmstate::Interface& nic : state->interfaces) {
    Rename(nic.name, match->second);
    Rename(nic.vlan_base_iface, match->second);
    for (std::string& port : nic.ports) Rename(port, match->second);
  }
  for (nmstate::Route& route : state->routes) Rename(route.next_hop_interface, match->second);
  for (const nmstate::Keyfile& keyfile : nmstate::ToKeyfiles(*state)) {
    builder.AddFile({.path = absl::StrCat(kKeyfileDir, "/", keyfile.file_name),
                     .mode = 0600,
                     .contents = keyfile.contents});
  }
  return absl::OkStatus();
}

absl::Status AddOverride(const types::v1::Host& host, ignition::ConfigBuilder& builder) {
  const std::string& text = host.ignition_config_overrides();
  if (text.empty()) return absl::OkStatus();
  RETURN_IF_ERROR(ignition::CheckMergeConfig(text, "host.ignition_config_overrides"));
  builder.AddMergeConfig(ignition::InlineResource(text));
  return absl::OkStatus();
}

}  // namespace

absl::string_view PointerRole(types::v1::HostRole role) {
  return role == types::v1::HOST_ROLE_WORKER ? "worker" : "master";
}

std::string MachineConfigUrl(const types::v1::Cluster& cluster, absl::string_view pool) {
  if (std::optional<std::string> url = core::UserIgnitionEndpointUrl(cluster, pool)) return *url;
  return absl::StrCat("https://api-int.", ClusterDomain(cluster), ":22623/config/", pool);
}

absl::StatusOr<std::string> PointerIgnition(const types::v1::Cluster& cluster,
                                            absl::string_view pool, absl::string_view root_ca_pem) {
  return Pointer(cluster, pool, root_ca_pem).Build();
}

absl::StatusOr<std::string> BootstrapIgnition(const types::v1::Cluster& cluster,
                                              const BootstrapInputs& inputs) {
  ignition::ConfigBuilder builder = Pointer(cluster, "master", inputs.root_ca_pem);
  builder.AddFile({.path = "/root/.docker/config.json",
                   .mode = 0600,
                   .contents = std::string(inputs.pull_secret)});
  builder.AddFile({.path = "/opt/openshift/install-config.yaml",
                   .mode = 0600,
                   .contents = std::string(inputs.install_config)});
  builder.AddFile({.path = "/opt/openshift/auth/kubeconfig",
                   .mode = 0600,
                   .contents = std::string(inputs.kubeconfig)});
  builder.AddFile({.path = "/opt/openshift/tls/root-ca.crt",
                   .mode = 0644,
                   .contents = std::string(inputs.root_ca_pem)});
  for (const BootstrapFile& file : inputs.extra_files) {
    builder.AddFile({.path = file.path, .mode = 0644, .contents = file.contents});
  }
  const std::string key(absl::StripAsciiWhitespace(cluster.ssh_public_key()));
  if (!key.empty()) builder.AddUser({.name = "core", .ssh_authorized_keys = {key}});
  return builder.Build();
}

absl::StatusOr<std::string> HostIgnition(const types::v1::Cluster& cluster,
                                         const types::v1::Host& host,
                                         const types::v1::InfraEnv* infra_env,
                                         absl::string_view root_ca_pem) {
  if (host.role() != types::v1::HOST_ROLE_MASTER && host.role() != types::v1::HOST_ROLE_WORKER &&
      host.role() != types::v1::HOST_ROLE_ARBITER &&
      host.role() != types::v1::HOST_ROLE_BOOTSTRAP) {
    return Invalid("host.role", "must be master, arbiter or worker before installing");
  }
  const std::string hostname = core::EffectiveHostname(host);
  if (hostname.empty()) return Invalid("host.requested_hostname", "the host has no hostname");
  ignition::ConfigBuilder builder = Pointer(cluster, PointerRole(host.role()), root_ca_pem);
  builder.AddFile({.path = "/etc/hostname", .mode = 0644, .contents = hostname + "\n"});
  if (infra_env != nullptr) RETURN_IF_ERROR(AddStaticNetwork(*infra_env, host, builder));
  RETURN_IF_ERROR(AddOverride(host, builder));
  return builder.Build();
}

std::string HostIgnitionName(absl::string_view host_id) {
  return absl::StrCat("host-", host_id, ".ign");
}

}  // namespace assisted::orchestrator::install
