#include "lib/grpc/rpc_metrics.h"

#include "absl/strings/str_cat.h"

namespace assisted::grpcutil {
namespace {

using RpcType = grpc::experimental::ServerRpcInfo::Type;

std::string TypeName(RpcType type) {
  switch (type) {
    case RpcType::UNARY:
      return "unary";
    case RpcType::CLIENT_STREAMING:
      return "client_stream";
    case RpcType::SERVER_STREAMING:
      return "server_stream";
    case RpcType::BIDI_STREAMING:
      return "bidi_stream";
  }
  return "unknown";
}

// Observes one RPC: counts it started and its messages, and records it when the status goes out.
class RpcMetricsInterceptor final : public grpc::experimental::Interceptor {
 public:
  RpcMetricsInterceptor(RpcMetrics* metrics, RpcMetrics::Labels labels)
      : metrics_(metrics),
        labels_(std::move(labels)),
        messages_(metrics_->Started(labels_)),
        start_(absl::Now()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    using grpc::experimental::InterceptionHookPoints;
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE)) {
      messages_.received->Increment();
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_MESSAGE)) {
      messages_.sent->Increment();
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      metrics_->Handled(labels_, methods->GetSendStatus().error_code(), absl::Now() - start_);
    }
    methods->Proceed();
  }

 private:
  RpcMetrics* metrics_;
  const RpcMetrics::Labels labels_;
  const RpcMetrics::MessageCounters messages_;
  const absl::Time start_;
};

}  // namespace

std::string GoCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "Canceled";
    case grpc::StatusCode::UNKNOWN:
      return "Unknown";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "InvalidArgument";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DeadlineExceeded";
    case grpc::StatusCode::NOT_FOUND:
      return "NotFound";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "AlreadyExists";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PermissionDenied";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "ResourceExhausted";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FailedPrecondition";
    case grpc::StatusCode::ABORTED:
      return "Aborted";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OutOfRange";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "Unimplemented";
    case grpc::StatusCode::INTERNAL:
      return "Internal";
    case grpc::StatusCode::UNAVAILABLE:
      return "Unavailable";
    case grpc::StatusCode::DATA_LOSS:
      return "DataLoss";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "Unauthenticated";
    default:
      return absl::StrCat("Code(", static_cast<int>(code), ")");  // as Go prints it
  }
}

RpcMetrics::RpcMetrics(prometheus::Registry& registry)
    : started_(prometheus::BuildCounter()
                   .Name("grpc_server_started_total")
                   .Help("Total number of RPCs started on the server.")
                   .Register(registry)),
      handled_(prometheus::BuildCounter()
                   .Name("grpc_server_handled_total")
                   .Help("Total number of RPCs completed on the server, regardless of success or "
                         "failure.")
                   .Register(registry)),
      received_(prometheus::BuildCounter()
                    .Name("grpc_server_msg_received_total")
                    .Help("Total number of RPC stream messages received on the server.")
                    .Register(registry)),
      sent_(prometheus::BuildCounter()
                .Name("grpc_server_msg_sent_total")
                .Help("Total number of gRPC stream messages sent by the server.")
                .Register(registry)),
      seconds_(prometheus::BuildHistogram()
                   .Name("grpc_server_handling_seconds")
                   .Help("Histogram of response latency (seconds) of gRPC that had been "
                         "application-level handled by the server.")
                   .Register(registry)) {}

RpcMetrics::Labels RpcMetrics::LabelsOf(RpcType type, const std::string& path) {
  bool counted = false;
  {
    absl::MutexLock lock(&mu_);
    counted =
        methods_.contains(path) || (methods_.size() < kMaxMethods && methods_.insert(path).second);
  }
  std::string service = "other", method = "other";
  const size_t slash = path.rfind('/');
  if (counted && slash != std::string::npos && slash > 0) {
    service = path.substr(1, slash - 1);
    method = path.substr(slash + 1);
  }
  return {{"grpc_type", TypeName(type)}, {"grpc_service", service}, {"grpc_method", method}};
}

RpcMetrics::MessageCounters RpcMetrics::Started(const Labels& labels) {
  started_.Add(labels).Increment();
  return {&received_.Add(labels), &sent_.Add(labels)};
}

void RpcMetrics::Handled(const Labels& labels, grpc::StatusCode code, absl::Duration elapsed) {
  Labels with_code = labels;
  with_code["grpc_code"] = GoCodeName(code);
  handled_.Add(with_code).Increment();
  // Buckets from 1 ms to ~30 s; streams that live longer land in +Inf, which is fine.
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
  seconds_.Add(labels, kBuckets).Observe(absl::ToDoubleSeconds(elapsed));
}

grpc::experimental::Interceptor* RpcMetricsInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  return new RpcMetricsInterceptor(metrics_, metrics_->LabelsOf(info->type(), info->method()));
}

}  // namespace assisted::grpcutil
