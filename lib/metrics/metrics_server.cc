#include "lib/metrics/metrics_server.h"

#include <exception>
#include <vector>

#include "absl/strings/str_cat.h"
#include "prometheus/gauge.h"

namespace assisted::metrics {

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const std::string& listen, std::shared_ptr<prometheus::Registry> registry) {
  // prometheus-cpp (civetweb underneath) reports bind failures by throwing; stop them here.
  std::unique_ptr<prometheus::Exposer> exposer;
  try {
    exposer = std::make_unique<prometheus::Exposer>(listen, /*num_threads=*/1);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", listen, ": ", e.what()));
  }
  exposer->RegisterCollectable(registry, "/metrics");
  auto process = std::make_shared<ProcessCollector>();
  exposer->RegisterCollectable(process, "/metrics");
  const std::vector<int> ports = exposer->GetListeningPorts();
  if (ports.empty()) {
    return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", listen));
  }
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(exposer), std::move(registry),
                                                          std::move(process), ports.front()));
}

void ExportBuildInfo(prometheus::Registry& registry, const std::string& service,
                     const std::string& version, double start_time_seconds) {
  prometheus::BuildGauge()
      .Name("assisted_build_info")
      .Help("Always 1; labels tell which service and version this process runs.")
      .Register(registry)
      .Add({{"service", service}, {"version", version}})
      .Set(1);
  prometheus::BuildGauge()
      .Name("assisted_process_start_time_seconds")
      .Help("Start time of the process since the Unix epoch, in seconds.")
      .Register(registry)
      .Add({})
      .Set(start_time_seconds);
}

}  // namespace assisted::metrics
