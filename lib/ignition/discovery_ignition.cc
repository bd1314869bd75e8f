#include "lib/ignition/discovery_ignition.h"

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/config/config.h"
#include "lib/containers/registries_conf.h"
#include "lib/ignition/config_builder.h"
#include "lib/iso/cpio.h"
#include "lib/nmstate/keyfile.h"
#include "lib/nmstate/network_state.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"

namespace assisted::discovery {
namespace {

using ::assisted::types::v1::InfraEnv;
using ::assisted::types::v1::KernelArgumentOperation;

constexpr char kTrustBundlePath[] =
    "/etc/pki/ca-trust/source/anchors/assisted-additional-trust-bundle.pem";
constexpr char kNtpSourcesPath[] = "/etc/chrony.d/assisted-ntp-sources.conf";

// Installs the static network profiles of the host this machine is (reference §5). Paths can be
// overridden through the environment so tests can run it against a fake /sys tree.
constexpr char kNetworkScript[] = R"SCRIPT(#!/bin/bash
# Installs this machine's static network profiles before NetworkManager starts. The discovery
# image carries the profiles of every host of the infra-env in host<i>/ folders, each with a
# mac_interface.ini of MAC=logical-name lines. The folders naming a MAC of this machine are used:
# logical interface names are replaced by the real ones, then the profiles are installed.
set -euo pipefail

source_dir=${NETWORK_CONFIG_DIR:-/etc/assisted/network}
sys_class_net=${SYS_CLASS_NET:-/sys/class/net}
target_dir=${TARGET_DIR:-/etc/NetworkManager/system-connections}
if [ -z "${TARGET_DIR:-}" ] && [ -e /etc/initrd-release ]; then
  target_dir=/etc/coreos-firstboot-network
fi
settle_seconds=${SETTLE_SECONDS:-3}
settle_timeout=${SETTLE_TIMEOUT:-30}

log() { echo "pre-network-manager-config: $*" >&2; }

# udev may still be renaming NICs: wait until the names hold still for settle_seconds.
previous=""
stable=0
waited=0
while [ "$stable" -lt "$settle_seconds" ] && [ "$waited" -lt "$settle_timeout" ]; do
  current=$(ls "$sys_class_net")
  if [ "$current" = "$previous" ]; then stable=$((stable + 1)); else stable=0; fi
  previous=$current
  sleep 1
  waited=$((waited + 1))
done

# Upper-case MAC -> name, for physical NICs.
declare -A nic_of_mac=()
for dev in "$sys_class_net"/*; do
  if [ ! -e "$dev/device" ] || [ ! -r "$dev/address" ]; then continue; fi
  name=${dev##*/}
  if [[ ! $name =~ ^[A-Za-z0-9._-]+$ ]]; then continue; fi
  mac=$(tr '[:lower:]' '[:upper:]' < "$dev/address")
  nic_of_mac[$mac]=$name
done

installed=0
for host_dir in "$source_dir"/host*; do
  map=$host_dir/mac_interface.ini
  if [ ! -f "$map" ]; then continue; fi
  logicals=()
  nics=()
  while IFS='=' read -r mac logical || [ -n "$mac" ]; do
    nic=${nic_of_mac[$mac]:-}
    if [ -n "$nic" ]; then
      logicals+=("$logical")
      nics+=("$nic")
    fi
  done < "$map"
  if [ "${#nics[@]}" -eq 0 ]; then continue; fi

