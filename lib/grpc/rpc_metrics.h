// File: lib/grpc/rpc_metrics.h
//
// Per-method RPC metrics for every gRPC server of the project, recorded by a server interceptor,
// under the names and labels of go-grpc-prometheus, which community gRPC dashboards and alerts
// query:
//   grpc_server_started_total{grpc_type, grpc_service, grpc_method}
//   grpc_server_handled_total{grpc_type, grpc_service, grpc_method, grpc_code}
//   grpc_server_msg_received_total{grpc_type, grpc_service, grpc_method}
//   grpc_server_msg_sent_total{grpc_type, grpc_service, grpc_method}
//   grpc_server_handling_seconds{grpc_type, grpc_service, grpc_method}   (histogram)
// grpc_type is unary, client_stream, server_stream or bidi_stream; grpc_service the full service
// name ("assisted.inventory.v1.InventoryService"), grpc_method the bare method ("GetCluster");
// grpc_code Go's spelling of the status code ("OK", "NotFound", "DeadlineExceeded").

#ifndef ASSISTED_LIB_GRPC_RPC_METRICS_H_
#define ASSISTED_LIB_GRPC_RPC_METRICS_H_

#include <map>
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

// go-grpc-prometheus's name for `code` ("OK", "InvalidArgument", …).
std::string GoCodeName(grpc::StatusCode code);

class RpcMetrics {
 public:
  // The labels every series of one RPC shares.
  using Labels = std::map<std::string, std::string>;

  explicit RpcMetrics(prometheus::Registry& registry);

  // The labels of an RPC of `type` on `path` ("/package.Service/Method"). Bounds cardinality:
  // a client can name any method, so past kMaxMethods distinct paths the rest are labelled
  // service and method "other". Thread-safe.
  Labels LabelsOf(grpc::experimental::ServerRpcInfo::Type type, const std::string& path);

  // The message counters of an RPC with `labels`, looked up once: a stream counts every message
  // on them without another lookup. They live as long as this RpcMetrics.
  struct MessageCounters {
    prometheus::Counter* received;
    prometheus::Counter* sent;
  };

  // Thread-safe recorders for an RPC with `labels`: Started returns its message counters.
  MessageCounters Started(const Labels& labels);
  void Handled(const Labels& labels, grpc::StatusCode code, absl::Duration elapsed);

 private:
  static constexpr size_t kMaxMethods = 256;

  prometheus::Family<prometheus::Counter>& started_;
  prometheus::Family<prometheus::Counter>& handled_;
  prometheus::Family<prometheus::Counter>& received_;
  prometheus::Family<prometheus::Counter>& sent_;
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
