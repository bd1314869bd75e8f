// File: services/orchestrator/install_metrics.h
//
// The installation metrics operators chart and alert on, with the meanings of the reference's
// (assisted-service's cluster creations, installation started/result/duration, host phase
// durations, hosts per cluster, validation failures) under conventional Prometheus names. Built
// once over the service's prometheus::Registry; the refresher reports every decision it writes
// through Written() (and each installation its refreshes start) and never touches
// prometheus-cpp types.
//   assisted_cluster_installations_started_total{openshift_version}
//   assisted_cluster_installations_finished_total{openshift_version, result}   succeeded | failed
//   assisted_cluster_installation_duration_seconds{result}   install_started_at -> completed_at
//   assisted_cluster_installation_hosts                      hosts bound when it started
//   assisted_host_installation_stage_duration_seconds{stage} time a host spent in a stage
//                                                            before it reported the next one
//   assisted_host_validation_failures_total{validation}      host validations that went from
//                                                            passing to failing
//   assisted_cluster_validation_failures_total{validation}   cluster validations likewise
// Each is counted by the write that made it true, a compare-and-set only one replica wins, so
// replicas never count an event twice. (Clusters created are the inventory's:
// assisted_clusters_created_total.)

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_METRICS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_METRICS_H_

#include "absl/strings/string_view.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "services/orchestrator/core/cluster_state_machine.h"

namespace assisted::orchestrator {

// Thread-safe.
class InstallMetrics {
 public:
  explicit InstallMetrics(prometheus::Registry& registry);

  // The refresh that wrote `written` started its installation (kStartInstallation) with
  // `hosts` hosts bound to the cluster.
  void InstallationStarted(const types::v1::Cluster& written, int hosts);
  // `decision` was written, leaving `written`: counts the installation that finished (the
  // decision's kCompleteInstallation or kFailInstallation effect).
  void Written(const core::ClusterDecision& decision, const types::v1::Cluster& written);
  // A write took `stored` to `written`: observes the stage the host left, if it moved on.
  void Written(const types::v1::Host& stored, const types::v1::Host& written);
  // The host validation `id` started failing.
  void HostValidationFailed(absl::string_view id);
  // The cluster validation `id` started failing.
  void ClusterValidationFailed(absl::string_view id);

 private:
  prometheus::Family<prometheus::Counter>& started_;
  prometheus::Family<prometheus::Counter>& finished_;
  prometheus::Family<prometheus::Histogram>& duration_;
  prometheus::Histogram& hosts_;
  prometheus::Family<prometheus::Histogram>& stage_duration_;
  prometheus::Family<prometheus::Counter>& validation_failures_;
  prometheus::Family<prometheus::Counter>& cluster_validation_failures_;
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_METRICS_H_
