#include "services/gateway/cli/agent/agent_ignition.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "assisted/types/v1/infra_env.pb.h"
#include "lib/ignition/config_builder.h"
#include "lib/ignition/discovery_ignition.h"
#include "lib/ignition/discovery_layout.h"
#include "lib/status/status_macros.h"

namespace assisted::cli::agent {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr char kNodeZeroScriptPath[] = "/usr/local/bin/assisted-node-zero.sh";
constexpr char kSetHostnameScriptPath[] = "/usr/local/bin/assisted-set-hostname.sh";

// Every host boots the same image; the one holding rendezvousIP runs the service. Addresses
// come from static profiles or DHCP reservations, so this waits for them a while.
constexpr char kNodeZeroScript[] = R"SCRIPT(#!/bin/bash
# Decides whether this host is node 0 of the agent-based install: the host holding rendezvousIP.
# Node 0 gets /etc/assisted/node0 (BOOTSTRAP_HOST_MAC=<mac>), which its services are
# conditioned on; every other host only runs the agent, pointed at rendezvousIP. Paths and the
# ip command can be overridden through the environment so tests can run it on a fake host.
set -euo pipefail
source "${RENDEZVOUS_ENV:-/etc/assisted/rendezvous-host.env}"
marker=${NODE_ZERO_MARKER:-/etc/assisted/node0}
wait_seconds=${NODE_ZERO_WAIT_SECONDS:-30}

for attempt in $(seq 1 "$wait_seconds"); do
  # "<interface> <address>/<prefix>" for every address of this host.
  while read -r iface address; do
    if [ "${address%/*}" = "$NODE_ZERO_IP" ]; then
      mac=$(cat "${SYS_CLASS_NET:-/sys/class/net}/${iface%@*}/address")
      echo "BOOTSTRAP_HOST_MAC=$mac" > "$marker.tmp"
      mv "$marker.tmp" "$marker"
      echo "assisted-node-zero: this host holds rendezvousIP $NODE_ZERO_IP: it is node 0"
      exit 0
    fi
  done < <(${IP_COMMAND:-ip} -o address show | awk '{print $2, $4}')
  sleep 1
done
rm -f "$marker"
echo "assisted-node-zero: node 0 is $NODE_ZERO_IP; this host runs only the agent"
)SCRIPT";

