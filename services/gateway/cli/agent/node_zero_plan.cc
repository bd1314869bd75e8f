#include "services/gateway/cli/agent/node_zero_plan.h"

#include <algorithm>
#include <cstdint>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "lib/enums/spelling.h"

namespace assisted::cli::agent {
namespace {

namespace types = ::assisted::types::v1;
using nlohmann::json;

std::string Text(const json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

int64_t Integer(const json& object, const char* key) {
  if (!object.is_object()) return 0;
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

// The status a REST object reports, read with the gateway's own spelling (lib/enums);
// UNSPECIFIED when it has none or one this aictl does not know.
template <typename Status>
Status StatusOf(const json& object) {
  absl::StatusOr<int> value = enums::EnumFromText(*google::protobuf::GetEnumDescriptor<Status>(),
                                                  Text(object, "status"), "status");
  return value.ok() ? static_cast<Status>(*value) : static_cast<Status>(0);
}

// Statuses in which a host's name, role and disk may still change.
bool BeforeInstallation(types::HostStatus status) {
  static const std::set<types::HostStatus> kStatuses = {
      types::HOST_STATUS_DISCOVERING, types::HOST_STATUS_KNOWN, types::HOST_STATUS_INSUFFICIENT,
      types::HOST_STATUS_PENDING_FOR_INPUT, types::HOST_STATUS_DISCONNECTED};
  return kStatuses.count(status) > 0;
}

// The host's inventory (JSON text in the REST view), or null.
json Inventory(const json& host) {
  return json::parse(Text(host, "inventory"), nullptr, /*allow_exceptions=*/false);
}

// The definition's host owning one of the inventory's MACs, or null.
const json* DefinedHost(const json& definition, const json& inventory) {
  if (!inventory.is_object() || !inventory.contains("interfaces") ||
      !definition.contains("hosts") || !definition["hosts"].is_array()) {
    return nullptr;
  }
  for (const json& interface : inventory["interfaces"]) {
    const std::string mac = absl::AsciiStrToLower(Text(interface, "mac_address"));
    if (mac.empty()) continue;
    for (const json& defined : definition["hosts"]) {
      if (!defined.contains("macs") || !defined["macs"].is_array()) continue;
      for (const json& candidate : defined["macs"]) {
        if (candidate.is_string() && candidate.get<std::string>() == mac) return &defined;
      }
    }
  }
  return nullptr;
}

bool DiskMatches(const json& hints, const json& disk) {
  if (const std::string name = Text(hints, "device_name"); !name.empty()) {
    if (Text(disk, "path") != name && Text(disk, "by_path") != name) return false;
  }
  for (const auto& [hint, field] :
       {std::pair{"hctl", "hctl"}, std::pair{"serial_number", "serial"}, std::pair{"wwn", "wwn"}}) {
    const std::string wanted = Text(hints, hint);
    if (!wanted.empty() && Text(disk, field) != wanted) return false;
  }
  for (const char* key : {"model", "vendor"}) {
    const std::string wanted = Text(hints, key);
    if (!wanted.empty() && !absl::StrContains(Text(disk, key), wanted)) return false;
  }
  if (const int64_t gigabytes = Integer(hints, "min_size_gigabytes"); gigabytes > 0) {
    if (Integer(disk, "size_bytes") < gigabytes * 1000 * 1000 * 1000) return false;
  }
  if (hints.contains("rotational") && hints["rotational"].is_boolean()) {
    if (hints["rotational"].get<bool>() != (Text(disk, "drive_type") == "HDD")) return false;
  }
  return true;
}

bool Eligible(const json& disk) {
  const auto it = disk.find("installation_eligibility");
  if (it == disk.end() || !it->is_object()) return true;
  const auto eligible = it->find("eligible");
  return eligible == it->end() || !eligible->is_boolean() || eligible->get<bool>();
}

}  // namespace

std::optional<std::string> DiskMatchingHints(const json& hints, const json& disks) {
  if (!disks.is_array()) return std::nullopt;
  const json* best = nullptr;
  for (const json& disk : disks) {
    if (!disk.is_object() || !Eligible(disk) || !DiskMatches(hints, disk)) continue;
    if (best == nullptr || Integer(disk, "size_bytes") < Integer(*best, "size_bytes")) best = &disk;
  }
  if (best == nullptr) return std::nullopt;
  return Text(*best, "id");
}

NodeZeroPlan PlanNodeZero(const json& definition, const json& cluster, const json& hosts) {
  NodeZeroPlan plan;
  const types::ClusterStatus cluster_status = StatusOf<types::ClusterStatus>(cluster);
  static const std::set<types::ClusterStatus> kInstallingOrAfter = {
      types::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION,
      types::CLUSTER_STATUS_INSTALLING,
      types::CLUSTER_STATUS_INSTALLING_PENDING_USER_ACTION,
      types::CLUSTER_STATUS_FINALIZING,
      types::CLUSTER_STATUS_INSTALLED,
      types::CLUSTER_STATUS_ERROR,
      types::CLUSTER_STATUS_CANCELLED};
  const bool before_install = kInstallingOrAfter.count(cluster_status) == 0;
  if (!before_install) return plan;
  std::vector<std::string> unmatched_disks;
  int64_t known = 0;
  for (const json& host : hosts.is_array() ? hosts : json::array()) {
    const types::HostStatus host_status = StatusOf<types::HostStatus>(host);
    if (host_status == types::HOST_STATUS_KNOWN) ++known;
    if (!BeforeInstallation(host_status)) continue;
    const json inventory = Inventory(host);
    const json* defined = DefinedHost(definition, inventory);
    if (defined == nullptr) continue;
    json patch = json::object();
    if (const std::string name = Text(*defined, "hostname");
        !name.empty() && Text(host, "requested_hostname") != name) {
      patch["host_name"] = name;
    }
    if (const std::string role = Text(*defined, "role");
        !role.empty() && Text(host, "role") != role) {
      patch["host_role"] = role;
    }
    if (defined->contains("root_device_hints")) {
      const std::optional<std::string> disk =
          DiskMatchingHints((*defined)["root_device_hints"], inventory.value("disks", json()));
      if (!disk) {
        unmatched_disks.push_back(Text(*defined, "hostname"));
      } else if (Text(host, "installation_disk_id") != *disk) {
        patch["disks_selected_config"] = json::array({{{"id", *disk}, {"role", "install"}}});
      }
    }
    if (!patch.empty()) {
      plan.host_updates.push_back({Text(host, "infra_env_id"), Text(host, "id"), std::move(patch)});
    }
  }
  const int64_t expected = Integer(definition, "expected_hosts");
  if (!unmatched_disks.empty()) {
    plan.waiting_for =
        absl::StrCat("no disk of host ", unmatched_disks.front(), " matches its rootDeviceHints");
  } else if (!plan.host_updates.empty()) {
    plan.waiting_for = "host names, roles and disks being applied";
  } else if (known < expected) {
    plan.waiting_for = absl::StrCat(known, " of ", expected, " hosts are known");
  } else if (cluster_status != types::CLUSTER_STATUS_READY) {
    plan.waiting_for = absl::StrCat("the cluster is ", Text(cluster, "status"), ": ",
                                    Text(cluster, "status_info"));
  } else {
    plan.start_install = true;
  }
  return plan;
}

}  // namespace assisted::cli::agent
