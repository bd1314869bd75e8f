// File: services/orchestrator/core/validation_ids.h
//
// The ids of the core validations (41 for hosts, 21 for clusters), their reporting categories,
// and the groups the state machines gate on. Ids are the reference's, so API users, ignore lists
// and docs carry over. The operators' validations (lso-requirements-satisfied,
// lvm-requirements-satisfied: one host and one cluster check per row of lib/operators/catalog.h)
// are core checks too: they pass ("... is not selected") unless the cluster selected the
// operator, as upstream reports them.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_VALIDATION_IDS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_VALIDATION_IDS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace assisted::orchestrator::core {

namespace host_id {
inline constexpr absl::string_view kConnected = "connected";
inline constexpr absl::string_view kMediaConnected = "media-connected";
inline constexpr absl::string_view kHasInventory = "has-inventory";
inline constexpr absl::string_view kInventoryNotPartiallyTruncated =
    "inventory-not-partially-truncated";
inline constexpr absl::string_view kInventoryNotFullyTruncated = "inventory-not-fully-truncated";
inline constexpr absl::string_view kHasMinCpuCores = "has-min-cpu-cores";
inline constexpr absl::string_view kHasMinMemory = "has-min-memory";
inline constexpr absl::string_view kHasMinValidDisks = "has-min-valid-disks";
inline constexpr absl::string_view kHasCpuCoresForRole = "has-cpu-cores-for-role";
inline constexpr absl::string_view kHasMemoryForRole = "has-memory-for-role";
inline constexpr absl::string_view kMachineCidrDefined = "machine-cidr-defined";
inline constexpr absl::string_view kBelongsToMachineCidr = "belongs-to-machine-cidr";
inline constexpr absl::string_view kHostnameUnique = "hostname-unique";
inline constexpr absl::string_view kHostnameValid = "hostname-valid";
inline constexpr absl::string_view kIgnitionDownloadable = "ignition-downloadable";
inline constexpr absl::string_view kBelongsToMajorityGroup = "belongs-to-majority-group";
inline constexpr absl::string_view kMtuValid = "mtu-valid";
inline constexpr absl::string_view kValidPlatformNetworkSettings =
    "valid-platform-network-settings";
inline constexpr absl::string_view kCompatibleWithClusterPlatform =
    "compatible-with-cluster-platform";
inline constexpr absl::string_view kVsphereDiskUuidEnabled = "vsphere-disk-uuid-enabled";
inline constexpr absl::string_view kNtpSynced = "ntp-synced";
inline constexpr absl::string_view kTimeSyncedBetweenHostAndService =
    "time-synced-between-host-and-service";
inline constexpr absl::string_view kContainerImagesAvailable = "container-images-available";
inline constexpr absl::string_view kSufficientInstallationDiskSpeed =
    "sufficient-installation-disk-speed";
inline constexpr absl::string_view kSufficientNetworkLatency =
    "sufficient-network-latency-requirement-for-role";
inline constexpr absl::string_view kSufficientPacketLoss =
    "sufficient-packet-loss-requirement-for-role";
inline constexpr absl::string_view kHasDefaultRoute = "has-default-route";
inline constexpr absl::string_view kApiDomainNameResolved = "api-domain-name-resolved-correctly";
inline constexpr absl::string_view kApiIntDomainNameResolved =
    "api-int-domain-name-resolved-correctly";
inline constexpr absl::string_view kAppsDomainNameResolved = "apps-domain-name-resolved-correctly";
inline constexpr absl::string_view kReleaseDomainNameResolved =
    "release-domain-name-resolved-correctly";
inline constexpr absl::string_view kDnsWildcardNotConfigured = "dns-wildcard-not-configured";
inline constexpr absl::string_view kNonOverlappingSubnets = "non-overlapping-subnets";
inline constexpr absl::string_view kNoIpCollisionsInNetwork = "no-ip-collisions-in-network";
inline constexpr absl::string_view kNoIscsiNicBelongsToMachineCidr =
    "no-iscsi-nic-belongs-to-machine-cidr";
inline constexpr absl::string_view kDiskEncryptionRequirementsSatisfied =
    "disk-encryption-requirements-satisfied";
inline constexpr absl::string_view kCompatibleAgent = "compatible-agent";
inline constexpr absl::string_view kNoSkipInstallationDisk = "no-skip-installation-disk";
inline constexpr absl::string_view kNoSkipMissingDisk = "no-skip-missing-disk";
inline constexpr absl::string_view kLsoRequirementsSatisfied = "lso-requirements-satisfied";
inline constexpr absl::string_view kLvmRequirementsSatisfied = "lvm-requirements-satisfied";
}  // namespace host_id