  work=$(mktemp -d)
  cp "$host_dir"/*.nmconnection "$work"/
  # Interface names sit in these keys, whole or as "<name>.<vlan id>". Two passes through
  # placeholders, so that swapped names (eth0 <-> eth1) cannot chain.
  for i in "${!logicals[@]}"; do
    pattern=${logicals[i]//./\\.}
    sed -E -i "s/^(id|interface-name|master|parent|primary)=${pattern}(\\.[0-9]+)?\$/\\1=%nic${i}%\\2/" \
      "$work"/*.nmconnection
  done
  for i in "${!nics[@]}"; do
    sed -i -e "s/%nic${i}%/${nics[i]}/g" "$work"/*.nmconnection
  done

  mkdir -p "$target_dir"
  for file in "$work"/*.nmconnection; do
    name=$(sed -n 's/^interface-name=//p' "$file")
    # Interface names have at most 15 characters: shorten the NIC part of "<nic>.<vlan>".
    if [ "${#name}" -gt 15 ] && [[ $name == *.* ]]; then
      vlan=${name##*.}
      base=${name%.*}
      name=${base:0:$((14 - ${#vlan}))}.$vlan
      sed -E -i "/^\\[connection\\]/,/^\\[/ s/^(id|interface-name)=.*/\\1=${name}/" "$file"
    fi
    install -m 0600 "$file" "$target_dir/$name.nmconnection"
    log "installed $name.nmconnection from ${host_dir##*/}"
  done
  rm -rf "$work"
  installed=1
done
if [ "$installed" -eq 0 ]; then
  log "no host of this infra-env has a MAC of this machine; nothing installed"
fi
)SCRIPT";

// TimeoutSec (both flavours) only stops a hung script: the script bounds its own wait
// (settle_timeout). 60 s was too short for a loaded TCG guest, where the unit ran over a minute
// and failed, leaving the NIC to a DHCP request that never got an answer.
constexpr char kNetworkUnit[] = R"([Unit]
Description=Install this host's static network profiles (assisted discovery)
DefaultDependencies=no
After=local-fs.target
Before=NetworkManager.service network-pre.target
Wants=network-pre.target

[Service]
Type=oneshot
RemainAfterExit=yes
TimeoutSec=300
ExecStart=/usr/local/bin/pre-network-manager-config.sh

[Install]
WantedBy=multi-user.target
)";

// The initramfs flavour (minimal ISO, PXE): profiles must be in place before the initramfs copies
// /etc/coreos-firstboot-network into NetworkManager's folder and brings the network up.
constexpr char kInitrdNetworkUnit[] = R"([Unit]
Description=Install this host's static network profiles (assisted discovery, initramfs)
DefaultDependencies=no
After=systemd-udev-settle.service
Before=coreos-copy-firstboot-network.service

[Service]
Type=oneshot
RemainAfterExit=yes
TimeoutSec=300
ExecStart=/usr/local/bin/pre-network-manager-config.sh
)";

// Where the initramfs's rootfs fetch (coreos-livepxe-rootfs.service) learns the proxy.
constexpr char kRootfsProxyDropinPath[] =
    "/etc/systemd/system/coreos-livepxe-rootfs.service.d/10-proxy.conf";

// chronyd reads one file; make it read /etc/chrony.d as well (RHCOS's chrony.conf does not).
constexpr char kChronyDropin[] = R"([Service]
ExecStartPre=/bin/sh -c "grep -qs '^confdir /etc/chrony.d' /etc/chrony.conf || echo 'confdir /etc/chrony.d' >> /etc/chrony.conf"
)";

absl::Status Invalid(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", problem));
}

// User text in messages: quoted, C-escaped, cut after 64 bytes.
std::string Quoted(absl::string_view text) {
  return absl::StrCat("\"", absl::CEscape(text.substr(0, 64)), "\"");
}

// A value written unquoted into unit files, environment files and command lines: printable
// ASCII without spaces, quotes, backslashes or shell metacharacters. Secrets are not echoed.
absl::Status CheckWord(absl::string_view field, absl::string_view value, bool secret = false) {
  if (value.empty()) return Invalid(field, "must not be empty");
  const auto bad = std::find_if(value.begin(), value.end(), [](char c) {
    return c <= ' ' || c > '~' || absl::StrContains("\"'\\`$;&|<>", c);
  });
  if (bad == value.end()) return absl::OkStatus();
  return Invalid(field, secret ? "holds a character that cannot be written safely"
                               : absl::StrCat(Quoted(value), " holds a character (",
                                              absl::CEscape(absl::string_view(&*bad, 1)),
                                              ") that cannot be written safely"));
}

