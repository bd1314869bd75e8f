// File: services/gateway/read_cache_metrics.h
//
// Metrics of the gateway's read cache (read_cache.h), built once over the service's
// prometheus::Registry (style practice 14); the cache never touches prometheus-cpp types.
//   assisted_gateway_read_cache_hits_total              answered from the cache
//   assisted_gateway_read_cache_misses_total            fetched from the inventory (cache live)
//   assisted_gateway_read_cache_bypassed_total          fetched while the change log was not
//                                                       followed (cache stood down)
//   assisted_gateway_read_cache_unconfirmed_total       cached answers not served because the
//                                                       change log could not be shown to have
//                                                       caught up in time (fetched instead)
//   assisted_gateway_read_cache_refused_inserts_total   fetched answers not kept because an
//                                                       invalidation raced the fetch
//   assisted_gateway_read_cache_invalidated_total       entries dropped by tag invalidation
//   assisted_gateway_read_cache_evicted_total           entries dropped by the size bound
//   assisted_gateway_read_cache_entries                 entries held

#ifndef ASSISTED_SERVICES_GATEWAY_READ_CACHE_METRICS_H_
#define ASSISTED_SERVICES_GATEWAY_READ_CACHE_METRICS_H_

#include <cstdint>

#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace assisted::gateway {

// Thread-safe and cheap enough to call per request.
class ReadCacheMetrics {
 public:
  explicit ReadCacheMetrics(prometheus::Registry& registry);

  void Hit() { hits_.Increment(); }
  void Miss() { misses_.Increment(); }
  void Bypassed() { bypassed_.Increment(); }
  void Unconfirmed() { unconfirmed_.Increment(); }
  void InsertRefused() { refused_.Increment(); }
  void Invalidated(int64_t entries) { invalidated_.Increment(static_cast<double>(entries)); }
  void Evicted(int64_t entries) { evicted_.Increment(static_cast<double>(entries)); }
  void Entries(int64_t entries) { entries_.Set(static_cast<double>(entries)); }

 private:
  prometheus::Counter& hits_;
  prometheus::Counter& misses_;
  prometheus::Counter& bypassed_;
  prometheus::Counter& unconfirmed_;
  prometheus::Counter& refused_;
  prometheus::Counter& invalidated_;
  prometheus::Counter& evicted_;
  prometheus::Gauge& entries_;
};

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_READ_CACHE_METRICS_H_
