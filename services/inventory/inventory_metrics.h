// File: services/inventory/inventory_metrics.h
//
// The inventory's domain metrics, built once over the service's prometheus::Registry; the
// service calls the methods and never touches prometheus-cpp types.
//   assisted_clusters_created_total   clusters created (the reference's cluster creations)
// Each replica counts what it created: summed over replicas, each cluster counts once.

#ifndef ASSISTED_SERVICES_INVENTORY_INVENTORY_METRICS_H_
#define ASSISTED_SERVICES_INVENTORY_INVENTORY_METRICS_H_

#include "prometheus/counter.h"
#include "prometheus/registry.h"

namespace assisted::inventory {

// Thread-safe.
class InventoryMetrics {
 public:
  explicit InventoryMetrics(prometheus::Registry& registry);

  void ClusterCreated() { clusters_created_.Increment(); }

 private:
  prometheus::Counter& clusters_created_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_INVENTORY_METRICS_H_
