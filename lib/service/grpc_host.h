// File: lib/service/grpc_host.h
//
// The RunningService of a gRPC service binary: owns the service implementations (and whatever
// they use), hosts them on one GrpcServer, and on shutdown stops the server before destroying
// anything the handlers might still touch.
//
//   auto host = std::make_unique<GrpcServiceHost>();
//   host->Keep(database);
//   host->Add(std::make_unique<InventoryServiceImpl>(...), InventoryService::service_full_name());
//   RETURN_IF_ERROR(host->Start(config.grpc, context));

#ifndef ASSISTED_LIB_SERVICE_GRPC_HOST_H_
#define ASSISTED_LIB_SERVICE_GRPC_HOST_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "grpcpp/impl/codegen/service_type.h"
#include "lib/grpc/server.h"
#include "lib/service/runner.h"

namespace assisted::service {

class GrpcServiceHost final : public RunningService {
 public:
  ~GrpcServiceHost() override { Shutdown(absl::ZeroDuration()); }

  // Adds a service implementation; `name` is its full gRPC name (health checks answer for it).
  void Add(std::unique_ptr<grpc::Service> service, std::string name) {
    services_.push_back({service.get(), std::move(name)});
    owned_.push_back(std::move(service));
  }

  // Keeps `resource` alive until the server has stopped.
  void Keep(std::shared_ptr<void> resource) { resources_.push_back(std::move(resource)); }

  // Starts serving everything added so far.
  absl::Status Start(const grpcutil::GrpcServerOptions& options, const Context& context) {
    absl::StatusOr<std::unique_ptr<grpcutil::GrpcServer>> server =
        grpcutil::GrpcServer::Start(options, services_, *context.metrics, context.log);
    if (!server.ok()) return server.status();
    server_ = *std::move(server);
    return absl::OkStatus();
  }

  // See GrpcServer::SetServing.
  void SetServing(const std::string& service, bool serving) {
    if (server_ != nullptr) server_->SetServing(service, serving);
  }

  // The bound gRPC port (0 before Start).
  int port() const { return server_ == nullptr ? 0 : server_->port(); }

  void Shutdown(absl::Duration grace) override {
    if (server_ != nullptr) server_->Shutdown(grace);
  }

 private:
  std::vector<std::shared_ptr<void>> resources_;  // destroyed last
  std::vector<std::unique_ptr<grpc::Service>> owned_;
  std::vector<grpcutil::HostedService> services_;
  std::unique_ptr<grpcutil::GrpcServer> server_;  // destroyed first
};

}  // namespace assisted::service

#endif  // ASSISTED_LIB_SERVICE_GRPC_HOST_H_
