#include "lib/grpc/channel.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "lib/file/read_file.h"
#include "lib/grpc/request_id.h"
#include "lib/status/status_macros.h"

namespace assisted::grpcutil {

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& target,
                                                           const ChannelOptions& options) {
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (options.client_cert_file.empty() != options.client_key_file.empty()) {
    return absl::InvalidArgumentError("a client certificate and its key must be given together");
  }
  if (options.tls || !options.ca_bundle_file.empty() || !options.ca_bundle_pem.empty() ||
      !options.client_cert_file.empty()) {
    grpc::SslCredentialsOptions ssl;
    if (!options.ca_bundle_pem.empty()) {
      ssl.pem_root_certs = options.ca_bundle_pem;
    } else if (!options.ca_bundle_file.empty()) {
      ASSIGN_OR_RETURN(ssl.pem_root_certs, ReadFile(options.ca_bundle_file, "CA bundle"));
    }
    if (!options.client_cert_file.empty()) {
      ASSIGN_OR_RETURN(ssl.pem_cert_chain,
                       ReadFile(options.client_cert_file, "client certificate"));
      ASSIGN_OR_RETURN(ssl.pem_private_key, ReadFile(options.client_key_file, "client key"));
    }
    credentials = grpc::SslCredentials(ssl);
  }
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS,
              static_cast<int>(absl::ToInt64Milliseconds(options.keepalive_time)));
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
              static_cast<int>(absl::ToInt64Milliseconds(options.keepalive_timeout)));
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  if (options.dedicated_connection) args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  if (!options.connection_tag.empty())
    args.SetString("assisted.connection_tag", options.connection_tag);
  const int max_backoff_ms =
      static_cast<int>(absl::ToInt64Milliseconds(options.max_reconnect_backoff));
  if (max_backoff_ms > 0) {
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, max_backoff_ms);
    // The first retry must not wait longer than the longest one.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, std::min(max_backoff_ms, 1000));
  }
  if (options.round_robin) args.SetLoadBalancingPolicyName("round_robin");
  if (options.max_receive_message_bytes > 0) {
    args.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  }
  return grpc::CreateCustomChannel(target, credentials, args);
}

config::TypedSetting<std::string>& AddPeerTarget(config::Parser& parser, absl::string_view flag,
                                                 std::string* target, absl::string_view peer) {
  return parser
      .String(flag, target,
              absl::StrCat(peer,
                           "'s gRPC target: host:port, dns:///host:port or ipv4:///a:port,b:port "
                           "(calls spread over every replica it names)"))
      .Check(config::GrpcTarget);
}

void InternalClientTls::Register(config::Parser& parser) {
  parser.String("internal-ca", &ca_file,
                "PEM CA bundle that signed the internal services' server certificates; turns "
                "TLS on for calls to them (empty: plaintext)");
  parser.String("internal-client-cert", &cert_file,
                "PEM client certificate this service presents to internal services that check "
                "client certificates (with --internal-client-key)");
  parser.String("internal-client-key", &key_file, "PEM private key of --internal-client-cert")
      .Check([this](const std::string& key) {
        if (key.empty() == cert_file.empty()) return absl::OkStatus();
        return absl::InvalidArgumentError(
            "--internal-client-cert and --internal-client-key must be given together");
      });
}

ChannelOptions InternalClientTls::Channel() const {
  ChannelOptions options;
  options.ca_bundle_file = ca_file;
  options.client_cert_file = cert_file;
  options.client_key_file = key_file;
  options.round_robin = true;
  return options;
}

std::unique_ptr<grpc::ClientContext> ContextWithin(absl::Duration timeout) {
  std::unique_ptr<grpc::ClientContext> context = ProbeContextWithin(timeout);
  context->set_wait_for_ready(true);
  return context;
}

std::unique_ptr<grpc::ClientContext> ProbeContextWithin(absl::Duration timeout) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  ForwardRequestId(*context);
  return context;
}

}  // namespace assisted::grpcutil
