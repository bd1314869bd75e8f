// File: services/orchestrator/core/host_validations.cc
//
// One function per validation id, in the order of CoreHostChecks(). Messages follow the
// reference's wording where it tells the user what to do, and name the offending value.

#include "services/orchestrator/core/host_validations.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/enums/spelling.h"
#include "services/orchestrator/core/disk_eligibility.h"
#include "services/orchestrator/core/inventory_util.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/stages.h"
#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator::core {

namespace {

using Ctx = HostValidationContext;
using types::v1::HostRole;

constexpr int64_t kMiB = 1024 * 1024;
constexpr int kMaxListed = 5;  // offending items named in one message

std::string GiB(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f GiB", bytes / (1024.0 * kMiB));
  return buf;
}

// "a, b, c (and 4 more)".
std::string Listed(const std::vector<std::string>& items) {
  std::vector<std::string> head(items.begin(),
                                items.begin() + std::min<std::size_t>(items.size(), kMaxListed));
  std::string out = absl::StrJoin(head, ", ");
  if (items.size() > head.size())
    absl::StrAppend(&out, " (and ", items.size() - head.size(), " more)");
  return out;
}

const types::v1::Inventory* InventoryOf(const Ctx& c) {
  return c.host.has_inventory() ? &c.host.inventory() : nullptr;
}

CheckResult NoInventory() {
  return Pending("Missing inventory: waiting for the host to report its hardware");
}

bool Bound(const Ctx& c) { return c.cluster.cluster != nullptr; }

DiskPolicy PolicyFor(const Ctx& c, int64_t min_size_gb) {
  return {min_size_gb, &c.cluster.requirements, c.cluster.version, c.cluster.architecture};
}

// ---- connectivity with the service -----------------------------------------------------------

CheckResult Connected(const Ctx& c) {
  if (!c.host.has_checked_in_at()) return Pending("The host has not contacted the service yet");
  if (IsAfterReboot(c.host.progress().current_stage())) {
    return Success("Host is rebooting into the installed system; the agent is gone by design");
  }
  absl::Time last = absl::FromUnixSeconds(c.host.checked_in_at().seconds());
  absl::Duration limit = c.timeouts.disconnection;
  if (c.host.bootstrap()) limit += c.timeouts.bootstrap_extra_disconnection;
  if (c.now - last <= limit) return Success("Host is connected");
  return Failure(absl::StrCat("Host is disconnected: no contact for ",
                              absl::ToInt64Minutes(c.now - last), " minutes (limit ",
                              absl::ToInt64Minutes(limit),
                              "). Check that the host is up and can reach the service"));
}

CheckResult MediaConnected(const Ctx& c) {
  if (c.host.media_status() == types::v1::MEDIA_STATUS_DISCONNECTED) {
    return Failure(
        "Failed to read the discovery image: the virtual media or USB stick was disconnected. "
        "Reconnect it and reboot the host");
  }
  return Success("Host's discovery media is connected");
}

// ---- inventory --------------------------------------------------------------------------------

CheckResult HasInventory(const Ctx& c) {
  if (InventoryOf(c) == nullptr) {
    return Failure("Inventory has not been received for the host");
  }
  return Success("Valid inventory exists for the host");
}

CheckResult Truncation(const Ctx& c, types::v1::TruncationType bad, absl::string_view what) {
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr) return NoInventory();
  if (inv->truncation().type() == bad) {
    return Failure(absl::StrCat("The inventory was ", what, " truncated to fit the size limit: ",
                                absl::StrJoin(inv->truncation().reasons(), "; ")));
  }
  return Success(absl::StrCat("The inventory is not ", what, " truncated"));
}

CheckResult NotPartiallyTruncated(const Ctx& c) {
  return Truncation(c, types::v1::TRUNCATION_TYPE_PARTIAL, "partially");
}

CheckResult NotFullyTruncated(const Ctx& c) {
  return Truncation(c, types::v1::TRUNCATION_TYPE_FULL, "fully");
}

// ---- hardware ---------------------------------------------------------------------------------

CheckResult MinCpuCores(const Ctx& c) {
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr) return NoInventory();
  int64_t need = MinimalRequirements(c.cluster).cpu_cores;
  if (inv->cpu().count() >= need) return Success("Sufficient CPU cores");
  return Failure(absl::StrCat(
      "The host is not eligible to participate in OpenShift Cluster because the minimum "
      "required CPU cores for any role is ",
      need, ", found only ", inv->cpu().count()));
}

CheckResult MinMemory(const Ctx& c) {
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr) return NoInventory();
  int64_t need = MinimalRequirements(c.cluster).ram_mib;
  if (MemoryMeets(*inv, need, c.cluster.requirements.limits)) {
    return Success("Sufficient minimum RAM");
  }
  return Failure(absl::StrCat(
      "The host is not eligible to participate in OpenShift Cluster because the minimum "
      "required RAM for any role is ",
      GiB(need * kMiB), ", found only ", GiB(inv->memory().physical_bytes())));
}

CheckResult MinValidDisks(const Ctx& c) {
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr) return NoInventory();
  DiskPolicy policy = PolicyFor(c, MinimalRequirements(c.cluster).disk_size_gb);
  for (const types::v1::Disk& disk : inv->disks()) {
    if (DiskEligible(disk, *inv, policy)) return Success("Sufficient disk capacity");
  }
  return Failure(
      "No eligible disks were found, please check specific disks to see why they are not "
      "eligible");
}

// The role requirement, or a pending/success result explaining why there is none to check.
std::optional<CheckResult> NoRoleToCheck(const Ctx& c, std::optional<RequirementRole>* role) {
  if (InventoryOf(c) == nullptr) return NoInventory();
  *role = RequirementRoleOf(c.host, c.cluster);
  if (!*role) return Pending("Missing role assignment: the role is chosen at installation");
  return std::nullopt;
}