// systemd expands %-specifiers in unit files; a literal '%' is written "%%".
std::string UnitEscape(absl::string_view value) {
  return absl::StrReplaceAll(value, {{"%", "%%"}});
}

// The PEM certificates of a bundle, each checked by OpenSSL; at least one.
absl::StatusOr<std::vector<std::string>> PemCertificates(absl::string_view field,
                                                         absl::string_view bundle) {
  constexpr absl::string_view kBegin = "-----BEGIN CERTIFICATE-----";
  constexpr absl::string_view kEnd = "-----END CERTIFICATE-----";
  std::vector<std::string> certificates;
  for (size_t begin = bundle.find(kBegin); begin != absl::string_view::npos;
       begin = bundle.find(kBegin, begin + kBegin.size())) {
    const size_t end = bundle.find(kEnd, begin);
    if (end == absl::string_view::npos) break;
    std::string pem = absl::StrCat(bundle.substr(begin, end + kEnd.size() - begin), "\n");
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), pem.size()),
                                                  BIO_free);
    std::unique_ptr<X509, decltype(&X509_free)> x509(
        bio == nullptr ? nullptr : PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr),
        X509_free);
    if (x509 == nullptr) {
      return Invalid(field, absl::StrCat("certificate ", certificates.size() + 1,
                                         " is not a valid PEM X.509 certificate"));
    }
    certificates.push_back(std::move(pem));
  }
  if (certificates.empty()) return Invalid(field, "holds no PEM certificate");
  return certificates;
}

std::string JoinPem(const std::vector<std::string>& certificates) {
  return absl::StrJoin(certificates, "");
}

// Whether a URL has a user (and password) before its host: "http://user:pass@proxy:3128".
bool HasCredentials(absl::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == absl::string_view::npos) return false;
  const absl::string_view rest = url.substr(scheme_end + 3);
  return absl::StrContains(rest.substr(0, rest.find('/')), '@');
}

struct ProxySettings {
  std::string http_proxy;
  std::string https_proxy;
  std::vector<std::string> no_proxy;

  bool empty() const { return http_proxy.empty() && https_proxy.empty(); }

  // NAME=value pairs for processes, in both the upper- and lower-case spellings tools read.
  std::vector<std::pair<std::string, std::string>> Environment() const {
    std::vector<std::pair<std::string, std::string>> variables;
    const std::pair<absl::string_view, std::string> values[] = {
        {"HTTP_PROXY", http_proxy},
        {"HTTPS_PROXY", https_proxy},
        {"NO_PROXY", absl::StrJoin(no_proxy, ",")}};
    for (const auto& [name, value] : values) {
      if (value.empty()) continue;
      variables.emplace_back(std::string(name), value);
      variables.emplace_back(absl::AsciiStrToLower(name), value);
    }
    return variables;
  }
};

absl::StatusOr<ProxySettings> ParseProxy(const InfraEnv& infra_env) {
  ProxySettings proxy;
  const types::v1::Proxy& given = infra_env.proxy();
  for (const auto& [field, value, target] :
       {std::make_tuple("infra_env.proxy.http_proxy", given.http_proxy(), &proxy.http_proxy),
        std::make_tuple("infra_env.proxy.https_proxy", given.https_proxy(), &proxy.https_proxy)}) {
    if (value.empty()) continue;
    RETURN_IF_ERROR(CheckWord(field, value, HasCredentials(value)));
    if (!absl::StartsWith(value, "http://") && !absl::StartsWith(value, "https://")) {
      return Invalid(field, "must be an http:// or https:// URL");
    }
    *target = value;
  }
  if (proxy.empty()) return proxy;
  for (absl::string_view entry : absl::StrSplit(given.no_proxy(), ',', absl::SkipWhitespace())) {
    entry = absl::StripAsciiWhitespace(entry);
    RETURN_IF_ERROR(CheckWord("infra_env.proxy.no_proxy", entry));
    proxy.no_proxy.emplace_back(entry);
  }
  return proxy;
}