constexpr char kSetHostnameScript[] = R"SCRIPT(#!/bin/bash
# Names this host as agent-config.yaml does: /etc/assisted/hostnames/<mac> holds the host name
# of the host owning that MAC. Runs before NetworkManager, so DHCP does not pick another name.
set -euo pipefail
dir=${HOSTNAMES_DIR:-/etc/assisted/hostnames}
sys_class_net=${SYS_CLASS_NET:-/sys/class/net}
for address in "$sys_class_net"/*/address; do
  mac=$(tr '[:upper:]' '[:lower:]' < "$address")
  if [ -f "$dir/$mac" ]; then
    name=$(cat "$dir/$mac")
    echo "$name" > "${HOSTNAME_FILE:-/etc/hostname}"
    if [ -z "${HOSTNAME_FILE:-}" ]; then hostname "$name"; fi
    echo "assisted-set-hostname: $name (MAC $mac)"
    exit 0
  fi
done
echo "assisted-set-hostname: agent-config.yaml names no host with a MAC of this machine"
)SCRIPT";

// Node 0's services (see the header). Binaries where the live image installs them; PostgreSQL
// from Debian 12's postgresql-15.
constexpr char kBinDir[] = "/usr/local/bin";
constexpr char kPostgresLibDir[] = "/usr/lib/postgresql/15";  // Debian's PostgreSQL 15 server
constexpr char kPostgresBinDir[] = "/usr/lib/postgresql/15/bin";
constexpr char kPostgresShareDir[] = "/usr/share/postgresql/15";
constexpr char kPostgresInitScriptPath[] = "/usr/local/bin/assisted-postgres-init.sh";
constexpr char kPostgresData[] = "/var/lib/assisted/postgres/data";
constexpr char kPostgresSocketDir[] = "/run/assisted-postgres";
constexpr char kPostgresUnitName[] = "assisted-postgres.service";
constexpr char kInventoryUnitName[] = "assisted-inventory.service";
constexpr char kOrchestratorUnitName[] = "assisted-orchestrator.service";
constexpr char kImageUnitName[] = "assisted-image.service";
constexpr char kGatewayUnitName[] = "assisted-gateway.service";
constexpr char kRegisterUnitName[] = "assisted-node-zero-register.service";

constexpr char kPostgresInitScript[] = R"SCRIPT(#!/bin/bash
# Creates node 0's PostgreSQL cluster on its first start: superuser "assisted", trust on the unix
# socket only (the server listens on no TCP address), database "assisted". initdb works in a
# scratch folder renamed into place, so a first start interrupted midway begins again.
set -euo pipefail
[ -f "$PGDATA/PG_VERSION" ] && exit 0
rm -rf "$PGDATA.new"
"$PG_BINDIR/initdb" -D "$PGDATA.new" -A trust -U assisted -E UTF8 --locale=C >/dev/null
# Single-user mode needs no running server (its session user is the bootstrap superuser).
echo "CREATE DATABASE assisted" | "$PG_BINDIR/postgres" --single -D "$PGDATA.new" postgres >/dev/null
mv "$PGDATA.new" "$PGDATA"
)SCRIPT";

constexpr char kCarryOverScriptPath[] = "/usr/local/bin/assisted-node-zero-carry-over.sh";
constexpr char kCarryOverUnitName[] = "assisted-node-zero-carry-over.service";

// Node 0 reboots into the OS it installed, and its own post-reboot reports (and `wait-for`) need
// its services there too: this runs as node 0 shuts down, after its services stopped (so
// PostgreSQL's files are consistent), and copies them onto the installed disk.
constexpr char kCarryOverScript[] = R"SCRIPT(#!/bin/bash
# Carries node 0's services onto the disk this boot installed (the partition named "boot" whose
# assisted/install.json names this cluster; its sibling partition "root"): the binaries, Debian's
# PostgreSQL files, /etc/assisted (the node 0 marker, credentials, cluster.json), the units and
# their drop-ins, enabled, and PostgreSQL's data (not the image service). The installed OS then
# starts them again on rendezvousIP, where its reporter and `wait-for` find them. Does nothing
# when no installed disk of this cluster is found (a shutdown before the install).
# HOST_ROOT, RENDEZVOUS_ENV and CARRY_OVER_WORK_DIR are for tests on a fake host.
set -euo pipefail
root=${HOST_ROOT:-}
source "${RENDEZVOUS_ENV:-/etc/assisted/rendezvous-host.env}"
work=${CARRY_OVER_WORK_DIR:-/run/assisted-carry-over}
mkdir -p "$work/boot" "$work/root"
root_partition=""
for boot in $(blkid -t PARTLABEL=boot -o device || true); do
  mount -o ro "$boot" "$work/boot" || continue
  installed=$(jq -r .cluster_id "$work/boot/assisted/install.json" 2>/dev/null || true)
  umount "$work/boot"
  [ "$installed" = "$CLUSTER_ID" ] || continue
  disk=/dev/$(lsblk -no PKNAME "$boot")
  root_partition=$(lsblk -rno PATH,PARTLABEL "$disk" | awk '$2 == "root" { print $1 }')
done
if [ -z "$root_partition" ]; then
  echo "assisted-node-zero-carry-over: no installed disk of cluster $CLUSTER_ID; nothing to carry"
  exit 0
fi
mount "$root_partition" "$work/root"
trap 'umount "$work/root"' EXIT
(cd "$root/" && cp -a --parents @PATHS@ "$work/root")
for unit in @UNITS@; do
  cp -a "$root/etc/systemd/system/$unit" "$work/root/etc/systemd/system/"
  if [ -d "$root/etc/systemd/system/$unit.d" ]; then
    cp -a "$root/etc/systemd/system/$unit.d" "$work/root/etc/systemd/system/"
  fi
  mkdir -p "$work/root/etc/systemd/system/multi-user.target.wants"
  ln -sfn "/etc/systemd/system/$unit" "$work/root/etc/systemd/system/multi-user.target.wants/$unit"
done
echo "assisted-node-zero-carry-over: node 0's services carried onto $root_partition"
)SCRIPT";

// A unit of node 0: starts where assisted-node-zero.service wrote the marker, after every unit
// of `after` that exists, pulling in the ones it `needs`; `service` holds its [Service] lines.
std::string NodeZeroUnit(absl::string_view description, const std::vector<std::string>& needs,
                         const std::vector<std::string>& after, absl::string_view service) {
  return absl::StrCat("[Unit]\nDescription=", description,
                      "\nConditionPathExists=", kNodeZeroMarkerPath,
                      "\nWants=", absl::StrJoin(needs, " "), "\nAfter=", absl::StrJoin(after, " "),
                      "\n\n[Service]\n", service, "\n[Install]\nWantedBy=multi-user.target\n");
}

// A service is started (for systemd, and so for the units ordered after it) once its gRPC
// health answers SERVING on `port`, not when its process has forked: the next service's first
// calls then find it. Bounded by the start timeout (a slow first boot under emulation).
std::string ReadyWhenServing(int port) {
  return absl::StrCat("ExecStartPost=/bin/sh -c 'until ", kBinDir, "/aictl health 127.0.0.1:", port,
                      " >/dev/null 2>&1; do sleep 1; done'\nTimeoutStartSec=900\n");
}

// Node 0's units, each started after the one before it (NodeZeroUnitNames' order).
void AddNodeZeroUnits(const ClusterDefinition& definition, ignition::ConfigBuilder& config) {
  const net::IpAddress& rendezvous = definition.agent.rendezvous_ip;
  const std::string agent_port = HostPort(rendezvous, kAgentPort);
  const std::string credentials = absl::StrCat(kCredentialsDir, "/");
  // Long-running services come back after a crash; their order is the units' After=.
  const std::string restart = "Restart=always\nRestartSec=2\n";
  const std::string images = absl::StrCat("EnvironmentFile=", kNodeZeroImagesEnvPath, "\n");
  config.AddFile({.path = kPostgresInitScriptPath, .mode = 0755, .contents = kPostgresInitScript});
  // The user's release image replaces the orchestrator's default catalog. The orchestrator
  // names it to the hosts' image check, which pulls it through their registries.conf; it is not
  // the cluster's own ocp_release_image, whose registry host the hosts would also have to
  // resolve (a mirrored source's host does not resolve where there is no route to it).
  std::string release;
  if (!definition.release_image.empty()) {
    const json catalog = json::array({json{{"openshift_version", kOpenshiftVersion},
                                           {"cpu_architecture", "x86_64"},
                                           {"url", definition.release_image},
                                           {"version", kOpenshiftVersion}}});
    // Single quotes: systemd takes the JSON as it is (an image reference has no quote).
    config.AddFile({.path = kReleaseImageEnvPath,
                    .mode = 0644,
                    .contents = absl::StrCat("ASSISTED_RELEASE_IMAGES='", catalog.dump(), "'\n")});
    release = absl::StrCat("EnvironmentFile=", kReleaseImageEnvPath, "\n");
  }
  // Each unit names what it needs (Wants= and After=) and starts after every unit before it
  // (After=). Node 0's installed OS gets all of them but the image service (carry-over,
  // below), so no unit may need that one: there, the gateway must still wait for PostgreSQL,
  // the inventory and the orchestrator rather than start at once and fail.
  const struct {
    const char* name;
    std::vector<std::string> needs;
    std::string description;
    std::string service;
  } kUnits[] = {
      {kPostgresUnitName,
       {kNodeZeroUnitName},
       "PostgreSQL of node 0's services (a unix socket only)",
       absl::StrCat("Type=notify\nUser=postgres\nStateDirectory=assisted/postgres\n"
                    "RuntimeDirectory=assisted-postgres\nEnvironment=PG_BINDIR=",
                    kPostgresBinDir, "\nEnvironment=PGDATA=", kPostgresData, "\nExecStartPre=",
                    kPostgresInitScriptPath, "\nExecStart=", kPostgresBinDir, "/postgres -D ",
                    kPostgresData, " -c listen_addresses= -k ", kPostgresSocketDir, "\n", restart)},
      {kInventoryUnitName,
       {kPostgresUnitName},
       "assisted inventory (node 0)",
       absl::StrCat("ExecStart=", kBinDir, "/assisted-inventory --grpc-listen=127.0.0.1:9091",
                    " --metrics-listen=127.0.0.1:9101",
                    " --postgres-dsn=postgresql://assisted@/assisted?host=", kPostgresSocketDir,
                    " --secrets-key-file=", credentials, "secrets.key\n", ReadyWhenServing(9091),
                    restart)},
      {kOrchestratorUnitName,
       {kInventoryUnitName},
       "assisted orchestrator (node 0): the agent port on rendezvousIP",
       absl::StrCat(images, release, "ExecStart=", kBinDir,
                    "/assisted-orchestrator --grpc-listen=", agent_port,
                    " --internal-grpc-listen=127.0.0.1:9094 --metrics-listen=127.0.0.1:9100",
                    " --inventory-address=127.0.0.1:9091",
                    // Agents carry no token; the installed hosts' reports do.
                    " --controller-token-key-file=", credentials, "url.key\n",
                    ReadyWhenServing(9094), restart)},
      {kImageUnitName,
       {kInventoryUnitName, kOrchestratorUnitName},
       "assisted image service (node 0, loopback only)",
       absl::StrCat(images, "StateDirectory=assisted/images\n", "ExecStart=", kBinDir,
                    "/assisted-image --grpc-listen=127.0.0.1:9092 --metrics-listen=127.0.0.1:9102",
                    " --http-listen=127.0.0.1:8888 --public-url=http://127.0.0.1:8888",
                    " --inventory-address=127.0.0.1:9091 --orchestrator-address=", agent_port,
                    " --url-signing-key-file=", credentials, "url.key",
                    " --image-cache-dir=/var/lib/assisted/images\n", ReadyWhenServing(9092),
                    restart)},
      {kGatewayUnitName,
       {kInventoryUnitName, kOrchestratorUnitName},
       "assisted gateway (node 0): the REST API on rendezvousIP",
       absl::StrCat("ExecStart=", kBinDir,
                    "/assisted-gateway --http-listen=", HostPort(rendezvous, kGatewayPort),
                    " --grpc-listen=127.0.0.1:9093 --metrics-listen=127.0.0.1:9103",
                    " --inventory-address=127.0.0.1:9091 --orchestrator-address=127.0.0.1:9094",
                    " --image-address=127.0.0.1:9092 --auth=jwt --jwt-secret-file=", credentials,
                    "jwt.key --url-signing-key-file=", credentials, "url.key\n",
                    ReadyWhenServing(9093), restart)},
      // Retries by itself while the gateway does not answer; exits 0 once the install started.
      {kRegisterUnitName,
       {kGatewayUnitName},
       "Create the cluster of cluster.json on node 0 and start its install",
       absl::StrCat("Type=simple\nRestart=on-failure\nRestartSec=5\n", "ExecStart=", kBinDir,
                    "/aictl --server=http://", HostPort(rendezvous, kGatewayPort),
                    " agent run-node-zero --config=", kClusterJsonPath,
                    " --pull-secret-file=", discovery_layout::kPullSecretPath,
                    " --credentials-dir=", kCredentialsDir, " --jwt-secret-file=", credentials,
                    "jwt.key --inventory-address=127.0.0.1:9091\n")},
  };
  // Started before PostgreSQL, so it stops after every service; its work is the stop. The
  // image service stays behind: completing the install does not need it, and its base ISO and
  // cache would not fit the installed root file system.
  const std::vector<std::string> carried_paths = {absl::StrCat(kBinDir, "/aictl"),
                                                  absl::StrCat(kBinDir, "/assisted-gateway"),
                                                  absl::StrCat(kBinDir, "/assisted-inventory"),
                                                  absl::StrCat(kBinDir, "/assisted-orchestrator"),
                                                  kPostgresInitScriptPath,
                                                  kPostgresLibDir,
                                                  kPostgresShareDir,
                                                  kNodeZeroImagesEnvPath,
                                                  "/etc/assisted",
                                                  "/var/lib/assisted/postgres",
                                                  "/root/.docker"};
  std::vector<std::string> carried_units;
  for (const std::string& unit : NodeZeroUnitNames()) {
    if (unit != kImageUnitName) carried_units.push_back(unit);
  }
  config.AddFile({.path = kCarryOverScriptPath,
                  .mode = 0755,
                  .contents = absl::StrReplaceAll(
                      kCarryOverScript,
                      // Relative to the root: cp --parents recreates them under the disk's.
                      {{"@PATHS@", absl::StrJoin(carried_paths, " ",
                                                 [](std::string* out, const std::string& path) {
                                                   out->append(path.substr(1));
                                                 })},
                       {"@UNITS@", absl::StrJoin(carried_units, " ")}})});
  config.AddUnit(
      {.name = kCarryOverUnitName,
       .contents = absl::StrCat(
           "[Unit]\nDescription=Carry node 0's services onto its installed disk at shutdown\n"
           "ConditionPathExists=",
           kNodeZeroMarkerPath, "\nAfter=", kNodeZeroUnitName,
           " local-fs.target\nBefore=", kPostgresUnitName,
           "\n\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/bin/true\nExecStop=",
           kCarryOverScriptPath, "\nTimeoutStopSec=600\n\n[Install]\nWantedBy=multi-user.target\n"),
       .enabled = true});
  std::vector<std::string> before = {kNodeZeroUnitName};
  for (const auto& unit : kUnits) {
    config.AddUnit({.name = unit.name,
                    .contents = NodeZeroUnit(unit.description, unit.needs, before, unit.service),
                    .enabled = true});
    before.push_back(unit.name);
  }
}

// A oneshot unit that runs `script` once per boot, `ordering` its [Unit] lines after the
// description.
std::string OneshotUnit(absl::string_view description, absl::string_view ordering,
                        absl::string_view script) {
  return absl::StrCat("[Unit]\nDescription=", description, "\n", ordering,
                      "\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=", script,
                      "\n\n[Install]\nWantedBy=multi-user.target\n");
}

// The hosts in the order their NMState documents go to the discovery builder.
std::vector<const AgentHost*> HostsWithNetwork(const ClusterDefinition& definition) {
  std::vector<const AgentHost*> hosts;
  for (const AgentHost& host : definition.agent.hosts) {
    if (!host.network_yaml.empty()) hosts.push_back(&host);
  }
  return hosts;
}

types::v1::InfraEnv InfraEnvFor(const ClusterDefinition& definition,
                                const std::string& infra_env_id) {
  const InstallConfig& install = definition.install;
  types::v1::InfraEnv infra_env;
  infra_env.set_id(infra_env_id);
  infra_env.set_name(install.cluster_name);
  infra_env.set_ssh_authorized_key(install.ssh_key);
  infra_env.set_additional_trust_bundle(install.additional_trust_bundle);
  infra_env.set_rendezvous_ip(definition.agent.rendezvous_ip.ToString());
  for (const std::string& source : definition.agent.ntp_sources) {
    infra_env.add_additional_ntp_sources(source);
  }
  infra_env.mutable_proxy()->set_http_proxy(install.http_proxy);
  infra_env.mutable_proxy()->set_https_proxy(install.https_proxy);
  infra_env.mutable_proxy()->set_no_proxy(install.no_proxy);
  for (const ImageContentSource& source : install.mirrors) {
    types::v1::RegistryMirror* mirror = infra_env.mutable_mirror_registries()->add_mirrors();
    mirror->set_source(source.source);
    // imageDigestSources pull by digest only; imageContentSources did too in OpenShift.
    mirror->set_mirror_by_digest_only(true);
    for (const std::string& location : source.mirrors) mirror->add_mirrors(location);
  }
  for (const AgentHost* host : HostsWithNetwork(definition)) {
    types::v1::HostStaticNetworkConfig* config = infra_env.add_static_network_config();
    config->set_network_yaml(host->network_yaml);
    for (const HostInterface& interface : host->interfaces) {
      types::v1::MacInterfaceMapEntry* entry = config->add_mac_interface_map();
      entry->set_mac_address(interface.mac);
      entry->set_logical_nic_name(interface.name);
    }
  }
  return infra_env;
}

// The discovery builder names infra-env fields; the user wrote install-config.yaml and
// agent-config.yaml. Fields without a counterpart keep their name (a bug of ours, not theirs).
absl::Status InUsersTerms(const absl::Status& status, const ClusterDefinition& definition) {
  const struct {
    absl::string_view field;
    std::string file;
    std::string path;
  } kFields[] = {
      {"infra_env.additional_trust_bundle", kInstallConfigFile, "additionalTrustBundle"},
      {"infra_env.mirror_registries.mirrors", kInstallConfigFile, definition.install.mirror_key},
      {"infra_env.proxy.http_proxy", kInstallConfigFile, "proxy.httpProxy"},
      {"infra_env.proxy.https_proxy", kInstallConfigFile, "proxy.httpsProxy"},
      {"infra_env.proxy.no_proxy", kInstallConfigFile, "proxy.noProxy"},
      {"infra_env.additional_ntp_sources", "", definition.agent.ntp_sources_origin},
  };
  const absl::string_view message = status.message();
  for (const auto& known : kFields) {
    if (absl::StartsWith(message, known.field)) {
      return absl::InvalidArgumentError(absl::StrCat(known.file, known.file.empty() ? "" : ": ",
                                                     known.path,
                                                     message.substr(known.field.size())));
    }
  }
  absl::string_view rest = message;
  size_t index = 0;
  if (absl::ConsumePrefix(&rest, "infra_env.static_network_config[")) {
    const size_t close = rest.find(']');
    const std::vector<const AgentHost*> hosts = HostsWithNetwork(definition);
    if (close != absl::string_view::npos && absl::SimpleAtoi(rest.substr(0, close), &index) &&
        index < hosts.size()) {
      return absl::InvalidArgumentError(absl::StrCat(hosts[index]->file, ": ", hosts[index]->path,
                                                     ".", hosts[index]->network_field,
                                                     rest.substr(close + 1)));
    }
  }
  return status;
}

// Appends `extra`'s files and units to `base`'s. Both come from ConfigBuilder; a path or unit
// given twice is a conflict between the two builders, reported rather than silently merged.
absl::StatusOr<std::string> Combine(const std::string& base_json, const std::string& extra_json) {
  json base = json::parse(base_json, nullptr, /*allow_exceptions=*/false);
  json extra = json::parse(extra_json, nullptr, /*allow_exceptions=*/false);
  if (!base.is_object() || !extra.is_object()) {
    return absl::InternalError("an Ignition config built here is not a JSON object");
  }
  const struct {
    const char* section;
    const char* list;
    const char* key;
  } kLists[] = {{"storage", "files", "path"}, {"systemd", "units", "name"}};
  for (const auto& list : kLists) {
    if (!extra.contains(list.section) || !extra[list.section].contains(list.list)) continue;
    json& into = base[list.section][list.list];
    if (into.is_null()) into = json::array();
    std::set<std::string> names;
    for (const json& item : into) names.insert(item.value(list.key, ""));
    for (const json& item : extra[list.section][list.list]) {
      if (!names.insert(item.value(list.key, "")).second) {
        return absl::InternalError(absl::StrCat("the discovery Ignition already has ", list.list,
                                                " entry ", item.value(list.key, "")));
      }
      into.push_back(item);
    }
    std::sort(into.begin(), into.end(), [&](const json& a, const json& b) {
      return a.value(list.key, "") < b.value(list.key, "");
    });
  }
  return base.dump();
}

