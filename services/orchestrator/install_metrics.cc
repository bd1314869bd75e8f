// File: services/orchestrator/install_metrics.cc

#include "services/orchestrator/install_metrics.h"

#include <string>

#include "lib/metrics/unlabelled.h"
#include "lib/time/proto_time.h"
#include "services/orchestrator/core/names.h"
#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator {
namespace {

// From a few minutes (a simulated or single-node install) to half a day.
const prometheus::Histogram::BucketBoundaries kInstallBuckets = {
    60, 300, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 14400, 21600, 43200};
// A stage lasts from a second (writing a small image) to an hour (waiting for the control plane).
const prometheus::Histogram::BucketBoundaries kStageBuckets = {1,   5,   15,   30,   60,   120, 300,
                                                               600, 900, 1200, 1800, 2700, 3600};
const prometheus::Histogram::BucketBoundaries kHostBuckets = {1,  2,  3,  4,  5,   6,   8,
                                                              10, 15, 20, 50, 100, 250, 500};

}  // namespace

InstallMetrics::InstallMetrics(prometheus::Registry& registry)
    : started_(prometheus::BuildCounter()
                   .Name("assisted_cluster_installations_started_total")
                   .Help("Cluster installations started, by OpenShift version.")
                   .Register(registry)),
      finished_(prometheus::BuildCounter()
                    .Name("assisted_cluster_installations_finished_total")
                    .Help("Cluster installations that ended, by OpenShift version and result "
                          "(succeeded: installed; failed: error).")
                    .Register(registry)),
      duration_(prometheus::BuildHistogram()
                    .Name("assisted_cluster_installation_duration_seconds")
                    .Help("From the start of a cluster's installation to its end, by result.")
                    .Register(registry)),
      hosts_(metrics::UnlabelledHistogram(registry, "assisted_cluster_installation_hosts",
                                          "Hosts bound to a cluster when its installation started.",
                                          kHostBuckets)),
      stage_duration_(prometheus::BuildHistogram()
                          .Name("assisted_host_installation_stage_duration_seconds")
                          .Help("Time a host spent in an installation stage before it reported "
                                "the next one, by the stage it left.")
                          .Register(registry)),
      validation_failures_(prometheus::BuildCounter()
                               .Name("assisted_host_validation_failures_total")
                               .Help("Host validations that went from passing to failing, by "
                                     "validation id.")
                               .Register(registry)),
      cluster_validation_failures_(prometheus::BuildCounter()
                                       .Name("assisted_cluster_validation_failures_total")
                                       .Help("Cluster validations that went from passing to "
                                             "failing, by validation id.")
                                       .Register(registry)) {
  // Every core validation's series exists from the start: a dashboard lists them, and rate()
  // and increase() see the first failure (a series born with its first count hides it).
  for (absl::string_view id : core::CoreHostValidationIds()) {
    validation_failures_.Add({{"validation", std::string(id)}});
  }
  for (absl::string_view id : core::CoreClusterValidationIds()) {
    cluster_validation_failures_.Add({{"validation", std::string(id)}});
  }
}

void InstallMetrics::InstallationStarted(const types::v1::Cluster& written, int hosts) {
  started_.Add({{"openshift_version", written.openshift_version()}}).Increment();
  hosts_.Observe(hosts);
}

void InstallMetrics::Written(const core::ClusterDecision& decision,
                             const types::v1::Cluster& written) {
  const std::string& version = written.openshift_version();
  const bool succeeded = decision.Has(core::ClusterEffect::kCompleteInstallation);
  if (!succeeded && !decision.Has(core::ClusterEffect::kFailInstallation)) return;
  const char* result = succeeded ? "succeeded" : "failed";
  finished_.Add({{"openshift_version", version}, {"result", result}}).Increment();
  if (written.has_install_started_at() && written.has_install_completed_at()) {
    duration_.Add({{"result", result}}, kInstallBuckets)
        .Observe(absl::ToDoubleSeconds(FromTimestamp(written.install_completed_at()) -
                                       FromTimestamp(written.install_started_at())));
  }
}

void InstallMetrics::Written(const types::v1::Host& stored, const types::v1::Host& written) {
  const types::v1::HostStage left = stored.progress().current_stage();
  if (left == types::v1::HOST_STAGE_UNSPECIFIED || left == written.progress().current_stage() ||
      !stored.progress().has_stage_started_at() || !written.progress().has_stage_started_at()) {
    return;
  }
  stage_duration_.Add({{"stage", std::string(core::HostStageName(left))}}, kStageBuckets)
      .Observe(absl::ToDoubleSeconds(FromTimestamp(written.progress().stage_started_at()) -
                                     FromTimestamp(stored.progress().stage_started_at())));
}

void InstallMetrics::HostValidationFailed(absl::string_view id) {
  validation_failures_.Add({{"validation", std::string(id)}}).Increment();
}

void InstallMetrics::ClusterValidationFailed(absl::string_view id) {
  cluster_validation_failures_.Add({{"validation", std::string(id)}}).Increment();
}

}  // namespace assisted::orchestrator