// " (including N for the selected operators lso, lvm)" when the operators add `extra`.
std::string OperatorsPart(const Ctx& c, int64_t extra) {
  if (extra == 0) return "";
  std::vector<absl::string_view> names;
  for (const operators::OperatorSpec* op : c.cluster.operators) names.push_back(op->name);
  return absl::StrCat(" (including ", extra, " for the selected operators ",
                      absl::StrJoin(names, ", "), ")");
}

CheckResult CpuCoresForRole(const Ctx& c) {
  std::optional<RequirementRole> role;
  if (auto early = NoRoleToCheck(c, &role)) return *early;
  const int64_t extra = c.cluster.operator_extras.cpu_cores;
  int64_t need = c.cluster.requirements.Role(*role).cpu_cores + extra;
  int64_t have = c.host.inventory().cpu().count();
  if (have >= need)
    return Success(absl::StrCat("Sufficient CPU cores for role ", RequirementRoleName(*role)));
  return Failure(absl::StrCat("Require at least ", need, " CPU cores for ",
                              RequirementRoleName(*role), " role", OperatorsPart(c, extra),
                              ", found only ", have));
}

CheckResult MemoryForRole(const Ctx& c) {
  std::optional<RequirementRole> role;
  if (auto early = NoRoleToCheck(c, &role)) return *early;
  const int64_t extra = c.cluster.operator_extras.ram_mib;
  int64_t need = c.cluster.requirements.Role(*role).ram_mib + extra;
  if (MemoryMeets(c.host.inventory(), need, c.cluster.requirements.limits)) {
    return Success(absl::StrCat("Sufficient RAM for role ", RequirementRoleName(*role)));
  }
  return Failure(absl::StrCat("Require at least ", GiB(need * kMiB), " RAM for role ",
                              RequirementRoleName(*role), OperatorsPart(c, extra), ", found only ",
                              GiB(c.host.inventory().memory().physical_bytes())));
}

// ---- networks ---------------------------------------------------------------------------------

CheckResult MachineCidrDefined(const Ctx& c) {
  if (!Bound(c)) return Success("No machine network is needed before the host joins a cluster");
  if (c.cluster.user_managed_networking && !c.cluster.sno) {
    return Success("No Machine Network CIDR needed: User Managed Networking");
  }
  for (const types::v1::MachineNetwork& m : c.cluster.cluster->machine_networks()) {
    if (absl::StatusOr<net::Cidr> cidr = net::Cidr::Parse(m.cidr()); !cidr.ok()) {
      return Failure(absl::StrCat("Machine network CIDR is invalid: ", cidr.status().message()));
    }
  }
  if (c.cluster.machine_networks.empty()) {
    return Pending(
        "Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting "
        "either the API or Ingress virtual IPs");
  }
  return Success("Machine Network CIDR is defined");
}

CheckResult BelongsToMachineCidr(const Ctx& c) {
  if (!Bound(c) || c.cluster.day2 ||
      (c.cluster.user_managed_networking && !c.host.bootstrap() && !c.cluster.sno)) {
    return Success("No machine network to check for this host");
  }
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr || c.cluster.machine_networks.empty()) {
    return Pending("Missing inventory or machine network CIDR");
  }
  std::vector<InterfaceAddress> addresses = Addresses(*inv);
  std::vector<std::string> missing;
  for (const net::Cidr& network : c.cluster.machine_networks) {
    bool in = std::any_of(addresses.begin(), addresses.end(),
                          [&network](const InterfaceAddress& a) { return network.Contains(a.ip); });
    if (!in) missing.push_back(network.ToString());
  }
  const bool any_is_enough = c.cluster.user_managed_load_balancer;
  if (missing.empty() || (any_is_enough && missing.size() < c.cluster.machine_networks.size())) {
    return Success("Host belongs to all machine network CIDRs");
  }
  return Failure(absl::StrCat("Host does not belong to machine network CIDR(s) ", Listed(missing),
                              ". Verify that the host has an address in every machine network"));
}

CheckResult HostnameUnique(const Ctx& c) {
  if (InventoryOf(c) == nullptr) return NoInventory();
  std::string name = EffectiveHostname(c.host);
  auto it = c.cluster.hostname_count.find(name);
  if (it != c.cluster.hostname_count.end() && it->second > 1) {
    return Failure(absl::StrCat("Hostname ", name,
                                " is not unique in cluster: rename this host or the other one"));
  }
  return Success(absl::StrCat("Hostname ", name, " is unique in cluster"));
}

bool ValidLabel(absl::string_view label) {
  if (label.empty() || label.size() > 63) return false;
  if (!absl::ascii_isalnum(label.front()) || !absl::ascii_isalnum(label.back())) return false;
  return std::all_of(label.begin(), label.end(), [](char ch) {
    return (absl::ascii_isalnum(ch) && !absl::ascii_isupper(ch)) || ch == '-';
  });
}

CheckResult HostnameValid(const Ctx& c) {
  if (InventoryOf(c) == nullptr) return NoInventory();
  std::string name = EffectiveHostname(c.host);
  static constexpr absl::string_view kForbidden[] = {"localhost",  "localhost.localdomain",
                                                     "localhost4", "localhost4.localdomain4",
                                                     "localhost6", "localhost6.localdomain6"};
  if (std::find(std::begin(kForbidden), std::end(kForbidden), name) != std::end(kForbidden)) {
    return Failure(absl::StrCat("The host name ", name,
                                " is forbidden: set a different host name for this host"));
  }
  std::vector<absl::string_view> labels = absl::StrSplit(name, '.');
  bool valid =
      !name.empty() && name.size() <= 253 && std::all_of(labels.begin(), labels.end(), ValidLabel);
  if (!valid) {
    return Failure(absl::StrCat(
        "Hostname \"", name,
        "\" is invalid: use lower-case letters, digits, '-' and '.', at most 63 characters between "
        "dots, starting and ending with a letter or digit"));
  }
  return Success(absl::StrCat("Hostname ", name, " is allowed"));
}

