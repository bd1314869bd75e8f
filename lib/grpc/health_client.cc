#include "lib/grpc/health_client.h"

#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "lib/grpc/channel.h"
#include "lib/status/grpc_status.h"

namespace assisted::grpcutil {

absl::StatusOr<std::string> CheckHealth(const std::shared_ptr<grpc::Channel>& channel,
                                        const std::string& service, absl::Duration timeout) {
  auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = stub->Check(ProbeContextWithin(timeout).get(), request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status());
}

}  // namespace assisted::grpcutil
