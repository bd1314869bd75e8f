// File: lib/service/grpc_host.h
//
// The RunningService of a gRPC service binary: owns the service implementations (and whatever
// they use), hosts them on its GrpcServers (the main listener, and for a binary with a public
// and an internal port an internal one), and on shutdown stops the servers before destroying
// anything the handlers might still touch.
//
//   auto host = std::make_unique<GrpcServiceHost>();
//   host->Keep(database);
//   host->Add(std::make_unique<InventoryServiceImpl>(...), InventoryService::service_full_name());
//   RETURN_IF_ERROR(host->Start(config.grpc, context));

#ifndef ASSISTED_LIB_SERVICE_GRPC_HOST_H_
#define ASSISTED_LIB_SERVICE_GRPC_HOST_H_

#include <array>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "grpcpp/impl/codegen/service_type.h"
#include "lib/grpc/server.h"
#include "lib/service/runner.h"

namespace assisted::service {

class GrpcServiceHost final : public RunningService {
 public:
  // Which of the binary's gRPC servers hosts a service.
  enum class Listener { kMain = 0, kInternal = 1 };

  ~GrpcServiceHost() override { Shutdown(absl::ZeroDuration()); }

  // Adds a service implementation; `name` is its full gRPC name (health checks answer for it).
  void Add(std::unique_ptr<grpc::Service> service, std::string name,
           Listener listener = Listener::kMain) {
    listeners_[Index(listener)].services.push_back({service.get(), std::move(name)});
    owned_.push_back(std::move(service));
  }

  // Keeps `resource` alive until the servers have stopped.
  void Keep(std::shared_ptr<void> resource) { resources_.push_back(std::move(resource)); }

  // Starts serving everything added for `listener` so far.
  absl::Status Start(const grpcutil::GrpcServerOptions& options, const Context& context,
                     Listener listener = Listener::kMain) {
    Hosted& hosted = listeners_[Index(listener)];
    absl::StatusOr<std::unique_ptr<grpcutil::GrpcServer>> server =
        grpcutil::GrpcServer::Start(options, hosted.services, *context.metrics, context.log);
    if (!server.ok()) return server.status();
    hosted.server = *std::move(server);
    return absl::OkStatus();
  }

  // See GrpcServer::SetServing (on every listener).
  void SetServing(const std::string& service, bool serving) {
    for (Hosted& hosted : listeners_) {
      if (hosted.server != nullptr) hosted.server->SetServing(service, serving);
    }
  }

  // The bound gRPC port of `listener` (0 before Start).
  int port(Listener listener = Listener::kMain) const {
    const Hosted& hosted = listeners_[Index(listener)];
    return hosted.server == nullptr ? 0 : hosted.server->port();
  }

  // Drains every listener at once, within the same grace.
  void Shutdown(absl::Duration grace) override {
    std::vector<std::thread> draining;
    for (Hosted& hosted : listeners_) {
      if (hosted.server == nullptr) continue;
      grpcutil::GrpcServer* server = hosted.server.get();
      draining.emplace_back([server, grace] { server->Shutdown(grace); });
    }
    for (std::thread& thread : draining) thread.join();
  }

 private:
  struct Hosted {
    std::vector<grpcutil::HostedService> services;
    std::unique_ptr<grpcutil::GrpcServer> server;
  };
  static size_t Index(Listener listener) { return static_cast<size_t>(listener); }

  std::vector<std::shared_ptr<void>> resources_;  // destroyed last
  std::vector<std::unique_ptr<grpc::Service>> owned_;
  std::array<Hosted, 2> listeners_;  // destroyed first: the servers stop before the services go
};

}  // namespace assisted::service

#endif  // ASSISTED_LIB_SERVICE_GRPC_HOST_H_
