#include "services/gateway/cli/agent/cluster_definition.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/containers/image_reference.h"
#include "lib/containers/registries_conf.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/agent/yaml_reader.h"

namespace assisted::cli::agent {
namespace {

constexpr int64_t kMaxComputeReplicas = 1000;

// RFC 1123 label: what a cluster name and each part of a host name may be.
bool IsDnsLabel(absl::string_view text) {
  return !text.empty() && text.size() <= 63 && text.front() != '-' && text.back() != '-' &&
         std::all_of(text.begin(), text.end(), [](char c) {
           return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '-';
         });
}

bool IsDnsName(absl::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  for (absl::string_view label : absl::StrSplit(text, '.')) {
    if (!IsDnsLabel(label)) return false;
  }
  return true;
}

// A text value parsed by `parse` (IpAddress::Parse, Cidr::Parse), whose message is recorded.
template <typename T>
std::optional<T> ReadParsed(const YamlNode& node,
                            absl::StatusOr<T> (*parse)(absl::string_view text)) {
  std::optional<std::string> text = node.Text();
  if (!text) return std::nullopt;
  absl::StatusOr<T> value = parse(*text);
  if (!value.ok()) {
    node.Error(value.status().message());
    return std::nullopt;
  }
  return *std::move(value);
}

std::optional<net::IpAddress> ReadIp(const YamlNode& node) {
  return ReadParsed<net::IpAddress>(node, &net::IpAddress::Parse);
}

std::optional<net::Cidr> ReadCidr(const YamlNode& node) {
  return ReadParsed<net::Cidr>(node, &net::Cidr::Parse);
}

// A text field that must be one of `allowed` when given.
std::optional<std::string> ReadChoice(const YamlNode& node,
                                      std::initializer_list<absl::string_view> allowed) {
  std::optional<std::string> text = node.Text();
  if (!text) return std::nullopt;
  if (std::find(allowed.begin(), allowed.end(), *text) == allowed.end()) {
    node.Error(absl::StrCat(Quoted(*text), " is not one of ", absl::StrJoin(allowed, ", ")));
    return std::nullopt;
  }
  return text;
}

void Require(const YamlNode& node, absl::string_view what = "is required") {
  if (!node.present()) node.Error(what);
}

// ---- install-config.yaml ----

// The cluster's name (a DNS label) and base domain (a DNS name), both required.
void ReadClusterName(const YamlNode& name, InstallConfig& config) {
  Require(name);
  if (std::optional<std::string> text = name.Text()) {
    if (!IsDnsLabel(*text)) {
      name.Error(absl::StrCat(Quoted(*text),
                              " is not a DNS label (1 to 63 of a-z 0-9 -, no - at either end)"));
    }
    config.cluster_name = *text;
  }
}

void ReadBaseDomain(const YamlNode& base_domain, InstallConfig& config) {
  Require(base_domain);
  if (std::optional<std::string> text = base_domain.Text()) {
    if (!IsDnsName(*text)) base_domain.Error(absl::StrCat(Quoted(*text), " is not a DNS name"));
    config.base_domain = *text;
  }
}

// A machine pool (controlPlane, compute[i]); returns its replicas when given.
std::optional<int64_t> ReadMachinePool(const YamlNode& pool, absl::string_view expected_name,
                                       int64_t min_replicas, int64_t max_replicas) {
  if (!pool.ExpectMap({"name", "replicas", "architecture", "hyperthreading"})) return std::nullopt;
  if (std::optional<std::string> name = pool.Field("name").Text(); name && *name != expected_name) {
    pool.Field("name").Error(absl::StrCat(Quoted(*name), " must be ", expected_name));
  }
  // The ISO made is x86_64; hosts of another architecture could not boot it.
  ReadChoice(pool.Field("architecture"), {"amd64", "x86_64"});
  ReadChoice(pool.Field("hyperthreading"), {"Enabled", "Disabled"});
  return pool.Field("replicas").Integer(min_replicas, max_replicas);
}

void ReadNetworking(const YamlNode& networking, InstallConfig& config) {
  Require(networking, "is required (machineNetwork at least)");
  if (!networking.present() || !networking.ExpectMap({"clusterNetwork", "machineNetwork",
                                                      "serviceNetwork", "networkType"})) {
    return;
  }
  if (std::optional<std::string> type =
          ReadChoice(networking.Field("networkType"), {"OVNKubernetes", "OpenShiftSDN"})) {
    config.network_type = *type;
  }
  // (block, path) of every network, for the overlap check.
  std::vector<std::pair<net::Cidr, std::string>> blocks;
  const YamlNode cluster_networks = networking.Field("clusterNetwork");
  for (const YamlNode& item : cluster_networks.Items()) {
    if (!item.ExpectMap({"cidr", "hostPrefix"})) continue;
    Require(item.Field("cidr"));
    Require(item.Field("hostPrefix"));
    std::optional<net::Cidr> cidr = ReadCidr(item.Field("cidr"));
    std::optional<int64_t> host_prefix = item.Field("hostPrefix").Integer(1, 128);
    if (!cidr || !host_prefix) continue;
    const int bits = cidr->family() == net::Family::kIpv4 ? 32 : 128;
    if (*host_prefix <= cidr->prefix_length() || *host_prefix > bits) {
      item.Field("hostPrefix")
          .Error(absl::StrCat(*host_prefix, " must be longer than the block's prefix (",
                              cidr->prefix_length(), ") and at most ", bits));
      continue;
    }
    config.cluster_networks.push_back({*cidr, static_cast<int>(*host_prefix)});
    blocks.emplace_back(*cidr, item.Field("cidr").path());
  }
  const YamlNode machine_networks = networking.Field("machineNetwork");
  Require(machine_networks, "is required: the hosts' network (rendezvousIP and VIPs lie in it)");
  for (const YamlNode& item : machine_networks.Items()) {
    if (!item.ExpectMap({"cidr"})) continue;
    Require(item.Field("cidr"));
    if (std::optional<net::Cidr> cidr = ReadCidr(item.Field("cidr"))) {
      config.machine_networks.push_back(*cidr);
      blocks.emplace_back(*cidr, item.Field("cidr").path());
    }
  }
  if (machine_networks.present() && machine_networks.Items().empty()) {
    machine_networks.Error("must list at least one network");
  }
  for (const YamlNode& item : networking.Field("serviceNetwork").Items()) {
    if (std::optional<net::Cidr> cidr = ReadCidr(item)) {
      config.service_networks.push_back(*cidr);
      blocks.emplace_back(*cidr, item.path());
    }
  }
  // openshift-install's defaults.
  if (!cluster_networks.present()) {
    config.cluster_networks.push_back({*net::Cidr::Parse("10.128.0.0/14"), 23});
  }
  if (!networking.Field("serviceNetwork").present()) {
    config.service_networks.push_back(*net::Cidr::Parse("172.30.0.0/16"));
  }
  for (size_t i = 0; i < blocks.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (blocks[i].first.Overlaps(blocks[j].first)) {
        networking.ErrorAt(blocks[i].second,
                           absl::StrCat(blocks[i].first.ToString(), " overlaps ", blocks[j].second,
                                        " (", blocks[j].first.ToString(), ")"));
      }
    }
  }
}

// apiVIP/apiVIPs (or ingress…): one spelling, at most two addresses (one per family).
std::vector<Vip> ReadVips(const YamlNode& baremetal, absl::string_view single,
                          absl::string_view plural) {
  std::vector<Vip> vips;
  const YamlNode one = baremetal.Field(single);
  const YamlNode many = baremetal.Field(plural);
  if (one.present() && many.present()) {
    baremetal.Error(absl::StrCat("give ", plural, " or ", single, ", not both"));
    return vips;
  }
  if (one.present()) {
    if (std::optional<net::IpAddress> ip = ReadIp(one)) vips.push_back({*ip, one.path()});
    return vips;
  }
  const std::vector<YamlNode> items = many.Items();
  if (items.size() > 2) many.Error("lists more than two addresses (one IPv4, one IPv6)");
  for (const YamlNode& item : items) {
    if (std::optional<net::IpAddress> ip = ReadIp(item)) vips.push_back({*ip, item.path()});
  }
  return vips;
}

// A required MAC address, canonical, not yet owned by another host (`owners`: MAC -> host path).
std::optional<std::string> ReadMac(const YamlNode& node, const std::string& host_path,
                                   std::map<std::string, std::string>& owners) {
  Require(node);
  std::optional<std::string> text = node.Text();
  if (!text) return std::nullopt;
  std::optional<std::string> canonical = nmstate::CanonicalMac(*text);
  if (!canonical) {
    node.Error(absl::StrCat(Quoted(*text), " is not a MAC address (AA:BB:CC:DD:EE:FF)"));
    return std::nullopt;
  }
  if (auto [it, fresh] = owners.emplace(*canonical, host_path); !fresh) {
    node.Error(absl::StrCat(*canonical, " is already a MAC of ", it->second,
                            " (MACs must be unique across hosts)"));
    return std::nullopt;
  }
  return canonical;
}

// install-config's own hosts (platform.baremetal.hosts), used when agent-config lists none.
std::vector<AgentHost> ReadPlatformHosts(const YamlNode& hosts) {
  std::vector<AgentHost> result;
  std::map<std::string, std::string> macs;
  for (const YamlNode& item : hosts.Items()) {
    if (!item.ExpectMap({"name", "role", "bootMACAddress"})) continue;
    AgentHost host{.file = kInstallConfigFile, .path = item.path()};
    if (std::optional<std::string> name = item.Field("name").Text()) host.hostname = *name;
    if (std::optional<std::string> role = ReadChoice(item.Field("role"), {"master", "worker"})) {
      host.role = *role;
    }
    if (std::optional<std::string> mac = ReadMac(item.Field("bootMACAddress"), item.path(), macs)) {
      host.interfaces.push_back({"boot", *mac});
    }
    result.push_back(std::move(host));
  }
  return result;
}

void ReadPlatform(const YamlNode& platform, InstallConfig& config,
                  std::vector<AgentHost>& platform_hosts) {
  Require(platform, "is required (baremetal or none)");
  if (!platform.present() || !platform.ExpectMap({"baremetal", "none"})) return;
  const bool baremetal = platform.Field("baremetal").present();
  const bool none = platform.Field("none").present();
  if (baremetal == none) {
    platform.Error("must name exactly one platform: baremetal or none");
    return;
  }
  if (none) {
    config.platform = "none";
    platform.Field("none").ExpectMap({});
    return;
  }
  config.platform = "baremetal";
  const YamlNode fields = platform.Field("baremetal");
  if (!fields.ExpectMap({"apiVIP", "apiVIPs", "ingressVIP", "ingressVIPs", "hosts"})) return;
  config.api_vips = ReadVips(fields, "apiVIP", "apiVIPs");
  config.ingress_vips = ReadVips(fields, "ingressVIP", "ingressVIPs");
  platform_hosts = ReadPlatformHosts(fields.Field("hosts"));
  if (!fields.Field("apiVIP").present() && !fields.Field("apiVIPs").present()) {
    fields.Field("apiVIPs").Error("is required on platform baremetal");
  }
  if (!fields.Field("ingressVIP").present() && !fields.Field("ingressVIPs").present()) {
    fields.Field("ingressVIPs").Error("is required on platform baremetal");
  }
}

// Each VIP inside a machine network, and no address used twice.
void CheckVips(const YamlNode& root, const InstallConfig& config) {
  std::map<net::IpAddress, std::string> seen;  // ip -> path
  for (const std::vector<Vip>* vips : {&config.api_vips, &config.ingress_vips}) {
    for (const Vip& vip : *vips) {
      const bool inside =
          std::any_of(config.machine_networks.begin(), config.machine_networks.end(),
                      [&](const net::Cidr& network) { return network.Contains(vip.ip); });
      if (!inside && !config.machine_networks.empty()) {
        root.ErrorAt(vip.path, absl::StrCat(vip.ip.ToString(), " is outside every machineNetwork"));
      }
      auto [it, fresh] = seen.emplace(vip.ip, vip.path);
      if (!fresh) {
        root.ErrorAt(vip.path, absl::StrCat(vip.ip.ToString(), " is already ", it->second));
      }
    }
  }
}

void ReadPullSecret(const YamlNode& node, InstallConfig& config) {
  Require(node, "is required (a JSON document with auths)");
  std::optional<std::string> text = node.Text();
  if (!text) return;
  const nlohmann::json parsed =
      nlohmann::json::parse(text->begin(), text->end(), nullptr, /*allow_exceptions=*/false);
  // Never quote the value: it is a secret.
  if (!parsed.is_object() || !parsed.contains("auths") || !parsed["auths"].is_object() ||
      parsed["auths"].empty()) {
    node.Error("must be a JSON object whose \"auths\" maps registries to credentials");
    return;
  }
  config.pull_secret = *text;
}

void ReadMirrors(const YamlNode& root, InstallConfig& config) {
  const YamlNode content = root.Field("imageContentSources");
  const YamlNode digest = root.Field("imageDigestSources");
  if (content.present() && digest.present()) {
    root.Error("give imageDigestSources or imageContentSources, not both");
    return;
  }
  const YamlNode& list = content.present() ? content : digest;
  config.mirror_key = content.present() ? "imageContentSources" : "imageDigestSources";
  for (const YamlNode& item : list.Items()) {
    if (!item.ExpectMap({"source", "mirrors"})) continue;
    ImageContentSource source;
    Require(item.Field("source"));
    if (std::optional<std::string> text = item.Field("source").Text()) source.source = *text;
    const std::vector<YamlNode> mirrors = item.Field("mirrors").Items();
    if (mirrors.empty()) item.Field("mirrors").Error("must list at least one mirror");
    for (const YamlNode& mirror : mirrors) {
      if (std::optional<std::string> text = mirror.Text()) {
        if (*text == source.source) mirror.Error("is the source itself");
        source.mirrors.push_back(*text);
      }
    }
    config.mirrors.push_back(std::move(source));
  }
}

// The hosts pull the release through the mirrors with the pull secret: each mirror's registry
// must have credentials there (the seed's mirror takes "dummy:dummy").
void CheckMirrorCredentials(const YamlNode& root, const InstallConfig& config) {
  if (config.pull_secret.empty()) return;
  const nlohmann::json auths = nlohmann::json::parse(config.pull_secret)["auths"];
  const YamlNode list = root.Field(config.mirror_key);
  const std::vector<YamlNode> items = list.Items();
  for (size_t i = 0; i < config.mirrors.size() && i < items.size(); ++i) {
    const std::vector<YamlNode> mirrors = items[i].Field("mirrors").Items();
    for (size_t j = 0; j < config.mirrors[i].mirrors.size() && j < mirrors.size(); ++j) {
      const std::string& mirror = config.mirrors[i].mirrors[j];
      bool covered = false;
      for (const auto& auth : auths.items()) {
        covered = covered || mirror == auth.key() ||
                  absl::StartsWith(mirror, absl::StrCat(auth.key(), "/"));
      }
      if (!covered) {
        const std::string registry(absl::string_view(mirror).substr(0, mirror.find('/')));
        mirrors[j].Error(
            absl::StrCat("registry ", Quoted(registry), " has no credentials in pullSecret.auths"));
      }
    }
  }
}

std::vector<AgentHost> ReadInstallConfig(const YamlNode& root, InstallConfig& config) {
  std::vector<AgentHost> platform_hosts;
  if (!root.ExpectMap({"apiVersion", "baseDomain", "metadata", "compute", "controlPlane",
                       "networking", "platform", "pullSecret", "sshKey", "imageContentSources",
                       "imageDigestSources", "additionalTrustBundle", "additionalTrustBundlePolicy",
                       "proxy"})) {
    return platform_hosts;
  }
  Require(root.Field("apiVersion"), "is required (v1)");
  ReadChoice(root.Field("apiVersion"), {"v1"});
  const YamlNode metadata = root.Field("metadata");
  Require(metadata, "is required (name)");
  if (metadata.present() && metadata.ExpectMap({"name"})) {
    ReadClusterName(metadata.Field("name"), config);
  }
  ReadBaseDomain(root.Field("baseDomain"), config);
  const YamlNode control_plane = root.Field("controlPlane");
  if (control_plane.present()) {
    if (std::optional<int64_t> replicas = ReadMachinePool(control_plane, "master", 1, 5)) {
      if (*replicas == 2) {
        control_plane.Field("replicas").Error("must be 1, 3, 4 or 5 (2 cannot keep etcd quorum)");
      }
      config.control_plane_replicas = *replicas;
    }
  }
  const std::vector<YamlNode> compute = root.Field("compute").Items();
  if (compute.size() > 1) root.Field("compute").Error("lists more than one pool (worker)");
  if (!compute.empty()) {
    if (std::optional<int64_t> replicas =
            ReadMachinePool(compute[0], "worker", 0, kMaxComputeReplicas)) {
      config.compute_replicas = *replicas;
    }
  }
  ReadNetworking(root.Field("networking"), config);
  ReadPlatform(root.Field("platform"), config, platform_hosts);
  ReadPullSecret(root.Field("pullSecret"), config);
  if (std::optional<std::string> key = root.Field("sshKey").Text()) config.ssh_key = *key;
  if (std::optional<std::string> bundle = root.Field("additionalTrustBundle").Text()) {
    config.additional_trust_bundle = *bundle;
  }
  const YamlNode policy = root.Field("additionalTrustBundlePolicy");
  if (ReadChoice(policy, {"Proxyonly", "Always"}) && config.additional_trust_bundle.empty()) {
    policy.Error("is given without additionalTrustBundle");
  }
  ReadMirrors(root, config);
  CheckMirrorCredentials(root, config);
  const YamlNode proxy = root.Field("proxy");
  if (proxy.present() && proxy.ExpectMap({"httpProxy", "httpsProxy", "noProxy"})) {
    config.http_proxy = proxy.Field("httpProxy").Text().value_or("");
    config.https_proxy = proxy.Field("httpsProxy").Text().value_or("");
    config.no_proxy = proxy.Field("noProxy").Text().value_or("");
  }

  // Single node OpenShift (the reference's rules for agent installs).
  if (config.control_plane_replicas == 1) {
    if (config.compute_replicas != 0) {
      compute[0].Field("replicas").Error("must be 0 when controlPlane.replicas is 1");
    }
    if (config.platform == "baremetal") {
      root.Field("platform").Error("must be none when controlPlane.replicas is 1");
    }
    if (config.network_type != "OVNKubernetes") {
      root.Field("networking")
          .Field("networkType")
          .Error("must be OVNKubernetes when controlPlane.replicas is 1");
    }
  }
  CheckVips(root, config);
  return platform_hosts;
}

// ---- agent-config.yaml ----

std::optional<RootDeviceHints> ReadRootDeviceHints(const YamlNode& node) {
  if (!node.present()) return std::nullopt;
  if (!node.ExpectMap({"deviceName", "hctl", "model", "vendor", "serialNumber", "minSizeGigabytes",
                       "wwn", "rotational", "wwnWithExtension", "wwnVendorExtension"})) {
    return std::nullopt;
  }
  for (absl::string_view key : {"wwnWithExtension", "wwnVendorExtension"}) {
    if (node.Field(key).present()) {
      node.Field(key).Error("is not supported by the agent-based installer (use wwn)");
    }
  }
  RootDeviceHints hints;
  const YamlNode device = node.Field("deviceName");
  if (std::optional<std::string> text = device.Text()) {
    const bool valid =
        absl::StartsWith(*text, "/dev/") && text->size() > 5 &&
        std::none_of(text->begin(), text->end(), [](char c) { return c <= ' ' || c > '~'; });
    if (!valid) device.Error(absl::StrCat(Quoted(*text), " is not a /dev/ path"));
    hints.device_name = *text;
  }
  const YamlNode hctl = node.Field("hctl");
  if (std::optional<std::string> text = hctl.Text()) {
    const std::vector<absl::string_view> parts = absl::StrSplit(*text, ':');
    const bool valid = parts.size() == 4 && std::all_of(parts.begin(), parts.end(), [](auto part) {
                         uint32_t number;
                         return !part.empty() && absl::SimpleAtoi(part, &number) &&
                                absl::ascii_isdigit(part.front());
                       });
    if (!valid) hctl.Error(absl::StrCat(Quoted(*text), " is not host:channel:target:lun"));
    hints.hctl = *text;
  }
  hints.model = node.Field("model").Text().value_or("");
  hints.vendor = node.Field("vendor").Text().value_or("");
  hints.serial_number = node.Field("serialNumber").Text().value_or("");
  hints.wwn = node.Field("wwn").Text().value_or("");
  hints.min_size_gigabytes = node.Field("minSizeGigabytes").Integer(1, 1 << 20);
  hints.rotational = node.Field("rotational").Boolean();
  return hints;
}

// "nmstate: interfaces[0].ipv4: problem" from lib/nmstate, placed under the host's
// networkConfig: "spec.hosts[0].networkConfig.interfaces[0].ipv4: problem".
void AddNmStateProblem(const YamlNode& network_config, absl::string_view message) {
  absl::string_view rest = absl::StripPrefix(message, "nmstate: ");
  const size_t colon = rest.find(": ");
  const absl::string_view where = colon == absl::string_view::npos ? "" : rest.substr(0, colon);
  const bool is_path = !where.empty() && !absl::StrContains(where, ' ');
  if (is_path) {
    network_config.ErrorAt(absl::StrCat(network_config.path(), ".", where), rest.substr(colon + 2));
  } else {
    network_config.Error(rest);
  }
}

// The host's NMState document: parsed by lib/nmstate, and every ethernet interface in it one
// of the host's interfaces[] (the MAC in interfaces[] is how a booted machine finds its
// profiles).
void ReadNetworkConfig(const YamlNode& node, AgentHost& host) {
  if (!node.present()) return;
  if (!node.ExpectMap({"interfaces", "dns-resolver", "routes"})) return;
  host.network_yaml = node.Dump();
  absl::StatusOr<nmstate::NetworkState> state = nmstate::ParseNetworkState(host.network_yaml);
  if (!state.ok()) {
    AddNmStateProblem(node, state.status().message());
    return;
  }
  for (const nmstate::Interface& interface : state->interfaces) {
    if (interface.type != nmstate::InterfaceType::kEthernet ||
        interface.state == nmstate::InterfaceState::kAbsent) {
      continue;
    }
    const auto listed =
        std::find_if(host.interfaces.begin(), host.interfaces.end(),
                     [&](const HostInterface& i) { return i.name == interface.name; });
    const std::string path = absl::StrCat(node.path(), ".", interface.yaml_path);
    if (listed == host.interfaces.end()) {
      node.ErrorAt(absl::StrCat(path, ".name"),
                   absl::StrCat(Quoted(interface.name), " is not listed in ", host.path,
                                ".interfaces, so no MAC address tells which NIC it is"));
    } else if (!interface.mac_address.empty() && interface.mac_address != listed->mac) {
      node.ErrorAt(absl::StrCat(path, ".mac-address"),
                   absl::StrCat(interface.mac_address, " differs from ", listed->mac, " given in ",
                                host.path, ".interfaces"));
    }
  }
  host.network = *std::move(state);
}

// Hosts, with MACs and host names unique across them.
std::vector<AgentHost> ReadAgentHosts(const YamlNode& hosts) {
  std::vector<AgentHost> result;
  std::map<std::string, std::string> mac_owner;       // MAC -> host path
  std::map<std::string, std::string> hostname_owner;  // hostname -> host path
  for (const YamlNode& item : hosts.Items()) {
    if (!item.ExpectMap({"hostname", "role", "interfaces", "rootDeviceHints", "networkConfig"})) {
      continue;
    }
    AgentHost host{.file = kAgentConfigFile, .path = item.path()};
    const YamlNode hostname = item.Field("hostname");
    if (std::optional<std::string> text = hostname.Text()) {
      if (!IsDnsName(*text)) {
        hostname.Error(absl::StrCat(Quoted(*text), " is not a host name (lower-case DNS name)"));
      } else if (auto [it, fresh] = hostname_owner.emplace(*text, item.path()); !fresh) {
        hostname.Error(absl::StrCat(Quoted(*text), " is already the host name of ", it->second));
      }
      host.hostname = *text;
    }
    if (std::optional<std::string> role = ReadChoice(item.Field("role"), {"master", "worker"})) {
      host.role = *role;
    }
    const YamlNode interfaces = item.Field("interfaces");
    Require(interfaces, "is required: at least one {name, macAddress}");
    std::set<std::string> names;
    for (const YamlNode& entry : interfaces.Items()) {
      if (!entry.ExpectMap({"name", "macAddress"})) continue;
      HostInterface interface;
      const YamlNode name = entry.Field("name");
      Require(name);
      if (std::optional<std::string> text = name.Text()) {
        if (!nmstate::IsInterfaceName(*text)) {
          name.Error(absl::StrCat(Quoted(*text),
                                  " is not an interface name (1 to 15 of A-Z a-z 0-9 . _ -)"));
        } else if (!names.insert(*text).second) {
          name.Error(absl::StrCat(Quoted(*text), " is listed twice"));
        }
        interface.name = *text;
      }
      if (std::optional<std::string> mac =
              ReadMac(entry.Field("macAddress"), item.path(), mac_owner)) {
        interface.mac = *mac;
      }
      host.interfaces.push_back(std::move(interface));
    }
    if (interfaces.present() && host.interfaces.empty()) {
      interfaces.Error("must list at least one {name, macAddress}");
    }
    host.root_device_hints = ReadRootDeviceHints(item.Field("rootDeviceHints"));
    ReadNetworkConfig(item.Field("networkConfig"), host);
    result.push_back(std::move(host));
  }
  return result;
}

void ReadAgentConfig(const YamlNode& root, AgentConfig& config, bool& rendezvous_given) {
  if (!root.ExpectMap({"apiVersion", "kind", "metadata", "spec", "rendezvousIP", "hosts",
                       "additionalNTPSources"})) {
    return;
  }
  Require(root.Field("kind"), "is required (AgentConfig)");
  ReadChoice(root.Field("kind"), {"AgentConfig"});
  const YamlNode spec = root.Field("spec");
  const YamlNode* fields = &root;
  if (spec.present()) {
    // The early form (seed 002): fields under spec:, no apiVersion or v1alpha1.
    ReadChoice(root.Field("apiVersion"), {"v1alpha1"});
    for (absl::string_view key : {"rendezvousIP", "hosts", "additionalNTPSources"}) {
      if (root.Field(key).present()) {
        root.Field(key).Error(absl::StrCat("must be under spec, as the other fields are"));
      }
    }
    if (!spec.ExpectMap({"rendezvousIP", "hosts", "additionalNTPSources"})) return;
    fields = &spec;
    config.prefix = "spec.";
  } else {
    Require(root.Field("apiVersion"), "is required (v1beta1)");
    ReadChoice(root.Field("apiVersion"), {"v1beta1", "v1alpha1"});
  }
  const YamlNode metadata = root.Field("metadata");
  if (metadata.present() && metadata.ExpectMap({"name", "namespace"})) {
    config.name = metadata.Field("name").Text().value_or("");
  }
  const YamlNode rendezvous = fields->Field("rendezvousIP");
  if (std::optional<net::IpAddress> ip = ReadIp(rendezvous)) {
    config.rendezvous_ip = *ip;
    rendezvous_given = true;
  }
  config.ntp_sources_origin =
      absl::StrCat(kAgentConfigFile, ": ", config.prefix, "additionalNTPSources");
  for (const YamlNode& source : fields->Field("additionalNTPSources").Items()) {
    if (std::optional<std::string> text = source.Text()) config.ntp_sources.push_back(*text);
  }
  config.hosts = ReadAgentHosts(fields->Field("hosts"));
}

// ---- both files ----

// Every static address of a host's NMState document.
std::vector<net::IpAddress> StaticIps(const AgentHost& host) {
  std::vector<net::IpAddress> ips;
  if (!host.network) return ips;
  for (const nmstate::Interface& interface : host.network->interfaces) {
    for (const nmstate::IpSettings* family : {&interface.ipv4, &interface.ipv6}) {
      if (!family->enabled) continue;
      for (const nmstate::Address& address : family->addresses) ips.push_back(address.ip);
    }
  }
  return ips;
}

class CrossChecker {
 public:
  CrossChecker(ClusterDefinition& definition, Problems& problems, bool rendezvous_given)
      : definition_(definition), problems_(problems), rendezvous_given_(rendezvous_given) {}

