// File: lib/grpc/rpc_metrics.h
//
// Per-method RPC metrics for every gRPC server of the project, recorded by a server interceptor:
//   assisted_grpc_server_handled_total{method, code}
//   assisted_grpc_server_handling_seconds{method}   (histogram)
// The method label is the full gRPC path ("/assisted.inventory.v1.InventoryService/GetCluster").

#ifndef ASSISTED_LIB_GRPC_RPC_METRICS_H_
#define ASSISTED_LIB_GRPC_RPC_METRICS_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/support/server_interceptor.h"
#include "grpcpp/support/status.h"
#include "prometheus/counter.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace assisted::grpcutil {

class RpcMetrics {
 public:
  explicit RpcMetrics(prometheus::Registry& registry);

  // Records one finished RPC. Thread-safe.
  void Handled(const std::string& method, grpc::StatusCode code, absl::Duration elapsed);

 private:
  // Bounds label cardinality: a client can name any method, so past this many distinct
  // names further ones are folded into "other".
  static constexpr size_t kMaxMethods = 256;
  std::string MethodLabel(const std::string& method);

  prometheus::Family<prometheus::Counter>& handled_;
  prometheus::Family<prometheus::Histogram>& seconds_;
  absl::Mutex mu_;
  absl::flat_hash_set<std::string> methods_ ABSL_GUARDED_BY(mu_);
};

// Creates a RpcMetricsInterceptor for each RPC. `metrics` must outlive the server.
class RpcMetricsInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RpcMetricsInterceptorFactory(RpcMetrics* metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  RpcMetrics* metrics_;
};

}  // namespace assisted::grpcutil

#endif  // ASSISTED_LIB_GRPC_RPC_METRICS_H_
