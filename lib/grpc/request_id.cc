#include "lib/grpc/request_id.h"

#include <string>

#include "lib/log/log.h"

namespace assisted::grpcutil {
namespace {

class RequestIdInterceptor final : public grpc::experimental::Interceptor {
 public:
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (!methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      methods->Proceed();
      return;
    }
    std::string id;
    const auto* metadata = methods->GetRecvInitialMetadata();
    if (metadata != nullptr) {
      auto found = metadata->find(kRequestIdMetadata);
      if (found != metadata->end() &&
          log::IsWellFormedRequestId({found->second.data(), found->second.size()})) {
        id.assign(found->second.data(), found->second.size());
      }
    }
    log::RequestIdScope scope(std::move(id));
    methods->Proceed();  // a synchronous handler runs in here
  }
};

}  // namespace

void ForwardRequestId(grpc::ClientContext& context) {
  const absl::string_view id = log::CurrentRequestId();
  if (!id.empty()) context.AddMetadata(kRequestIdMetadata, std::string(id));
}

grpc::experimental::Interceptor* RequestIdInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo*) {
  return new RequestIdInterceptor();
}

}  // namespace assisted::grpcutil
