// File: lib/grpc/request_id.h
//
// Carries the id of the request a call serves (log::RequestIdScope) from service to service:
// ContextWithin (channel.h) sends the caller's current id as the metadata `x-request-id`, and
// every GrpcServer runs RequestIdInterceptorFactory's interceptor, which opens a RequestIdScope
// with the id it receives around a synchronous handler, so the handler's log lines, the calls it
// makes and the events it appends name the same request. The gateway creates the ids (or takes
// the client's X-Request-ID / traceparent), see services/gateway/request_context.h.

#ifndef ASSISTED_LIB_GRPC_REQUEST_ID_H_
#define ASSISTED_LIB_GRPC_REQUEST_ID_H_

#include "grpcpp/client_context.h"
#include "grpcpp/support/server_interceptor.h"

namespace assisted::grpcutil {

// The metadata key the request id travels in.
inline constexpr char kRequestIdMetadata[] = "x-request-id";

// Adds the current thread's request id (if any) to `context`'s metadata.
void ForwardRequestId(grpc::ClientContext& context);

// Creates the interceptor that opens a RequestIdScope for each call that carries a well-formed
// x-request-id. A synchronous handler runs inside the interceptor's hook (gRPC calls it from the
// hook's Proceed on the same thread), so the scope covers exactly the handler; for a callback
// handler the scope closes before the handler runs, and the id goes unused.
class RequestIdInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;
};

}  // namespace assisted::grpcutil

#endif  // ASSISTED_LIB_GRPC_REQUEST_ID_H_