CheckResult IgnitionDownloadable(const Ctx& c) {
  if (!c.cluster.day2) return Success("Not a day-2 host: the ignition is served by the service");
  if (!c.reports.api_vip) return Pending("Ignition is not ready, waiting for the API VIP check");
  if (c.reports.api_vip->success) return Success("Ignition is downloadable");
  return Failure(absl::StrCat(
      "Ignition is not downloadable. Please ensure the API VIP is reachable from the host",
      c.reports.api_vip->error.empty() ? "" : absl::StrCat(": ", c.reports.api_vip->error)));
}

// The majority groups the host must belong to: its machine networks (L2) or families (L3).
std::vector<const MajorityGroup*> GroupsOf(const Ctx& c, const std::vector<InterfaceAddress>& a) {
  std::vector<const MajorityGroup*> groups;
  for (const auto& [key, group] : c.cluster.majority.groups) {
    bool mine = std::any_of(a.begin(), a.end(), [&](const InterfaceAddress& x) {
      if (c.cluster.UsesL3()) return key == net::FamilyName(x.ip.family());
      absl::StatusOr<net::Cidr> cidr = net::Cidr::Parse(key);
      return cidr.ok() && cidr->Contains(x.ip);
    });
    if (mine) groups.push_back(&group);
  }
  return groups;
}

CheckResult BelongsToMajorityGroup(const Ctx& c) {
  if (!Bound(c) || c.cluster.sno || c.cluster.day2) {
    return Success("Not required: single-node, day-2 or unbound host");
  }
  const int min_hosts = c.cluster.requirements.limits.majority_group_min_hosts;
  if (c.cluster.host_count < min_hosts) {
    return Pending(absl::StrCat("Not enough hosts in cluster to calculate connectivity groups (",
                                min_hosts, " are needed)"));
  }
  if (InventoryOf(c) == nullptr || !c.reports.connectivity) {
    return Pending("Waiting for the host's connectivity check");
  }
  std::vector<const MajorityGroup*> groups = GroupsOf(c, Addresses(c.host.inventory()));
  if (groups.empty()) {
    return Pending("The host has no address in a machine network yet");
  }
  for (const MajorityGroup* g : groups) {
    if (!g->IsMajority() || !g->Contains(c.host.id())) {
      return Failure(
          "No connectivity to the majority of hosts in the cluster: check the host's network "
          "cables, VLANs and firewall");
    }
  }
  return Success("Host has connectivity to the majority of hosts in the cluster");
}

CheckResult MtuValid(const Ctx& c) {
  if (!c.reports.connectivity) return Pending("Waiting for the host's connectivity check");
  std::vector<std::string> broken;
  for (const RemoteHostConnectivity& r : c.reports.connectivity->remote_hosts) {
    for (const MtuProbe& p : r.mtu) {
      if (!p.successful) broken.push_back(absl::StrCat(p.outgoing_nic, " -> ", p.remote_ip));
    }
  }
  if (broken.empty()) return Success("MTU is ok");
  return Failure(absl::StrCat("MTU is broken for ", broken.size(),
                              " connection(s): ", Listed(broken),
                              ". Make the MTU the same on the hosts and the switches"));
}

CheckResult ValidPlatformNetworkSettings(const Ctx& c) {
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr) return NoInventory();
  const std::string& product = inv->system_vendor().product_name();
  if (product == "OpenStack Compute" && Bound(c) && !c.cluster.user_managed_networking &&
      !c.cluster.sno) {
    return Failure(
        "Platform OpenStack Compute is allowed only for Single Node OpenShift or user-managed "
        "networking");
  }
  return Success(absl::StrCat("Platform ", product.empty() ? "(unknown)" : product, " is allowed"));
}

bool IsVmware(const types::v1::Inventory& inv) {
  return absl::StrContains(inv.system_vendor().manufacturer(), "VMware");
}

CheckResult CompatibleWithClusterPlatform(const Ctx& c) {
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr) return NoInventory();
  if (!Bound(c)) return Success("Any platform: the host is not bound to a cluster");
  types::v1::PlatformType platform = c.cluster.cluster->platform().type();
  if (HostSupportsPlatform(inv, platform))
    return Success("Host is compatible with cluster platform");
  return Failure(absl::StrCat("Host is not compatible with cluster platform ",
                              enums::EnumTextOrUnknown(platform),
                              "; either disable this host or choose a compatible cluster "
                              "platform (baremetal, none)"));
}

CheckResult VsphereDiskUuidEnabled(const Ctx& c) {
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr) return NoInventory();
  bool vsphere = IsVmware(*inv) || (Bound(c) && c.cluster.cluster->platform().type() ==
                                                    types::v1::PLATFORM_TYPE_VSPHERE);
  if (!vsphere) return Success("Not a vSphere virtual machine");
  for (const types::v1::Disk& d : inv->disks()) {
    if (!d.is_installation_media() && !d.removable() && !d.has_uuid()) {
      return Failure(
          "VSphere disk.EnableUUID isn't enabled for this virtual machine, it's necessary for "
          "disks to be mounted properly");
    }
  }
  return Success("VSphere disk.EnableUUID is enabled for this virtual machine");
}

// ---- time -------------------------------------------------------------------------------------

CheckResult NtpSynced(const Ctx& c) {
  if (!c.reports.ntp_sources) return Pending("Waiting for the host's NTP sources");
  for (const NtpSource& s : *c.reports.ntp_sources) {
    if (s.state == "synced") return Success("Host NTP is synced");
  }
  return Failure(
      "Host couldn't synchronize with any NTP server: add an NTP source (additional_ntp_source) "
      "or fix the host's access to one");
}

