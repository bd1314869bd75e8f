// File: services/orchestrator/core/validation_ids.cc

#include "services/orchestrator/core/validation_ids.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace assisted::orchestrator::core {

const HostGates& HostValidationGates() {
  using namespace host_id;  // NOLINT: the groups read better unqualified
  static const auto* const kGates = new HostGates{
      /*min_hardware=*/{kHasMinValidDisks, kHasMinCpuCores, kHasMinMemory,
                        kCompatibleWithClusterPlatform, kDiskEncryptionRequirementsSatisfied},
      /*required_input=*/{kMachineCidrDefined},
      /*sufficient_for_install=*/
      {kInventoryNotFullyTruncated,
       kHasCpuCoresForRole,
       kHasMemoryForRole,
       kBelongsToMachineCidr,
       kHostnameUnique,
       kHostnameValid,
       kIgnitionDownloadable,
       kBelongsToMajorityGroup,
       kSufficientNetworkLatency,
       kSufficientPacketLoss,
       kHasDefaultRoute,
       kApiDomainNameResolved,
       kApiIntDomainNameResolved,
       kAppsDomainNameResolved,
       kDnsWildcardNotConfigured,
       kValidPlatformNetworkSettings,
       kVsphereDiskUuidEnabled,
       kNonOverlappingSubnets,
       kCompatibleAgent,
       kTimeSyncedBetweenHostAndService,
       kNoSkipInstallationDisk,
       kNoSkipMissingDisk,
       kNoIpCollisionsInNetwork,
       kNoIscsiNicBelongsToMachineCidr,
       kLsoRequirementsSatisfied,
       kLvmRequirementsSatisfied},
      /*sufficient_or_unknown=*/{kSufficientInstallationDiskSpeed, kContainerImagesAvailable},
      /*informative=*/
      {kNtpSynced, kInventoryNotPartiallyTruncated, kReleaseDomainNameResolved, kMtuValid},
      /*unbound_min_hardware=*/{kHasMinValidDisks, kHasMinCpuCores, kHasMinMemory, kHostnameValid},
  };
  return *kGates;
}

const ClusterGates& ClusterValidationGates() {
  using namespace cluster_id;  // NOLINT: the groups read better unqualified
  static const auto* const kGates = new ClusterGates{
      /*required_input=*/{kMachineCidrDefined, kClusterCidrDefined, kServiceCidrDefined,
                          kDnsDomainDefined, kPullSecretSet},
      /*vips_defined=*/{kApiVipsDefined, kIngressVipsDefined},
      /*required_for_install=*/
      {kMachineCidrEqualsToCalculatedCidr, kApiVipsValid, kIngressVipsValid,
       kAllHostsAreReadyToInstall, kSufficientMastersCount, kNetworkPrefixValid,
       kNoCidrsOverlapping, kNtpServerConfigured, kNetworkTypeValid, kNetworksSameAddressFamilies,
       kCustomManifestsRequirementsSatisfied, kPlatformRequirementsSatisfied,
       kLsoRequirementsSatisfied, kLvmRequirementsSatisfied},
  };
  return *kGates;
}

std::vector<absl::string_view> CoreHostValidationIds() {
  const HostGates& g = HostValidationGates();
  std::vector<absl::string_view> ids = {host_id::kConnected, host_id::kMediaConnected,
                                        host_id::kHasInventory};
  for (const auto* group : {&g.min_hardware, &g.required_input, &g.sufficient_for_install,
                            &g.sufficient_or_unknown, &g.informative}) {
    ids.insert(ids.end(), group->begin(), group->end());
  }
  return ids;
}

std::vector<absl::string_view> CoreClusterValidationIds() {
  const ClusterGates& g = ClusterValidationGates();
  std::vector<absl::string_view> ids;
  for (const auto* group : {&g.required_input, &g.vips_defined, &g.required_for_install}) {
    ids.insert(ids.end(), group->begin(), group->end());
  }
  return ids;
}

const std::vector<absl::string_view>& NonIgnorableHostValidationIds() {
  static const auto* const kIds = new std::vector<absl::string_view>{
      host_id::kConnected,          host_id::kHasInventory,   host_id::kInventoryNotFullyTruncated,
      host_id::kMachineCidrDefined, host_id::kHostnameUnique, host_id::kHostnameValid};
  return *kIds;
}

const std::vector<absl::string_view>& NonIgnorableClusterValidationIds() {
  static const auto* const kIds = new std::vector<absl::string_view>{
      cluster_id::kApiVipsDefined, cluster_id::kIngressVipsDefined,
      cluster_id::kAllHostsAreReadyToInstall, cluster_id::kSufficientMastersCount,
      cluster_id::kPullSecretSet};
  return *kIds;
}

absl::Status CheckIgnorable(absl::string_view field, const std::vector<std::string>& ids,
                            const std::vector<absl::string_view>& known,
                            const std::vector<absl::string_view>& never) {
  for (const std::string& id : ids) {
    if (id == kIgnoreAll) continue;
    if (std::find(known.begin(), known.end(), id) == known.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": \"", id, "\" is not a known validation id"));
    }
    if (std::find(never.begin(), never.end(), id) != never.end()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": \"", id, "\" cannot be ignored"));
    }
  }
  return absl::OkStatus();
}

}  // namespace assisted::orchestrator::core
