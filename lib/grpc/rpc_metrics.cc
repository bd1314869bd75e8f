#include "lib/grpc/rpc_metrics.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace assisted::grpcutil {
namespace {

// gRPC's and Abseil's canonical codes share numbers and names ("OK", "NOT_FOUND", …).
std::string CodeName(grpc::StatusCode code) {
  std::string name = absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
  return name.empty() ? absl::StrCat(static_cast<int>(code)) : name;
}

// Observes one RPC: remembers when it began and records it when the status goes out.
class RpcMetricsInterceptor final : public grpc::experimental::Interceptor {
 public:
  RpcMetricsInterceptor(RpcMetrics* metrics, std::string method)
      : metrics_(metrics), method_(std::move(method)), start_(absl::Now()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS)) {
      metrics_->Handled(method_, methods->GetSendStatus().error_code(), absl::Now() - start_);
    }
    methods->Proceed();
  }

 private:
  RpcMetrics* metrics_;
  std::string method_;
  absl::Time start_;
};

}  // namespace

RpcMetrics::RpcMetrics(prometheus::Registry& registry)
    : handled_(prometheus::BuildCounter()
                   .Name("assisted_grpc_server_handled_total")
                   .Help("RPCs completed by the server, by method and status code.")
                   .Register(registry)),
      seconds_(prometheus::BuildHistogram()
                   .Name("assisted_grpc_server_handling_seconds")
                   .Help("Time from the start of an RPC to its status, by method.")
                   .Register(registry)) {}

std::string RpcMetrics::MethodLabel(const std::string& method) {
  absl::MutexLock lock(&mu_);
  if (methods_.contains(method)) return method;
  if (methods_.size() >= kMaxMethods) return "other";
  methods_.insert(method);
  return method;
}

void RpcMetrics::Handled(const std::string& method, grpc::StatusCode code, absl::Duration elapsed) {
  const std::string label = MethodLabel(method);
  handled_.Add({{"method", label}, {"code", CodeName(code)}}).Increment();
  // Buckets from 1 ms to ~30 s; streams that live longer land in +Inf, which is fine.
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
  seconds_.Add({{"method", label}}, kBuckets).Observe(absl::ToDoubleSeconds(elapsed));
}

grpc::experimental::Interceptor* RpcMetricsInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  return new RpcMetricsInterceptor(metrics_, info->method());
}

}  // namespace assisted::grpcutil