  void Run() {
    CheckStaticIps();
    CheckRendezvous();
    CheckRoles();
    CheckVipsAgainstHosts();
  }

 private:
  std::string RendezvousPath() const {
    return absl::StrCat(definition_.agent.prefix, "rendezvousIP");
  }

  // Static IPs unique across hosts; remembers whose each one is.
  void CheckStaticIps() {
    for (const AgentHost& host : definition_.agent.hosts) {
      for (const net::IpAddress& ip : StaticIps(host)) {
        auto [it, fresh] = ip_owner_.emplace(ip, &host);
        if (!fresh && it->second != &host) {
          problems_.Add(
              host.file, absl::StrCat(host.path, ".", host.network_field),
              absl::StrCat(ip.ToString(), " is already a static IP of ", it->second->path));
        }
      }
    }
  }

  void CheckRendezvous() {
    AgentConfig& agent = definition_.agent;
    if (!rendezvous_given_) {
      // As openshift-install: the first static IP of a master (or role-less) host.
      for (const AgentHost& host : agent.hosts) {
        const std::vector<net::IpAddress> ips = StaticIps(host);
        if (host.role != "worker" && !ips.empty()) {
          agent.rendezvous_ip = ips.front();
          return;
        }
      }
      problems_.Add(kAgentConfigFile, RendezvousPath(),
                    "is required when no master host has a static IP in its networkConfig");
      return;
    }
    const net::IpAddress& ip = agent.rendezvous_ip;
    const std::vector<net::Cidr>& networks = definition_.install.machine_networks;
    if (!networks.empty() && std::none_of(networks.begin(), networks.end(),
                                          [&](const net::Cidr& n) { return n.Contains(ip); })) {
      std::vector<std::string> blocks;
      for (const net::Cidr& network : networks) blocks.push_back(network.ToString());
      problems_.Add(
          kAgentConfigFile, RendezvousPath(),
          absl::StrCat(ip.ToString(), " is outside ", definition_.source.file, "'s ",
                       definition_.source.machine_network, " (", absl::StrJoin(blocks, ", "), ")"));
    }
    const auto owner = ip_owner_.find(ip);
    if (owner != ip_owner_.end() && owner->second->role == "worker") {
      problems_.Add(kAgentConfigFile, RendezvousPath(),
                    absl::StrCat(ip.ToString(), " is the IP of ", owner->second->path,
                                 ", a worker; node 0 must be a control-plane host"));
    }
    if (owner == ip_owner_.end() && !ip_owner_.empty()) {
      problems_.Add(kAgentConfigFile, RendezvousPath(),
                    absl::StrCat(ip.ToString(),
                                 " is no host's static IP, though hosts have static networking"));
    }
  }

