// File: lib/operators/catalog.h
//
// The OLM operators a cluster may select (upstream's `olm_operators`), as ONE table that every
// service reads: the gateway lists and checks selections from it (GET /v2/supported-operators,
// operator properties, bundles; `olm_operators` in cluster requests), the orchestrator's core
// turns each row's requirements into the `<name>-requirements-satisfied` host and cluster
// validations and adds its per-host CPU and memory to the role checks, its install generation
// writes each row's manifests, and the selection is kept as the cluster's monitored operators
// (MonitoredOperatorOf), whose status the post-reboot reporter then reports. It lives in lib/
// because the gateway and the orchestrator both read it and neither may reach into the other.
//
// Rows exist only for what this service installs end to end (lso, lvm). Upstream's other
// operators are named in UnsupportedOperators(): listed by the API as not supported, and a
// selection of one is refused naming it, never stored and silently skipped.
//
//   ASSIGN_OR_RETURN(std::vector<const OperatorSpec*> chosen,
//                    ResolveSelection({"lvm"}, "olm_operators"));
//   for (const OperatorManifest& m : ManifestsOf(*chosen[0])) ...

#ifndef ASSISTED_LIB_OPERATORS_CATALOG_H_
#define ASSISTED_LIB_OPERATORS_CATALOG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "assisted/types/v1/cluster.pb.h"
#include "lib/version/ocp_version.h"

namespace assisted::operators {

// What an operator adds to every host of a cluster that selects it, on top of the host's role
// requirement (upstream adds its `master` quantitative requirement to every host).
struct HostExtras {
  int64_t cpu_cores = 0;
  int64_t ram_mib = 0;
};

// One installable operator.
struct OperatorSpec {
  absl::string_view name;          // upstream's operator name: "lso", "lvm"
  absl::string_view title;         // what the UI and messages call it
  absl::string_view feature_id;    // upstream's feature-support id: "LSO", "LVM"
  absl::string_view namespace_;    // the Namespace its manifests create and it runs in
  absl::string_view subscription;  // the Subscription's name (MonitoredOperator.subscription_name)
  absl::string_view package;       // the catalog package the Subscription installs
  absl::string_view operator_group;  // the OperatorGroup's name
  int64_t timeout_seconds = 0;       // how long finalizing waits for it to become available
  std::vector<absl::string_view> dependencies;  // operators selected with it (none so far)
  HostExtras per_host;
  // The host validation fails unless the host has a disk it can take besides the
  // installation disk (LVM makes its volume group of those).
  bool needs_spare_disk = false;
  // The oldest OpenShift version it installs on, and the oldest on which it installs on a
  // cluster of more than one node ("" : any).
  absl::string_view min_version;
  absl::string_view min_multi_node_version;
  // The custom resource that puts it to work (LVMCluster, LocalVolumeSet), as YAML.
  absl::string_view custom_resource_file;
  absl::string_view custom_resource;
};

// Every row, in a fixed order (the order validations and manifests follow).
const std::vector<OperatorSpec>& SupportedOperators();

// The row named `name`; nullptr when this service does not install it.
const OperatorSpec* FindOperator(absl::string_view name);

// Why `spec` does not install on OpenShift `version` for a cluster of one node (`multi_node`
// false) or more: "<title> is only supported for OpenShift <min> and above[ on clusters of more
// than one node]"; nullopt when it does. The cluster validation and the support levels say it so.
std::optional<std::string> BelowMinimumVersion(const OperatorSpec& spec,
                                               const version::OcpVersion& version, bool multi_node);

// Upstream's operators this service does not install yet, by upstream's names.
const std::vector<absl::string_view>& UnsupportedOperators();

// The operators a selection of `names` installs: those named and their dependencies, each once,
// in SupportedOperators() order. INVALID_ARGUMENT "<field>[i].name: ..." for the first name that
// is empty, upstream's but not supported here ("not supported by this service yet"), or unknown.
absl::StatusOr<std::vector<const OperatorSpec*>> ResolveSelection(
    const std::vector<std::string>& names, absl::string_view field);

// The operators `cluster` selected: its monitored operators of type OLM with a row here.
std::vector<const OperatorSpec*> SelectedOperators(const types::v1::Cluster& cluster);

// The monitored-operator entry a selection of `spec` is kept as (type OLM, namespace,
// subscription, timeout; status not reported yet).
types::v1::MonitoredOperator MonitoredOperatorOf(const OperatorSpec& spec);

// One manifest file of an operator.
struct OperatorManifest {
  std::string file_name;  // "50_openshift-lvm_ns.yaml", ...
  std::string content;    // YAML
};

// What installing `spec` adds to the installer's `openshift` manifests folder: its Namespace,
// OperatorGroup and Subscription (upstream's file names), then its custom resource.
std::vector<OperatorManifest> ManifestsOf(const OperatorSpec& spec);

}  // namespace assisted::operators

#endif  // ASSISTED_LIB_OPERATORS_CATALOG_H_