absl::Status CheckSettings(const DiscoveryIgnitionSettings& settings) {
  RETURN_IF_ERROR(CheckWord("settings.orchestrator_address", settings.orchestrator_address));
  absl::Status host_port = config::HostPort(settings.orchestrator_address);
  if (!host_port.ok()) return Invalid("settings.orchestrator_address", host_port.message());
  if (!settings.agent_token.empty()) {
    RETURN_IF_ERROR(CheckWord("settings.agent_token", settings.agent_token, /*secret=*/true));
  }
  RETURN_IF_ERROR(CheckWord("settings.agent_binary_path", settings.agent_binary_path));
  if (!absl::StartsWith(settings.agent_binary_path, "/")) {
    return Invalid("settings.agent_binary_path", "must be an absolute path");
  }
  const bool printable = std::all_of(settings.agent_version.begin(), settings.agent_version.end(),
                                     [](char c) { return c >= ' ' && c <= '~' && c != '%'; });
  if (!printable) return Invalid("settings.agent_version", "must be printable ASCII without '%'");
  return absl::OkStatus();
}

std::string AgentUnit(const InfraEnv& infra_env, const DiscoveryIgnitionSettings& settings,
                      const ProxySettings& proxy, bool proxy_in_env_file) {
  std::string unit = absl::StrCat(
      "[Unit]\nDescription=Assisted agent",
      settings.agent_version.empty() ? "" : absl::StrCat(" ", settings.agent_version),
      ": registers this host with the orchestrator\n"
      "Wants=network-online.target\nAfter=network-online.target\nStartLimitIntervalSec=0\n\n"
      "[Service]\nType=simple\nRestart=always\nRestartSec=3\n");
  if (!proxy_in_env_file) {
    for (const auto& [name, value] : proxy.Environment()) {
      absl::StrAppend(&unit, "Environment=\"", name, "=", UnitEscape(value), "\"\n");
    }
  }
  if (!settings.agent_token.empty() || proxy_in_env_file) {
    absl::StrAppend(&unit, "EnvironmentFile=", kAgentEnvPath, "\n");
  }
  absl::StrAppend(&unit, "ExecStart=", UnitEscape(settings.agent_binary_path),
                  " --orchestrator-address=", UnitEscape(settings.orchestrator_address),
                  " --infra-env-id=", infra_env.id());
  if (!settings.ca_bundle_pem.empty()) {
    absl::StrAppend(&unit, " --ca-bundle=", kAgentCaBundlePath);
  } else if (settings.tls) {
    absl::StrAppend(&unit, " --tls");
  }
  absl::StrAppend(&unit, "\n\n[Install]\nWantedBy=multi-user.target\n");
  return unit;
}

// The agent: unit, environment file (token, proxy with credentials) and CA bundle.
absl::Status AddAgent(const InfraEnv& infra_env, const DiscoveryIgnitionSettings& settings,
                      const ProxySettings& proxy, ignition::ConfigBuilder& builder) {
  const bool proxy_has_credentials =
      HasCredentials(proxy.http_proxy) || HasCredentials(proxy.https_proxy);
  std::string environment;
  if (!settings.agent_token.empty()) {
    absl::StrAppend(&environment, "ASSISTED_AGENT_TOKEN=", settings.agent_token, "\n");
  }
  if (proxy_has_credentials) {
    for (const auto& [name, value] : proxy.Environment()) {
      absl::StrAppend(&environment, name, "=", value, "\n");
    }
  }
  if (!environment.empty()) {
    builder.AddFile({.path = kAgentEnvPath, .mode = 0600, .contents = environment});
  }
  if (!settings.ca_bundle_pem.empty()) {
    ASSIGN_OR_RETURN(std::vector<std::string> certificates,
                     PemCertificates("settings.ca_bundle_pem", settings.ca_bundle_pem));
    builder.AddFile({.path = kAgentCaBundlePath, .mode = 0644, .contents = JoinPem(certificates)});
  }
  builder.AddUnit({.name = kAgentUnitName,
                   .contents = AgentUnit(infra_env, settings, proxy, proxy_has_credentials),
                   .enabled = true});
  return absl::OkStatus();
}