  // Hosts per role within the replicas; role-less hosts fill masters first, then workers.
  void CheckRoles() {
    const InstallConfig& install = definition_.install;
    int64_t masters = 0, workers = 0;
    for (const AgentHost& host : definition_.agent.hosts) {
      if (host.role == "master" && ++masters == install.control_plane_replicas + 1) {
        problems_.Add(
            host.file, absl::StrCat(host.path, ".role"),
            absl::StrCat("is master, but ", definition_.source.file, "'s ",
                         definition_.source.control_plane_replicas, " is ",
                         install.control_plane_replicas, " and ", masters, " hosts are masters"));
      }
      if (host.role == "worker" && ++workers == install.compute_replicas + 1) {
        problems_.Add(
            host.file, absl::StrCat(host.path, ".role"),
            absl::StrCat("is worker, but ", definition_.source.file, "'s ",
                         definition_.source.compute_replicas, " is ", install.compute_replicas,
                         " and ", workers, " hosts are workers"));
      }
    }
    const int64_t listed = static_cast<int64_t>(definition_.agent.hosts.size());
    if (listed > definition_.expected_hosts()) {
      const AgentHost& first_extra = definition_.agent.hosts[definition_.expected_hosts()];
      problems_.Add(
          first_extra.file, first_extra.path,
          absl::StrCat(listed, " hosts are listed but ", definition_.source.file,
                       "'s replicas add up to ", definition_.expected_hosts(), " (",
                       definition_.source.control_plane_replicas, " ",
                       install.control_plane_replicas, " + ", definition_.source.compute_replicas,
                       " ", install.compute_replicas, ")"));
    }
  }

