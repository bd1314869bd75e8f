#include "lib/enums/spelling.h"

#include <cctype>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"

namespace assisted::enums {
namespace {

using google::protobuf::EnumDescriptor;
using google::protobuf::EnumValueDescriptor;

// Enum values whose API text is not derived by rule (the reference's spelling).
const absl::flat_hash_map<std::string, std::string>& Overrides() {
  static const auto* overrides = new absl::flat_hash_map<std::string, std::string>{
      {"CLUSTER_KIND_CLUSTER", "Cluster"},
      {"CLUSTER_KIND_ADD_HOSTS_CLUSTER", "AddHostsCluster"},
      {"CLUSTER_KIND_DISCONNECTED_CLUSTER", "DisconnectedCluster"},
      {"HOST_KIND_HOST", "Host"},
      {"HOST_KIND_ADD_TO_EXISTING_CLUSTER_HOST", "AddToExistingClusterHost"},
      {"NETWORK_TYPE_OPENSHIFT_SDN", "OpenShiftSDN"},
      {"NETWORK_TYPE_OVN_KUBERNETES", "OVNKubernetes"},
      {"NETWORK_TYPE_CISCO_ACI", "CiscoACI"},
      {"NETWORK_TYPE_CILIUM", "Cilium"},
      {"NETWORK_TYPE_CALICO", "Calico"},
      {"NETWORK_TYPE_NONE", "None"},
      {"HIGH_AVAILABILITY_MODE_FULL", "Full"},
      {"HIGH_AVAILABILITY_MODE_NONE", "None"},
      {"CPU_ARCHITECTURE_X86_64", "x86_64"},
      {"INSTALLATION_PREPARATION_STATUS_NOT_STARTED", "not_started"},
      {"FINALIZING_STAGE_WAITING_FOR_OLM_OPERATOR_SETUP_JOBS",
       "Waiting for OLM operator setup jobs"},
      // Disk drive types as the agent's inventory reports them (ghw's names).
      {"DRIVE_TYPE_UNKNOWN", "Unknown"},
      {"DRIVE_TYPE_HDD", "HDD"},
      {"DRIVE_TYPE_FDD", "FDD"},
      {"DRIVE_TYPE_ODD", "ODD"},
      {"DRIVE_TYPE_SSD", "SSD"},
      {"DRIVE_TYPE_MULTIPATH", "Multipath"},
      {"DRIVE_TYPE_ISCSI", "iSCSI"},
      {"DRIVE_TYPE_FC", "FC"},
      {"DRIVE_TYPE_LVM", "LVM"},
      {"DRIVE_TYPE_RAID", "RAID"},
      {"DRIVE_TYPE_ECKD", "ECKD"},
      {"DRIVE_TYPE_ECKD_ESE", "ECKD (ESE)"},
      {"DRIVE_TYPE_FBA", "FBA"},
  };
  return *overrides;
}

// "ClusterStatus" -> "CLUSTER_STATUS_": the prefix every value of the enum carries.
std::string ValuePrefix(const EnumDescriptor& type) {
  std::string prefix;
  for (char c : type.name()) {
    if (std::isupper(static_cast<unsigned char>(c)) && !prefix.empty()) prefix.push_back('_');
    prefix.push_back(absl::ascii_toupper(c));
  }
  prefix.push_back('_');
  return prefix;
}

// Stages read as sentences in the reference ("Writing image to disk").
bool IsSentenceEnum(const EnumDescriptor& type) {
  return type.name() == "HostStage" || type.name() == "FinalizingStage";
}

std::string Derive(const EnumValueDescriptor& value) {
  if (value.number() == 0) return "";
  if (auto it = Overrides().find(value.name()); it != Overrides().end()) return it->second;
  std::string text(absl::StripPrefix(value.name(), ValuePrefix(*value.type())));
  absl::AsciiStrToLower(&text);
  const bool sentence = IsSentenceEnum(*value.type());
  for (char& c : text) {
    if (c == '_') c = sentence ? ' ' : '-';
  }
  if (sentence && !text.empty()) text[0] = absl::ascii_toupper(text[0]);
  return text;
}

// Derived once per value: callers spell enums on hot paths (every refresh, every JSON reply).
// Descriptors live as long as their pool, which for generated enums is the process.
class Memo {
 public:
  const std::string& Get(const EnumValueDescriptor& value) {
    {
      absl::ReaderMutexLock lock(&mu_);
      if (auto it = texts_.find(&value); it != texts_.end()) return it->second;
    }
    absl::MutexLock lock(&mu_);
    auto [it, inserted] = texts_.try_emplace(&value);
    if (inserted) it->second = Derive(value);
    return it->second;
  }

 private:
  absl::Mutex mu_;
  // node_hash_map: references handed out must survive rehashing.
  absl::node_hash_map<const EnumValueDescriptor*, std::string> texts_ ABSL_GUARDED_BY(mu_);
};

Memo& TheMemo() {
  static auto* memo = new Memo();
  return *memo;
}

}  // namespace

namespace internal {
const std::string& Empty() {
  static const auto* empty = new std::string();
  return *empty;
}
}  // namespace internal

const std::string& EnumText(const EnumValueDescriptor& value) { return TheMemo().Get(value); }

absl::StatusOr<int> EnumFromText(const EnumDescriptor& type, absl::string_view text,
                                 absl::string_view field) {
  std::vector<std::string> choices;
  for (int i = 0; i < type.value_count(); ++i) {
    const EnumValueDescriptor& value = *type.value(i);
    if (value.number() == 0) continue;
    const std::string& candidate = EnumText(value);
    if (candidate == text) return value.number();
    choices.push_back(absl::StrCat("\"", candidate, "\""));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": must be one of ", absl::StrJoin(choices, ", ")));
}

}  // namespace assisted::enums
