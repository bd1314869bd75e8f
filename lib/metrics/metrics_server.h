// File: lib/metrics/metrics_server.h
//
// Serves a prometheus::Registry at http://<listen>/metrics in the Prometheus text format, with
// the standard process_* metrics (process_collector.h) beside it. Each
// service builds one registry in its composition root, hands it to the semantic metric classes
// (see practice 14 in the style guide), and starts one MetricsServer. Domain code never touches
// prometheus-cpp types.

#ifndef ASSISTED_LIB_METRICS_METRICS_SERVER_H_
#define ASSISTED_LIB_METRICS_METRICS_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lib/metrics/process_collector.h"
#include "prometheus/exposer.h"
#include "prometheus/registry.h"

namespace assisted::metrics {

class MetricsServer {
 public:
  // Starts serving `registry` on `listen` ("host:port"; port 0 picks a free port).
  // UNAVAILABLE when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(
      const std::string& listen, std::shared_ptr<prometheus::Registry> registry);

  // The bound TCP port.
  int port() const { return port_; }

 private:
  MetricsServer(std::unique_ptr<prometheus::Exposer> exposer,
                std::shared_ptr<prometheus::Registry> registry,
                std::shared_ptr<ProcessCollector> process, int port)
      : exposer_(std::move(exposer)),
        registry_(std::move(registry)),
        process_(std::move(process)),
        port_(port) {}

  std::unique_ptr<prometheus::Exposer> exposer_;
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<ProcessCollector> process_;  // the exposer holds it weakly
  int port_;
};

// Sets the gauge assisted_build_info{service,version} = 1 and assisted_process_start_time_seconds,
// the two series every service exports so dashboards can tell what runs where since when.
void ExportBuildInfo(prometheus::Registry& registry, const std::string& service,
                     const std::string& version, double start_time_seconds);

}  // namespace assisted::metrics

#endif  // ASSISTED_LIB_METRICS_METRICS_SERVER_H_
