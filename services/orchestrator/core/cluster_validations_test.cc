// Every core cluster validation with its passing, failing and (where its input can be missing)
// pending cases and their messages. The fixture is a healthy three-master cluster.

#include "services/orchestrator/core/cluster_validations.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/testing_fixtures.h"
#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator::core {
namespace {

using ::assisted::testing::IsOk;
using ::testing::HasSubstr;
using testing::Ts;
using types::v1::ValidationStatus;
namespace id = cluster_id;

constexpr auto kOk = types::v1::VALIDATION_STATUS_SUCCESS;
constexpr auto kFail = types::v1::VALIDATION_STATUS_FAILURE;
constexpr auto kPend = types::v1::VALIDATION_STATUS_PENDING;

struct World {
  types::v1::Cluster cluster = testing::HealthyCluster();
  std::vector<types::v1::Host> hosts;
  std::vector<HostReports> reports;
  bool manifests = false;

  World() {
    for (int i = 0; i < 3; ++i) {
      hosts.push_back(testing::HealthyHost(i));
      reports.push_back(testing::HealthyReports(i, 3));
    }
  }
  void AddHost(types::v1::HostRole role) {
    int i = static_cast<int>(hosts.size());
    hosts.push_back(testing::HealthyHost(i));
    hosts.back().set_role(role);
    reports.push_back(testing::HealthyReports(i, i + 1));
  }
  ValidationResults Validate() {
    std::vector<HostView> views;
    for (std::size_t i = 0; i < hosts.size(); ++i) views.push_back({&hosts[i], &reports[i]});
    absl::StatusOr<ClusterFacts> facts =
        BuildClusterFacts(&cluster, views, DefaultHwRequirements(), {});
    EXPECT_THAT(facts, IsOk());
    ClusterValidationContext ctx{cluster, views, *facts, testing::kNow, manifests};
    return ValidateCluster(ctx);
  }
};

using Case = testing::ValidationCase<World>;

void Nothing(World&) {}

// The cluster selects operator `name` (as the gateway keeps an olm_operators selection).
void Select(World& w, absl::string_view name) {
  *w.cluster.add_monitored_operators() =
      operators::MonitoredOperatorOf(*operators::FindOperator(name));
}

std::vector<Case> Cases() {
  using namespace types::v1;  // NOLINT
  return {
      {id::kMachineCidrDefined, "defined", Nothing, kOk, "machine network is defined"},
      {id::kMachineCidrDefined, "missing", [](World& w) { w.cluster.clear_machine_networks(); },
       kFail, "The machine network is undefined; it can be defined by setting either the API"},
      {id::kMachineCidrDefined, "garbage",
       [](World& w) { w.cluster.mutable_machine_networks(0)->set_cidr("ten/8"); }, kFail,
       "The machine network is invalid"},
      {id::kClusterCidrDefined, "defined", Nothing, kOk, "cluster network is defined"},
      {id::kClusterCidrDefined, "missing", [](World& w) { w.cluster.clear_cluster_networks(); },
       kFail, "The cluster network is undefined"},
      {id::kServiceCidrDefined, "defined", Nothing, kOk, "service network is defined"},
      {id::kServiceCidrDefined, "missing", [](World& w) { w.cluster.clear_service_networks(); },
       kFail, "The service network is undefined"},

      {id::kNoCidrsOverlapping, "apart", Nothing, kOk, "No CIDRS are overlapping"},
      {id::kNoCidrsOverlapping, "service inside machine",
       [](World& w) { w.cluster.mutable_service_networks(0)->set_cidr("10.0.0.128/25"); }, kFail,
       "The machine network 10.0.0.0/24 and the service network 10.0.0.128/25 overlap"},
      {id::kNoCidrsOverlapping, "service missing",
       [](World& w) { w.cluster.clear_service_networks(); }, kPend,
       "Waiting for valid machine, cluster and service networks"},

      {id::kNetworksSameAddressFamilies, "IPv4 everywhere", Nothing, kOk, "Same address families"},
      {id::kNetworksSameAddressFamilies, "IPv6 services",
       [](World& w) { w.cluster.mutable_service_networks(0)->set_cidr("fd02::/112"); }, kFail,
       "the service network has IPv6 but the cluster network has IPv4"},
      {id::kNetworksSameAddressFamilies, "cluster network missing",
       [](World& w) { w.cluster.clear_cluster_networks(); }, kPend, "Waiting"},

      {id::kNetworkPrefixValid, "/14 with /23", Nothing, kOk, "prefix is valid"},
      {id::kNetworkPrefixValid, "host prefix too long",
       [](World& w) { w.cluster.mutable_cluster_networks(0)->set_host_prefix(31); }, kFail,
       "Host prefix /31 is invalid for 10.128.0.0/14: it must be longer than /14 and at most /30"},
      {id::kNetworkPrefixValid, "too few slices",
       [](World& w) { w.cluster.mutable_cluster_networks(0)->set_cidr("10.128.0.0/22"); }, kFail,
       "prefix 22 does not contain enough addresses for 3 hosts each one with 23 host prefix"},
      {id::kNetworkPrefixValid, "no cluster network",
       [](World& w) { w.cluster.clear_cluster_networks(); }, kPend,
       "Waiting for the cluster network"},

      {id::kMachineCidrEqualsToCalculatedCidr, "matches", Nothing, kOk, "is equivalent"},
      {id::kMachineCidrEqualsToCalculatedCidr, "differs",
       [](World& w) { w.cluster.mutable_machine_networks(0)->set_cidr("10.0.0.0/16"); }, kFail,
       "not equivalent to the calculated CIDR 10.0.0.0/24"},
      {id::kMachineCidrEqualsToCalculatedCidr, "VIP outside the hosts' networks",
       [](World& w) { w.cluster.mutable_api_vips(0)->set_ip("10.9.9.9"); }, kFail,
       "No host has an interface in the network of VIP 10.9.9.9"},
      {id::kMachineCidrEqualsToCalculatedCidr, "no VIPs",
       [](World& w) {
         w.cluster.clear_api_vips();
         w.cluster.clear_ingress_vips();
       },
       kPend, "derived once the API or Ingress VIP is set"},

      {id::kApiVipsDefined, "set", Nothing, kOk, "API VIPs are defined"},
      {id::kApiVipsDefined, "missing", [](World& w) { w.cluster.clear_api_vips(); }, kFail,
       "API VIPs are undefined and must be provided"},
      {id::kApiVipsDefined, "DHCP not allocated yet",
       [](World& w) {
         w.cluster.clear_api_vips();
         w.cluster.set_vip_dhcp_allocation(true);
       },
       kPend, "Waiting for DHCP to allocate the API VIP"},
      {id::kIngressVipsDefined, "set", Nothing, kOk, "Ingress VIPs are defined"},
      {id::kIngressVipsDefined, "missing", [](World& w) { w.cluster.clear_ingress_vips(); }, kFail,
       "Ingress VIPs are undefined"},
      {id::kIngressVipsDefined, "DHCP not allocated yet",
       [](World& w) {
         w.cluster.clear_ingress_vips();
         w.cluster.set_vip_dhcp_allocation(true);
       },
       kPend, "Ingress VIP"},

      {id::kApiVipsValid, "free and inside", Nothing, kOk, "belong to the machine network"},
      {id::kApiVipsValid, "outside",
       [](World& w) { w.cluster.mutable_api_vips(0)->set_ip("10.1.0.5"); }, kFail,
       "api vip 10.1.0.5 does not belong to the machine network"},
      {id::kApiVipsValid, "in use",
       [](World& w) { w.cluster.mutable_api_vips(0)->set_verification(VIP_VERIFICATION_FAILED); },
       kFail, "api vip 10.0.0.5 is already in use"},
      {id::kApiVipsValid, "a host's address",
       [](World& w) { w.cluster.mutable_api_vips(0)->set_ip(testing::Ip(1)); }, kFail,
       "api vip 10.0.0.11 is the address of host h1"},
      {id::kApiVipsValid, "not an address",
       [](World& w) { w.cluster.mutable_api_vips(0)->set_ip("x"); }, kFail,
       "api vip 'x' is not a valid IP address"},
      {id::kApiVipsValid, "no VIP", [](World& w) { w.cluster.clear_api_vips(); }, kPend,
       "Waiting for the api vips"},
      {id::kIngressVipsValid, "free and inside", Nothing, kOk, "ingress vips belong"},
      {id::kIngressVipsValid, "same as API",
       [](World& w) { w.cluster.mutable_ingress_vips(0)->set_ip("10.0.0.5"); }, kFail,
       "ingress vip 10.0.0.5 is also an api vip"},
      {id::kIngressVipsValid, "no machine network",
       [](World& w) { w.cluster.clear_machine_networks(); }, kPend, "machine network"},

      {id::kAllHostsAreReadyToInstall, "all known", Nothing, kOk, "All hosts"},
      {id::kAllHostsAreReadyToInstall, "one insufficient",
       [](World& w) { w.hosts[2].set_status(HOST_STATUS_INSUFFICIENT); }, kFail,
       "not ready to install: master-2 (insufficient)"},
      {id::kAllHostsAreReadyToInstall, "no hosts",
       [](World& w) {
         w.hosts.clear();
         w.reports.clear();
       },
       kPend, "Waiting for hosts to register"},

      {id::kSufficientMastersCount, "three masters", Nothing, kOk, "exact amount"},
      {id::kSufficientMastersCount, "two masters",
       [](World& w) {
         w.hosts.pop_back();
         w.reports.pop_back();
       },
       kFail, "2 possible control plane hosts; it needs exactly 3"},
      {id::kSufficientMastersCount, "auto-assign fills the gap",
       [](World& w) { w.hosts[2].set_role(HOST_ROLE_AUTO_ASSIGN); }, kOk, "exact amount"},
      {id::kSufficientMastersCount, "four masters", [](World& w) { w.AddHost(HOST_ROLE_MASTER); },
       kFail, "4 control plane hosts; it must have exactly 3"},
      {id::kSufficientMastersCount, "single-node with a worker",
       [](World& w) {
         w.cluster.set_control_plane_count(1);
         w.hosts[1].set_role(HOST_ROLE_WORKER);
       },
       kFail, "Single-node OpenShift needs exactly 1 host"},
      {id::kSufficientMastersCount, "two nodes without arbiter or fencing",
       [](World& w) {
         w.cluster.set_control_plane_count(2);
         w.hosts.pop_back();
         w.reports.pop_back();
       },
       kFail, "needs an arbiter host or fencing credentials"},
      {id::kSufficientMastersCount, "two nodes with an arbiter",
       [](World& w) {
         w.cluster.set_control_plane_count(2);
         w.hosts[2].set_role(HOST_ROLE_ARBITER);
       },
       kOk, "exact amount"},

      {id::kDnsDomainDefined, "set", Nothing, kOk, "example.com"},
      {id::kDnsDomainDefined, "missing", [](World& w) { w.cluster.clear_base_dns_domain(); }, kFail,
       "The base domain is undefined"},
      {id::kPullSecretSet, "set", Nothing, kOk, "pull secret is set"},
      {id::kPullSecretSet, "missing", [](World& w) { w.cluster.set_pull_secret_set(false); }, kFail,
       "The pull secret is not set"},

      {id::kNtpServerConfigured, "in sync", Nothing, kOk, "synchronized"},
      {id::kNtpServerConfigured, "one host 5 minutes off",
       [](World& w) { *w.hosts[1].mutable_timestamp() = Ts(testing::kNow + absl::Minutes(5)); },
       kFail, "difference of more than 4 minutes"},
      {id::kNtpServerConfigured, "one clock only",
       [](World& w) {
         w.hosts[1].clear_timestamp();
         w.hosts[2].clear_timestamp();
       },
       kPend, "at least two hosts"},
      {id::kNtpServerConfigured, "single node", [](World& w) { w.hosts.resize(1); }, kOk,
       "synchronized"},
      {id::kNtpServerConfigured, "no clock yet",
       [](World& w) {
         for (auto& host : w.hosts) host.clear_timestamp();
       },
       kPend, "report their clocks"},

      {id::kNetworkTypeValid, "OVN", Nothing, kOk, "valid network type"},
      {id::kNetworkTypeValid, "SDN on IPv6",
       [](World& w) {
         w.cluster.set_network_type(NETWORK_TYPE_OPENSHIFT_SDN);
         w.cluster.mutable_service_networks(0)->set_cidr("fd02::/112");
       },
       kFail, "OpenShiftSDN supports neither IPv6"},
      {id::kNetworkTypeValid, "OVN with DHCP VIPs",
       [](World& w) { w.cluster.set_vip_dhcp_allocation(true); }, kFail,
       "VIP DHCP allocation is unsupported"},

      {id::kCustomManifestsRequirementsSatisfied, "OVN", Nothing, kOk, "satisfied"},
      {id::kCustomManifestsRequirementsSatisfied, "Calico without manifests",
       [](World& w) { w.cluster.set_network_type(NETWORK_TYPE_CALICO); }, kFail,
       "upload the network plugin's manifests"},
      {id::kCustomManifestsRequirementsSatisfied, "Calico with manifests",
       [](World& w) {
         w.cluster.set_network_type(NETWORK_TYPE_CALICO);
         w.manifests = true;
       },
       kOk, "satisfied"},
      {id::kPlatformRequirementsSatisfied, "baremetal", Nothing, kOk, "satisfied"},
      {id::kPlatformRequirementsSatisfied, "OCI without manifests",
       [](World& w) {
         w.cluster.mutable_platform()->set_type(PLATFORM_TYPE_EXTERNAL);
         w.cluster.mutable_platform()->mutable_external()->set_platform_name("oci");
       },
       kFail, "Oracle Cloud Infrastructure"},

      {id::kLsoRequirementsSatisfied, "not selected", Nothing, kOk, "lso is not selected"},
      {id::kLsoRequirementsSatisfied, "selected", [](World& w) { Select(w, "lso"); }, kOk,
       "Local Storage Operator requirements are satisfied"},

      {id::kLvmRequirementsSatisfied, "not selected", Nothing, kOk, "lvm is not selected"},
      {id::kLvmRequirementsSatisfied, "4.16 with three nodes", [](World& w) { Select(w, "lvm"); },
       kOk, "Logical Volume Manager Storage requirements are satisfied"},
      {id::kLvmRequirementsSatisfied, "4.14 with three nodes",
       [](World& w) {
         Select(w, "lvm");
         w.cluster.set_openshift_version("4.14.2");
       },
       kFail, "only supported for OpenShift 4.15 and above on clusters of more than one node"},
      {id::kLvmRequirementsSatisfied, "4.14 single node",
       [](World& w) {
         Select(w, "lvm");
         w.cluster.set_openshift_version("4.14.2");
         w.cluster.set_control_plane_count(1);
       },
       kOk, "requirements are satisfied"},
      {id::kLvmRequirementsSatisfied, "4.11 single node",
       [](World& w) {
         Select(w, "lvm");
         w.cluster.set_openshift_version("4.11.0");
         w.cluster.set_control_plane_count(1);
       },
       kFail, "only supported for OpenShift 4.12 and above; the cluster installs 4.11.0"},
      {id::kLvmRequirementsSatisfied, "no version yet",
       [](World& w) {
         Select(w, "lvm");
         w.cluster.clear_openshift_version();
       },
       kPend, "Waiting for the OpenShift version"},
  };
}

// Ids decided from the cluster record alone, so they have no pending state.
const std::set<absl::string_view>& NeverPending() {
  static const auto* const kIds =
      new std::set<absl::string_view>{id::kMachineCidrDefined,
                                      id::kClusterCidrDefined,
                                      id::kServiceCidrDefined,
                                      id::kSufficientMastersCount,
                                      id::kDnsDomainDefined,
                                      id::kPullSecretSet,
                                      id::kNetworkTypeValid,
                                      id::kCustomManifestsRequirementsSatisfied,
                                      id::kPlatformRequirementsSatisfied,
                                      id::kLsoRequirementsSatisfied};
  return *kIds;
}

TEST(ClusterValidations, EveryCase) { testing::ExpectValidationCases(Cases()); }

TEST(ClusterValidations, EveryIdHasPassFailAndPendingCases) {
  testing::ExpectEveryIdCovered(Cases(), CoreClusterValidationIds(), NeverPending(),
                                {id::kLsoRequirementsSatisfied});
}

TEST(ClusterValidations, EveryCoreCheckHasAFixHint) {
  for (const ClusterCheck& c : CoreClusterChecks()) EXPECT_FALSE(c.hint.empty()) << c.id;
}

TEST(ClusterValidations, HealthyClusterPassesEverything) {
  World w;
  ValidationResults results = w.Validate();
  ASSERT_EQ(results.outcomes().size(), 21u);
  for (const ValidationOutcome& o : results.outcomes()) {
    EXPECT_EQ(o.status, kOk) << o.id << ": " << o.message;
  }
}

TEST(ClusterValidations, UserManagedNetworkingNeedsNoVipsOrMachineNetwork) {
  World w;
  w.cluster.set_user_managed_networking(true);
  w.cluster.clear_api_vips();
  w.cluster.clear_ingress_vips();
  w.cluster.clear_machine_networks();
  ValidationResults r = w.Validate();
  for (absl::string_view id :
       {id::kMachineCidrDefined, id::kApiVipsDefined, id::kApiVipsValid, id::kIngressVipsDefined,
        id::kIngressVipsValid, id::kMachineCidrEqualsToCalculatedCidr, id::kNoCidrsOverlapping,
        id::kNetworksSameAddressFamilies}) {
    EXPECT_TRUE(r.Passed(id)) << id << ": " << r.Find(id)->message;
  }
}

}  // namespace
}  // namespace assisted::orchestrator::core
