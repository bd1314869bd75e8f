#include "services/gateway/read_cache_metrics.h"

#include "lib/metrics/unlabelled.h"

namespace assisted::gateway {

ReadCacheMetrics::ReadCacheMetrics(prometheus::Registry& registry)
    : hits_(metrics::UnlabelledCounter(registry, "assisted_gateway_read_cache_hits_total",
                                       "REST reads answered from the gateway's read cache.")),
      misses_(metrics::UnlabelledCounter(
          registry, "assisted_gateway_read_cache_misses_total",
          "REST reads the read cache did not hold, fetched from the inventory.")),
      bypassed_(metrics::UnlabelledCounter(
          registry, "assisted_gateway_read_cache_bypassed_total",
          "REST reads fetched past the read cache while the inventory's change "
          "log was not followed.")),
      unconfirmed_(metrics::UnlabelledCounter(
          registry, "assisted_gateway_read_cache_unconfirmed_total",
          "Cached answers not served because the change log could not be shown to have "
          "caught up with the inventory in time; fetched from the inventory instead.")),
      refused_(metrics::UnlabelledCounter(
          registry, "assisted_gateway_read_cache_refused_inserts_total",
          "Fetched answers not cached because an invalidation raced the fetch.")),
      invalidated_(metrics::UnlabelledCounter(
          registry, "assisted_gateway_read_cache_invalidated_total",
          "Read cache entries dropped by invalidation (changes, writes).")),
      evicted_(
          metrics::UnlabelledCounter(registry, "assisted_gateway_read_cache_evicted_total",
                                     "Read cache entries dropped to stay within the size bound.")),
      entries_(metrics::UnlabelledGauge(registry, "assisted_gateway_read_cache_entries",
                                        "Entries held by the gateway's read cache.")) {}

}  // namespace assisted::gateway
