// File: lib/grpc/server.h
//
// The one way the project starts a gRPC server: binds the configured address (optionally with
// TLS), registers the given services plus grpc.health.v1.Health and server reflection, applies
// keepalive and message limits, and records per-method metrics. Health reports SERVING for ""
// and for every registered service until Shutdown() begins.
//
// Internal listeners (inventory, image gRPC, the orchestrator's management API: only the
// project's own services call them) must not be reachable unauthenticated from other machines:
// one bound to an address other than loopback refuses to start unless it checks client
// certificates (--tls-client-ca) or --insecure-internal-listener (development only) says so.

#ifndef ASSISTED_LIB_GRPC_SERVER_H_
#define ASSISTED_LIB_GRPC_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpcpp/server.h"
#include "lib/config/config.h"
#include "lib/grpc/message_limits.h"
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
  // Largest accepted request (and sent response) message; see message_limits.h.
  int max_receive_message_bytes = kMaxMessageBytes;
  // Threads serving synchronous handlers (0: gRPC's default). Bounds the blocking work in
  // flight; beyond it, calls wait or fail with RESOURCE_EXHAUSTED instead of piling up.
  int max_threads = 0;

  // Only the project's own services call this listener: see CheckInternalListener.
  bool internal = false;
  // Lets an internal listener on a non-loopback address go without client certificates
  // (--insecure-internal-listener; development only).
  bool insecure_internal_listener = false;

  // Adds --<prefix>grpc-listen and --<prefix>tls-{cert,key,client-ca} to `parser`, bound to
  // these fields; with an empty prefix also --grpc-keepalive-* and --grpc-max-concurrent-streams
  // (a second listener of the same binary shares the first one's values: copy them), and for an
  // internal listener --insecure-internal-listener. The listen flag's check runs
  // CheckInternalListener, so a bad combination is a start-up error naming that flag.
  void Register(config::Parser& parser, absl::string_view prefix = "");
};

// OK unless `options` is an internal listener bound to an address other than loopback
// (127.0.0.0/8, ::1, localhost) that neither checks client certificates nor was explicitly
// allowed to go without (insecure_internal_listener): INVALID_ARGUMENT saying what to set.
absl::Status CheckInternalListener(const GrpcServerOptions& options);

// True for a "host:port" whose host is a loopback address or "localhost".
bool IsLoopbackListen(absl::string_view listen);

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