  void CheckVipsAgainstHosts() {
    const InstallConfig& install = definition_.install;
    for (const std::vector<Vip>* vips : {&install.api_vips, &install.ingress_vips}) {
      for (const Vip& vip : *vips) {
        if (const auto owner = ip_owner_.find(vip.ip); owner != ip_owner_.end()) {
          problems_.Add(definition_.source.file, vip.path,
                        absl::StrCat(vip.ip.ToString(), " is a static IP of ", owner->second->file,
                                     " ", owner->second->path, "; a VIP must be free"));
        } else if (vip.ip == definition_.agent.rendezvous_ip) {
          problems_.Add(definition_.source.file, vip.path,
                        absl::StrCat(vip.ip.ToString(), " is agent-config.yaml's rendezvousIP"));
        }
      }
    }
  }

  ClusterDefinition& definition_;
  Problems& problems_;
  bool rendezvous_given_;
  std::map<net::IpAddress, const AgentHost*> ip_owner_;
};

// ---- ZTP manifests (cluster-manifests/) ----

std::string ZtpFile(absl::string_view name) { return absl::StrCat(kZtpDir, name); }

// A resource: the fields of its kind only, apiVersion and kind as expected, metadata {name,
// namespace[, labels, annotations]}. Returns its name ("" when unreadable).
std::string ReadResourceHeader(const YamlNode& root, absl::string_view api_version,
                               absl::string_view kind,
                               std::initializer_list<absl::string_view> fields = {
                                   "apiVersion", "kind", "metadata", "spec"}) {
  if (!root.ExpectMap(fields)) return "";
  Require(root.Field("apiVersion"), absl::StrCat("is required (", api_version, ")"));
  ReadChoice(root.Field("apiVersion"), {api_version});
  Require(root.Field("kind"), absl::StrCat("is required (", kind, ")"));
  ReadChoice(root.Field("kind"), {kind});
  const YamlNode metadata = root.Field("metadata");
  Require(metadata, "is required (name)");
  if (!metadata.present() || !metadata.ExpectMap({"name", "namespace", "labels", "annotations"})) {
    return "";
  }
  Require(metadata.Field("name"));
  return metadata.Field("name").Text().value_or("");
}

// A reference {name[, namespace]} that must name `expected` (the resource of another file).
void ReadReference(const YamlNode& ref, const std::string& expected, absl::string_view what) {
  Require(ref, absl::StrCat("is required (the ", what, ")"));
  if (!ref.present() || !ref.ExpectMap({"name", "namespace", "group", "kind", "version"})) return;
  std::optional<std::string> name = ref.Field("name").Text();
  if (name && !expected.empty() && *name != expected) {
    ref.Field("name").Error(
        absl::StrCat(Quoted(*name), " is not the ", what, " (", Quoted(expected), ")"));
  }
}

// Fields a manifest may carry that this product does not read: refused by name.
void RefuseUnsupported(
    const YamlNode& spec,
    std::initializer_list<std::pair<absl::string_view, absl::string_view>> fields) {
  for (const auto& [key, why] : fields) {
    if (spec.Field(key).present()) {
      spec.Field(key).Error(absl::StrCat("is not supported by this agent-based installer: ", why));
    }
  }
}

struct ZtpNames {
  std::string cluster_deployment, agent_cluster_install, infra_env, pull_secret;
  std::map<std::string, std::string> selector;  // InfraEnv's nmStateConfigLabelSelector
};

void ReadClusterDeployment(const YamlNode& root, const ZtpNames& names, InstallConfig& config) {
  const YamlNode spec = root.Field("spec");
  Require(spec);
  if (!spec.present() || !spec.ExpectMap({"baseDomain", "clusterName", "clusterInstallRef",
                                          "platform", "pullSecretRef"})) {
    return;
  }
  ReadClusterName(spec.Field("clusterName"), config);
  ReadBaseDomain(spec.Field("baseDomain"), config);
  ReadReference(spec.Field("clusterInstallRef"), names.agent_cluster_install,
                "AgentClusterInstall of agent-cluster-install.yaml");
  ReadReference(spec.Field("pullSecretRef"), names.pull_secret, "Secret of pull-secret.yaml");
  const YamlNode platform = spec.Field("platform");
  if (platform.present() && platform.ExpectMap({"agentBareMetal"})) {
    // The agent selector picks agents in a hub; here every host booted from the ISO is taken.
    platform.Field("agentBareMetal").ExpectMap({"agentSelector"});
  }
}

void ReadAgentClusterInstall(const YamlNode& root, const ZtpNames& names, InstallConfig& config) {
  const YamlNode spec = root.Field("spec");
  Require(spec);
  if (!spec.present()) return;
  RefuseUnsupported(
      spec, {{"imageSetRef",
              "node 0 installs the release its live image carries (there is no ClusterImageSet)"},
             {"manifestsConfigMapRef", "extra manifests are not applied"},
             {"ignitionEndpoint", "the hosts' Ignition comes from node 0"},
             {"holdInstallation", "node 0 starts the install once every host is ready"}});
  if (!spec.ExpectMap({"clusterDeploymentRef", "networking", "provisionRequirements", "apiVIP",
                       "apiVIPs", "ingressVIP", "ingressVIPs", "sshPublicKey", "platformType",
                       "imageSetRef", "manifestsConfigMapRef", "ignitionEndpoint",
                       "holdInstallation"})) {
    return;
  }
  ReadReference(spec.Field("clusterDeploymentRef"), names.cluster_deployment,
                "ClusterDeployment of cluster-deployment.yaml");
  const YamlNode requirements = spec.Field("provisionRequirements");
  Require(requirements, "is required (controlPlaneAgents)");
  if (requirements.present() && requirements.ExpectMap({"controlPlaneAgents", "workerAgents"})) {
    Require(requirements.Field("controlPlaneAgents"));
    if (std::optional<int64_t> masters = requirements.Field("controlPlaneAgents").Integer(1, 5)) {
      if (*masters == 2) {
        requirements.Field("controlPlaneAgents")
            .Error("must be 1, 3, 4 or 5 (2 cannot keep etcd quorum)");
      }
      config.control_plane_replicas = *masters;
    }
    config.compute_replicas =
        requirements.Field("workerAgents").Integer(0, kMaxComputeReplicas).value_or(0);
  }
  ReadNetworking(spec.Field("networking"), config);
  config.api_vips = ReadVips(spec, "apiVIP", "apiVIPs");
  config.ingress_vips = ReadVips(spec, "ingressVIP", "ingressVIPs");
  config.ssh_key = spec.Field("sshPublicKey").Text().value_or("");
  const YamlNode platform_type = spec.Field("platformType");
  const std::optional<std::string> type = ReadChoice(platform_type, {"BareMetal", "None"});
  // openshift-install's default: None for a single node, BareMetal otherwise.
  config.platform = type ? (*type == "None" ? "none" : "baremetal")
                         : (config.control_plane_replicas == 1 ? "none" : "baremetal");
  if (config.platform == "baremetal") {
    for (const auto& [single, plural] :
         {std::pair{"apiVIP", "apiVIPs"}, std::pair{"ingressVIP", "ingressVIPs"}}) {
      if (!spec.Field(single).present() && !spec.Field(plural).present()) {
        spec.Field(plural).Error("is required on platformType BareMetal");
      }
    }
  }
  if (config.control_plane_replicas == 1) {
    if (config.compute_replicas != 0) {
      requirements.Field("workerAgents").Error("must be 0 when controlPlaneAgents is 1");
    }
    if (config.platform == "baremetal") {
      platform_type.Error("must be None when provisionRequirements.controlPlaneAgents is 1");
    }
    if (config.network_type != "OVNKubernetes") {
      spec.Field("networking")
          .Field("networkType")
          .Error("must be OVNKubernetes when provisionRequirements.controlPlaneAgents is 1");
    }
  }
  CheckVips(root, config);
}

void ReadInfraEnv(const YamlNode& root, const ZtpNames& names, ClusterDefinition& definition,
                  std::map<std::string, std::string>& selector) {
  const YamlNode spec = root.Field("spec");
  Require(spec);
  if (!spec.present()) return;
  RefuseUnsupported(spec,
                    {{"proxy", "give the proxy in install-config.yaml"},
                     {"additionalTrustBundle", "give the trust bundle in install-config.yaml"},
                     {"ignitionConfigOverride", "the hosts' Ignition is the agent ISO's"},
                     {"kernelArguments", "the agent ISO keeps the live image's kernel arguments"},
                     {"osImageVersion", "node 0 installs the release its live image carries"}});
  if (!spec.ExpectMap({"clusterRef", "pullSecretRef", "sshAuthorizedKey", "additionalNTPSources",
                       "nmStateConfigLabelSelector", "cpuArchitecture", "proxy",
                       "additionalTrustBundle", "ignitionConfigOverride", "kernelArguments",
                       "osImageVersion"})) {
    return;
  }
  ReadReference(spec.Field("clusterRef"), names.cluster_deployment,
                "ClusterDeployment of cluster-deployment.yaml");
  ReadReference(spec.Field("pullSecretRef"), names.pull_secret, "Secret of pull-secret.yaml");
  const YamlNode key = spec.Field("sshAuthorizedKey");
  if (std::optional<std::string> text = key.Text()) {
    std::string& ssh_key = definition.install.ssh_key;
    if (!ssh_key.empty() && ssh_key != *text) {
      key.Error(
          "differs from agent-cluster-install.yaml's spec.sshPublicKey (one key serves "
          "discovery and the installed hosts)");
    }
    ssh_key = *text;
  }
  ReadChoice(spec.Field("cpuArchitecture"), {"x86_64", "amd64"});
  for (const YamlNode& source : spec.Field("additionalNTPSources").Items()) {
    if (std::optional<std::string> text = source.Text()) {
      definition.agent.ntp_sources.push_back(*text);
    }
  }
  definition.agent.ntp_sources_origin = absl::StrCat(root.file(), ": spec.additionalNTPSources");
  const YamlNode selector_node = spec.Field("nmStateConfigLabelSelector");
  if (selector_node.present() && selector_node.ExpectMap({"matchLabels"})) {
    selector = selector_node.Field("matchLabels").TextMap();
  }
}

void ReadPullSecretResource(const YamlNode& root, InstallConfig& config) {
  ReadChoice(root.Field("type"), {"kubernetes.io/dockerconfigjson"});
  const YamlNode string_data = root.Field("stringData");
  const YamlNode data = root.Field("data");
  if (string_data.present() == data.present()) {
    root.Error("give the pull secret in stringData or in data (base64), one of them");
    return;
  }
  if (string_data.present()) {
    if (string_data.ExpectMap({".dockerconfigjson"})) {
      ReadPullSecret(string_data.Field(".dockerconfigjson"), config);
    }
    return;
  }
  if (!data.ExpectMap({".dockerconfigjson"})) return;
  const YamlNode encoded = data.Field(".dockerconfigjson");
  Require(encoded);
  std::optional<std::string> text = encoded.Text();
  if (!text) return;
  std::string decoded;
  if (!absl::Base64Unescape(*text, &decoded)) {
    encoded.Error("is not base64");
    return;
  }
  ReadPullSecret(encoded.WithValue(std::move(decoded)), config);
}

}  // namespace

