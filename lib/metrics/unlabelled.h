// File: lib/metrics/unlabelled.h
//
// A metric family with a single unlabelled member, registered in one call: most of the project's
// metrics are one counter or histogram per process, and this keeps their constructors to a line
// each. Families with labels use prometheus-cpp's builders directly.

#ifndef ASSISTED_LIB_METRICS_UNLABELLED_H_
#define ASSISTED_LIB_METRICS_UNLABELLED_H_

#include <string>

#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace assisted::metrics {

prometheus::Counter& UnlabelledCounter(prometheus::Registry& registry, const std::string& name,
                                       const std::string& help);
prometheus::Gauge& UnlabelledGauge(prometheus::Registry& registry, const std::string& name,
                                   const std::string& help);
prometheus::Histogram& UnlabelledHistogram(prometheus::Registry& registry, const std::string& name,
                                           const std::string& help,
                                           const prometheus::Histogram::BucketBoundaries& buckets);

}  // namespace assisted::metrics

#endif  // ASSISTED_LIB_METRICS_UNLABELLED_H_
