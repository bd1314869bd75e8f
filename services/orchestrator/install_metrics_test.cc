#include "services/orchestrator/install_metrics.h"

#include <map>
#include <string>

#include "gtest/gtest.h"
#include "lib/time/proto_time.h"
#include "prometheus/registry.h"
#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator {
namespace {

using core::ClusterEffect;

// The members of family `name`, keyed by their labels ("k=v,k=v").
std::map<std::string, prometheus::ClientMetric> Members(prometheus::Registry& registry,
                                                        const std::string& name) {
  std::map<std::string, prometheus::ClientMetric> members;
  for (const prometheus::MetricFamily& family : registry.Collect()) {
    if (family.name != name) continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      std::string key;
      for (const auto& label : metric.label) {
        key += (key.empty() ? "" : ",") + label.name + "=" + label.value;
      }
      members[key] = metric;
    }
  }
  return members;
}

core::ClusterDecision Decision(std::vector<ClusterEffect> effects) {
  core::ClusterDecision decision;
  decision.effects = std::move(effects);
  return decision;
}

types::v1::Cluster Cluster(absl::Duration installed_for) {
  types::v1::Cluster cluster;
  cluster.set_openshift_version("4.16");
  const absl::Time start = absl::FromUnixSeconds(1000);
  *cluster.mutable_install_started_at() = ToTimestamp(start);
  if (installed_for > absl::ZeroDuration()) {
    *cluster.mutable_install_completed_at() = ToTimestamp(start + installed_for);
  }
  return cluster;
}

TEST(InstallMetrics, CountsStartsAndEndsByVersionAndResultWithTheirDurations) {
  prometheus::Registry registry;
  InstallMetrics metrics(registry);
  metrics.InstallationStarted(Cluster(absl::ZeroDuration()), 5);
  metrics.Written(Decision({ClusterEffect::kCompleteInstallation}), Cluster(absl::Minutes(40)));
  metrics.Written(Decision({ClusterEffect::kFailInstallation}), Cluster(absl::Minutes(90)));
  metrics.Written(Decision({ClusterEffect::kSetLogsTimedOut}), Cluster(absl::Minutes(1)));
  metrics.Written(Decision({}), Cluster(absl::Minutes(1)));

  auto started = Members(registry, "assisted_cluster_installations_started_total");
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started["openshift_version=4.16"].counter.value, 1);
  auto finished = Members(registry, "assisted_cluster_installations_finished_total");
  EXPECT_EQ(finished["openshift_version=4.16,result=succeeded"].counter.value, 1);
  EXPECT_EQ(finished["openshift_version=4.16,result=failed"].counter.value, 1);
  auto duration = Members(registry, "assisted_cluster_installation_duration_seconds");
  EXPECT_EQ(duration["result=succeeded"].histogram.sample_sum, 2400);
  EXPECT_EQ(duration["result=failed"].histogram.sample_sum, 5400);
  auto hosts = Members(registry, "assisted_cluster_installation_hosts");
  EXPECT_EQ(hosts[""].histogram.sample_count, 1u);
  EXPECT_EQ(hosts[""].histogram.sample_sum, 5);
}

types::v1::Host Host(types::v1::HostStage stage, int64_t started_at) {
  types::v1::Host host;
  host.mutable_progress()->set_current_stage(stage);
  *host.mutable_progress()->mutable_stage_started_at() =
      ToTimestamp(absl::FromUnixSeconds(started_at));
  return host;
}

TEST(InstallMetrics, ObservesTheStageAHostLeftOnlyWhenItMovedOn) {
  prometheus::Registry registry;
  InstallMetrics metrics(registry);
  metrics.Written(types::v1::Host(), Host(types::v1::HOST_STAGE_STARTING_INSTALLATION, 100));
  metrics.Written(Host(types::v1::HOST_STAGE_STARTING_INSTALLATION, 100),
                  Host(types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK, 130));
  metrics.Written(Host(types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK, 130),
                  Host(types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK, 130));

  auto stages = Members(registry, "assisted_host_installation_stage_duration_seconds");
  ASSERT_EQ(stages.size(), 1u);
  EXPECT_EQ(stages["stage=Starting installation"].histogram.sample_count, 1u);
  EXPECT_EQ(stages["stage=Starting installation"].histogram.sample_sum, 30);
}

TEST(InstallMetrics, CountsValidationFailuresById) {
  prometheus::Registry registry;
  InstallMetrics metrics(registry);
  metrics.HostValidationFailed("has-inventory");
  metrics.HostValidationFailed("has-inventory");
  metrics.HostValidationFailed("ntp-synced");
  auto failures = Members(registry, "assisted_host_validation_failures_total");
  EXPECT_EQ(failures["validation=has-inventory"].counter.value, 2);
  EXPECT_EQ(failures["validation=ntp-synced"].counter.value, 1);
  EXPECT_EQ(failures["validation=hostname-unique"].counter.value, 0) << "not there from the start";
}

TEST(InstallMetrics, CountsClusterValidationFailuresByIdEveryCoreIdFromTheStart) {
  prometheus::Registry registry;
  InstallMetrics metrics(registry);
  metrics.ClusterValidationFailed("all-hosts-are-ready-to-install");
  auto failures = Members(registry, "assisted_cluster_validation_failures_total");
  EXPECT_EQ(failures["validation=all-hosts-are-ready-to-install"].counter.value, 1);
  EXPECT_EQ(failures.size(), core::CoreClusterValidationIds().size());
}

}  // namespace
}  // namespace assisted::orchestrator