absl::Status WithReleaseImage(const std::string& release_image, ClusterDefinition& definition) {
  if (release_image.empty()) return absl::OkStatus();
  const absl::StatusOr<std::string> registry = containers::RegistryOf(release_image);
  if (!registry.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kReleaseImageFlag, ": ", registry.status().message()));
  }
  std::vector<containers::MirrorRule> rules;
  for (const ImageContentSource& source : definition.install.mirrors) {
    rules.push_back(
        {.source = source.source, .mirrors = source.mirrors, .mirror_by_digest_only = true});
  }
  const containers::MirrorRule* rule = containers::RuleFor(release_image, rules);
  if (rule != nullptr && !containers::PullsByDigest(release_image)) {
    return absl::InvalidArgumentError(
        absl::StrCat(kReleaseImageFlag, ": \"", release_image, "\" is a tag of ", rule->source,
                     ", which install-config.yaml's ", definition.install.mirror_key,
                     " mirror by digest only, so the hosts would pull it from ", rule->source,
                     ": name the release by digest (@sha256:...) or as its mirror names it"));
  }
  definition.release_image = release_image;
  return absl::OkStatus();
}

absl::StatusOr<ClusterDefinition> ParseClusterDefinition(absl::string_view install_config_yaml,
                                                         absl::string_view agent_config_yaml) {
  Problems problems;
  ClusterDefinition definition;
  std::vector<AgentHost> platform_hosts;
  bool rendezvous_given = false;
  const std::optional<YamlNode> install =
      LoadYaml(kInstallConfigFile, install_config_yaml, &problems);
  if (install) platform_hosts = ReadInstallConfig(*install, definition.install);
  const std::optional<YamlNode> agent = LoadYaml(kAgentConfigFile, agent_config_yaml, &problems);
  if (agent) ReadAgentConfig(*agent, definition.agent, rendezvous_given);
  // Checks across the files would only repeat what is wrong in either.
  RETURN_IF_ERROR(problems.ToStatus());
  if (definition.agent.hosts.empty()) definition.agent.hosts = std::move(platform_hosts);
  CrossChecker(definition, problems, rendezvous_given).Run();
  RETURN_IF_ERROR(problems.ToStatus());
  return definition;
}

