#include "lib/metrics/process_collector.h"

#include <map>
#include <string>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace assisted::metrics {
namespace {

TEST(ProcessCollector, ReportsThisProcessFromProc) {
  std::map<std::string, double> values;
  for (const prometheus::MetricFamily& family : ProcessCollector().Collect()) {
    ASSERT_EQ(family.metric.size(), 1u) << family.name;
    values[family.name] = family.type == prometheus::MetricType::Counter
                              ? family.metric[0].counter.value
                              : family.metric[0].gauge.value;
  }
  ASSERT_EQ(values.size(), 7u);
  EXPECT_GE(values["process_cpu_seconds_total"], 0);
  EXPECT_GE(values["process_threads"], 1);
  EXPECT_GT(values["process_resident_memory_bytes"], 1 << 20);
  EXPECT_GE(values["process_virtual_memory_bytes"], values["process_resident_memory_bytes"]);
  EXPECT_GE(values["process_open_fds"], 3);  // stdin, stdout, stderr
  EXPECT_GE(values["process_max_fds"], values["process_open_fds"]);
  const double now = absl::ToUnixSeconds(absl::Now());
  EXPECT_LE(values["process_start_time_seconds"], now + 1);
  EXPECT_GT(values["process_start_time_seconds"], now - 3600) << "this test started an hour ago?";
}

}  // namespace
}  // namespace assisted::metrics