std::string RendezvousEnv(const ClusterDefinition& definition, const AgentImageIdentity& identity) {
  const net::IpAddress& ip = definition.agent.rendezvous_ip;
  return absl::StrCat("NODE_ZERO_IP=", ip.ToString(), "\n",                     //
                      "ORCHESTRATOR_ADDRESS=", HostPort(ip, kAgentPort), "\n",  //
                      "GATEWAY_URL=http://", HostPort(ip, kGatewayPort), "\n",  //
                      "CLUSTER_ID=", identity.cluster_id, "\n",                 //
                      "INFRA_ENV_ID=", identity.infra_env_id, "\n",             //
                      "EXPECTED_HOSTS=", definition.expected_hosts(), "\n");
}

ordered_json HintsJson(const RootDeviceHints& hints) {
  ordered_json out = ordered_json::object();
  const std::pair<const char*, const std::string*> texts[] = {
      {"device_name", &hints.device_name},
      {"hctl", &hints.hctl},
      {"model", &hints.model},
      {"vendor", &hints.vendor},
      {"serial_number", &hints.serial_number},
      {"wwn", &hints.wwn}};
  for (const auto& [key, value] : texts) {
    if (!value->empty()) out[key] = *value;
  }
  if (hints.min_size_gigabytes) out["min_size_gigabytes"] = *hints.min_size_gigabytes;
  if (hints.rotational) out["rotational"] = *hints.rotational;
  return out;
}

