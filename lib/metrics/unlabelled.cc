// File: lib/metrics/unlabelled.cc

#include "lib/metrics/unlabelled.h"

#include "prometheus/family.h"

namespace assisted::metrics {

prometheus::Counter& UnlabelledCounter(prometheus::Registry& registry, const std::string& name,
                                       const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry).Add({});
}

prometheus::Gauge& UnlabelledGauge(prometheus::Registry& registry, const std::string& name,
                                   const std::string& help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry).Add({});
}

prometheus::Histogram& UnlabelledHistogram(prometheus::Registry& registry, const std::string& name,
                                           const std::string& help,
                                           const prometheus::Histogram::BucketBoundaries& buckets) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(registry).Add({}, buckets);
}

}  // namespace assisted::metrics