namespace {

// One host per NMStateConfig document (interfaces and NMState), carrying the selector labels.
std::vector<AgentHost> ReadNmStateConfigs(const std::vector<YamlNode>& documents,
                                          const ZtpNames& names) {
  std::vector<AgentHost> hosts;
  std::map<std::string, std::string> mac_owner;
  for (const YamlNode& root : documents) {
    if (ReadResourceHeader(root, "agent-install.openshift.io/v1beta1", "NMStateConfig").empty()) {
      continue;
    }
    const YamlNode labels = root.Field("metadata").Field("labels");
    const std::map<std::string, std::string> carried = labels.TextMap();
    for (const auto& [label, value] : names.selector) {
      auto it = carried.find(label);
      if (it == carried.end() || it->second != value) {
        labels.Error(absl::StrCat("lacks ", label, ": ", Quoted(value),
                                  ", which infraenv.yaml's spec.nmStateConfigLabelSelector "
                                  "selects"));
      }
    }
    const YamlNode spec = root.Field("spec");
    Require(spec, "is required (config, interfaces)");
    if (!spec.present() || !spec.ExpectMap({"config", "interfaces"})) continue;
    AgentHost host{.file = root.file(), .path = spec.path(), .network_field = "config"};
    const YamlNode interfaces = spec.Field("interfaces");
    Require(interfaces, "is required: at least one {name, macAddress}");
    for (const YamlNode& entry : interfaces.Items()) {
      if (!entry.ExpectMap({"name", "macAddress"})) continue;
      HostInterface interface;
      Require(entry.Field("name"));
      if (std::optional<std::string> name = entry.Field("name").Text()) {
        if (!nmstate::IsInterfaceName(*name)) {
          entry.Field("name").Error(absl::StrCat(Quoted(*name), " is not an interface name"));
        }
        interface.name = *name;
      }
      if (std::optional<std::string> mac =
              ReadMac(entry.Field("macAddress"), spec.path(), mac_owner)) {
        interface.mac = *mac;
      }
      host.interfaces.push_back(std::move(interface));
    }
    Require(spec.Field("config"), "is required (the host's NMState document)");
    ReadNetworkConfig(spec.Field("config"), host);
    hosts.push_back(std::move(host));
  }
  return hosts;
}

// agent-config.yaml's hosts take their networks from the NMStateConfigs with their MACs.
void MergeNetworks(std::vector<AgentHost>& hosts, std::vector<AgentHost> networks,
                   Problems& problems) {
  for (AgentHost& network : networks) {
    AgentHost* owner = nullptr;
    for (AgentHost& host : hosts) {
      for (const HostInterface& interface : host.interfaces) {
        for (const HostInterface& other : network.interfaces) {
          if (interface.mac == other.mac) owner = &host;
        }
      }
    }
    const std::string where = absl::StrCat(network.path, ".interfaces");
    if (owner == nullptr) {
      problems.Add(network.file, where,
                   "names no MAC of a host agent-config.yaml lists (list the host there, or "
                   "no hosts at all)");
      continue;
    }
    const auto same = [](const HostInterface& a, const HostInterface& b) {
      return a.name == b.name && a.mac == b.mac;
    };
    if (!std::is_permutation(owner->interfaces.begin(), owner->interfaces.end(),
                             network.interfaces.begin(), network.interfaces.end(), same)) {
      problems.Add(network.file, where,
                   absl::StrCat("differs from ", owner->file, " ", owner->path, ".interfaces"));
      continue;
    }
    if (!owner->network_yaml.empty()) {
      if (owner->network_yaml != network.network_yaml) {
        problems.Add(network.file, absl::StrCat(network.path, ".config"),
                     absl::StrCat("differs from ", owner->file, " ", owner->path,
                                  ".networkConfig: give a host's network in one place"));
      }
      continue;
    }
    owner->network_yaml = std::move(network.network_yaml);
    owner->network = std::move(network.network);
    owner->file = network.file;
    owner->path = network.path;
    owner->network_field = network.network_field;
  }
}

}  // namespace