CheckResult TimeSynced(const Ctx& c) {
  if (!c.host.has_timestamp()) return Pending("Waiting for the host's clock");
  absl::Time host_time = absl::FromUnixSeconds(c.host.timestamp().seconds());
  absl::Time service_time =
      c.host.has_checked_in_at() ? absl::FromUnixSeconds(c.host.checked_in_at().seconds()) : c.now;
  const ValidationLimits& l = c.cluster.requirements.limits;
  absl::Duration host_ahead = host_time - service_time;
  if (host_ahead > l.host_ahead_of_service_max || -host_ahead > l.service_ahead_of_host_max) {
    return Failure(absl::StrCat(
        "Host clock is not synchronized, there is more than a ",
        absl::ToInt64Minutes(host_ahead > absl::ZeroDuration() ? l.host_ahead_of_service_max
                                                               : l.service_ahead_of_host_max),
        " minutes gap between clocks, please configure an NTP server via DHCP. Service time: ",
        absl::FormatTime(service_time), " Host time: ", absl::FormatTime(host_time)));
  }
  return Success("Host clock is synchronized with service");
}

// ---- installation checks run at preparation -----------------------------------------------

CheckResult ContainerImagesAvailable(const Ctx& c) {
  if (!c.reports.images || c.reports.images->empty()) {
    return Pending("Waiting for the container image availability check");
  }
  std::vector<std::string> failed;
  for (const ImageStatus& image : *c.reports.images) {
    bool slow =
        image.download_rate_mbps &&
        *image.download_rate_mbps < c.cluster.requirements.limits.min_image_download_rate_mbps;
    if (!image.success || slow) failed.push_back(image.name);
  }
  if (failed.empty()) return Success("All required container images were pulled successfully");
  return Failure(absl::StrCat(
      "Failed to fetch container images needed for installation from ", Listed(failed),
      ". This may be due to a network hiccup. Retry to install again. If this problem persists, "
      "check your network settings to make sure you're not blocked"));
}

CheckResult SufficientInstallationDiskSpeed(const Ctx& c) {
  if (InventoryOf(c) == nullptr) return NoInventory();
  if (c.host.inventory().boot().device_type() == types::v1::BOOT_DEVICE_TYPE_PERSISTENT) {
    return Success("Disk speed is not measured on a host booted from disk");
  }
  const types::v1::Disk* disk = InstallationDisk(c.host);
  const DiskSpeed* speed = disk ? c.reports.SpeedOf(disk->path()) : nullptr;
  if (speed == nullptr || !speed->tested) {
    return Pending("Speed of installation disk has not yet been measured");
  }
  std::optional<RequirementRole> role = RequirementRoleOf(c.host, c.cluster);
  int64_t threshold = c.cluster.requirements.Role(role.value_or(RequirementRole::kMaster))
                          .installation_disk_speed_threshold_ms;
  if (speed->exit_code != 0) {
    return Failure(absl::StrCat("The installation disk speed measurement on ", disk->path(),
                                " failed (exit code ", speed->exit_code, ")"));
  }
  if (speed->speed_ms > threshold) {
    return Failure(absl::StrCat("The installation disk ", disk->path(),
                                " is too slow: ", speed->speed_ms, " ms per sync, at most ",
                                threshold, " ms is required (etcd needs a fast disk)"));
  }
  return Success("The host's installation disk speed is sufficient");
}

// ---- latency and packet loss -------------------------------------------------------------

// Runs `measure` over the L3 probes toward the hosts this host's role is judged against
// (masters: other masters; others: everyone), collecting breaches.
template <typename Threshold, typename Measure>
CheckResult PerRoleNetworkCheck(const Ctx& c, Threshold threshold_of, Measure measure,
                                absl::string_view what) {
  if (!Bound(c) || c.cluster.sno || c.cluster.day2) {
    return Success(absl::StrCat("The ", what, " requirement does not apply to this host"));
  }
  std::optional<RequirementRole> role = RequirementRoleOf(c.host, c.cluster);
  if (!role)
    return Success(absl::StrCat("The ", what, " requirement is checked once the role is set"));
  std::optional<double> threshold = threshold_of(c.cluster.requirements.Role(*role));
  if (!threshold) return Success(absl::StrCat("No ", what, " requirement for this role"));
  if (!c.reports.connectivity) return Pending("Waiting for the host's connectivity check");
  std::vector<std::string> breaches;
  for (const RemoteHostConnectivity& r : c.reports.connectivity->remote_hosts) {
    auto it = c.cluster.roles.find(r.host_id);
    if (it == c.cluster.roles.end()) continue;  // not (or no longer) in the cluster
    if (*role == RequirementRole::kMaster && it->second != types::v1::HOST_ROLE_MASTER &&
        it->second != types::v1::HOST_ROLE_BOOTSTRAP) {
      continue;
    }
    for (const L3Probe& p : r.l3) {
      if (!p.successful) continue;
      double value = measure(p);
      if (value > *threshold) breaches.push_back(absl::StrCat(p.remote_ip, " (", value, ")"));
    }
  }
  if (breaches.empty())
    return Success(absl::StrCat("Network ", what, " requirement has been satisfied"));
  return Failure(absl::StrCat("Network ", what, " requirement of at most ", *threshold,
                              " for role ", RequirementRoleName(*role), " not met for ",
                              breaches.size(), " connection(s): ", Listed(breaches)));
}

CheckResult SufficientNetworkLatency(const Ctx& c) {
  return PerRoleNetworkCheck(
      c, [](const RoleRequirements& r) { return r.network_latency_threshold_ms; },
      [](const L3Probe& p) { return p.average_rtt_ms; }, "latency (ms)");
}

CheckResult SufficientPacketLoss(const Ctx& c) {
  return PerRoleNetworkCheck(
      c, [](const RoleRequirements& r) { return r.packet_loss_percentage; },
      [](const L3Probe& p) { return p.packet_loss_percentage; }, "packet loss (%)");
}

CheckResult DefaultRoute(const Ctx& c) {
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr) return NoInventory();
  if (HasDefaultRoute(*inv))
    return Success("Host has been configured with at least one default route");
  return Failure(
      "Host has not yet been configured with a default route: configure one (DHCP or static)");
}

// ---- DNS --------------------------------------------------------------------------------------

