// Every core host validation with its passing, failing and (where its input can be missing)
// pending cases and their messages. The fixture is a healthy master of a healthy three-master
// cluster; each case changes one thing. The last test fails when an id lacks a case.

#include "services/orchestrator/core/host_validations.h"

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
using types::v1::ValidationStatus;
namespace id = host_id;

constexpr auto kOk = types::v1::VALIDATION_STATUS_SUCCESS;
constexpr auto kFail = types::v1::VALIDATION_STATUS_FAILURE;
constexpr auto kPend = types::v1::VALIDATION_STATUS_PENDING;

const absl::Time kNow = testing::kNow;
using testing::Ip;
using testing::Ts;

// A three-master cluster; hosts[0] is the host under test.
struct World {
  types::v1::Cluster cluster;
  std::vector<types::v1::Host> hosts;
  std::vector<HostReports> reports;
  HostTimeouts timeouts;
  ValidationSettings settings{"quay.io/agent:1", true};
  bool unbound = false;

  World() : cluster(testing::HealthyCluster()) {
    for (int i = 0; i < 3; ++i) {
      hosts.push_back(testing::HealthyHost(i));
      reports.push_back(testing::HealthyReports(i, 3));
    }
  }
  types::v1::Host& host() { return hosts[0]; }
  types::v1::Inventory& inv() { return *hosts[0].mutable_inventory(); }
  HostReports& rep() { return reports[0]; }

  ValidationResults Validate(const absl::flat_hash_set<std::string>& disabled = {},
                             const std::vector<HostCheck>& checks = CoreHostChecks()) {
    std::vector<HostView> views;
    for (std::size_t i = 0; i < hosts.size(); ++i) views.push_back({&hosts[i], &reports[i]});
    absl::StatusOr<ClusterFacts> facts =
        BuildClusterFacts(unbound ? nullptr : &cluster, views, DefaultHwRequirements(), settings);
    EXPECT_THAT(facts, IsOk());
    HostValidationContext ctx{hosts[0], reports[0], *facts, kNow, timeouts};
    return ValidateHost(ctx, disabled, checks);
  }
};

using Case = testing::ValidationCase<World>;

void Nothing(World&) {}
void NoInventory(World& w) { w.host().clear_inventory(); }

// The cluster selects operator `name` (as the gateway keeps an olm_operators selection).
void Select(World& w, absl::string_view name) {
  *w.cluster.add_monitored_operators() =
      operators::MonitoredOperatorOf(*operators::FindOperator(name));
}

