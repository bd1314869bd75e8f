// File: services/inventory/inventory_metrics.cc

#include "services/inventory/inventory_metrics.h"

#include "lib/metrics/unlabelled.h"

namespace assisted::inventory {

InventoryMetrics::InventoryMetrics(prometheus::Registry& registry)
    : clusters_created_(metrics::UnlabelledCounter(registry, "assisted_clusters_created_total",
                                                   "Clusters created.")) {}

}  // namespace assisted::inventory