// Node 0's infra-env in the REST API's field names: the infra-env the ISO's own discovery
// Ignition was built from (InfraEnvFor), so the hosts' installed OS (their Ignition takes each
// host's static network), the installed cluster's install-config (mirrors as
// imageContentSources, the trust bundle) and hosts added to node 0 later get what the ISO gave.
ordered_json InfraEnvJson(const types::v1::InfraEnv& infra_env) {
  ordered_json out = ordered_json::object();
  for (const types::v1::HostStaticNetworkConfig& config : infra_env.static_network_config()) {
    ordered_json map = ordered_json::array();
    for (const types::v1::MacInterfaceMapEntry& entry : config.mac_interface_map()) {
      map.push_back(
          {{"mac_address", entry.mac_address()}, {"logical_nic_name", entry.logical_nic_name()}});
    }
    out["static_network_config"].push_back(
        {{"network_yaml", config.network_yaml()}, {"mac_interface_map", std::move(map)}});
  }
  if (!infra_env.additional_trust_bundle().empty()) {
    out["additional_trust_bundle"] = infra_env.additional_trust_bundle();
  }
  if (!infra_env.additional_ntp_sources().empty()) {
    out["additional_ntp_sources"] = absl::StrJoin(infra_env.additional_ntp_sources(), ",");
  }
  const types::v1::Proxy& proxy = infra_env.proxy();
  if (!proxy.http_proxy().empty() || !proxy.https_proxy().empty() || !proxy.no_proxy().empty()) {
    out["proxy"] = {{"http_proxy", proxy.http_proxy()},
                    {"https_proxy", proxy.https_proxy()},
                    {"no_proxy", proxy.no_proxy()}};
  }
  if (!infra_env.mirror_registries().mirrors().empty()) {
    ordered_json mirrors = ordered_json::array();
    for (const types::v1::RegistryMirror& mirror : infra_env.mirror_registries().mirrors()) {
      mirrors.push_back(
          {{"source", mirror.source()},
           {"mirrors", std::vector<std::string>(mirror.mirrors().begin(), mirror.mirrors().end())},
           {"mirror_by_digest_only", mirror.mirror_by_digest_only()}});
    }
    out["mirror_registries"] = {{"mirrors", std::move(mirrors)}};
  }
  return out;
}

}  // namespace

