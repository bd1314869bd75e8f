// File: lib/operators/catalog.cc
//
// The rows follow upstream's operator plugins (internal/operators/lso, internal/operators/lvm):
// names, namespaces, subscriptions, timeouts, LVM's per-host CPU and memory and its version
// rules. The manifests are written here from the row, not kept as copies per operator.

#include "lib/operators/catalog.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace assisted::operators {
namespace {

constexpr char kLocalVolumeSet[] = R"(apiVersion: local.storage.openshift.io/v1alpha1
kind: LocalVolumeSet
metadata:
  name: local-disks
  namespace: openshift-local-storage
spec:
  storageClassName: localblock-sc
  volumeMode: Block
  deviceInclusionSpec:
    deviceTypes:
    - disk
)";

constexpr char kLvmCluster[] = R"(apiVersion: lvm.topolvm.io/v1alpha1
kind: LVMCluster
metadata:
  name: lvmcluster
  namespace: openshift-storage
spec:
  storage:
    deviceClasses:
    - name: vg1
      thinPoolConfig:
        name: thin-pool-1
        sizePercent: 90
        overprovisionRatio: 10
)";

bool Contains(const std::vector<absl::string_view>& list, absl::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

const std::vector<OperatorSpec>& SupportedOperators() {
  static const auto* const kRows = new std::vector<OperatorSpec>{
      {.name = "lso",
       .title = "Local Storage Operator",
       .feature_id = "LSO",
       .namespace_ = "openshift-local-storage",
       .subscription = "local-storage-operator",
       .package = "local-storage-operator",
       .operator_group = "local-storage",
       .timeout_seconds = 70 * 60,
       .custom_resource_file = "50_openshift-lso_local_volume_set.yaml",
       .custom_resource = kLocalVolumeSet},
      {.name = "lvm",
       .title = "Logical Volume Manager Storage",
       .feature_id = "LVM",
       .namespace_ = "openshift-storage",
       .subscription = "lvms-operator",
       .package = "lvms-operator",
       .operator_group = "openshift-storage-operatorgroup",
       .timeout_seconds = 30 * 60,
       .per_host = {.cpu_cores = 1, .ram_mib = 1200},
       .needs_spare_disk = true,
       .min_version = "4.12",
       .min_multi_node_version = "4.15",
       .custom_resource_file = "50_openshift-lvm_lvmcluster.yaml",
       .custom_resource = kLvmCluster},
  };
  return *kRows;
}

std::optional<std::string> BelowMinimumVersion(const OperatorSpec& spec,
                                               const version::OcpVersion& version,
                                               bool multi_node) {
  for (const auto& [min, multi_node_only] :
       {std::pair{spec.min_version, false}, std::pair{spec.min_multi_node_version, true}}) {
    if (min.empty() || (multi_node_only && !multi_node)) continue;
    absl::StatusOr<version::OcpVersion> floor = version::OcpVersion::Parse(min);
    if (floor.ok() && version < *floor) {
      return absl::StrCat(spec.title, " is only supported for OpenShift ", min, " and above",
                          multi_node_only ? " on clusters of more than one node" : "");
    }
  }
  return std::nullopt;
}

const OperatorSpec* FindOperator(absl::string_view name) {
  for (const OperatorSpec& spec : SupportedOperators()) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

const std::vector<absl::string_view>& UnsupportedOperators() {
  static const auto* const kNames = new std::vector<absl::string_view>{
      "odf",
      "cnv",
      "mce",
      "mtv",
      "nmstate",
      "node-feature-discovery",
      "nvidia-gpu",
      "amd-gpu",
      "kmm",
      "pipelines",
      "serverless",
      "servicemesh",
      "authorino",
      "openshift-ai",
      "osc",
      "node-healthcheck",
      "self-node-remediation",
      "fence-agents-remediation",
      "node-maintenance",
      "kube-descheduler",
      "cluster-observability",
      "loki",
      "metallb",
      "oadp",
  };
  return *kNames;
}

absl::StatusOr<std::vector<const OperatorSpec*>> ResolveSelection(
    const std::vector<std::string>& names, absl::string_view field) {
  std::vector<absl::string_view> wanted;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string where = absl::StrCat(field, "[", i, "].name");
    const OperatorSpec* spec = FindOperator(names[i]);
    if (spec != nullptr) {
      wanted.push_back(spec->name);
      wanted.insert(wanted.end(), spec->dependencies.begin(), spec->dependencies.end());
      continue;
    }
    std::vector<absl::string_view> supported;
    for (const OperatorSpec& row : SupportedOperators()) supported.push_back(row.name);
    const std::string choices =
        absl::StrCat("this service installs ", absl::StrJoin(supported, ", "));
    if (names[i].empty()) return absl::InvalidArgumentError(absl::StrCat(where, ": required"));
    if (Contains(UnsupportedOperators(), names[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": \"", names[i], "\" is not supported by this service yet; ", choices));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": \"", names[i], "\" is not a known operator; ", choices));
  }
  std::vector<const OperatorSpec*> resolved;
  for (const OperatorSpec& spec : SupportedOperators()) {
    if (Contains(wanted, spec.name)) resolved.push_back(&spec);
  }
  return resolved;
}

std::vector<const OperatorSpec*> SelectedOperators(const types::v1::Cluster& cluster) {
  std::vector<absl::string_view> names;
  for (const types::v1::MonitoredOperator& op : cluster.monitored_operators()) {
    if (op.operator_type() == types::v1::OPERATOR_TYPE_OLM) names.push_back(op.name());
  }
  std::vector<const OperatorSpec*> selected;
  for (const OperatorSpec& spec : SupportedOperators()) {
    if (Contains(names, spec.name)) selected.push_back(&spec);
  }
  return selected;
}

types::v1::MonitoredOperator MonitoredOperatorOf(const OperatorSpec& spec) {
  types::v1::MonitoredOperator op;
  op.set_name(std::string(spec.name));
  op.set_operator_type(types::v1::OPERATOR_TYPE_OLM);
  op.set_namespace_(std::string(spec.namespace_));
  op.set_subscription_name(std::string(spec.subscription));
  op.set_timeout_seconds(spec.timeout_seconds);
  return op;
}

std::vector<OperatorManifest> ManifestsOf(const OperatorSpec& spec) {
  const std::string prefix = absl::StrCat("50_openshift-", spec.name, "_");
  std::vector<OperatorManifest> files = {
      {absl::StrCat(prefix, "ns.yaml"),
       absl::StrCat("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ", spec.namespace_,
                    "\n  labels:\n    openshift.io/cluster-monitoring: \"true\"\n")},
      {absl::StrCat(prefix, "operator_group.yaml"),
       absl::StrCat("apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata:\n  name: ",
                    spec.operator_group, "\n  namespace: ", spec.namespace_,
                    "\nspec:\n  targetNamespaces:\n  - ", spec.namespace_, "\n")},
      {absl::StrCat(prefix, "subscription.yaml"),
       absl::StrCat("apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata:\n"
                    "  name: ",
                    spec.subscription, "\n  namespace: ", spec.namespace_,
                    "\nspec:\n  installPlanApproval: Automatic\n  name: ", spec.package,
                    "\n  source: redhat-operators\n  sourceNamespace: openshift-marketplace\n")},
  };
  if (!spec.custom_resource.empty()) {
    files.push_back({std::string(spec.custom_resource_file), std::string(spec.custom_resource)});
  }
  return files;
}

}  // namespace assisted::operators