absl::StatusOr<ClusterDefinition> ParseZtpClusterDefinition(
    const std::map<std::string, std::string>& manifests,
    const std::optional<std::string>& agent_config_yaml) {
  Problems problems;
  ClusterDefinition definition;
  definition.source = {.file = ZtpFile(kAgentClusterInstallFile),
                       .machine_network = "spec.networking.machineNetwork",
                       .control_plane_replicas = "spec.provisionRequirements.controlPlaneAgents",
                       .compute_replicas = "spec.provisionRequirements.workerAgents"};
  for (const auto& [name, text] : manifests) {
    static const std::set<std::string> kRead = {kAgentClusterInstallFile, kClusterDeploymentFile,
                                                kInfraEnvFile, kNmStateConfigFile, kPullSecretFile};
    if (kRead.count(name) != 0) continue;
    problems.Add(ZtpFile(name), "",
                 name == "cluster-image-set.yaml"
                     ? "is not supported: node 0 installs the release its live image carries "
                       "(remove the file)"
                     : "is not a manifest this agent-based installer reads (agent-cluster-"
                       "install.yaml, cluster-deployment.yaml, infraenv.yaml, nmstateconfig.yaml, "
                       "pull-secret.yaml)");
  }
  std::map<std::string, YamlNode> roots;
  for (const char* name :
       {kAgentClusterInstallFile, kClusterDeploymentFile, kInfraEnvFile, kPullSecretFile}) {
    auto it = manifests.find(name);
    if (it == manifests.end()) {
      problems.Add(ZtpFile(name), "", "is required among the ZTP manifests");
      continue;
    }
    if (std::optional<YamlNode> root = LoadYaml(ZtpFile(name), it->second, &problems)) {
      roots.emplace(name, *root);
    }
  }
  // Cross-references are checked once every file is known to be readable.
  RETURN_IF_ERROR(problems.ToStatus());
  ZtpNames names;
  names.cluster_deployment = ReadResourceHeader(roots.at(kClusterDeploymentFile),
                                                "hive.openshift.io/v1", "ClusterDeployment");
  names.agent_cluster_install =
      ReadResourceHeader(roots.at(kAgentClusterInstallFile), "extensions.hive.openshift.io/v1beta1",
                         "AgentClusterInstall");
  names.infra_env =
      ReadResourceHeader(roots.at(kInfraEnvFile), "agent-install.openshift.io/v1beta1", "InfraEnv");
  names.pull_secret =
      ReadResourceHeader(roots.at(kPullSecretFile), "v1", "Secret",
                         {"apiVersion", "kind", "metadata", "type", "stringData", "data"});
  // The rest only of resources whose fields are the kind's.
  RETURN_IF_ERROR(problems.ToStatus());
  ReadClusterDeployment(roots.at(kClusterDeploymentFile), names, definition.install);
  ReadAgentClusterInstall(roots.at(kAgentClusterInstallFile), names, definition.install);
  ReadInfraEnv(roots.at(kInfraEnvFile), names, definition, names.selector);
  ReadPullSecretResource(roots.at(kPullSecretFile), definition.install);
  std::vector<AgentHost> networks;
  if (auto it = manifests.find(kNmStateConfigFile); it != manifests.end()) {
    networks = ReadNmStateConfigs(
        LoadYamlDocuments(ZtpFile(kNmStateConfigFile), it->second, &problems), names);
  }
  bool rendezvous_given = false;
  if (agent_config_yaml) {
    std::vector<std::string> ntp_sources = std::move(definition.agent.ntp_sources);
    std::string ntp_origin = std::move(definition.agent.ntp_sources_origin);
    if (std::optional<YamlNode> agent = LoadYaml(kAgentConfigFile, *agent_config_yaml, &problems)) {
      ReadAgentConfig(*agent, definition.agent, rendezvous_given);
      if (!ntp_sources.empty() && !definition.agent.ntp_sources.empty()) {
        problems.Add(kAgentConfigFile, definition.agent.ntp_sources_origin,
                     "NTP sources are also in infraenv.yaml's spec.additionalNTPSources: give "
                     "them in one place");
      }
    }
    if (definition.agent.ntp_sources.empty()) {
      definition.agent.ntp_sources = std::move(ntp_sources);
      definition.agent.ntp_sources_origin = std::move(ntp_origin);
    }
  }
  RETURN_IF_ERROR(problems.ToStatus());
  if (definition.agent.hosts.empty()) {
    definition.agent.hosts = std::move(networks);
  } else {
    MergeNetworks(definition.agent.hosts, std::move(networks), problems);
    RETURN_IF_ERROR(problems.ToStatus());
  }
  CrossChecker(definition, problems, rendezvous_given).Run();
  RETURN_IF_ERROR(problems.ToStatus());
  return definition;
}

}  // namespace assisted::cli::agent
