#include "services/gateway/read_cache_metrics.h"

#include "prometheus/family.h"

namespace assisted::gateway {
namespace {

prometheus::Counter& CounterOf(prometheus::Registry& registry, const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry).Add({});
}

}  // namespace

ReadCacheMetrics::ReadCacheMetrics(prometheus::Registry& registry)
    : hits_(CounterOf(registry, "assisted_gateway_read_cache_hits_total",
                      "REST reads answered from the gateway's read cache.")),
      misses_(CounterOf(registry, "assisted_gateway_read_cache_misses_total",
                        "REST reads the read cache did not hold, fetched from the inventory.")),
      bypassed_(CounterOf(registry, "assisted_gateway_read_cache_bypassed_total",
                          "REST reads fetched past the read cache while the inventory's change "
                          "log was not followed.")),
      refused_(CounterOf(registry, "assisted_gateway_read_cache_refused_inserts_total",
                         "Fetched answers not cached because an invalidation raced the fetch.")),
      invalidated_(CounterOf(registry, "assisted_gateway_read_cache_invalidated_total",
                             "Read cache entries dropped by invalidation (changes, writes).")),
      evicted_(CounterOf(registry, "assisted_gateway_read_cache_evicted_total",
                         "Read cache entries dropped to stay within the size bound.")),
      entries_(prometheus::BuildGauge()
                   .Name("assisted_gateway_read_cache_entries")
                   .Help("Entries held by the gateway's read cache.")
                   .Register(registry)
                   .Add({})) {}

}  // namespace assisted::gateway
