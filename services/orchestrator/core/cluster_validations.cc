// File: services/orchestrator/core/cluster_validations.cc
//
// One function per validation id, in the order of CoreClusterChecks().

#include "services/orchestrator/core/cluster_validations.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/net/ip.h"
#include "services/orchestrator/core/inventory_util.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator::core {

namespace {

using Ctx = ClusterValidationContext;
using types::v1::HostRole;

// A network of the cluster with a label for messages.
struct Network {
  std::string label;  // "machine network", "cluster network", "service network"
  std::string text;
  std::optional<net::Cidr> cidr;  // nullopt: does not parse
};

std::vector<Network> NetworksOf(const Ctx& c) {
  std::vector<Network> out;
  auto add = [&out](const char* label, const std::string& text) {
    absl::StatusOr<net::Cidr> cidr = net::Cidr::Parse(text);
    out.push_back({label, text, cidr.ok() ? std::optional<net::Cidr>(*cidr) : std::nullopt});
  };
  for (const auto& m : c.cluster.machine_networks()) add("machine network", m.cidr());
  for (const auto& n : c.cluster.cluster_networks()) add("cluster network", n.cidr());
  for (const auto& s : c.cluster.service_networks()) add("service network", s.cidr());
  return out;
}

bool VipsNotNeeded(const Ctx& c) { return c.facts.user_managed_networking || c.facts.sno; }

// ---- networks defined -------------------------------------------------------------------------

template <typename Repeated>
CheckResult Defined(const Repeated& networks, absl::string_view what, absl::string_view fix) {
  if (networks.empty()) return Failure(absl::StrCat("The ", what, " is undefined; ", fix));
  for (const auto& n : networks) {
    if (absl::StatusOr<net::Cidr> cidr = net::Cidr::Parse(n.cidr()); !cidr.ok()) {
      return Failure(absl::StrCat("The ", what, " is invalid: ", cidr.status().message()));
    }
  }
  return Success(absl::StrCat("The ", what, " is defined"));
}

CheckResult MachineCidrDefined(const Ctx& c) {
  if (c.facts.user_managed_networking && !c.facts.sno) {
    return Success("The machine network is not required with user-managed networking");
  }
  return Defined(c.cluster.machine_networks(), "machine network",
                 c.cluster.vip_dhcp_allocation()
                     ? "it must be set explicitly when VIPs are allocated by DHCP"
                     : "it can be defined by setting either the API or Ingress virtual IPs");
}

CheckResult ClusterCidrDefined(const Ctx& c) {
  return Defined(c.cluster.cluster_networks(), "cluster network",
                 "set it (for example 10.128.0.0/14 with host prefix 23)");
}

CheckResult ServiceCidrDefined(const Ctx& c) {
  return Defined(c.cluster.service_networks(), "service network",
                 "set it (for example 172.30.0.0/16)");
}

// Pending unless the cluster and service networks (and the machine networks unless user-managed)
// are defined and valid.
std::optional<CheckResult> NetworksIncomplete(const Ctx& c, const std::vector<Network>& nets) {
  bool incomplete = c.cluster.cluster_networks().empty() || c.cluster.service_networks().empty() ||
                    (c.cluster.machine_networks().empty() && !c.facts.user_managed_networking);
  incomplete =
      incomplete || std::any_of(nets.begin(), nets.end(), [](const Network& n) { return !n.cidr; });
  if (incomplete) return Pending("Waiting for valid machine, cluster and service networks");
  return std::nullopt;
}

CheckResult NoCidrsOverlapping(const Ctx& c) {
  std::vector<Network> nets = NetworksOf(c);
  if (auto pending = NetworksIncomplete(c, nets)) return *pending;
  for (std::size_t i = 0; i < nets.size(); ++i) {
    for (std::size_t j = i + 1; j < nets.size(); ++j) {
      if (nets[i].label != nets[j].label && nets[i].cidr->Overlaps(*nets[j].cidr)) {
        return Failure(absl::StrCat("The ", nets[i].label, " ", nets[i].text, " and the ",
                                    nets[j].label, " ", nets[j].text,
                                    " overlap; choose ranges that do not share addresses"));
      }
    }
  }
  return Success("No CIDRS are overlapping");
}

CheckResult NetworksSameAddressFamilies(const Ctx& c) {
  std::vector<Network> nets = NetworksOf(c);
  if (auto pending = NetworksIncomplete(c, nets)) return *pending;
  std::map<std::string, std::set<net::Family>> families;
  for (const Network& n : nets) families[n.label].insert(n.cidr->family());
  const std::set<net::Family>& reference = families["cluster network"];
  for (const auto& [label, set] : families) {
    if (set != reference) {
      return Failure(absl::StrCat(
          "Address families of networks (machine, cluster, service) are not the same: the ", label,
          " has ", set.size() == 2 ? "both families" : net::FamilyName(*set.begin()),
          " but the cluster network has ",
          reference.size() == 2 ? "both" : net::FamilyName(*reference.begin())));
    }
  }
  return Success("Same address families for all networks");
}

CheckResult NetworkPrefixValid(const Ctx& c) {
  if (c.cluster.cluster_networks().empty()) return Pending("Waiting for the cluster network");
  const ValidationLimits& limits = c.facts.requirements.limits;
  for (const types::v1::ClusterNetwork& n : c.cluster.cluster_networks()) {
    absl::StatusOr<net::Cidr> cidr = net::Cidr::Parse(n.cidr());
    if (!cidr.ok()) return Pending("Waiting for a valid cluster network");
    const int max = cidr->family() == net::Family::kIpv4 ? limits.max_host_prefix_ipv4
                                                         : limits.max_host_prefix_ipv6;
    if (n.host_prefix() <= cidr->prefix_length() || n.host_prefix() > max) {
      return Failure(absl::StrCat("Host prefix /", n.host_prefix(), " is invalid for ", n.cidr(),
                                  ": it must be longer than /", cidr->prefix_length(),
                                  " and at most /", max));
    }
    // Every host gets one /host_prefix slice of the network.
    const int bits = n.host_prefix() - cidr->prefix_length();
    const int hosts = std::max(c.facts.host_count, 1);
    if (bits < 31 && (int64_t{1} << bits) < hosts) {
      return Failure(absl::StrCat("Cluster network CIDR prefix ", cidr->prefix_length(),
                                  " does not contain enough addresses for ", hosts,
                                  " hosts each one with ", n.host_prefix(),
                                  " host prefix; use a larger cluster network"));
    }
  }
  return Success("The Cluster Network prefix is valid");
}

// ---- VIPs -------------------------------------------------------------------------------------

const google::protobuf::RepeatedPtrField<types::v1::Vip>& VipsOf(const Ctx& c, bool api) {
  return api ? c.cluster.api_vips() : c.cluster.ingress_vips();
}

CheckResult VipsDefined(const Ctx& c, bool api) {
  const char* what = api ? "API" : "Ingress";
  if (VipsNotNeeded(c)) {
    return Success(absl::StrCat(what,
                                " VIPs are not required: user-managed networking or "
                                "single-node"));
  }
  if (!VipsOf(c, api).empty()) return Success(absl::StrCat(what, " VIPs are defined"));
  if (c.cluster.vip_dhcp_allocation()) {
    return Pending(absl::StrCat("Waiting for DHCP to allocate the ", what, " VIP"));
  }
  return Failure(absl::StrCat(what, " VIPs are undefined and must be provided"));
}

CheckResult VipsValid(const Ctx& c, bool api) {
  const char* what = api ? "api vip" : "ingress vip";
  if (VipsNotNeeded(c)) return Success(absl::StrCat(what, "s are not required"));
  if (VipsOf(c, api).empty() || c.facts.machine_networks.empty()) {
    return Pending(absl::StrCat("Waiting for the ", what, "s and the machine network"));
  }
  for (const types::v1::Vip& vip : VipsOf(c, api)) {
    absl::StatusOr<net::IpAddress> ip = net::IpAddress::Parse(vip.ip());
    if (!ip.ok()) return Failure(absl::StrCat(what, " '", vip.ip(), "' is not a valid IP address"));
    bool in = std::any_of(c.facts.machine_networks.begin(), c.facts.machine_networks.end(),
                          [&ip](const net::Cidr& m) { return m.Contains(*ip); });
    if (!in) {
      return Failure(absl::StrCat(what, " ", vip.ip(),
                                  " does not belong to the machine network; "
                                  "choose an address inside it"));
    }
    if (vip.verification() == types::v1::VIP_VERIFICATION_FAILED) {
      return Failure(absl::StrCat(what, " ", vip.ip(),
                                  " is already in use in the machine network; choose a free "
                                  "address"));
    }
    if (auto users = c.facts.address_users.find(ip->ToString());
        users != c.facts.address_users.end()) {
      return Failure(absl::StrCat(what, " ", vip.ip(), " is the address of host ",
                                  users->second.front().host_id, "; choose a free address"));
    }
    for (const types::v1::Vip& other : VipsOf(c, !api)) {
      absl::StatusOr<net::IpAddress> o = net::IpAddress::Parse(other.ip());
      if (o.ok() && *o == *ip) {
        return Failure(absl::StrCat(what, " ", vip.ip(), " is also an ", api ? "ingress" : "api",
                                    " vip; the API and Ingress VIPs must be different"));
      }
    }
  }
  return Success(absl::StrCat(what, "s belong to the machine network and are free"));
}

CheckResult ApiVipsDefined(const Ctx& c) { return VipsDefined(c, true); }
CheckResult IngressVipsDefined(const Ctx& c) { return VipsDefined(c, false); }
CheckResult ApiVipsValid(const Ctx& c) { return VipsValid(c, true); }
CheckResult IngressVipsValid(const Ctx& c) { return VipsValid(c, false); }

CheckResult MachineCidrEqualsToCalculatedCidr(const Ctx& c) {
  if (c.facts.user_managed_networking || c.cluster.vip_dhcp_allocation() || c.facts.sno) {
    return Success("The machine network is not derived from the VIPs here");
  }
  if (c.cluster.api_vips().empty() && c.cluster.ingress_vips().empty()) {
    return Pending("The machine network is derived once the API or Ingress VIP is set");
  }
  std::vector<InterfaceAddress> addresses;
  for (const HostView& v : c.hosts) {
    if (!v.host->has_inventory()) continue;
    std::vector<InterfaceAddress> a = Addresses(v.host->inventory());
    addresses.insert(addresses.end(), a.begin(), a.end());
  }
  if (addresses.empty()) return Pending("Waiting for hosts to report their network interfaces");
  for (const auto* vips : {&c.cluster.api_vips(), &c.cluster.ingress_vips()}) {
    for (const types::v1::Vip& vip : *vips) {
      absl::StatusOr<net::IpAddress> ip = net::IpAddress::Parse(vip.ip());
      if (!ip.ok()) continue;  // api-vips-valid reports it
      auto it = std::find_if(addresses.begin(), addresses.end(),
                             [&ip](const InterfaceAddress& a) { return a.network.Contains(*ip); });
      if (it == addresses.end()) {
        return Failure(absl::StrCat("No host has an interface in the network of VIP ", vip.ip(),
                                    "; the machine network cannot be calculated"));
      }
      bool listed = std::any_of(c.facts.machine_networks.begin(), c.facts.machine_networks.end(),
                                [&it](const net::Cidr& m) { return m == it->network; });
      if (!listed) {
        return Failure(
            absl::StrCat("The Cluster Machine CIDR is not equivalent to the "
                         "calculated CIDR ",
                         it->network.ToString()));
      }
    }
  }
  return Success("The Cluster Machine CIDR is equivalent to the calculated CIDR");
}

// ---- hosts ------------------------------------------------------------------------------------

CheckResult AllHostsReady(const Ctx& c) {
  if (c.hosts.empty()) return Pending("Waiting for hosts to register");
  std::vector<std::string> not_ready;
  for (const HostView& v : c.hosts) {
    types::v1::HostStatus s = v.host->status();
    if (s != types::v1::HOST_STATUS_KNOWN &&
        s != types::v1::HOST_STATUS_PREPARING_FOR_INSTALLATION &&
        s != types::v1::HOST_STATUS_PREPARING_SUCCESSFUL) {
      not_ready.push_back(absl::StrCat(
          EffectiveHostname(*v.host).empty() ? v.host->id() : EffectiveHostname(*v.host), " (",
          HostStatusName(s), ")"));
    }
  }
  if (not_ready.empty()) return Success("All hosts in the cluster are ready to install");
  std::vector<std::string> head(not_ready.begin(),
                                not_ready.begin() + std::min<std::size_t>(not_ready.size(), 5));
  return Failure(absl::StrCat(
      "The cluster has hosts that are not ready to install: ", absl::StrJoin(head, ", "),
      not_ready.size() > head.size() ? ", ..." : ""));
}

CheckResult SufficientMastersCount(const Ctx& c) {
  const int want = c.facts.control_plane_count;
  if (want < 1 || want > 5) {
    return Failure(absl::StrCat("The control plane count ", want, " is not supported: use 1 to 5"));
  }
  int masters = 0, arbiters = 0, workers = 0, automatic = 0, fenced = 0;
  for (const HostView& v : c.hosts) {
    switch (v.host->role()) {
      case types::v1::HOST_ROLE_MASTER:
      case types::v1::HOST_ROLE_BOOTSTRAP:
        ++masters;
        fenced += !v.host->fencing_credentials().address().empty();
        break;
      case types::v1::HOST_ROLE_ARBITER:
        ++arbiters;
        break;
      case types::v1::HOST_ROLE_WORKER:
        ++workers;
        break;
      default:
        ++automatic;
        break;
    }
  }
  if (c.facts.sno) {
    if (c.hosts.size() == 1 && workers == 0 && arbiters == 0) {
      return Success("The cluster has the one control plane host single-node OpenShift needs");
    }
    return Failure(
        absl::StrCat("Single-node OpenShift needs exactly 1 host with no workers; the "
                     "cluster has ",
                     c.hosts.size(), " hosts"));
  }
  if (masters > want) {
    return Failure(absl::StrCat("The cluster has ", masters,
                                " control plane hosts; it must have exactly ", want,
                                ": assign the worker role to ", masters - want, " of them"));
  }
  if (masters + automatic < want) {
    return Failure(absl::StrCat("The cluster has ", masters + automatic,
                                " possible control plane hosts; it needs exactly ", want,
                                ": add hosts or assign them the master role"));
  }
  if (want == 2) {
    const int spare = automatic - (want - masters);  // auto-assign hosts left after masters
    if (arbiters == 0 && spare == 0 && !(masters == 2 && fenced == 2)) {
      return Failure(
          "A two-node control plane needs an arbiter host or fencing credentials on both "
          "control plane hosts");
    }
  }
  return Success(
      absl::StrCat("The cluster has the exact amount of dedicated control plane "
                   "nodes (",
                   want, ")"));
}

// ---- configuration ----------------------------------------------------------------------------

CheckResult DnsDomainDefined(const Ctx& c) {
  if (c.cluster.base_dns_domain().empty()) {
    return Failure("The base domain is undefined and must be provided");
  }
  return Success(absl::StrCat("The base domain is defined: ", c.cluster.base_dns_domain()));
}

CheckResult PullSecretSet(const Ctx& c) {
  if (!c.cluster.pull_secret_set()) {
    return Failure("The pull secret is not set: upload it from console.redhat.com");
  }
  return Success("The pull secret is set");
}

CheckResult NtpServerConfigured(const Ctx& c) {
  // A host's clock offset: its own time minus the service's time at the same report.
  std::vector<absl::Duration> offsets;
  for (const HostView& v : c.hosts) {
    if (!v.host->has_timestamp() || !v.host->has_checked_in_at()) continue;
    offsets.push_back(
        absl::Seconds(v.host->timestamp().seconds() - v.host->checked_in_at().seconds()));
  }
  // A single-node cluster has nothing to compare: its one clock is in sync with itself.
  if (offsets.empty()) return Pending("Waiting for the hosts to report their clocks");
  if (offsets.size() < 2 && c.hosts.size() >= 2) {
    return Pending("Waiting for at least two hosts to report their clocks");
  }
  auto [min, max] = std::minmax_element(offsets.begin(), offsets.end());
  const absl::Duration limit = c.facts.requirements.limits.cluster_clock_skew_max;
  if (*max - *min > limit) {
    return Failure(absl::StrCat(
        "Hosts' clocks are not synchronized (there's a difference of more than ",
        absl::ToInt64Minutes(limit),
        " minutes between clocks), please configure an NTP server via DHCP or set clock sources "
        "manually"));
  }
  return Success("Hosts' clocks are synchronized");
}

bool HasIpv6(const Ctx& c) {
  std::vector<Network> nets = NetworksOf(c);
  return std::any_of(nets.begin(), nets.end(), [](const Network& n) {
    return n.cidr && n.cidr->family() == net::Family::kIpv6;
  });
}

CheckResult NetworkTypeValid(const Ctx& c) {
  const types::v1::NetworkType type = c.cluster.network_type();
  if (type == types::v1::NETWORK_TYPE_OPENSHIFT_SDN && (HasIpv6(c) || c.facts.sno)) {
    return Failure(
        "OpenShiftSDN supports neither IPv6 nor single-node OpenShift: use OVNKubernetes");
  }
  const bool ovn =
      type == types::v1::NETWORK_TYPE_OVN_KUBERNETES || type == types::v1::NETWORK_TYPE_UNSPECIFIED;
  if (ovn && c.cluster.vip_dhcp_allocation()) {
    return Failure(
        "VIP DHCP allocation is unsupported when the cluster is configured to use "
        "OVNKubernetes: set the VIPs yourself");
  }
  return Success("The cluster has a valid network type");
}

bool ThirdPartyNetwork(const types::v1::Cluster& cluster) {
  const types::v1::NetworkType type = cluster.network_type();
  return type == types::v1::NETWORK_TYPE_CISCO_ACI || type == types::v1::NETWORK_TYPE_CILIUM ||
         type == types::v1::NETWORK_TYPE_CALICO || type == types::v1::NETWORK_TYPE_NONE;
}

bool OciPlatform(const types::v1::Cluster& cluster) {
  const types::v1::Platform& p = cluster.platform();
  return p.type() == types::v1::PLATFORM_TYPE_EXTERNAL && p.external().platform_name() == "oci";
}

CheckResult CustomManifestsRequirements(const Ctx& c) {
  if (ThirdPartyNetwork(c.cluster) && !c.custom_manifests_uploaded) {
    return Failure(
        "The selected network type needs its manifests: upload the network plugin's manifests "
        "as custom manifests");
  }
  return Success("Custom manifests requirements are satisfied");
}

CheckResult PlatformRequirements(const Ctx& c) {
  if (OciPlatform(c.cluster) && !c.custom_manifests_uploaded) {
    return Failure(
        "The Oracle Cloud Infrastructure platform needs its manifests: upload them as custom "
        "manifests");
  }
  return Success("Platform requirements are satisfied");
}

// ---- operators (lib/operators/catalog.h) ----------------------------------------------------

// The cluster requirements of the catalog's row `name`: its minimum version, and its minimum for
// clusters of more than one node.
CheckResult OperatorRequirements(const Ctx& c, absl::string_view name) {
  if (!c.facts.Selected(name)) return Success(absl::StrCat(name, " is not selected"));
  const operators::OperatorSpec& op = *operators::FindOperator(name);
  const bool version_rule =
      !op.min_version.empty() || (!op.min_multi_node_version.empty() && !c.facts.sno);
  if (version_rule && c.cluster.openshift_version().empty()) {
    return Pending("Waiting for the OpenShift version");
  }
  if (std::optional<std::string> below =
          operators::BelowMinimumVersion(op, c.facts.version, !c.facts.sno)) {
    return Failure(absl::StrCat(*below, "; the cluster installs ", c.cluster.openshift_version()));
  }
  return Success(absl::StrCat(op.title, " requirements are satisfied"));
}

CheckResult LsoRequirements(const Ctx& c) { return OperatorRequirements(c, "lso"); }
CheckResult LvmRequirements(const Ctx& c) { return OperatorRequirements(c, "lvm"); }

}  // namespace