// Cluster DNS names are checked only where the user provides DNS: user-managed networking,
// except single-node day-1 clusters, which get an in-cluster dnsmasq.
bool UserProvidesDns(const Ctx& c) {
  return Bound(c) && c.cluster.user_managed_networking && !(c.cluster.sno && !c.cluster.day2);
}

CheckResult DomainResolves(const Ctx& c, std::string ClusterDomains::*which,
                           absl::string_view target) {
  if (!UserProvidesDns(c)) return Success("The cluster's DNS names are managed by the cluster");
  const types::v1::Cluster& cluster = *c.cluster.cluster;
  if (cluster.name().empty() || cluster.base_dns_domain().empty()) {
    return Pending("The cluster name and base domain are not set yet");
  }
  const std::string domain = DomainsOf(cluster).*which;
  const DomainResolution* r = c.reports.Resolution(domain);
  if (!c.reports.domains) return Pending("Waiting for the host's DNS resolution check");
  if (r == nullptr || !r->Resolved()) {
    return Failure(absl::StrCat("Couldn't resolve domain name ", domain,
                                " on the host. To continue installation, create the necessary "
                                "DNS entries to resolve this domain name to your cluster's ",
                                target));
  }
  return Success(absl::StrCat("Domain name resolution for the ", domain, " domain was successful"));
}

CheckResult ApiDomainResolved(const Ctx& c) {
  return DomainResolves(c, &ClusterDomains::api, "API load balancer IP address");
}
CheckResult ApiIntDomainResolved(const Ctx& c) {
  return DomainResolves(c, &ClusterDomains::api_int, "internal API load balancer IP address");
}
CheckResult AppsDomainResolved(const Ctx& c) {
  return DomainResolves(c, &ClusterDomains::apps, "application ingress load balancer IP address");
}

CheckResult ReleaseDomainResolved(const Ctx& c) {
  if (!Bound(c)) return Success("No release image before the host joins a cluster");
  const std::string domain = DomainsOf(*c.cluster.cluster).release;
  if (domain.empty()) return Success("No release image registry to resolve");
  if (!c.reports.domains) return Pending("Waiting for the host's DNS resolution check");
  const DomainResolution* r = c.reports.Resolution(domain);
  if (r == nullptr || !r->Resolved()) {
    return Failure(absl::StrCat("Couldn't resolve the release image registry ", domain,
                                " on the host: check the host's DNS servers (or the proxy)"));
  }
  return Success(absl::StrCat("Domain name resolution for the ", domain, " domain was successful"));
}

CheckResult DnsWildcardNotConfigured(const Ctx& c) {
  if (!Bound(c) || c.cluster.day2) return Success("DNS wildcard check is not required");
  const types::v1::Cluster& cluster = *c.cluster.cluster;
  if (cluster.name().empty() || cluster.base_dns_domain().empty()) {
    return Pending("The cluster name and base domain are not set yet");
  }
  if (!c.reports.domains) return Pending("Waiting for the host's DNS resolution check");
  const DomainResolution* r = c.reports.Resolution(DomainsOf(cluster).wildcard_probe);
  if (r != nullptr && r->Resolved()) {
    return Failure(absl::StrCat(
        "DNS wildcard configuration was detected for domain *.", cluster.name(), ".",
        cluster.base_dns_domain(),
        ". The installation will not be able to complete while the entry exists. Please remove "
        "it to proceed"));
  }
  return Success("DNS wildcard check was successful");
}

// ---- addresses --------------------------------------------------------------------------------

CheckResult NonOverlappingSubnets(const Ctx& c) {
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr) return NoInventory();
  std::vector<InterfaceAddress> a = Addresses(*inv);
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = i + 1; j < a.size(); ++j) {
      if (a[i].nic != a[j].nic && a[i].network != a[j].network &&
          a[i].network.Overlaps(a[j].network)) {
        return Failure(absl::StrCat("Address networks are overlapping: ", a[i].network.ToString(),
                                    " (", a[i].nic, ") and ", a[j].network.ToString(), " (",
                                    a[j].nic, "); give each interface its own subnet"));
      }
    }
  }
  return Success("Host subnets are not overlapping");
}

CheckResult NoIpCollisions(const Ctx& c) {
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr) return NoInventory();
  std::vector<std::string> collisions;
  for (const InterfaceAddress& a : Addresses(*inv)) {
    auto it = c.cluster.address_users.find(a.ip.ToString());
    if (it == c.cluster.address_users.end()) continue;
    std::vector<std::string> others;
    for (const ClusterFacts::AddressUser& u : it->second) {
      if (u.host_id != c.host.id()) others.push_back(absl::StrCat(u.host_id, " (", u.mac, ")"));
    }
    if (!others.empty()) {
      collisions.push_back(absl::StrCat(a.ip.ToString(), " also used by ", Listed(others)));
    }
  }
  if (collisions.empty()) return Success("No IP collisions were detected by host");
  return Failure(absl::StrCat("Collisions detected for host ID ", c.host.id(),
                              " - IP address: ", Listed(collisions)));
}

CheckResult NoIscsiNicInMachineCidr(const Ctx& c) {
  if (InventoryOf(c) == nullptr) return NoInventory();
  const types::v1::Disk* disk = InstallationDisk(c.host);
  if (disk == nullptr || disk->drive_type() != types::v1::DRIVE_TYPE_ISCSI) {
    return Success("The installation disk is not an iSCSI disk");
  }
  absl::StatusOr<net::IpAddress> ip = net::IpAddress::Parse(disk->iscsi().host_ip_address());
  if (!ip.ok()) return Pending("Waiting for the iSCSI disk's host IP address");
  for (const net::Cidr& network : c.cluster.machine_networks) {
    if (network.Contains(*ip)) {
      return Failure(absl::StrCat("Network interface connected to iSCSI disk (", ip->ToString(),
                                  ") cannot belong to machine network CIDR ", network.ToString()));
    }
  }
  return Success(
      "Network interface connected to iSCSI disk does not belong to machine network CIDRs");
}