// A 100 GB disk `name` of `type` besides the installation disk.
types::v1::Disk* AddDisk(World& w, const std::string& name, types::v1::DriveType type) {
  types::v1::Disk* disk = w.inv().add_disks();
  disk->set_id(absl::StrCat("wwn-", name));
  disk->set_name(name);
  disk->set_path(absl::StrCat("/dev/", name));
  disk->set_drive_type(type);
  disk->set_size_bytes(int64_t{100} * 1'000'000'000);
  return disk;
}

std::vector<Case> Cases() {
  using namespace types::v1;  // NOLINT
  return {
      {id::kConnected, "checked in just now", Nothing, kOk, "Host is connected"},
      {id::kConnected, "silent for 4 minutes",
       [](World& w) { *w.host().mutable_checked_in_at() = Ts(kNow - absl::Minutes(4)); }, kFail,
       "no contact for 4 minutes (limit 3)"},
      {id::kConnected, "bootstrap gets 5 minutes",
       [](World& w) {
         w.host().set_bootstrap(true);
         *w.host().mutable_checked_in_at() = Ts(kNow - absl::Minutes(4));
       },
       kOk, "connected"},
      {id::kConnected, "past rebooting",
       [](World& w) {
         w.host().mutable_progress()->set_current_stage(HOST_STAGE_CONFIGURING);
         *w.host().mutable_checked_in_at() = Ts(kNow - absl::Hours(1));
       },
       kOk, "gone by design"},
      {id::kConnected, "never heard from", [](World& w) { w.host().clear_checked_in_at(); }, kPend,
       "not contacted"},

      {id::kMediaConnected, "connected", Nothing, kOk, "media is connected"},
      {id::kMediaConnected, "disconnected",
       [](World& w) { w.host().set_media_status(MEDIA_STATUS_DISCONNECTED); }, kFail,
       "Reconnect it and reboot the host"},

      {id::kHasInventory, "has one", Nothing, kOk, "Valid inventory"},
      {id::kHasInventory, "none", NoInventory, kFail, "Inventory has not been received"},

      {id::kInventoryNotPartiallyTruncated, "whole", Nothing, kOk, "not partially truncated"},
      {id::kInventoryNotPartiallyTruncated, "partial",
       [](World& w) {
         w.inv().mutable_truncation()->set_type(TRUNCATION_TYPE_PARTIAL);
         w.inv().mutable_truncation()->add_reasons("disks: 15000 reported, 1000 kept");
       },
       kFail, "partially truncated to fit the size limit: disks: 15000 reported"},
      {id::kInventoryNotPartiallyTruncated, "no inventory", NoInventory, kPend,
       "Missing inventory"},
      {id::kInventoryNotFullyTruncated, "whole", Nothing, kOk, "not fully truncated"},
      {id::kInventoryNotFullyTruncated, "full",
       [](World& w) { w.inv().mutable_truncation()->set_type(TRUNCATION_TYPE_FULL); }, kFail,
       "fully truncated"},
      {id::kInventoryNotFullyTruncated, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kHasMinCpuCores, "8 cores", Nothing, kOk, "Sufficient CPU cores"},
      {id::kHasMinCpuCores, "1 core", [](World& w) { w.inv().mutable_cpu()->set_count(1); }, kFail,
       "minimum required CPU cores for any role is 2, found only 1"},
      {id::kHasMinCpuCores, "single-node needs 8",
       [](World& w) {
         w.cluster.set_control_plane_count(1);
         w.inv().mutable_cpu()->set_count(6);
       },
       kFail, "for any role is 8, found only 6"},
      {id::kHasMinCpuCores, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kHasMinMemory, "32 GiB", Nothing, kOk, "Sufficient minimum RAM"},
      {id::kHasMinMemory, "4 GiB",
       [](World& w) { w.inv().mutable_memory()->set_physical_bytes(int64_t{4} << 30); }, kFail,
       "minimum required RAM for any role is 8.00 GiB, found only 4.00 GiB"},
      {id::kHasMinMemory, "meminfo undercount within tolerance",
       [](World& w) {
         w.inv().mutable_memory()->set_physical_bytes((int64_t{8} << 30) - (int64_t{200} << 20));
         w.inv().mutable_memory()->set_physical_bytes_method(PHYSICAL_MEMORY_METHOD_MEMINFO);
       },
       kOk, "Sufficient"},
      {id::kHasMinMemory, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kHasMinValidDisks, "200 GB SSD", Nothing, kOk, "Sufficient disk capacity"},
      {id::kHasMinValidDisks, "only a small disk",
       [](World& w) { w.inv().mutable_disks(0)->set_size_bytes(int64_t{20} * 1'000'000'000); },
       kFail, "No eligible disks were found"},
      {id::kHasMinValidDisks, "agent says not eligible",
       [](World& w) {
         w.inv().mutable_disks(0)->mutable_installation_eligibility()->set_eligible(false);
       },
       kFail, "No eligible disks"},
      {id::kHasMinValidDisks, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kHasCpuCoresForRole, "master with 8", Nothing, kOk, "role master"},
      {id::kHasCpuCoresForRole, "master with 2",
       [](World& w) { w.inv().mutable_cpu()->set_count(2); }, kFail,
       "Require at least 4 CPU cores for master role, found only 2"},
      {id::kHasCpuCoresForRole, "auto-assign",
       [](World& w) { w.host().set_role(HOST_ROLE_AUTO_ASSIGN); }, kPend,
       "Missing role assignment"},
      {id::kHasMemoryForRole, "master with 32 GiB", Nothing, kOk, "role master"},
      {id::kHasMemoryForRole, "master with 12 GiB",
       [](World& w) { w.inv().mutable_memory()->set_physical_bytes(int64_t{12} << 30); }, kFail,
       "Require at least 16.00 GiB RAM for role master, found only 12.00 GiB"},
      {id::kHasMemoryForRole, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kMachineCidrDefined, "defined", Nothing, kOk, "is defined"},
      {id::kMachineCidrDefined, "undefined", [](World& w) { w.cluster.clear_machine_networks(); },
       kPend, "Machine Network CIDR is undefined"},
      {id::kMachineCidrDefined, "host bits set",
       [](World& w) { w.cluster.mutable_machine_networks(0)->set_cidr("10.0.0.1/24"); }, kFail,
       "Machine network CIDR is invalid: "},
      {id::kMachineCidrDefined, "user-managed networking",
       [](World& w) {
         w.cluster.clear_machine_networks();
         w.cluster.set_user_managed_networking(true);
       },
       kOk, "User Managed Networking"},

      {id::kBelongsToMachineCidr, "in it", Nothing, kOk, "belongs to all"},
      {id::kBelongsToMachineCidr, "outside",
       [](World& w) { w.cluster.mutable_machine_networks(0)->set_cidr("192.168.7.0/24"); }, kFail,
       "does not belong to machine network CIDR(s) 192.168.7.0/24"},
      {id::kBelongsToMachineCidr, "one of two with a user-managed load balancer",
       [](World& w) {
         w.cluster.add_machine_networks()->set_cidr("192.168.7.0/24");
         w.cluster.mutable_load_balancer()->set_type(LOAD_BALANCER_TYPE_USER_MANAGED);
       },
       kOk, "belongs"},
      {id::kBelongsToMachineCidr, "no networks",
       [](World& w) { w.cluster.clear_machine_networks(); }, kPend,
       "Missing inventory or machine network"},

      {id::kHostnameUnique, "unique", Nothing, kOk, "master-0 is unique"},
      {id::kHostnameUnique, "clash",
       [](World& w) { w.hosts[1].mutable_inventory()->set_hostname("master-0"); }, kFail,
       "Hostname master-0 is not unique in cluster"},
      {id::kHostnameUnique, "requested name resolves the clash",
       [](World& w) {
         w.hosts[1].mutable_inventory()->set_hostname("master-0");
         w.host().set_requested_hostname("alpha");
       },
       kOk, "alpha is unique"},
      {id::kHostnameUnique, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kHostnameValid, "fine", Nothing, kOk, "allowed"},
      {id::kHostnameValid, "localhost", [](World& w) { w.inv().set_hostname("localhost"); }, kFail,
       "localhost is forbidden"},
      {id::kHostnameValid, "upper case", [](World& w) { w.inv().set_hostname("Master_0"); }, kFail,
       "\"Master_0\" is invalid"},
      {id::kHostnameValid, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kIgnitionDownloadable, "day-1", Nothing, kOk, "Not a day-2 host"},
      {id::kIgnitionDownloadable, "day-2 reachable",
       [](World& w) { w.cluster.set_kind(CLUSTER_KIND_ADD_HOSTS_CLUSTER); }, kOk,
       "Ignition is downloadable"},
      {id::kIgnitionDownloadable, "day-2 unreachable",
       [](World& w) {
         w.cluster.set_kind(CLUSTER_KIND_ADD_HOSTS_CLUSTER);
         w.rep().api_vip = ReachabilityCheck{false, "connection refused"};
       },
       kFail, "ensure the API VIP is reachable from the host: connection refused"},
      {id::kIgnitionDownloadable, "day-2 not checked yet",
       [](World& w) {
         w.cluster.set_kind(CLUSTER_KIND_ADD_HOSTS_CLUSTER);
         w.rep().api_vip.reset();
       },
       kPend, "waiting for the API VIP check"},

      {id::kBelongsToMajorityGroup, "full mesh", Nothing, kOk, "majority of hosts"},
      {id::kBelongsToMajorityGroup, "nobody answers us",
       [](World& w) {
         for (int i = 1; i < 3; ++i) {
           for (auto& r : w.reports[i].connectivity->remote_hosts) {
             if (r.host_id == "h0") r.l2[0].successful = false;
           }
         }
       },
       kFail, "No connectivity to the majority of hosts"},
      {id::kBelongsToMajorityGroup, "two hosts only",
       [](World& w) {
         w.hosts.pop_back();
         w.reports.pop_back();
       },
       kPend, "Not enough hosts in cluster"},
      {id::kBelongsToMajorityGroup, "no check yet", [](World& w) { w.rep().connectivity.reset(); },
       kPend, "Waiting for the host's connectivity check"},

      {id::kMtuValid, "fine", Nothing, kOk, "MTU is ok"},
      {id::kMtuValid, "jumbo frames dropped",
       [](World& w) { w.rep().connectivity->remote_hosts[0].mtu[0].successful = false; }, kFail,
       "MTU is broken for 1 connection(s): eth0 -> 10.0.0.11"},
      {id::kMtuValid, "no check yet", [](World& w) { w.rep().connectivity.reset(); }, kPend,
       "connectivity check"},

      {id::kValidPlatformNetworkSettings, "bare metal", Nothing, kOk, "PowerEdge R640 is allowed"},
      {id::kValidPlatformNetworkSettings, "OpenStack VM, multi-node",
       [](World& w) { w.inv().mutable_system_vendor()->set_product_name("OpenStack Compute"); },
       kFail, "allowed only for Single Node OpenShift or user-managed networking"},
      {id::kValidPlatformNetworkSettings, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kCompatibleWithClusterPlatform, "bare metal", Nothing, kOk, "compatible"},
      {id::kCompatibleWithClusterPlatform, "vsphere cluster, Dell host",
       [](World& w) { w.cluster.mutable_platform()->set_type(PLATFORM_TYPE_VSPHERE); }, kFail,
       "not compatible with cluster platform vsphere"},
      {id::kCompatibleWithClusterPlatform, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kVsphereDiskUuidEnabled, "not a VM", Nothing, kOk, "Not a vSphere"},
      {id::kVsphereDiskUuidEnabled, "VM without disk UUID",
       [](World& w) {
         w.inv().mutable_system_vendor()->set_manufacturer("VMware, Inc.");
         w.inv().mutable_disks(0)->set_has_uuid(false);
       },
       kFail, "disk.EnableUUID isn't enabled"},
      {id::kVsphereDiskUuidEnabled, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kNtpSynced, "synced", Nothing, kOk, "NTP is synced"},
      {id::kNtpSynced, "unreachable",
       [](World& w) {
         w.rep().ntp_sources = std::vector<NtpSource>{{"pool.ntp.org", "unreachable"}};
       },
       kFail, "couldn't synchronize with any NTP server"},
      {id::kNtpSynced, "not reported", [](World& w) { w.rep().ntp_sources.reset(); }, kPend,
       "NTP sources"},

      {id::kTimeSyncedBetweenHostAndService, "same time", Nothing, kOk, "synchronized"},
      {id::kTimeSyncedBetweenHostAndService, "host 30 minutes behind",
       [](World& w) { *w.host().mutable_timestamp() = Ts(kNow - absl::Minutes(30)); }, kFail,
       "more than a 20 minutes gap"},
      {id::kTimeSyncedBetweenHostAndService, "host 30 minutes ahead is tolerated",
       [](World& w) { *w.host().mutable_timestamp() = Ts(kNow + absl::Minutes(30)); }, kOk,
       "synchronized"},
      {id::kTimeSyncedBetweenHostAndService, "host 61 minutes ahead",
       [](World& w) { *w.host().mutable_timestamp() = Ts(kNow + absl::Minutes(61)); }, kFail,
       "more than a 60 minutes gap"},
      {id::kTimeSyncedBetweenHostAndService, "no clock yet",
       [](World& w) { w.host().clear_timestamp(); }, kPend, "clock"},

      {id::kContainerImagesAvailable, "pulled", Nothing, kOk, "pulled successfully"},
      {id::kContainerImagesAvailable, "pull failed",
       [](World& w) {
         w.rep().images = std::vector<ImageStatus>{{"quay.io/release", false, std::nullopt}};
       },
       kFail, "Failed to fetch container images needed for installation from quay.io/release"},
      {id::kContainerImagesAvailable, "too slow",
       [](World& w) {
         w.rep().images = std::vector<ImageStatus>{{"quay.io/release", true, 0.0001}};
       },
       kFail, "Failed to fetch"},
      {id::kContainerImagesAvailable, "not checked yet", [](World& w) { w.rep().images.reset(); },
       kPend, "Waiting for the container image availability check"},

      {id::kSufficientInstallationDiskSpeed, "3 ms", Nothing, kOk, "sufficient"},
      {id::kSufficientInstallationDiskSpeed, "25 ms",
       [](World& w) {
         w.rep().disk_speeds = std::vector<DiskSpeed>{{"/dev/sda", true, 25, 0}};
       },
       kFail, "/dev/sda is too slow: 25 ms per sync, at most 10 ms"},
      {id::kSufficientInstallationDiskSpeed, "fio failed",
       [](World& w) {
         w.rep().disk_speeds = std::vector<DiskSpeed>{{"/dev/sda", true, 0, 5}};
       },
       kFail, "measurement on /dev/sda failed (exit code 5)"},
      {id::kSufficientInstallationDiskSpeed, "not measured",
       [](World& w) { w.rep().disk_speeds.reset(); }, kPend, "not yet been measured"},

      {id::kSufficientNetworkLatency, "1.5 ms", Nothing, kOk, "satisfied"},
      {id::kSufficientNetworkLatency, "150 ms to a master",
       [](World& w) { w.rep().connectivity->remote_hosts[1].l3[0].average_rtt_ms = 150; }, kFail,
       "latency (ms) requirement of at most 100 for role master not met for 1 connection(s): "
       "10.0.0.12 (150)"},
      {id::kSufficientNetworkLatency, "no check yet",
       [](World& w) { w.rep().connectivity.reset(); }, kPend, "connectivity check"},
      {id::kSufficientPacketLoss, "no loss", Nothing, kOk, "satisfied"},
      {id::kSufficientPacketLoss, "5% loss for a master",
       [](World& w) { w.rep().connectivity->remote_hosts[0].l3[0].packet_loss_percentage = 5; },
       kFail, "packet loss (%) requirement of at most 0 for role master"},
      {id::kSufficientPacketLoss, "5% loss for a worker is fine",
       [](World& w) {
         w.host().set_role(HOST_ROLE_WORKER);
         w.rep().connectivity->remote_hosts[0].l3[0].packet_loss_percentage = 5;
       },
       kOk, "satisfied"},
      {id::kSufficientPacketLoss, "no check yet", [](World& w) { w.rep().connectivity.reset(); },
       kPend, "connectivity check"},

      {id::kHasDefaultRoute, "has one", Nothing, kOk, "at least one default route"},
      {id::kHasDefaultRoute, "none", [](World& w) { w.inv().clear_routes(); }, kFail,
       "not yet been configured with a default route"},
      {id::kHasDefaultRoute, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kApiDomainNameResolved, "cluster-managed DNS", Nothing, kOk, "managed by the cluster"},
      {id::kApiDomainNameResolved, "user DNS resolves",
       [](World& w) { w.cluster.set_user_managed_networking(true); }, kOk,
       "api.c.example.com domain was successful"},
      {id::kApiDomainNameResolved, "user DNS missing api",
       [](World& w) {
         w.cluster.set_user_managed_networking(true);
         w.rep().domains->erase(w.rep().domains->begin());
       },
       kFail, "Couldn't resolve domain name api.c.example.com on the host"},
      {id::kApiDomainNameResolved, "not checked yet",
       [](World& w) {
         w.cluster.set_user_managed_networking(true);
         w.rep().domains.reset();
       },
       kPend, "DNS resolution check"},
      {id::kApiIntDomainNameResolved, "user DNS resolves",
       [](World& w) { w.cluster.set_user_managed_networking(true); }, kOk, "api-int"},
      {id::kApiIntDomainNameResolved, "user DNS missing api-int",
       [](World& w) {
         w.cluster.set_user_managed_networking(true);
         (*w.rep().domains)[1].ipv4.clear();
       },
       kFail, "api-int.c.example.com"},
      {id::kApiIntDomainNameResolved, "no base domain",
       [](World& w) {
         w.cluster.set_user_managed_networking(true);
         w.cluster.clear_base_dns_domain();
       },
       kPend, "base domain are not set"},
      {id::kAppsDomainNameResolved, "user DNS resolves",
       [](World& w) { w.cluster.set_user_managed_networking(true); }, kOk, "apps"},
      {id::kAppsDomainNameResolved, "user DNS missing apps",
       [](World& w) {
         w.cluster.set_user_managed_networking(true);
         (*w.rep().domains)[2].ipv4.clear();
       },
       kFail,
       "*.apps.c.example.com on the host. To continue installation, create the necessary DNS "
       "entries"},
      {id::kAppsDomainNameResolved, "not checked yet",
       [](World& w) {
         w.cluster.set_user_managed_networking(true);
         w.rep().domains.reset();
       },
       kPend, "DNS resolution check"},

      {id::kReleaseDomainNameResolved, "resolves", Nothing, kOk, "quay.io domain was successful"},
      {id::kReleaseDomainNameResolved, "does not resolve",
       [](World& w) { w.rep().domains->pop_back(); }, kFail,
       "Couldn't resolve the release image registry quay.io"},
      {id::kReleaseDomainNameResolved, "not checked yet", [](World& w) { w.rep().domains.reset(); },
       kPend, "DNS resolution check"},

      {id::kDnsWildcardNotConfigured, "no wildcard", Nothing, kOk, "successful"},
      {id::kDnsWildcardNotConfigured, "wildcard answers",
       [](World& w) {
         w.rep().domains->push_back({"validateNoWildcardDNS.c.example.com", {"1.1.1.1"}, {}, {}});
       },
       kFail, "DNS wildcard configuration was detected for domain *.c.example.com"},
      {id::kDnsWildcardNotConfigured, "not checked yet", [](World& w) { w.rep().domains.reset(); },
       kPend, "DNS resolution check"},

      {id::kNonOverlappingSubnets, "one NIC", Nothing, kOk, "not overlapping"},
      {id::kNonOverlappingSubnets, "overlapping NICs",
       [](World& w) {
         types::v1::Interface* nic = w.inv().add_interfaces();
         nic->set_name("eth1");
         nic->add_ipv4_addresses("10.0.0.200/16");
       },
       kFail, "10.0.0.0/24 (eth0) and 10.0.0.0/16 (eth1)"},
      {id::kNonOverlappingSubnets, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kNoIpCollisionsInNetwork, "unique", Nothing, kOk, "No IP collisions"},
      {id::kNoIpCollisionsInNetwork, "shared address",
       [](World& w) {
         w.hosts[2].mutable_inventory()->mutable_interfaces(0)->set_ipv4_addresses(0,
                                                                                   Ip(0) + "/24");
       },
       kFail, "Collisions detected for host ID h0 - IP address: 10.0.0.10 also used by h2"},
      {id::kNoIpCollisionsInNetwork, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kNoIscsiNicBelongsToMachineCidr, "not iSCSI", Nothing, kOk, "not an iSCSI disk"},
      {id::kNoIscsiNicBelongsToMachineCidr, "iSCSI over the machine network",
       [](World& w) {
         w.inv().mutable_disks(0)->set_drive_type(DRIVE_TYPE_ISCSI);
         w.inv().mutable_disks(0)->mutable_iscsi()->set_host_ip_address(Ip(0));
       },
       kFail, "iSCSI disk (10.0.0.10) cannot belong to machine network CIDR 10.0.0.0/24"},
      {id::kNoIscsiNicBelongsToMachineCidr, "iSCSI, address unknown",
       [](World& w) { w.inv().mutable_disks(0)->set_drive_type(DRIVE_TYPE_ISCSI); }, kPend,
       "iSCSI disk's host IP"},

      {id::kDiskEncryptionRequirementsSatisfied, "disabled", Nothing, kOk, "not enabled"},
      {id::kDiskEncryptionRequirementsSatisfied, "TPM 2.0",
       [](World& w) { w.cluster.mutable_disk_encryption()->add_enable_on(HOST_ROLE_MASTER); }, kOk,
       "tpmv2"},
      {id::kDiskEncryptionRequirementsSatisfied, "TPM 1.2",
       [](World& w) {
         w.cluster.mutable_disk_encryption()->add_enable_on(HOST_ROLE_MASTER);
         w.inv().set_tpm_version(TPM_VERSION_1_2);
       },
       kFail, "expected-version: 2.0, actual-version: 1.2"},
      {id::kDiskEncryptionRequirementsSatisfied, "Tang unreachable",
       [](World& w) {
         w.cluster.mutable_disk_encryption()->add_enable_on(HOST_ROLE_MASTER);
         w.cluster.mutable_disk_encryption()->set_mode(DISK_ENCRYPTION_MODE_TANG);
         w.rep().tang = ReachabilityCheck{false, "no route to tang.example.com"};
       },
       kFail, "Tang servers are reachable: no route to tang.example.com"},
      {id::kDiskEncryptionRequirementsSatisfied, "role not chosen",
       [](World& w) {
         w.cluster.mutable_disk_encryption()->add_enable_on(HOST_ROLE_MASTER);
         w.host().set_role(HOST_ROLE_AUTO_ASSIGN);
       },
       kPend, "Missing role assignment"},

      {id::kCompatibleAgent, "same image", Nothing, kOk, "compatible"},
      {id::kCompatibleAgent, "old image",
       [](World& w) { w.host().set_discovery_agent_version("quay.io/agent:0"); }, kFail,
       "will be upgraded automatically"},
      {id::kCompatibleAgent, "unknown version",
       [](World& w) { w.host().clear_discovery_agent_version(); }, kPend, "agent's version"},

      {id::kNoSkipInstallationDisk, "no skips", Nothing, kOk, "No request"},
      {id::kNoSkipInstallationDisk, "skip the install disk",
       [](World& w) { w.host().add_skip_formatting_disks("wwn-sda"); }, kFail,
       "skip formatting of the installation disk is not allowed"},
      {id::kNoSkipInstallationDisk, "no disk chosen",
       [](World& w) { w.host().clear_installation_disk_id(); }, kPend, "No installation disk"},

      {id::kNoSkipMissingDisk, "no skips", Nothing, kOk, "present"},
      {id::kNoSkipMissingDisk, "skipped disk gone",
       [](World& w) { w.host().add_skip_formatting_disks("wwn-sdz"); }, kFail,
       "no longer present in the inventory: wwn-sdz"},
      {id::kNoSkipMissingDisk, "no inventory", NoInventory, kPend, "Missing inventory"},

      {id::kLsoRequirementsSatisfied, "not selected", Nothing, kOk, "lso is not selected"},
      {id::kLsoRequirementsSatisfied, "selected", [](World& w) { Select(w, "lso"); }, kOk,
       "no requirement towards the host"},

      {id::kLvmRequirementsSatisfied, "not selected", Nothing, kOk, "lvm is not selected"},
      {id::kLvmRequirementsSatisfied, "only the installation disk",
       [](World& w) { Select(w, "lvm"); }, kFail,
       "requires at least one non-installation HDD/SSD disk on the host"},
      {id::kLvmRequirementsSatisfied, "a spare disk",
       [](World& w) {
         Select(w, "lvm");
         AddDisk(w, "sdb", types::v1::DRIVE_TYPE_HDD);
       },
       kOk, "Logical Volume Manager Storage can use sdb"},
      {id::kLvmRequirementsSatisfied, "the spare disk is the discovery stick",
       [](World& w) {
         Select(w, "lvm");
         AddDisk(w, "sdb", types::v1::DRIVE_TYPE_SSD)->set_removable(true);
       },
       kFail, "non-installation HDD/SSD disk"},
      {id::kLvmRequirementsSatisfied, "the spare disk is a multipath member",
       [](World& w) {
         Select(w, "lvm");
         AddDisk(w, "sdb", types::v1::DRIVE_TYPE_SSD)->set_holders("dm-0");
       },
       kFail, "non-installation HDD/SSD disk"},
      {id::kLvmRequirementsSatisfied, "one disk and none chosen yet",
       [](World& w) {
         Select(w, "lvm");
         w.host().clear_installation_disk_id();
         w.host().clear_installation_disk_path();
       },
       kPend, "sda is the only disk"},
      {id::kLvmRequirementsSatisfied, "no inventory",
       [](World& w) {
         Select(w, "lvm");
         NoInventory(w);
       },
       kPend, "Missing inventory"},

      {id::kHasCpuCoresForRole, "lvm adds a core to the master's 4",
       [](World& w) {
         Select(w, "lvm");
         w.inv().mutable_cpu()->set_count(4);
       },
       kFail,
       "Require at least 5 CPU cores for master role (including 1 for the selected operators "
       "lvm), found only 4"},
      {id::kHasMemoryForRole, "lvm adds 1200 MiB to the master's 16 GiB",
       [](World& w) {
         Select(w, "lvm");
         w.inv().mutable_memory()->set_physical_bytes(int64_t{16} << 30);
       },
       kFail, "(including 1200 for the selected operators lvm)"},
  };
}

// Ids whose input is always present, so they have no pending state.
const std::set<absl::string_view>& NeverPending() {
  static const auto* const kIds = new std::set<absl::string_view>{
      id::kMediaConnected, id::kHasInventory, id::kLsoRequirementsSatisfied};
  return *kIds;
}

TEST(HostValidations, EveryCase) { testing::ExpectValidationCases(Cases()); }

TEST(HostValidations, EveryIdHasPassFailAndPendingCases) {
  testing::ExpectEveryIdCovered(Cases(), CoreHostValidationIds(), NeverPending(),
                                {id::kLsoRequirementsSatisfied});
}

TEST(HostValidations, HealthyHostPassesEverything) {
  World w;
  ValidationResults results = w.Validate();
  ASSERT_EQ(results.outcomes().size(), 41u);
  for (const ValidationOutcome& o : results.outcomes()) {
    EXPECT_EQ(o.status, kOk) << o.id << ": " << o.message;
    EXPECT_NE(o.category, types::v1::VALIDATION_CATEGORY_UNSPECIFIED) << o.id;
  }
}

TEST(HostValidations, CoreChecksMatchTheIdList) {
  std::vector<absl::string_view> ids;
  for (const HostCheck& c : CoreHostChecks()) ids.push_back(c.id);
  std::vector<absl::string_view> expected = CoreHostValidationIds();
  std::sort(ids.begin(), ids.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ids, expected);
}

TEST(HostValidations, EveryCoreCheckHasAFixHint) {
  for (const HostCheck& c : CoreHostChecks()) EXPECT_FALSE(c.hint.empty()) << c.id;
}

TEST(HostValidations, AFailureCarriesItsChecksHintAndAPassNone) {
  World w;
  w.inv().mutable_cpu()->set_count(1);
  ValidationResults r = w.Validate();
  const ValidationOutcome* failed = r.Find(id::kHasMinCpuCores);
  ASSERT_NE(failed, nullptr);
  ASSERT_EQ(failed->status, types::v1::VALIDATION_STATUS_FAILURE);
  EXPECT_THAT(failed->hint, ::testing::HasSubstr("more CPU cores"));
  const ValidationOutcome* passed = r.Find(id::kHasMinMemory);
  ASSERT_NE(passed, nullptr);
  EXPECT_EQ(passed->status, kOk);
  EXPECT_EQ(passed->hint, "");
  types::v1::Host host;
  r.ToProto(host.mutable_validations_info());
  for (const types::v1::ValidationResult& v : host.validations_info()) {
    if (v.id() == id::kHasMinCpuCores) {
      EXPECT_EQ(v.hint(), failed->hint);
    }
  }
}

TEST(HostValidations, DisabledChecksReportDisabled) {
  World w;
  w.inv().mutable_cpu()->set_count(1);
  ValidationResults r = w.Validate({std::string(id::kHasMinCpuCores)});
  EXPECT_EQ(r.StatusOf(id::kHasMinCpuCores), types::v1::VALIDATION_STATUS_DISABLED);
  EXPECT_TRUE(r.Passed(id::kHasMinCpuCores));
}

TEST(HostValidations, ExtraChecksAppendToTheCoreList) {
  World w;
  std::vector<HostCheck> checks = CoreHostChecks();
  checks.push_back({"example-requirements-satisfied", types::v1::VALIDATION_CATEGORY_OPERATORS,
                    [](const HostValidationContext&) { return Success("example is happy"); }});
  ValidationResults r = w.Validate({}, checks);
  EXPECT_EQ(r.outcomes().size(), 42u);
  EXPECT_TRUE(r.Passed("example-requirements-satisfied"));
}

TEST(HostValidations, UnboundHostUsesTheSmallestRole) {
  World w;
  w.unbound = true;
  w.inv().mutable_cpu()->set_count(2);
  w.inv().mutable_disks(0)->set_size_bytes(int64_t{60} * 1'000'000'000);  // arbiter fits
  ValidationResults r = w.Validate();
  EXPECT_TRUE(r.Passed(id::kHasMinCpuCores));
  EXPECT_TRUE(r.Passed(id::kHasMinValidDisks));
  EXPECT_TRUE(r.Passed(id::kMachineCidrDefined));
}

ClusterFacts FactsOf(const types::v1::Cluster& cluster) {
  absl::StatusOr<ClusterFacts> facts = BuildClusterFacts(&cluster, {}, DefaultHwRequirements(), {});
  EXPECT_THAT(facts, IsOk());
  return *facts;
}

TEST(PreflightRequirements, AreTheRowsTheValidationsHoldEachRoleTo) {
  types::v1::Cluster cluster = testing::HealthyCluster();
  cluster.set_openshift_version("4.16");
  const ClusterFacts facts = FactsOf(cluster);
  const PreflightRequirements p = PreflightRequirementsOf(facts);
  const HwRequirements& file = facts.requirements;
  EXPECT_EQ(p.master.cpu_cores, file.Role(RequirementRole::kMaster).cpu_cores);
  EXPECT_EQ(p.master.ram_mib, file.Role(RequirementRole::kMaster).ram_mib);
  EXPECT_EQ(p.master.network_latency_threshold_ms,
            file.Role(RequirementRole::kMaster).network_latency_threshold_ms);
  EXPECT_EQ(p.worker.disk_size_gb, file.Role(RequirementRole::kWorker).disk_size_gb);
  EXPECT_EQ(p.worker.packet_loss_percentage,
            file.Role(RequirementRole::kWorker).packet_loss_percentage);
  ASSERT_TRUE(p.arbiter.has_value());
  EXPECT_EQ(p.arbiter->ram_mib, file.Role(RequirementRole::kArbiter).ram_mib);
}

TEST(PreflightRequirements, SingleNodeAnswersTheSnoRowAndNoArbiter) {
  types::v1::Cluster cluster = testing::HealthyCluster();
  cluster.set_openshift_version("4.16");
  cluster.set_control_plane_count(1);
  const ClusterFacts facts = FactsOf(cluster);
  const PreflightRequirements p = PreflightRequirementsOf(facts);
  const RoleRequirements& sno = facts.requirements.Role(RequirementRole::kSno);
  EXPECT_EQ(p.master.cpu_cores, sno.cpu_cores);
  EXPECT_EQ(p.worker.cpu_cores, sno.cpu_cores);
  EXPECT_FALSE(p.master.network_latency_threshold_ms.has_value());
  EXPECT_FALSE(p.arbiter.has_value());
  // The file's version overrides reach the answer too (4.22 lowers the sno cores).
  cluster.set_openshift_version("4.22");
  EXPECT_EQ(PreflightRequirementsOf(FactsOf(cluster)).master.cpu_cores,
            DefaultHwRequirements().ForVersion("4.22")->Role(RequirementRole::kSno).cpu_cores);
}

TEST(SupportedPlatforms, AreThoseEveryHostIsCompatibleWith) {
  using namespace types::v1;  // NOLINT
  World w;
  std::vector<const Host*> hosts = {&w.hosts[0], &w.hosts[1]};
  EXPECT_THAT(
      SupportedPlatforms(hosts),
      ::testing::ElementsAre(PLATFORM_TYPE_BAREMETAL, PLATFORM_TYPE_NONE, PLATFORM_TYPE_EXTERNAL));
  for (Host& h : w.hosts)
    h.mutable_inventory()->mutable_system_vendor()->set_manufacturer("VMware, Inc.");
  EXPECT_THAT(SupportedPlatforms(hosts),
              ::testing::ElementsAre(PLATFORM_TYPE_BAREMETAL, PLATFORM_TYPE_NONE,
                                     PLATFORM_TYPE_VSPHERE, PLATFORM_TYPE_EXTERNAL));
  // One host without an inventory yet: nothing proves it is a VMware machine.
  w.hosts[1].clear_inventory();
  EXPECT_THAT(
      SupportedPlatforms(hosts),
      ::testing::ElementsAre(PLATFORM_TYPE_BAREMETAL, PLATFORM_TYPE_NONE, PLATFORM_TYPE_EXTERNAL));
  EXPECT_THAT(SupportedPlatforms({}), ::testing::IsEmpty());
}

TEST(SupportedPlatforms, AgreeWithTheCompatibilityValidation) {
  World w;
  for (types::v1::Host& h : w.hosts) {
    h.mutable_inventory()->mutable_system_vendor()->set_manufacturer("Nutanix");
  }
  w.cluster.mutable_platform()->set_type(types::v1::PLATFORM_TYPE_NUTANIX);
  EXPECT_TRUE(w.Validate().Passed(id::kCompatibleWithClusterPlatform));
  w.inv().mutable_system_vendor()->set_manufacturer("Dell Inc.");
  EXPECT_FALSE(w.Validate().Passed(id::kCompatibleWithClusterPlatform));
  EXPECT_FALSE(HostSupportsPlatform(&w.inv(), types::v1::PLATFORM_TYPE_NUTANIX));
}

}  // namespace
}  // namespace assisted::orchestrator::core