bool NeedsCustomManifests(const types::v1::Cluster& cluster) {
  return ThirdPartyNetwork(cluster) || OciPlatform(cluster);
}

const std::vector<ClusterCheck>& CoreClusterChecks() {
  using namespace cluster_id;  // NOLINT: the list reads better unqualified
  constexpr auto kNet = types::v1::VALIDATION_CATEGORY_NETWORK;
  constexpr auto kHosts = types::v1::VALIDATION_CATEGORY_HOSTS_DATA;
  constexpr auto kConf = types::v1::VALIDATION_CATEGORY_CONFIGURATION;
  constexpr auto kOperators = types::v1::VALIDATION_CATEGORY_OPERATORS;
  static const auto* const kChecks = new std::vector<ClusterCheck>{
      {kMachineCidrDefined, kNet, MachineCidrDefined,
       "Set the machine network (or choose a host whose network it can be derived from)."},
      {kClusterCidrDefined, kNet, ClusterCidrDefined, "Set the cluster network."},
      {kServiceCidrDefined, kNet, ServiceCidrDefined, "Set the service network."},
      {kNoCidrsOverlapping, kNet, NoCidrsOverlapping,
       "Change the machine, cluster or service networks so that none overlaps another."},
      {kNetworksSameAddressFamilies, kNet, NetworksSameAddressFamilies,
       "Give the machine, cluster and service networks the same address families (IPv4, IPv6 or "
       "both)."},
      {kNetworkPrefixValid, kNet, NetworkPrefixValid,
       "Change the cluster network's host prefix: longer than the network's prefix, and leaving "
       "room for every host."},
      {kMachineCidrEqualsToCalculatedCidr, kNet, MachineCidrEqualsToCalculatedCidr,
       "Set the machine network to the network the VIPs and hosts are on."},
      {kApiVipsDefined, kNet, ApiVipsDefined,
       "Set the API VIP (or turn on DHCP allocation of VIPs)."},
      {kApiVipsValid, kNet, ApiVipsValid,
       "Choose a free API VIP inside the machine network, different from the ingress VIP."},
      {kIngressVipsDefined, kNet, IngressVipsDefined,
       "Set the ingress VIP (or turn on DHCP allocation of VIPs)."},
      {kIngressVipsValid, kNet, IngressVipsValid,
       "Choose a free ingress VIP inside the machine network, different from the API VIP."},
      {kAllHostsAreReadyToInstall, kHosts, AllHostsReady,
       "Fix each host's failing validations, or remove the hosts you do not need."},
      {kSufficientMastersCount, kHosts, SufficientMastersCount,
       "Boot more hosts, or change host roles so the control plane has as many hosts as the "
       "topology needs."},
      {kDnsDomainDefined, kConf, DnsDomainDefined, "Set the cluster's base domain."},
      {kPullSecretSet, kConf, PullSecretSet,
       "Set the pull secret (from console.redhat.com or your registry)."},
      {kNtpServerConfigured, kNet, NtpServerConfigured,
       "Add an NTP source every host can reach, so the hosts' clocks agree."},
      {kNetworkTypeValid, kNet, NetworkTypeValid,
       "Choose a network type the topology and version support (OVNKubernetes for single node and "
       "IPv6)."},
      {kCustomManifestsRequirementsSatisfied, kConf, CustomManifestsRequirements,
       "Add the custom manifests the chosen network type needs (a third-party CNI)."},
      {kPlatformRequirementsSatisfied, kConf, PlatformRequirements,
       "Meet the chosen platform's requirements, or choose another platform."},
      {kLsoRequirementsSatisfied, kOperators, LsoRequirements,
       "Deselect the Local Storage Operator, or meet its requirements."},
      {kLvmRequirementsSatisfied, kOperators, LvmRequirements,
       "Choose an OpenShift version Logical Volume Manager Storage supports for the topology, or "
       "deselect the lvm operator."},
  };
  return *kChecks;
}

ValidationResults ValidateCluster(const ClusterValidationContext& ctx,
                                  const absl::flat_hash_set<std::string>& disabled,
                                  const std::vector<ClusterCheck>& checks) {
  return RunChecks(checks, ctx, disabled);
}

}  // namespace assisted::orchestrator::core