// ---- disk encryption, agent, formatting -------------------------------------------------

CheckResult DiskEncryptionRequirements(const Ctx& c) {
  if (!Bound(c)) return Success("Installation disk encryption is not enabled");
  const types::v1::DiskEncryption& enc = c.cluster.cluster->disk_encryption();
  if (enc.enable_on().empty()) return Success("Installation disk encryption is not enabled");
  HostRole role = c.host.bootstrap() ? types::v1::HOST_ROLE_MASTER : c.host.role();
  if (role == types::v1::HOST_ROLE_AUTO_ASSIGN || role == types::v1::HOST_ROLE_UNSPECIFIED) {
    return Pending("Missing role assignment: disk encryption depends on the role");
  }
  if (role == types::v1::HOST_ROLE_BOOTSTRAP) role = types::v1::HOST_ROLE_MASTER;
  if (std::find(enc.enable_on().begin(), enc.enable_on().end(), role) == enc.enable_on().end()) {
    return Success(
        absl::StrCat("Installation disk encryption is not enabled for role ", HostRoleName(role)));
  }
  if (enc.mode() == types::v1::DISK_ENCRYPTION_MODE_TANG) {
    if (!c.reports.tang) return Pending("Waiting for the Tang connectivity check");
    if (!c.reports.tang->success) {
      return Failure(absl::StrCat("Could not validate that all Tang servers are reachable",
                                  c.reports.tang->error.empty() ? "" : ": ",
                                  c.reports.tang->error));
    }
    return Success("Installation disk can be encrypted using tang");
  }
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr) return NoInventory();
  if (inv->tpm_version() == types::v1::TPM_VERSION_2_0) {
    return Success("Installation disk can be encrypted using tpmv2");
  }
  if (inv->tpm_version() == types::v1::TPM_VERSION_1_2) {
    return Failure(
        "The host's TPM version is not supported, expected-version: 2.0, actual-version: 1.2");
  }
  return Failure("TPM version could not be found, make sure TPM is enabled in host's BIOS");
}

CheckResult CompatibleAgent(const Ctx& c) {
  if (!c.cluster.settings.agent_upgrade_enabled) {
    return Success("Host agent compatibility checking is disabled");
  }
  if (c.host.discovery_agent_version().empty()) return Pending("Waiting for the agent's version");
  if (c.host.discovery_agent_version() == c.cluster.settings.agent_image) {
    return Success("Host agent is compatible with the service");
  }
  return Failure(absl::StrCat("This host's agent (", c.host.discovery_agent_version(),
                              ") is not compatible with the service (",
                              c.cluster.settings.agent_image,
                              "); it will be upgraded automatically, wait a moment"));
}

CheckResult NoSkipInstallationDisk(const Ctx& c) {
  const std::string& disk = c.host.installation_disk_id();
  if (disk.empty()) return Pending("No installation disk has been chosen yet");
  const auto& skip = c.host.skip_formatting_disks();
  if (std::find(skip.begin(), skip.end(), disk) != skip.end()) {
    return Failure(
        "Requesting to skip formatting of the installation disk is not allowed. The "
        "installation disk must be formatted. Please either change this host's installation "
        "disk or do not skip the formatting of the installation disk");
  }
  return Success("No request to skip formatting of the installation disk");
}

CheckResult NoSkipMissingDisk(const Ctx& c) {
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr) return NoInventory();
  std::vector<std::string> missing;
  for (const std::string& id : c.host.skip_formatting_disks()) {
    bool present = std::any_of(inv->disks().begin(), inv->disks().end(),
                               [&id](const types::v1::Disk& d) { return d.id() == id; });
    if (!present) missing.push_back(id);
  }
  if (missing.empty())
    return Success("All disks that have skipped formatting are present in the host inventory");
  return Failure(absl::StrCat(
      "One or more of the disks that were requested to be skipped are no longer present in the "
      "inventory: ",
      Listed(missing), ". Remove them from the skip list"));
}

// ---- operators (lib/operators/catalog.h) ----------------------------------------------------

// A disk a storage operator can take (LVM makes its volume group of them): an HDD or SSD other
// than the installation disk, not removable, not the discovery media, not already held by LVM,
// RAID or multipath.
bool SpareDisk(const types::v1::Disk& disk, const types::v1::Disk* installation) {
  const bool kind = disk.drive_type() == types::v1::DRIVE_TYPE_HDD ||
                    disk.drive_type() == types::v1::DRIVE_TYPE_SSD;
  return kind && disk.size_bytes() > 0 && !disk.removable() && !disk.is_installation_media() &&
         disk.holders().empty() && (installation == nullptr || disk.id() != installation->id());
}

// The host requirements of the catalog's row `name` (its CPU and memory are added to the role
// checks instead): a spare disk where the row needs one.
CheckResult OperatorRequirements(const Ctx& c, absl::string_view name) {
  const operators::OperatorSpec& op = *operators::FindOperator(name);
  if (!Bound(c) || !c.cluster.Selected(name))
    return Success(absl::StrCat(name, " is not selected"));
  if (!op.needs_spare_disk) {
    return Success(absl::StrCat(op.title, " has no requirement towards the host"));
  }
  const types::v1::Inventory* inv = InventoryOf(c);
  if (inv == nullptr) return NoInventory();
  const types::v1::Disk* installation = InstallationDisk(c.host);
  std::vector<std::string> spare;
  for (const types::v1::Disk& disk : inv->disks()) {
    if (SpareDisk(disk, installation)) spare.push_back(disk.name());
  }
  // Without an installation disk yet, one candidate may become it: two leave one spare.
  if (installation == nullptr && spare.size() == 1) {
    return Pending(absl::StrCat("Waiting for the installation disk to be chosen: ", spare[0],
                                " is the only disk ", op.title, " could use"));
  }
  if (!spare.empty()) return Success(absl::StrCat(op.title, " can use ", Listed(spare)));
  return Failure(
      absl::StrCat(op.title, " requires at least one non-installation HDD/SSD disk on the host"));
}

