// File: lib/metrics/process_collector.h
//
// The standard process metrics every Prometheus client library exports (and community
// dashboards chart), read from /proc/self at each scrape:
//   process_cpu_seconds_total         user + system CPU time
//   process_resident_memory_bytes     resident set size
//   process_virtual_memory_bytes      virtual memory size
//   process_open_fds, process_max_fds open file descriptors and their limit
//   process_start_time_seconds        start time since the Unix epoch
//   process_threads                   threads of the process
// MetricsServer::Start registers one, so every service's /metrics has them. Linux only; a
// value /proc does not give is left out of that scrape.

#ifndef ASSISTED_LIB_METRICS_PROCESS_COLLECTOR_H_
#define ASSISTED_LIB_METRICS_PROCESS_COLLECTOR_H_

#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace assisted::metrics {

class ProcessCollector final : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace assisted::metrics

#endif  // ASSISTED_LIB_METRICS_PROCESS_COLLECTOR_H_