const std::vector<std::string>& NodeZeroUnitNames() {
  static const auto* names =
      new std::vector<std::string>{kPostgresUnitName, kInventoryUnitName, kOrchestratorUnitName,
                                   kImageUnitName,    kGatewayUnitName,   kRegisterUnitName};
  return *names;
}

std::string HostPort(const net::IpAddress& ip, int port) {
  return ip.family() == net::Family::kIpv6 ? absl::StrCat("[", ip.ToString(), "]:", port)
                                           : absl::StrCat(ip.ToString(), ":", port);
}

ordered_json ClusterJson(const ClusterDefinition& definition, const AgentImageIdentity& identity) {
  const InstallConfig& install = definition.install;
  ordered_json cluster = {
      {"name", install.cluster_name},
      {"openshift_version", kOpenshiftVersion},
      {"cpu_architecture", "x86_64"},  // the ISO is x86_64
      {"base_dns_domain", install.base_domain},
      {"control_plane_count", install.control_plane_replicas},
      {"high_availability_mode", install.control_plane_replicas == 1 ? "None" : "Full"},
      {"user_managed_networking", install.platform == "none"},
      {"network_type", install.network_type}};
  if (!install.ssh_key.empty()) cluster["ssh_public_key"] = install.ssh_key;
  for (const ClusterNetwork& network : install.cluster_networks) {
    cluster["cluster_networks"].push_back(
        {{"cidr", network.cidr.ToString()}, {"host_prefix", network.host_prefix}});
  }
  for (const net::Cidr& network : install.service_networks) {
    cluster["service_networks"].push_back({{"cidr", network.ToString()}});
  }
  for (const net::Cidr& network : install.machine_networks) {
    cluster["machine_networks"].push_back({{"cidr", network.ToString()}});
  }
  for (const Vip& vip : install.api_vips)
    cluster["api_vips"].push_back({{"ip", vip.ip.ToString()}});
  for (const Vip& vip : install.ingress_vips) {
    cluster["ingress_vips"].push_back({{"ip", vip.ip.ToString()}});
  }
  // The cluster-wide settings of install-config.yaml and agent-config.yaml: the proxy goes to
  // the installed cluster's install-config, the NTP sources to the hosts' NTP check.
  if (!install.http_proxy.empty()) cluster["http_proxy"] = install.http_proxy;
  if (!install.https_proxy.empty()) cluster["https_proxy"] = install.https_proxy;
  if (!install.no_proxy.empty()) cluster["no_proxy"] = install.no_proxy;
  if (!definition.agent.ntp_sources.empty()) {
    cluster["additional_ntp_source"] = absl::StrJoin(definition.agent.ntp_sources, ",");
  }
  ordered_json infra_env = InfraEnvJson(InfraEnvFor(definition, identity.infra_env_id));
  ordered_json hosts = ordered_json::array();
  for (const AgentHost& host : definition.agent.hosts) {
    ordered_json entry = {{"macs", ordered_json::array()}};
    for (const HostInterface& interface : host.interfaces) {
      entry["macs"].push_back(absl::AsciiStrToLower(interface.mac));
    }
    if (!host.hostname.empty()) entry["hostname"] = host.hostname;
    if (!host.role.empty()) entry["role"] = host.role;
    if (host.root_device_hints) entry["root_device_hints"] = HintsJson(*host.root_device_hints);
    hosts.push_back(std::move(entry));
  }
  return {{"cluster_id", identity.cluster_id},
          {"cluster", std::move(cluster)},
          {"infra_env_id", identity.infra_env_id},
          {"infra_env", std::move(infra_env)},
          {"expected_hosts", definition.expected_hosts()},
          {"rendezvous_ip", definition.agent.rendezvous_ip.ToString()},
          {"hosts", std::move(hosts)}};
}

