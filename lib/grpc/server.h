// File: lib/grpc/server.h
//
// The one way the project starts a gRPC server: binds the configured address (optionally with
// TLS), registers the given services plus grpc.health.v1.Health and server reflection, applies
// keepalive and message limits, and records per-method metrics. Health reports SERVING for ""
// and for every registered service until Shutdown() begins.

#ifndef ASSISTED_LIB_GRPC_SERVER_H_
#define ASSISTED_LIB_GRPC_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/server.h"
#include "lib/config/config.h"
#include "lib/grpc/rpc_metrics.h"
#include "lib/log/log.h"

namespace assisted::grpcutil {

struct GrpcServerOptions {
  // "host:port"; port 0 binds a free port (see GrpcServer::port()).
  std::string listen;
  // PEM files. With cert and key the server speaks TLS; with a client CA as well it requires
  // and verifies client certificates (mutual TLS).
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;
  // The server pings an idle connection after keepalive_time and drops it when no answer comes
  // within keepalive_timeout, so dead agents are noticed in well under a minute.
  absl::Duration keepalive_time = absl::Seconds(20);
  absl::Duration keepalive_timeout = absl::Seconds(10);
  // Concurrent streams per HTTP/2 connection (0: gRPC's default).
  int max_concurrent_streams = 0;
  // Largest accepted request message.
  int max_receive_message_bytes = 16 << 20;
  // Threads serving synchronous handlers (0: gRPC's default). Bounds the blocking work in
  // flight; beyond it, calls wait or fail with RESOURCE_EXHAUSTED instead of piling up.
  int max_threads = 0;

  // Adds --grpc-listen, --tls-*, --grpc-keepalive-* to `parser`, bound to these fields.
  void Register(config::Parser& parser);
};

// A service to host, with the full name health checks answer for, e.g.
// {&impl, assisted::inventory::v1::InventoryService::service_full_name()}.
struct HostedService {
  grpc::Service* service;
  std::string name;
};

class GrpcServer {
 public:
  // Builds and starts the server. The services are borrowed and must outlive it.
  // INVALID_ARGUMENT for a bad TLS configuration; UNAVAILABLE when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<GrpcServer>> Start(
      const GrpcServerOptions& options, const std::vector<HostedService>& services,
      prometheus::Registry& metrics_registry, const log::Logger& log);

  ~GrpcServer();

  // The bound TCP port.
  int port() const { return port_; }

  // Sets what health checks answer for `service` (a full name, or "" for the server): for a
  // service that is up but not ready yet, such as one still fetching what it serves.
  void SetServing(const std::string& service, bool serving);

  // Marks every service NOT_SERVING (so load balancers stop sending work), then lets in-flight
  // RPCs finish for up to `grace` before cancelling them. Idempotent.
  void Shutdown(absl::Duration grace);

 private:
  GrpcServer(std::unique_ptr<RpcMetrics> metrics, log::Logger log)
      : metrics_(std::move(metrics)), log_(std::move(log)) {}

  std::unique_ptr<RpcMetrics> metrics_;  // before server_: interceptors use it until it stops
  std::unique_ptr<grpc::Server> server_;
  log::Logger log_;
  int port_ = 0;
  bool shut_down_ = false;
};

}  // namespace assisted::grpcutil

#endif  // ASSISTED_LIB_GRPC_SERVER_H_