namespace cluster_id {
inline constexpr absl::string_view kMachineCidrDefined = "machine-cidr-defined";
inline constexpr absl::string_view kClusterCidrDefined = "cluster-cidr-defined";
inline constexpr absl::string_view kServiceCidrDefined = "service-cidr-defined";
inline constexpr absl::string_view kNoCidrsOverlapping = "no-cidrs-overlapping";
inline constexpr absl::string_view kNetworksSameAddressFamilies = "networks-same-address-families";
inline constexpr absl::string_view kNetworkPrefixValid = "network-prefix-valid";
inline constexpr absl::string_view kMachineCidrEqualsToCalculatedCidr =
    "machine-cidr-equals-to-calculated-cidr";
inline constexpr absl::string_view kApiVipsDefined = "api-vips-defined";
inline constexpr absl::string_view kApiVipsValid = "api-vips-valid";
inline constexpr absl::string_view kIngressVipsDefined = "ingress-vips-defined";
inline constexpr absl::string_view kIngressVipsValid = "ingress-vips-valid";
inline constexpr absl::string_view kAllHostsAreReadyToInstall = "all-hosts-are-ready-to-install";
inline constexpr absl::string_view kSufficientMastersCount = "sufficient-masters-count";
inline constexpr absl::string_view kDnsDomainDefined = "dns-domain-defined";
inline constexpr absl::string_view kPullSecretSet = "pull-secret-set";
inline constexpr absl::string_view kNtpServerConfigured = "ntp-server-configured";
inline constexpr absl::string_view kNetworkTypeValid = "network-type-valid";
inline constexpr absl::string_view kCustomManifestsRequirementsSatisfied =
    "custom-manifests-requirements-satisfied";
inline constexpr absl::string_view kPlatformRequirementsSatisfied =
    "platform-requirements-satisfied";
inline constexpr absl::string_view kLsoRequirementsSatisfied = "lso-requirements-satisfied";
inline constexpr absl::string_view kLvmRequirementsSatisfied = "lvm-requirements-satisfied";
}  // namespace cluster_id

// Host gates, as the host state machine uses them. Every core host id is in exactly one of these
// groups or handled by its own rows (connected, media-connected, has-inventory); a test checks it.
struct HostGates {
  // Failing any: the host is insufficient whatever its role ("minimum hardware").
  std::vector<absl::string_view> min_hardware;
  // Failing any: the host waits for user input (pending-for-input).
  std::vector<absl::string_view> required_input;
  // Failing any: insufficient.
  std::vector<absl::string_view> sufficient_for_install;
  // Like sufficient_for_install, but "pending" passes: measured only once installation starts.
  std::vector<absl::string_view> sufficient_or_unknown;
  // Reported, never blocking.
  std::vector<absl::string_view> informative;
  // Unbound hosts: known-unbound needs these.
  std::vector<absl::string_view> unbound_min_hardware;
};
const HostGates& HostValidationGates();

// The 41 core host ids: connected, media-connected, has-inventory, then every gate group's ids.
std::vector<absl::string_view> CoreHostValidationIds();

// Cluster gates, as the cluster state machine uses them.
struct ClusterGates {
  // Missing: pending-for-input.
  std::vector<absl::string_view> required_input;
  // VIPs: required input unless vip_dhcp_allocation, then required for install.
  std::vector<absl::string_view> vips_defined;
  // Failing any: insufficient.
  std::vector<absl::string_view> required_for_install;
};
const ClusterGates& ClusterValidationGates();

// The 21 core cluster ids, gate group by gate group.
std::vector<absl::string_view> CoreClusterValidationIds();

// Ignoring validations (ignored_host_validations, ignored_cluster_validations): a user may ignore
// any core id except these, without which a host or a cluster cannot be installed at all (the
// reference's non-ignorable lists). "all" in a list ignores every ignorable id.
inline constexpr absl::string_view kIgnoreAll = "all";
const std::vector<absl::string_view>& NonIgnorableHostValidationIds();
const std::vector<absl::string_view>& NonIgnorableClusterValidationIds();

// OK when every entry of `ids` is kIgnoreAll or an id of `known` not in `never`;
// INVALID_ARGUMENT "<field>: ..." naming the first entry that is unknown or not ignorable.
absl::Status CheckIgnorable(absl::string_view field, const std::vector<std::string>& ids,
                            const std::vector<absl::string_view>& known,
                            const std::vector<absl::string_view>& never);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_VALIDATION_IDS_H_
