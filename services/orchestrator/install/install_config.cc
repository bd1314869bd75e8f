#include "services/orchestrator/install/install_config.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/enums/spelling.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"
#include "yaml-cpp/yaml.h"

namespace assisted::orchestrator::install {
namespace {

using types::v1::Cluster;

absl::Status Invalid(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", problem));
}

// Keys the service owns: overriding them would make the document disagree with the cluster
// record (and with the kubeconfig and Ignition generated from it).
constexpr absl::string_view kForbiddenOverrides[] = {"apiVersion", "baseDomain", "metadata",
                                                     "pullSecret"};
// The top-level keys of the installer's InstallConfig (types/installconfig.go).
constexpr absl::string_view kInstallConfigKeys[] = {"apiVersion",
                                                    "kind",
                                                    "metadata",
                                                    "additionalTrustBundle",
                                                    "additionalTrustBundlePolicy",
                                                    "sshKey",
                                                    "baseDomain",
                                                    "networking",
                                                    "controlPlane",
                                                    "arbiter",
                                                    "compute",
                                                    "platform",
                                                    "imageContentSources",
                                                    "imageDigestSources",
                                                    "publish",
                                                    "operatorPublishingStrategy",
                                                    "fips",
                                                    "cpuPartitioningMode",
                                                    "pullSecret",
                                                    "proxy",
                                                    "bootstrapInPlace",
                                                    "capabilities",
                                                    "featureSet",
                                                    "featureGates",
                                                    "credentialsMode",
                                                    "bootMode"};

// install-config's networkType is the REST spelling ("OVNKubernetes"); unset means the default.
const std::string& NetworkTypeName(types::v1::NetworkType type) {
  const std::string& name = enums::EnumText(type);
  return name.empty() ? enums::EnumText(types::v1::NETWORK_TYPE_OVN_KUBERNETES) : name;
}

// The baremetal platform (with VIPs) applies to multi-node clusters whose network the cluster
// manages; everything else installs with platform none.
bool UsesBaremetalPlatform(const Cluster& cluster) {
  if (IsSingleNode(cluster) || cluster.user_managed_networking()) return false;
  const types::v1::PlatformType type = cluster.platform().type();
  return type == types::v1::PLATFORM_TYPE_BAREMETAL || type == types::v1::PLATFORM_TYPE_UNSPECIFIED;
}

YAML::Node FromJson(const nlohmann::json& value) {
  YAML::Node node;
  if (value.is_object()) {
    node = YAML::Node(YAML::NodeType::Map);
    for (auto it = value.begin(); it != value.end(); ++it) node[it.key()] = FromJson(it.value());
  } else if (value.is_array()) {
    node = YAML::Node(YAML::NodeType::Sequence);
    for (const nlohmann::json& item : value) node.push_back(FromJson(item));
  } else if (value.is_string()) {
    node = value.get<std::string>();
  } else if (value.is_boolean()) {
    node = value.get<bool>();
  } else if (value.is_number_integer()) {
    node = value.get<int64_t>();
  } else if (value.is_number()) {
    node = value.get<double>();
  }  // null stays a null node
  return node;
}

// Deep merge: maps merge key by key, anything else replaces.
void Merge(YAML::Node target, const YAML::Node& overrides) {
  for (auto it = overrides.begin(); it != overrides.end(); ++it) {
    const std::string key = it->first.as<std::string>();
    YAML::Node existing = target[key];
    if (existing.IsMap() && it->second.IsMap()) {
      Merge(existing, it->second);
    } else {
      target[key] = it->second;
    }
  }
}

absl::Status ApplyOverrides(const std::string& text, YAML::Node& document) {
  if (text.empty()) return absl::OkStatus();
  RETURN_IF_ERROR(CheckInstallConfigOverrides(text));
  Merge(document, FromJson(nlohmann::json::parse(text)));
  return absl::OkStatus();
}

absl::Status CheckInput(const InstallConfigInput& input) {
  const Cluster& cluster = input.cluster;
  if (cluster.name().empty()) return Invalid("cluster.name", "required");
  if (cluster.base_dns_domain().empty()) return Invalid("cluster.base_dns_domain", "required");
  if (input.pull_secret.empty()) return Invalid("pull_secret", "required");
  if (!nlohmann::json::accept(input.pull_secret)) return Invalid("pull_secret", "not valid JSON");
  if (cluster.cluster_networks().empty()) return Invalid("cluster.cluster_networks", "required");
  if (cluster.service_networks().empty()) return Invalid("cluster.service_networks", "required");
  if (input.masters < 1) return Invalid("masters", "at least one control-plane node is needed");
  if (input.workers < 0) return Invalid("workers", "must not be negative");
  if (UsesBaremetalPlatform(cluster)) {
    if (cluster.api_vips().empty()) return Invalid("cluster.api_vips", "required on baremetal");
    if (cluster.ingress_vips().empty()) {
      return Invalid("cluster.ingress_vips", "required on baremetal");
    }
  }
  for (size_t i = 0; i < input.mirrors.size(); ++i) {
    if (input.mirrors[i].source.empty() || input.mirrors[i].mirrors.empty()) {
      return Invalid(absl::StrCat("mirrors[", i, "]"), "needs a source and at least one mirror");
    }
  }
  return absl::OkStatus();
}

YAML::Node Pool(const char* name, int replicas) {
  YAML::Node pool;
  pool["name"] = name;
  pool["replicas"] = replicas;
  pool["hyperthreading"] = "Enabled";
  return pool;
}

YAML::Node Networking(const Cluster& cluster) {
  YAML::Node networking;
  networking["networkType"] = NetworkTypeName(cluster.network_type());
  for (const types::v1::ClusterNetwork& network : cluster.cluster_networks()) {
    YAML::Node entry;
    entry["cidr"] = network.cidr();
    entry["hostPrefix"] = network.host_prefix();
    networking["clusterNetwork"].push_back(entry);
  }
  for (const types::v1::MachineNetwork& network : cluster.machine_networks()) {
    YAML::Node entry;
    entry["cidr"] = network.cidr();
    networking["machineNetwork"].push_back(entry);
  }
  for (const types::v1::ServiceNetwork& network : cluster.service_networks()) {
    networking["serviceNetwork"].push_back(network.cidr());
  }
  return networking;
}

YAML::Node Platform(const Cluster& cluster) {
  YAML::Node platform;
  if (!UsesBaremetalPlatform(cluster)) {
    platform["none"] = YAML::Node(YAML::NodeType::Map);
    return platform;
  }
  YAML::Node baremetal;
  for (const types::v1::Vip& vip : cluster.api_vips()) baremetal["apiVIPs"].push_back(vip.ip());
  for (const types::v1::Vip& vip : cluster.ingress_vips()) {
    baremetal["ingressVIPs"].push_back(vip.ip());
  }
  platform["baremetal"] = baremetal;
  return platform;
}

}  // namespace

bool IsSingleNode(const Cluster& cluster) {
  return cluster.control_plane_count() == 1 ||
         cluster.high_availability_mode() == types::v1::HIGH_AVAILABILITY_MODE_NONE;
}

std::string ClusterDomain(const Cluster& cluster) {
  return absl::StrCat(cluster.name(), ".", cluster.base_dns_domain());
}

std::string ComputeNoProxy(const Cluster& cluster) {
  std::vector<std::string> entries;
  std::set<std::string> seen;
  auto add = [&](absl::string_view entry) {
    entry = absl::StripAsciiWhitespace(entry);
    if (!entry.empty() && seen.insert(std::string(entry)).second) entries.emplace_back(entry);
  };
  for (absl::string_view entry : absl::StrSplit(cluster.proxy().no_proxy(), ',')) add(entry);
  if (seen.count("*")) return "*";
  for (const types::v1::MachineNetwork& n : cluster.machine_networks()) add(n.cidr());
  for (const types::v1::ClusterNetwork& n : cluster.cluster_networks()) add(n.cidr());
  for (const types::v1::ServiceNetwork& n : cluster.service_networks()) add(n.cidr());
  add(absl::StrCat(".", ClusterDomain(cluster)));
  return absl::StrJoin(entries, ",");
}

absl::Status CheckInstallConfigOverrides(const std::string& text) {
  if (text.empty()) return absl::OkStatus();
  const nlohmann::json overrides = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (overrides.is_discarded()) return Invalid("install_config_overrides", "not valid JSON");
  if (!overrides.is_object()) return Invalid("install_config_overrides", "must be a JSON object");
  for (const auto& [key, value] : overrides.items()) {
    if (std::find(std::begin(kForbiddenOverrides), std::end(kForbiddenOverrides), key) !=
        std::end(kForbiddenOverrides)) {
      return Invalid("install_config_overrides",
                     absl::StrCat("\"", key, "\" may not be overridden"));
    }
    if (std::find(std::begin(kInstallConfigKeys), std::end(kInstallConfigKeys), key) ==
        std::end(kInstallConfigKeys)) {
      return Invalid("install_config_overrides",
                     absl::StrCat("\"", key, "\" is not an install-config key"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> BuildInstallConfig(const InstallConfigInput& input) {
  RETURN_IF_ERROR(CheckInput(input));
  const Cluster& cluster = input.cluster;
  YAML::Node document;
  document["apiVersion"] = "v1";
  document["baseDomain"] = cluster.base_dns_domain();
  document["metadata"]["name"] = cluster.name();
  document["controlPlane"] = Pool("master", input.masters);
  document["compute"].push_back(Pool("worker", input.workers));
  document["networking"] = Networking(cluster);
  document["platform"] = Platform(cluster);
  document["pullSecret"] = input.pull_secret;
  if (!cluster.ssh_public_key().empty()) {
    document["sshKey"] = std::string(absl::StripAsciiWhitespace(cluster.ssh_public_key()));
  }
  const types::v1::Proxy& proxy = cluster.proxy();
  if (!proxy.http_proxy().empty() || !proxy.https_proxy().empty()) {
    if (!proxy.http_proxy().empty()) document["proxy"]["httpProxy"] = proxy.http_proxy();
    if (!proxy.https_proxy().empty()) document["proxy"]["httpsProxy"] = proxy.https_proxy();
    document["proxy"]["noProxy"] = ComputeNoProxy(cluster);
  }
  for (const MirrorSource& mirror : input.mirrors) {
    YAML::Node entry;
    entry["source"] = mirror.source;
    for (const std::string& m : mirror.mirrors) entry["mirrors"].push_back(m);
    document["imageContentSources"].push_back(entry);
  }
  if (!input.additional_trust_bundle.empty()) {
    document["additionalTrustBundle"] = input.additional_trust_bundle;
  }
  RETURN_IF_ERROR(ApplyOverrides(cluster.install_config_overrides(), document));
  YAML::Emitter out;
  out << document;
  if (!out.good()) return absl::InternalError(absl::StrCat("yaml: ", out.GetLastError()));
  return absl::StrCat(out.c_str(), "\n");
}

}  // namespace assisted::orchestrator::install