CheckResult LsoRequirements(const Ctx& c) { return OperatorRequirements(c, "lso"); }
CheckResult LvmRequirements(const Ctx& c) { return OperatorRequirements(c, "lvm"); }

}  // namespace

std::optional<RequirementRole> RequirementRoleOf(const types::v1::Host& host,
                                                 const ClusterFacts& cluster) {
  if (cluster.sno) return RequirementRole::kSno;
  HostRole role = host.role();
  if ((role == types::v1::HOST_ROLE_AUTO_ASSIGN || role == types::v1::HOST_ROLE_UNSPECIFIED) &&
      host.suggested_role() != types::v1::HOST_ROLE_UNSPECIFIED) {
    role = host.suggested_role();
  }
  if (host.bootstrap()) role = types::v1::HOST_ROLE_MASTER;
  switch (role) {
    case types::v1::HOST_ROLE_MASTER:
    case types::v1::HOST_ROLE_BOOTSTRAP:
      return RequirementRole::kMaster;
    case types::v1::HOST_ROLE_ARBITER:
      return RequirementRole::kArbiter;
    case types::v1::HOST_ROLE_WORKER:
      return RequirementRole::kWorker;
    default:
      return std::nullopt;
  }
}

RoleRequirements MinimalRequirements(const ClusterFacts& cluster) {
  const HwRequirements& r = cluster.requirements;
  if (cluster.sno) return r.Role(RequirementRole::kSno);
  std::vector<RequirementRole> roles = {RequirementRole::kMaster, RequirementRole::kWorker};
  if (cluster.cluster == nullptr || cluster.control_plane_count == 2) {
    roles.push_back(RequirementRole::kArbiter);
  }
  RoleRequirements min = r.Role(roles.front());
  for (RequirementRole role : roles) {
    const RoleRequirements& x = r.Role(role);
    min.cpu_cores = std::min(min.cpu_cores, x.cpu_cores);
    min.ram_mib = std::min(min.ram_mib, x.ram_mib);
    min.disk_size_gb = std::min(min.disk_size_gb, x.disk_size_gb);
  }
  return min;
}

PreflightRequirements PreflightRequirementsOf(const ClusterFacts& cluster) {
  auto row = [&](HostRole role) {
    types::v1::Host host;
    host.set_role(role);
    return cluster.requirements.Role(*RequirementRoleOf(host, cluster));
  };
  PreflightRequirements p{row(types::v1::HOST_ROLE_MASTER), row(types::v1::HOST_ROLE_WORKER),
                          std::nullopt};
  if (!cluster.sno) p.arbiter = row(types::v1::HOST_ROLE_ARBITER);
  return p;
}

bool HostSupportsPlatform(const types::v1::Inventory* inventory, types::v1::PlatformType platform) {
  switch (platform) {
    case types::v1::PLATFORM_TYPE_VSPHERE:
      return inventory != nullptr && IsVmware(*inventory);
    case types::v1::PLATFORM_TYPE_NUTANIX:
      return inventory != nullptr &&
             absl::StrContains(inventory->system_vendor().manufacturer(), "Nutanix");
    default:
      return true;
  }
}

std::vector<types::v1::PlatformType> SupportedPlatforms(
    const std::vector<const types::v1::Host*>& hosts) {
  std::vector<types::v1::PlatformType> supported;
  if (hosts.empty()) return supported;
  for (types::v1::PlatformType platform :
       {types::v1::PLATFORM_TYPE_BAREMETAL, types::v1::PLATFORM_TYPE_NONE,
        types::v1::PLATFORM_TYPE_VSPHERE, types::v1::PLATFORM_TYPE_NUTANIX,
        types::v1::PLATFORM_TYPE_EXTERNAL}) {
    if (std::all_of(hosts.begin(), hosts.end(), [&](const types::v1::Host* h) {
          return HostSupportsPlatform(h->has_inventory() ? &h->inventory() : nullptr, platform);
        })) {
      supported.push_back(platform);
    }
  }
  return supported;
}

bool MemoryMeets(const types::v1::Inventory& inventory, int64_t ram_mib,
                 const ValidationLimits& limits) {
  double tolerance = static_cast<double>(limits.memory_tolerance_mib) * kMiB;
  if (inventory.memory().physical_bytes_method() == types::v1::PHYSICAL_MEMORY_METHOD_MEMINFO) {
    tolerance += static_cast<double>(ram_mib) * kMiB * limits.meminfo_tolerance_percent / 100.0;
  }
  return static_cast<double>(inventory.memory().physical_bytes()) + tolerance >=
         static_cast<double>(ram_mib) * kMiB;
}