absl::Status AddPullSecret(absl::string_view pull_secret, ignition::ConfigBuilder& builder) {
  if (pull_secret.empty()) return absl::OkStatus();
  const nlohmann::json parsed = nlohmann::json::parse(pull_secret.begin(), pull_secret.end(),
                                                      nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return Invalid("pull_secret", "is not a JSON object");
  builder.AddFile({.path = kPullSecretPath, .mode = 0600, .contents = std::string(pull_secret)});
  return absl::OkStatus();
}

void AddSshKeys(const InfraEnv& infra_env, ignition::ConfigBuilder& builder) {
  ignition::User core{.name = "core"};
  for (absl::string_view line : absl::StrSplit(infra_env.ssh_authorized_key(), '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty() && !absl::StartsWith(line, "#")) core.ssh_authorized_keys.emplace_back(line);
  }
  if (!core.ssh_authorized_keys.empty()) builder.AddUser(std::move(core));
}

absl::Status AddNtpSources(const InfraEnv& infra_env, ignition::ConfigBuilder& builder) {
  if (infra_env.additional_ntp_sources().empty()) return absl::OkStatus();
  std::string servers;
  for (int i = 0; i < infra_env.additional_ntp_sources_size(); ++i) {
    const std::string& source = infra_env.additional_ntp_sources(i);
    const bool valid = !source.empty() && source.size() <= 253 &&
                       std::all_of(source.begin(), source.end(), [](char c) {
                         return absl::ascii_isalnum(c) || c == '.' || c == '-' || c == ':';
                       });
    if (!valid) {
      return Invalid(absl::StrCat("infra_env.additional_ntp_sources[", i, "]"),
                     absl::StrCat(Quoted(source), " is not a host name or IP"));
    }
    absl::StrAppend(&servers, "server ", source, " iburst\n");
  }
  builder.AddFile({.path = kNtpSourcesPath, .mode = 0644, .contents = servers});
  builder.AddUnit(
      {.name = "chronyd.service",
       .dropins = {{.name = "10-assisted-ntp-sources.conf", .contents = kChronyDropin}}});
  return absl::OkStatus();
}

absl::Status AddTrustBundle(const InfraEnv& infra_env, ignition::ConfigBuilder& builder) {
  if (infra_env.additional_trust_bundle().empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(
      std::vector<std::string> certificates,
      PemCertificates("infra_env.additional_trust_bundle", infra_env.additional_trust_bundle()));
  builder.AddFile({.path = kTrustBundlePath, .mode = 0644, .contents = JoinPem(certificates)});
  for (const std::string& certificate : certificates) {
    builder.AddCertificateAuthority(ignition::InlineResource(certificate));
  }
  return absl::OkStatus();
}

// A repository as registries.conf names it: host[:port][/path…], without scheme, tag or digest.
absl::Status CheckRepository(absl::string_view field, absl::string_view value) {
  if (value.empty()) return Invalid(field, "must not be empty");
  if (absl::StrContains(value, "://")) {
    return Invalid(field, absl::StrCat(Quoted(value), " must not have a scheme"));
  }
  const bool valid = value.size() <= 255 && std::all_of(value.begin(), value.end(), [](char c) {
                       return absl::ascii_isalnum(c) || absl::StrContains("._-/:[]", c);
                     });
  if (!valid || absl::StartsWith(value, "/") || absl::EndsWith(value, "/")) {
    return Invalid(field, absl::StrCat(Quoted(value),
                                       " is not a registry or repository (host[:port][/path])"));
  }
  const size_t slash = value.rfind('/');
  if (slash != absl::string_view::npos && absl::StrContains(value.substr(slash), ':')) {
    return Invalid(field, absl::StrCat(Quoted(value), " must not name a tag"));
  }
  return absl::OkStatus();
}

// registries.conf(5) (version 2) routing the listed sources through their mirrors, and the CA
// that signs the mirrors (reference §7: /etc/containers/registries.conf and CA anchors).
absl::Status AddMirrorRegistries(const InfraEnv& infra_env, ignition::ConfigBuilder& builder) {
  const types::v1::MirrorRegistries& registries = infra_env.mirror_registries();
  if (!registries.mirrors().empty()) {
    std::vector<containers::MirrorRule> rules;
    std::set<std::string> sources;
    for (int i = 0; i < registries.mirrors_size(); ++i) {
      const types::v1::RegistryMirror& mirror = registries.mirrors(i);
      const std::string field = absl::StrCat("infra_env.mirror_registries.mirrors[", i, "]");
      RETURN_IF_ERROR(CheckRepository(absl::StrCat(field, ".source"), mirror.source()));
      if (!sources.insert(mirror.source()).second) {
        return Invalid(absl::StrCat(field, ".source"),
                       absl::StrCat(Quoted(mirror.source()), " is listed twice"));
      }
      if (mirror.mirrors().empty()) {
        return Invalid(absl::StrCat(field, ".mirrors"), "must list at least one mirror");
      }
      for (int j = 0; j < mirror.mirrors_size(); ++j) {
        RETURN_IF_ERROR(
            CheckRepository(absl::StrCat(field, ".mirrors[", j, "]"), mirror.mirrors(j)));
      }
      rules.push_back({.source = mirror.source(),
                       .mirrors = {mirror.mirrors().begin(), mirror.mirrors().end()},
                       .mirror_by_digest_only = mirror.mirror_by_digest_only()});
    }
    const std::string conf = containers::RenderRegistriesConf(rules);
    builder.AddFile({.path = kRegistriesConfPath, .mode = 0644, .contents = conf});
  }
  if (!registries.ca_bundle().empty()) {
    ASSIGN_OR_RETURN(
        std::vector<std::string> certificates,
        PemCertificates("infra_env.mirror_registries.ca_bundle", registries.ca_bundle()));
    builder.AddFile({.path = kMirrorCaPath, .mode = 0644, .contents = JoinPem(certificates)});
  }
  return absl::OkStatus();
}

absl::Status AddConfigOverride(const InfraEnv& infra_env, ignition::ConfigBuilder& builder) {
  const std::string& text = infra_env.ignition_config_override();
  if (text.empty()) return absl::OkStatus();
  RETURN_IF_ERROR(ignition::CheckMergeConfig(text, "infra_env.ignition_config_override"));
  builder.AddMergeConfig(ignition::InlineResource(text));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> KernelArguments(const InfraEnv& infra_env) {
  std::vector<std::string> arguments;
  for (int i = 0; i < infra_env.kernel_arguments_size(); ++i) {
    const types::v1::KernelArgument& argument = infra_env.kernel_arguments(i);
    const std::string field = absl::StrCat("infra_env.kernel_arguments[", i, "]");
    if (argument.operation() != KernelArgumentOperation::KERNEL_ARGUMENT_OPERATION_APPEND) {
      return Invalid(field, "only append is applied to discovery images");
    }
    const bool valid =
        !argument.value().empty() && std::all_of(argument.value().begin(), argument.value().end(),
                                                 [](char c) { return c > ' ' && c <= '~'; });
    if (!valid) {
      return Invalid(
          absl::StrCat(field, ".value"),
          absl::StrCat(Quoted(argument.value()), " is not one printable argument without spaces"));
    }
    arguments.push_back(argument.value());
  }
  return arguments;
}

// mac_interface.ini of one host: "MAC=logical\n" lines sorted by MAC. Checks MACs (unique across
// hosts, since a machine must match one host) and logical names (unique within the host).
absl::StatusOr<std::string> MacInterfaceMap(const types::v1::HostStaticNetworkConfig& host,
                                            const std::string& field,
                                            std::set<std::string>& macs_of_all_hosts) {
  if (host.mac_interface_map().empty()) {
    return Invalid(absl::StrCat(field, ".mac_interface_map"), "must list at least one MAC");
  }
  std::map<std::string, std::string> lines;
  std::set<std::string> names;
  for (int j = 0; j < host.mac_interface_map_size(); ++j) {
    const types::v1::MacInterfaceMapEntry& entry = host.mac_interface_map(j);
    const std::string entry_field = absl::StrCat(field, ".mac_interface_map[", j, "]");
    std::optional<std::string> mac = nmstate::CanonicalMac(entry.mac_address());
    if (!mac.has_value()) {
      return Invalid(
          absl::StrCat(entry_field, ".mac_address"),
          absl::StrCat(Quoted(entry.mac_address()), " is not a MAC address (AA:BB:CC:DD:EE:FF)"));
    }
    if (!macs_of_all_hosts.insert(*mac).second) {
      return Invalid(absl::StrCat(entry_field, ".mac_address"),
                     absl::StrCat(*mac, " is already mapped (MACs must be unique across hosts)"));
    }
    if (!nmstate::IsInterfaceName(entry.logical_nic_name())) {
      return Invalid(absl::StrCat(entry_field, ".logical_nic_name"),
                     absl::StrCat(Quoted(entry.logical_nic_name()),
                                  " is not an interface name (1 to 15 of A-Z a-z 0-9 . _ -)"));
    }
    if (!names.insert(entry.logical_nic_name()).second) {
      return Invalid(absl::StrCat(entry_field, ".logical_nic_name"),
                     absl::StrCat(Quoted(entry.logical_nic_name()), " is already mapped"));
    }
    lines[*mac] = entry.logical_nic_name();
  }
  std::string text;
  for (const auto& [mac, name] : lines) absl::StrAppend(&text, mac, "=", name, "\n");
  return text;
}

void AddStaticNetworking(const std::vector<NetworkFile>& files, ignition::ConfigBuilder& builder) {
  if (files.empty()) return;
  for (const NetworkFile& file : files) {
    builder.AddFile(
        {.path = file.path, .mode = static_cast<int>(file.mode), .contents = file.contents});
  }
  builder.AddUnit({.name = kNetworkUnitName, .contents = kNetworkUnit, .enabled = true});
}

// The archive for the initramfs of minimal-ISO and PXE boots (§5), which must reach the network
// before it can fetch the rootfs: the static-network files with the initramfs flavour of the
// unit (enabled through initrd.target.wants), and the proxy for the rootfs fetch. Empty when
// there is neither.
absl::StatusOr<std::string> InitrdArchive(const std::vector<NetworkFile>& network,
                                          const ProxySettings& proxy) {
  constexpr uint32_t kSymlink = 0120777;  // a NetworkFile whose contents is the link's target
  std::vector<NetworkFile> files = network;
  if (!network.empty()) {
    const std::string unit = absl::StrCat("/etc/systemd/system/", kNetworkUnitName);
    files.push_back({unit, 0644, kInitrdNetworkUnit});
    files.push_back({absl::StrCat("/etc/systemd/system/initrd.target.wants/", kNetworkUnitName),
                     kSymlink, unit});
  }
  if (!proxy.empty()) {
    std::string dropin = "[Service]\n";
    for (const auto& [name, value] : proxy.Environment()) {
      absl::StrAppend(&dropin, "Environment=\"", name, "=", UnitEscape(value), "\"\n");
    }
    files.push_back({kRootfsProxyDropinPath, 0644, std::move(dropin)});
  }
  if (files.empty()) return std::string();
  // Members sorted by path (without the leading '/'), each directory before what it holds.
  std::map<std::string, const NetworkFile*> members;  // null: a directory
  for (const NetworkFile& file : files) {
    const absl::string_view path = absl::string_view(file.path).substr(1);
    for (size_t slash = path.find('/'); slash != absl::string_view::npos;
         slash = path.find('/', slash + 1)) {
      members.emplace(std::string(path.substr(0, slash)), nullptr);
    }
    members[std::string(path)] = &file;
  }
  iso::CpioWriter cpio;
  for (const auto& [path, file] : members) {
    if (file == nullptr) {
      cpio.AddDirectory(path);
    } else if (file->mode == kSymlink) {
      cpio.AddSymlink(path, file->contents);
    } else {
      cpio.AddFile(path, file->contents, file->mode);
    }
  }
  ASSIGN_OR_RETURN(std::string archive, iso::Gzip(cpio.Finish()));
  archive.resize((archive.size() + 3) / 4 * 4, '\0');
  return archive;
}

// The parts of the config that come from the infra-env alone (NTP, trust bundle, mirrors,
// override, static networking), checked as they are added; returns the static-network files.
absl::StatusOr<std::vector<NetworkFile>> AddInfraEnvParts(const InfraEnv& infra_env,
                                                          ignition::ConfigBuilder& builder) {
  RETURN_IF_ERROR(AddNtpSources(infra_env, builder));
  RETURN_IF_ERROR(AddTrustBundle(infra_env, builder));
  RETURN_IF_ERROR(AddMirrorRegistries(infra_env, builder));
  RETURN_IF_ERROR(AddConfigOverride(infra_env, builder));
  ASSIGN_OR_RETURN(std::vector<NetworkFile> network, StaticNetworkFiles(infra_env));
  AddStaticNetworking(network, builder);
  return network;
}

}  // namespace

absl::StatusOr<std::vector<NetworkFile>> StaticNetworkFiles(const InfraEnv& infra_env) {
  std::vector<NetworkFile> files;
  if (infra_env.static_network_config().empty()) return files;
  std::set<std::string> macs;
  for (int i = 0; i < infra_env.static_network_config_size(); ++i) {
    const types::v1::HostStaticNetworkConfig& host = infra_env.static_network_config(i);
    const std::string field = absl::StrCat("infra_env.static_network_config[", i, "]");
    absl::StatusOr<std::vector<nmstate::Keyfile>> keyfiles =
        nmstate::NmStateToKeyfiles(host.network_yaml());
    if (!keyfiles.ok()) {
      return Invalid(absl::StrCat(field, ".network_yaml"), keyfiles.status().message());
    }
    ASSIGN_OR_RETURN(std::string map, MacInterfaceMap(host, field, macs));
    const std::string dir = absl::StrCat(kNetworkConfigDir, "/host", i);
    for (const nmstate::Keyfile& keyfile : *keyfiles) {
      files.push_back({absl::StrCat(dir, "/", keyfile.file_name), 0600, keyfile.contents});
    }
    files.push_back({absl::StrCat(dir, "/mac_interface.ini"), 0644, std::move(map)});
  }
  files.push_back({kNetworkScriptPath, 0755, kNetworkScript});
  return files;
}

absl::StatusOr<DiscoveryIgnition> BuildDiscoveryIgnition(
    const InfraEnv& infra_env, absl::string_view pull_secret,
    const DiscoveryIgnitionSettings& settings) {
  absl::Status id = config::Uuid(infra_env.id());
  if (!id.ok()) return Invalid("infra_env.id", id.message());
  RETURN_IF_ERROR(CheckSettings(settings));
  ASSIGN_OR_RETURN(ProxySettings proxy, ParseProxy(infra_env));

  ignition::ConfigBuilder builder;
  if (!proxy.empty()) {
    builder.SetProxy({.http_proxy = proxy.http_proxy,
                      .https_proxy = proxy.https_proxy,
                      .no_proxy = proxy.no_proxy});
  }
  RETURN_IF_ERROR(AddAgent(infra_env, settings, proxy, builder));
  RETURN_IF_ERROR(AddPullSecret(pull_secret, builder));
  AddSshKeys(infra_env, builder);
  ASSIGN_OR_RETURN(std::vector<NetworkFile> network, AddInfraEnvParts(infra_env, builder));

  DiscoveryIgnition result;
  ASSIGN_OR_RETURN(result.initrd_archive, InitrdArchive(network, proxy));
  ASSIGN_OR_RETURN(result.kernel_arguments, KernelArguments(infra_env));
  ASSIGN_OR_RETURN(result.config, builder.Build());
  return result;
}

absl::Status CheckDiscoveryInputs(const InfraEnv& infra_env) {
  RETURN_IF_ERROR(ParseProxy(infra_env).status());
  ignition::ConfigBuilder scratch;
  RETURN_IF_ERROR(AddInfraEnvParts(infra_env, scratch).status());
  return KernelArguments(infra_env).status();
}

}  // namespace assisted::discovery
