// File: services/orchestrator/core/cluster_facts.cc

#include "services/orchestrator/core/cluster_facts.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/enums/architecture.h"
#include "lib/status/status_macros.h"
#include "services/orchestrator/core/inventory_util.h"

namespace assisted::orchestrator::core {

absl::StatusOr<ClusterFacts> BuildClusterFacts(const types::v1::Cluster* cluster,
                                               const std::vector<HostView>& hosts,
                                               const HwRequirementsCatalog& catalog,
                                               const ValidationSettings& settings) {
  ClusterFacts f;
  f.cluster = cluster;
  f.settings = settings;
  f.host_count = static_cast<int>(hosts.size());
  const std::string version = cluster != nullptr && !cluster->openshift_version().empty()
                                  ? cluster->openshift_version()
                                  : std::string();
  if (version.empty()) {
    f.requirements = catalog.Defaults();
  } else {
    ASSIGN_OR_RETURN(f.version, version::OcpVersion::Parse(version));
    ASSIGN_OR_RETURN(f.requirements, catalog.ForVersion(version));
  }
  if (cluster != nullptr) {
    f.architecture = std::string(enums::OsImageArchitecture(cluster->cpu_architecture()));
    for (const types::v1::MachineNetwork& m : cluster->machine_networks()) {
      absl::StatusOr<net::Cidr> cidr = net::Cidr::Parse(m.cidr());
      if (cidr.ok()) f.machine_networks.push_back(*cidr);
    }
    f.control_plane_count =
        cluster->control_plane_count() <= 0 ? 3 : cluster->control_plane_count();
    f.sno = f.control_plane_count == 1 ||
            cluster->high_availability_mode() == types::v1::HIGH_AVAILABILITY_MODE_NONE;
    if (f.sno) f.control_plane_count = 1;
    f.day2 = cluster->kind() == types::v1::CLUSTER_KIND_ADD_HOSTS_CLUSTER;
    f.user_managed_networking = cluster->user_managed_networking();
    f.user_managed_load_balancer =
        cluster->load_balancer().type() == types::v1::LOAD_BALANCER_TYPE_USER_MANAGED;
    f.operators = operators::SelectedOperators(*cluster);
    for (const operators::OperatorSpec* op : f.operators) {
      f.operator_extras.cpu_cores += op->per_host.cpu_cores;
      f.operator_extras.ram_mib += op->per_host.ram_mib;
    }
  } else {
    f.architecture = "x86_64";
  }
  std::vector<ConnectivityHost> connectivity;
  connectivity.reserve(hosts.size());
  for (const HostView& v : hosts) {
    const types::v1::Host& h = *v.host;
    f.roles[h.id()] = h.role();
    if (!h.has_inventory()) continue;
    std::string hostname = EffectiveHostname(h);
    if (!hostname.empty()) ++f.hostname_count[hostname];
    std::vector<InterfaceAddress> addresses = Addresses(h.inventory());
    for (const InterfaceAddress& a : addresses) {
      f.address_users[a.ip.ToString()].push_back({h.id(), a.mac});
    }
    connectivity.push_back(
        {h.id(), std::move(addresses),
         v.reports && v.reports->connectivity ? &*v.reports->connectivity : nullptr});
  }
  f.majority = f.UsesL3() ? ComputeL3Groups(connectivity)
                          : ComputeL2Groups(connectivity, f.machine_networks);
  return f;
}

bool ClusterFacts::Selected(absl::string_view name) const {
  for (const operators::OperatorSpec* op : operators) {
    if (op->name == name) return true;
  }
  return false;
}

std::optional<std::string> UserIgnitionEndpointUrl(const types::v1::Cluster& cluster,
                                                   absl::string_view pool) {
  absl::string_view base = cluster.ignition_endpoint().url();
  while (absl::ConsumeSuffix(&base, "/")) {
  }
  if (base.empty()) return std::nullopt;
  return absl::StrCat(base, "/", pool);
}

ClusterDomains DomainsOf(const types::v1::Cluster& cluster) {
  const std::string suffix = absl::StrCat(cluster.name(), ".", cluster.base_dns_domain());
  ClusterDomains d{absl::StrCat("api.", suffix), absl::StrCat("api-int.", suffix),
                   absl::StrCat("*.apps.", suffix), absl::StrCat("validateNoWildcardDNS.", suffix),
                   ""};
  absl::string_view image = cluster.ocp_release_image();
  if (std::size_t slash = image.find('/'); slash != absl::string_view::npos) {
    absl::string_view host = image.substr(0, slash);
    // "quay.io/..." has a registry host; "library/foo" does not (no dot, colon or localhost).
    if (host.find('.') != absl::string_view::npos || host.find(':') != absl::string_view::npos ||
        host == "localhost") {
      d.release = std::string(host.substr(0, host.find(':')));
    }
  }
  return d;
}

}  // namespace assisted::orchestrator::core