const std::vector<HostCheck>& CoreHostChecks() {
  using namespace host_id;  // NOLINT: the list reads better unqualified
  constexpr auto kHw = types::v1::VALIDATION_CATEGORY_HARDWARE;
  constexpr auto kNet = types::v1::VALIDATION_CATEGORY_NETWORK;
  constexpr auto kOperators = types::v1::VALIDATION_CATEGORY_OPERATORS;
  static const auto* const kChecks = new std::vector<HostCheck>{
      {kConnected, kHw, Connected,
       "Check that the host is powered on and can reach the service; it reconnects by itself."},
      {kMediaConnected, kHw, MediaConnected,
       "Keep the discovery media attached (virtual media or ISO) until the installation ends."},
      {kHasInventory, kHw, HasInventory,
       "Wait a moment: the agent sends its inventory shortly after it connects. If it does not, "
       "check the agent's log on the host."},
      {kInventoryNotPartiallyTruncated, kHw, NotPartiallyTruncated,
       "Nothing to do: some inventory details were too large and were left out."},
      {kInventoryNotFullyTruncated, kHw, NotFullyTruncated,
       "The host's inventory was too large to keep: remove unused disks or interfaces, or boot the "
       "host again."},
      {kHasMinCpuCores, kHw, MinCpuCores,
       "Give the host more CPU cores (the VM's vCPUs or the server's BIOS settings)."},
      {kHasMinMemory, kHw, MinMemory, "Give the host more memory."},
      {kHasMinValidDisks, kHw, MinValidDisks,
       "Attach a disk large enough for the installation, not removable and not holding the "
       "discovery media."},
      {kHasCpuCoresForRole, kHw, CpuCoresForRole,
       "Give the host more CPU cores, or give it a role that needs fewer."},
      {kHasMemoryForRole, kHw, MemoryForRole,
       "Give the host more memory, or give it a role that needs less."},
      {kMachineCidrDefined, kNet, MachineCidrDefined,
       "Set the cluster's machine network (or turn on user-managed networking)."},
      {kBelongsToMachineCidr, kNet, BelongsToMachineCidr,
       "Connect the host to the machine network, or change the cluster's machine network to "
       "include the host's address."},
      {kHostnameUnique, kHw, HostnameUnique,
       "Rename the host (or the other host with the same name)."},
      {kHostnameValid, kHw, HostnameValid,
       "Rename the host: lower-case letters, digits and hyphens, not localhost."},
      {kIgnitionDownloadable, kNet, IgnitionDownloadable,
       "Make sure the host can reach the cluster's API (the API VIP, port 22623), check its routes "
       "and firewall."},
      {kBelongsToMajorityGroup, kNet, BelongsToMajorityGroup,
       "Connect the host to the same network as the other hosts, and let them reach each other."},
      {kMtuValid, kNet, MtuValid,
       "Use the same MTU on every interface along the path between hosts."},
      {kValidPlatformNetworkSettings, kNet, ValidPlatformNetworkSettings,
       "Fix the host's network settings for the cluster's platform, or choose another platform."},
      {kCompatibleWithClusterPlatform, kHw, CompatibleWithClusterPlatform,
       "Choose a platform this host supports, or use another host."},
      {kVsphereDiskUuidEnabled, kHw, VsphereDiskUuidEnabled,
       "Set disk.EnableUUID to TRUE in the VM's advanced settings."},
      {kNtpSynced, kNet, NtpSynced,
       "Add an NTP source the host can reach (the cluster's additional NTP sources)."},
      {kTimeSyncedBetweenHostAndService, kNet, TimeSynced,
       "Set the host's clock right (NTP or the BIOS clock)."},
      {kContainerImagesAvailable, kNet, ContainerImagesAvailable,
       "Make sure the host can pull the release images: check its DNS, proxy, pull secret and "
       "registry mirrors."},
      {kSufficientInstallationDiskSpeed, kHw, SufficientInstallationDiskSpeed,
       "Choose a faster installation disk (an SSD or NVMe)."},
      {kSufficientNetworkLatency, kNet, SufficientNetworkLatency,
       "Move the host closer to the others on the network, or give it a role with looser limits."},
      {kSufficientPacketLoss, kNet, SufficientPacketLoss,
       "Fix the network between the hosts (cables, switches, interface errors)."},
      {kHasDefaultRoute, kNet, DefaultRoute,
       "Give the host a default route (DHCP or its static network configuration)."},
      {kApiDomainNameResolved, kNet, ApiDomainResolved,
       "Add a DNS record for api.<cluster>.<base domain> pointing at the API VIP or load "
       "balancer."},
      {kApiIntDomainNameResolved, kNet, ApiIntDomainResolved,
       "Add a DNS record for api-int.<cluster>.<base domain> pointing at the API VIP or load "
       "balancer."},
      {kAppsDomainNameResolved, kNet, AppsDomainResolved,
       "Add a wildcard DNS record for *.apps.<cluster>.<base domain> pointing at the ingress VIP "
       "or load balancer."},
      {kReleaseDomainNameResolved, kNet, ReleaseDomainResolved,
       "Make the release image's registry resolvable from the host (DNS or a mirror)."},
      {kDnsWildcardNotConfigured, kNet, DnsWildcardNotConfigured,
       "Remove the wildcard DNS record for *.<cluster>.<base domain>: it hides the cluster's own "
       "names."},
      {kNonOverlappingSubnets, kNet, NonOverlappingSubnets,
       "Give the host's interfaces networks that do not overlap each other or the cluster's "
       "networks."},
      {kNoIpCollisionsInNetwork, kNet, NoIpCollisions,
       "Give each host its own address: find the other machine with the same IP and change one."},
      {kNoIscsiNicBelongsToMachineCidr, kNet, NoIscsiNicInMachineCidr,
       "Move the iSCSI boot interface to a network outside the machine network."},
      {kDiskEncryptionRequirementsSatisfied, kHw, DiskEncryptionRequirements,
       "Turn on the host's TPM 2.0, or let the cluster's disk encryption use Tang, or turn it off "
       "for this role."},
      {kCompatibleAgent, kHw, CompatibleAgent,
       "Boot the host from a discovery image downloaded again: its agent is older than the "
       "service."},
      {kNoSkipInstallationDisk, kHw, NoSkipInstallationDisk,
       "Do not skip formatting the installation disk."},
      {kNoSkipMissingDisk, kHw, NoSkipMissingDisk,
       "Reattach the disk that was marked to be skipped, or remove it from the skip list."},
      {kLsoRequirementsSatisfied, kOperators, LsoRequirements,
       "Deselect the Local Storage Operator, or meet its requirements."},
      {kLvmRequirementsSatisfied, kOperators, LvmRequirements,
       "Attach a disk besides the installation disk (an empty HDD or SSD) for Logical Volume "
       "Manager Storage, or deselect the lvm operator."},
  };
  return *kChecks;
}

ValidationResults ValidateHost(const HostValidationContext& ctx,
                               const absl::flat_hash_set<std::string>& disabled,
                               const std::vector<HostCheck>& checks) {
  return RunChecks(checks, ctx, disabled);
}

}  // namespace assisted::orchestrator::core
