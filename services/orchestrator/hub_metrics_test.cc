#include "services/orchestrator/hub_metrics.h"

#include <map>
#include <string>

#include "gtest/gtest.h"
#include "prometheus/registry.h"

namespace assisted::orchestrator {
namespace {

// The one member of the family `name`.
prometheus::ClientMetric Only(prometheus::Registry& registry, const std::string& name) {
  for (const prometheus::MetricFamily& family : registry.Collect()) {
    if (family.name == name && family.metric.size() == 1) return family.metric[0];
  }
  ADD_FAILURE() << "no single-member metric " << name;
  return {};
}

TEST(HubMetricsTest, RecordsWaitsRunsJoinsAndSkipsUnderTheirNames) {
  prometheus::Registry registry;
  HubMetrics metrics(registry);
  metrics.Waited(absl::Milliseconds(3));
  metrics.Waited(absl::Seconds(2));
  metrics.Refreshed(absl::Milliseconds(7));
  metrics.Joined();
  metrics.Joined();
  metrics.Joined();
  metrics.Skipped();

  const prometheus::ClientMetric::Histogram queue =
      Only(registry, "assisted_orchestrator_refresh_queue_seconds").histogram;
  EXPECT_EQ(queue.sample_count, 2u);
  EXPECT_DOUBLE_EQ(queue.sample_sum, 2.003);
  const prometheus::ClientMetric::Histogram refresh =
      Only(registry, "assisted_orchestrator_refresh_seconds").histogram;
  EXPECT_EQ(refresh.sample_count, 1u);
  EXPECT_DOUBLE_EQ(refresh.sample_sum, 0.007);
  // 7 ms falls in the 10 ms bucket (cumulative counts, ascending bounds).
  bool counted = false;
  for (const prometheus::ClientMetric::Bucket& bucket : refresh.bucket) {
    if (bucket.upper_bound == 0.005) {
      EXPECT_EQ(bucket.cumulative_count, 0u);
    }
    if (bucket.upper_bound == 0.01) {
      EXPECT_EQ(bucket.cumulative_count, 1u);
      counted = true;
    }
  }
  EXPECT_TRUE(counted);
  EXPECT_EQ(Only(registry, "assisted_orchestrator_refreshes_joined_total").counter.value, 3);
  EXPECT_EQ(Only(registry, "assisted_orchestrator_refreshes_skipped_total").counter.value, 1);
}

TEST(HubMetricsTest, CountsRefreshesByWhoAskedForThem) {
  prometheus::Registry registry;
  HubMetrics metrics(registry);
  metrics.Refreshing(RefreshCause::kAction);
  metrics.Refreshing(RefreshCause::kAgent);
  metrics.Refreshing(RefreshCause::kAgent);
  std::map<std::string, double> by_cause;
  for (const prometheus::MetricFamily& family : registry.Collect()) {
    if (family.name != "assisted_orchestrator_refreshes_total") continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      by_cause[metric.label.at(0).value] = metric.counter.value;
    }
  }
  EXPECT_EQ(by_cause, (std::map<std::string, double>{
                          {"action", 1}, {"agent", 2}, {"monitor", 0}, {"watch", 0}}));
}

}  // namespace
}  // namespace assisted::orchestrator