absl::StatusOr<std::string> BuildAgentIgnition(const ClusterDefinition& definition,
                                               const AgentImageIdentity& identity) {
  const discovery::DiscoveryIgnitionSettings settings = {
      .orchestrator_address = HostPort(definition.agent.rendezvous_ip, kAgentPort)};
  absl::StatusOr<discovery::DiscoveryIgnition> built = discovery::BuildDiscoveryIgnition(
      InfraEnvFor(definition, identity.infra_env_id), definition.install.pull_secret, settings);
  if (!built.ok()) return InUsersTerms(built.status(), definition);

  ignition::ConfigBuilder extra;
  extra.AddFile({.path = kRendezvousEnvPath, .contents = RendezvousEnv(definition, identity)});
  extra.AddFile(
      {.path = kClusterJsonPath, .contents = ClusterJson(definition, identity).dump(2) + "\n"});
  extra.AddFile({.path = kNodeZeroScriptPath, .mode = 0755, .contents = kNodeZeroScript});
  extra.AddUnit(
      {.name = kNodeZeroUnitName,
       .contents = OneshotUnit(
           "Decide whether this host holds rendezvousIP (node 0 of the agent-based "
           "install)",
           "Wants=network-online.target\nAfter=network-online.target\n", kNodeZeroScriptPath),
       .enabled = true});
  bool any_hostname = false;
  for (const AgentHost& host : definition.agent.hosts) {
    if (host.hostname.empty()) continue;
    any_hostname = true;
    for (const HostInterface& interface : host.interfaces) {
      extra.AddFile({.path = absl::StrCat(kHostnamesDir, "/", absl::AsciiStrToLower(interface.mac)),
                     .contents = absl::StrCat(host.hostname, "\n")});
    }
  }
  if (any_hostname) {
    extra.AddFile({.path = kSetHostnameScriptPath, .mode = 0755, .contents = kSetHostnameScript});
    // Before NetworkManager, so DHCP does not pick another name.
    extra.AddUnit(
        {.name = kSetHostnameUnitName,
         .contents = OneshotUnit("Set this host's name from agent-config.yaml",
                                 "DefaultDependencies=no\n"
                                 "After=local-fs.target pre-network-manager-config.service\n"
                                 "Before=NetworkManager.service network-pre.target\n"
                                 "Wants=network-pre.target\n",
                                 kSetHostnameScriptPath),
         .enabled = true});
  }
  const pki::ClusterCredentials& credentials = identity.credentials;
  const std::pair<const char*, const std::string*> secrets[] = {
      {"tls/root-ca.crt", &credentials.root_ca.certificate_pem},
      {"tls/root-ca.key", &credentials.root_ca.private_key_pem},
      {"kubeconfig", &credentials.kubeconfig},
      {"kubeadmin-password", &credentials.kubeadmin_password},
      {"jwt.key", &identity.gateway_jwt_secret},
      {"url.key", &identity.url_signing_key},
      {"secrets.key", &identity.secrets_key}};
  for (const auto& [name, contents] : secrets) {
    extra.AddFile(
        {.path = absl::StrCat(kCredentialsDir, "/", name), .mode = 0600, .contents = *contents});
  }
  AddNodeZeroUnits(definition, extra);
  ASSIGN_OR_RETURN(std::string extra_json, extra.Build());
  return Combine(built->config, extra_json);
}

}  // namespace assisted::cli::agent
