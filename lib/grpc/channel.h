// File: lib/grpc/channel.h
//
// The one way the project opens a gRPC client channel: plaintext or TLS (system roots or a CA
// bundle), with keepalive pings so a silently dead peer is noticed in seconds, not hours.

#ifndef ASSISTED_LIB_GRPC_CHANNEL_H_
#define ASSISTED_LIB_GRPC_CHANNEL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"

namespace assisted::grpcutil {

struct ChannelOptions {
  // Use TLS. With an empty ca_bundle_file the system trust store verifies the server.
  bool tls = false;
  std::string ca_bundle_file;  // PEM; implies tls
  // PEM client certificate chain and key, for servers that require mutual TLS; imply tls.
  std::string client_cert_file;
  std::string client_key_file;
  // Ping after this much silence; give up on the connection when a ping goes unanswered for
  // keepalive_timeout. 10 s + 10 s notices a dead peer within ~20-30 s.
  absl::Duration keepalive_time = absl::Seconds(10);
  absl::Duration keepalive_timeout = absl::Seconds(10);
  // Give this channel its own TCP connection even when another channel in the process targets
  // the same address (simulated fleets run many agents in one process).
  bool dedicated_connection = false;
  // When not empty, set as a channel argument of its own: channels with different tags never
  // share a subchannel, so each keeps its own TCP connection (with dedicated_connection).
  std::string connection_tag;
  // Largest response message accepted; 0 keeps gRPC's default (4 MiB). The gateway raises it
  // to read stored artifacts (up to 64 MiB).
  int max_receive_message_bytes = 0;
};

// Creates a channel to `target` ("host:port"). INVALID_ARGUMENT when a PEM file can't be read
// or only one of the client certificate and key is given.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& target,
                                                           const ChannelOptions& options);

// A client context for one call that must finish within `timeout` from now.
std::unique_ptr<grpc::ClientContext> ContextWithin(absl::Duration timeout);

}  // namespace assisted::grpcutil

#endif  // ASSISTED_LIB_GRPC_CHANNEL_H_
