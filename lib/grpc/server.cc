#include "lib/grpc/server.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/resource_quota.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "lib/file/read_file.h"
#include "lib/grpc/request_id.h"
#include "lib/status/status_macros.h"

namespace assisted::grpcutil {
namespace {

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(
    const GrpcServerOptions& options) {
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key must be given together");
  }
  if (options.tls_cert_file.empty()) {
    if (!options.tls_client_ca_file.empty()) {
      return absl::InvalidArgumentError("--tls-client-ca needs --tls-cert and --tls-key");
    }
    return grpc::InsecureServerCredentials();
  }
  grpc::SslServerCredentialsOptions ssl(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  ASSIGN_OR_RETURN(pair.cert_chain, ReadFile(options.tls_cert_file, "--tls-cert"));
  ASSIGN_OR_RETURN(pair.private_key, ReadFile(options.tls_key_file, "--tls-key"));
  ssl.pem_key_cert_pairs.push_back(std::move(pair));
  if (!options.tls_client_ca_file.empty()) {
    ASSIGN_OR_RETURN(ssl.pem_root_certs, ReadFile(options.tls_client_ca_file, "--tls-client-ca"));
    ssl.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(ssl);
}

int Millis(absl::Duration d) { return static_cast<int>(absl::ToInt64Milliseconds(d)); }

}  // namespace

bool IsLoopbackListen(absl::string_view listen) {
  const size_t colon = listen.rfind(':');
  absl::string_view host = colon == absl::string_view::npos ? listen : listen.substr(0, colon);
  absl::ConsumePrefix(&host, "[");
  absl::ConsumeSuffix(&host, "]");
  return host == "localhost" || host == "::1" || absl::StartsWith(host, "127.");
}

absl::Status CheckInternalListener(const GrpcServerOptions& options) {
  if (!options.internal || options.insecure_internal_listener ||
      !options.tls_client_ca_file.empty() || IsLoopbackListen(options.listen)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      options.listen,
      " is not a loopback address and client certificates are not checked: an internal "
      "listener reachable from other machines needs mutual TLS (--tls-cert, --tls-key and "
      "--tls-client-ca of this listener), or --insecure-internal-listener (development only)"));
}

void GrpcServerOptions::Register(config::Parser& parser, absl::string_view prefix) {
  const std::string tls_cert = absl::StrCat(prefix, "tls-cert");
  const std::string tls_key = absl::StrCat(prefix, "tls-key");
  parser.String(absl::StrCat(prefix, "grpc-listen"), &listen, "gRPC listen address, host:port")
      .Check(config::HostPort)
      .Check([this](const std::string&) { return CheckInternalListener(*this); });
  parser.String(tls_cert, &tls_cert_file,
                absl::StrCat("PEM certificate chain; enables TLS with --", tls_key));
  parser.String(tls_key, &tls_key_file, absl::StrCat("PEM private key for --", tls_cert));
  parser.String(absl::StrCat(prefix, "tls-client-ca"), &tls_client_ca_file,
                "PEM CA bundle; when set, clients must present a certificate it signed");
  if (internal) {
    parser.Bool("insecure-internal-listener", &insecure_internal_listener,
                "DEVELOPMENT ONLY: let an internal gRPC listener on a non-loopback address "
                "accept callers without client certificates");
  }
  if (!prefix.empty()) return;
  parser
      .Duration("grpc-keepalive-time", &keepalive_time,
                "the keepalive ping interval; with --grpc-keepalive-timeout, how soon a peer "
                "that went silent without closing (a hung or powered-off host) is dropped")
      .Range(absl::Seconds(1), absl::Hours(2));
  parser
      .Duration("grpc-keepalive-timeout", &keepalive_timeout,
                "drop a connection whose ping is not answered within this (too short a value "
                "drops live peers on a loaded host: see docs/operations.md)")
      .Range(absl::Seconds(1), absl::Minutes(5));
  parser
      .Int("grpc-max-concurrent-streams", &max_concurrent_streams,
           "concurrent streams per connection, 0 = gRPC default")
      .Range(0, 1 << 20);
}

absl::StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Start(
    const GrpcServerOptions& options, const std::vector<HostedService>& services,
    prometheus::Registry& metrics_registry, const log::Logger& log) {
  RETURN_IF_ERROR(CheckInternalListener(options));
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials, Credentials(options));

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();

  std::unique_ptr<GrpcServer> server(
      new GrpcServer(std::make_unique<RpcMetrics>(metrics_registry), log.Child("grpc")));

  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, credentials, &port);
  for (const HostedService& hosted : services) builder.RegisterService(hosted.service);
  builder.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  builder.SetMaxSendMessageSize(options.max_receive_message_bytes);
  if (options.max_threads > 0) {
    grpc::ResourceQuota quota("assisted-server");
    quota.SetMaxThreads(options.max_threads);
    builder.SetResourceQuota(quota);
  }
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, Millis(options.keepalive_time));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, Millis(options.keepalive_timeout));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  // gRPC sets SO_REUSEPORT by default, which lets a second instance silently share the port
  // (and half the traffic); a busy port must be an error.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // Agents ping every ~10 s to notice a dead service; don't punish them for it.
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 5000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  if (options.max_concurrent_streams > 0) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, options.max_concurrent_streams);
  }
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
  creators.push_back(std::make_unique<RpcMetricsInterceptorFactory>(server->metrics_.get()));
  creators.push_back(std::make_unique<RequestIdInterceptorFactory>());
  builder.experimental().SetInterceptorCreators(std::move(creators));

  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen for gRPC on ", options.listen));
  }
  server->port_ = port;
  grpc::HealthCheckServiceInterface* health = server->server_->GetHealthCheckService();
  health->SetServingStatus(true);
  for (const HostedService& hosted : services) health->SetServingStatus(hosted.name, true);
  server->log_.Info("serving gRPC", {{"listen", options.listen},
                                     {"port", port},
                                     {"tls", options.tls_cert_file.empty() ? "off" : "on"},
                                     {"client_certificates",
                                      options.tls_client_ca_file.empty() ? "off" : "required"}});
  return server;
}

GrpcServer::~GrpcServer() { Shutdown(absl::ZeroDuration()); }

void GrpcServer::SetServing(const std::string& service, bool serving) {
  if (server_ == nullptr || shut_down_) return;
  server_->GetHealthCheckService()->SetServingStatus(service, serving);
}

void GrpcServer::Shutdown(absl::Duration grace) {
  if (shut_down_ || server_ == nullptr) return;
  shut_down_ = true;
  server_->GetHealthCheckService()->SetServingStatus(false);
  server_->Shutdown(std::chrono::system_clock::now() +
                    std::chrono::milliseconds(absl::ToInt64Milliseconds(grace)));
  server_->Wait();
  log_.Info("gRPC server stopped");
}

}  // namespace assisted::grpcutil
