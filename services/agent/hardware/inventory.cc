// File: services/agent/hardware/inventory.cc

#include "services/agent/hardware/inventory.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "services/agent/hardware/attributes.h"
#include "services/agent/hardware/cpu.h"
#include "services/agent/hardware/disks.h"
#include "services/agent/hardware/firmware.h"
#include "services/agent/hardware/gpus.h"
#include "services/agent/hardware/interfaces.h"
#include "services/agent/hardware/routes.h"
#include "services/agent/hardware/sanitize.h"

namespace assisted::agent::hardware {
namespace {

constexpr int64_t kMaxMinDiskSizeGb = 1'000'000;
// Longer than any kernel command line (COMMAND_LINE_SIZE is at most 4096) or DMI string.
constexpr size_t kMaxTextBytes = 4096;

constexpr std::array<absl::string_view, 6> kLocalhostNames = {
    "localhost",  "localhost.localdomain",   "localhost4", "localhost4.localdomain4",
    "localhost6", "localhost6.localdomain6",
};

void NoteTruncation(std::string reason, types::v1::Inventory* inventory) {
  types::v1::InventoryTruncation& truncation = *inventory->mutable_truncation();
  truncation.set_type(types::v1::TRUNCATION_TYPE_PARTIAL);
  truncation.add_reasons(std::move(reason));
}

// Moves the first `limit` items of `items` into `out`; notes a cut in `inventory`.
template <typename T>
void AddBounded(std::vector<T> items, int limit, absl::string_view what,
                google::protobuf::RepeatedPtrField<T>* out, types::v1::Inventory* inventory) {
  const size_t kept = std::min(items.size(), static_cast<size_t>(limit));
  for (size_t i = 0; i < kept; ++i) *out->Add() = std::move(items[i]);
  if (kept < items.size()) {
    NoteTruncation(absl::StrCat(what, ": ", items.size(), " found, ", kept, " kept"), inventory);
  }
}

}  // namespace

std::string CollectHostname(const HostRoot& root,
                            const std::vector<types::v1::Interface>& interfaces) {
  std::string hostname = ReadAttribute(root, "proc/sys/kernel/hostname");
  if (hostname.empty()) hostname = ReadAttribute(root, "etc/hostname");
  if (std::find(kLocalhostNames.begin(), kLocalhostNames.end(), hostname) ==
      kLocalhostNames.end()) {
    return hostname;
  }
  for (const types::v1::Interface& nic : interfaces) {
    const bool kind = nic.type() == "physical" || nic.type() == "bond" || nic.type() == "vlan";
    const bool addressed = nic.ipv4_addresses_size() > 0 || nic.ipv6_addresses_size() > 0;
    if (kind && addressed && !nic.mac_address().empty()) {
      return absl::StrReplaceAll(nic.mac_address(), {{":", "-"}});
    }
  }
  return hostname;
}

absl::StatusOr<types::v1::Inventory> CollectInventory(const HostRoot& root,
                                                      const CollectOptions& options) {
  if (options.max_disks < 0 || options.max_interfaces < 0 || options.max_routes < 0) {
    return absl::InvalidArgumentError("inventory limits must not be negative");
  }
  if (options.min_disk_size_gb < 0 || options.min_disk_size_gb > kMaxMinDiskSizeGb) {
    return absl::InvalidArgumentError(
        absl::StrCat("minimum disk size ", options.min_disk_size_gb, " GB is out of range"));
  }
  types::v1::Inventory inventory;
  *inventory.mutable_cpu() = CollectCpu(root, options.architecture);
  *inventory.mutable_memory() = CollectMemory(root);
  *inventory.mutable_boot() = CollectBoot(root);
  *inventory.mutable_system_vendor() =
      CollectSystemVendor(root, HasCpuFlag(inventory.cpu(), "hypervisor"));
  inventory.set_tpm_version(CollectTpmVersion(root));
  for (types::v1::Gpu& gpu : CollectGpus(root)) *inventory.add_gpus() = std::move(gpu);

  AddBounded(CollectDisks(root, DiskOptions{options.min_disk_size_gb}), options.max_disks, "disks",
             inventory.mutable_disks(), &inventory);

  const RootAddressSource root_addresses(root);
  const AddressSource& addresses =
      options.addresses != nullptr ? *options.addresses : root_addresses;
  std::vector<types::v1::Interface> interfaces = CollectInterfaces(root, addresses);
  // The host name may come from any interface, kept or not.
  inventory.set_hostname(CollectHostname(root, interfaces));
  AddBounded(std::move(interfaces), options.max_interfaces, "interfaces",
             inventory.mutable_interfaces(), &inventory);
  AddBounded(CollectRoutes(root), options.max_routes, "routes", inventory.mutable_routes(),
             &inventory);
  if (const int cut = SanitizeStrings(&inventory, kMaxTextBytes); cut > 0) {
    NoteTruncation(absl::StrCat("text: ", cut, " values longer than ", kMaxTextBytes, " bytes cut"),
                   &inventory);
  }
  return inventory;
}

}  // namespace assisted::agent::hardware
