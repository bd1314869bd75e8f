// File: lib/grpc/channel.h
//
// The one way the project opens a gRPC client channel: plaintext or TLS (system roots or a CA
// bundle), with keepalive pings so a silently dead peer is noticed in seconds, not hours, and
// the one way it builds a call's context.
//
// Services start in any order and peers restart (pods in Kubernetes): a call made with
// ContextWithin() waits for its peer to become reachable within its deadline instead of failing
// at once because the channel's last connection attempt failed, and channels retry a refused
// connection at least every `max_reconnect_backoff`, so a peer that comes up is found quickly.

#ifndef ASSISTED_LIB_GRPC_CHANNEL_H_
#define ASSISTED_LIB_GRPC_CHANNEL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "lib/config/config.h"
#include "lib/grpc/message_limits.h"

namespace assisted::grpcutil {

struct ChannelOptions {
  // Use TLS. With an empty ca_bundle_file the system trust store verifies the server.
  bool tls = false;
  std::string ca_bundle_file;  // PEM; implies tls
  std::string ca_bundle_pem;   // the same, given as PEM text (takes precedence); implies tls
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
  // Largest response message accepted (0: gRPC's default, 4 MiB). Every internal server
  // accepts and sends messages up to the same size (message_limits.h), so whatever the
  // inventory stores can be read back.
  int max_receive_message_bytes = kMaxMessageBytes;
  // Longest wait between two attempts to connect to a peer that refuses connections. gRPC's
  // own default grows to 120 s, far past any call's deadline, so a call waiting for a peer that
  // was down for a minute would time out although the peer is back.
  absl::Duration max_reconnect_backoff = absl::Seconds(2);
  // Spread calls over every address the target resolves to (gRPC's round_robin: a connection
  // to each, calls in turn over the ready ones) instead of using the first that connects
  // (pick_first). For the replicas of an internal service behind one name.
  bool round_robin = false;
};

// The client side of the internal services' mutual TLS, one set of flags per binary shared by
// every internal channel it opens (to the inventory, the image service, the orchestrator's
// management API): --internal-ca (the CA bundle that signed the internal servers'
// certificates; turns TLS on), --internal-client-cert and --internal-client-key (this
// service's certificate, presented to servers that check client certificates). All empty:
// plaintext (loopback development set-ups). Internal channels balance their calls over every
// replica the address names (round_robin; config::GrpcTarget says which addresses name several).
struct InternalClientTls {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;

  // Adds the three flags; the key flag's check refuses a certificate without its key and the
  // other way round.
  void Register(config::Parser& parser);
  // Options for a channel to an internal service.
  ChannelOptions Channel() const;
};

// Adds --<flag>, the gRPC target by which this service reaches `peer` over an internal channel
// (config::GrpcTarget: host:port, dns:///host:port or ipv4:///a:port,b:port; the channel spreads
// its calls over every address it names).
config::TypedSetting<std::string>& AddPeerTarget(config::Parser& parser, absl::string_view flag,
                                                 std::string* target, absl::string_view peer);

// Creates a channel to `target` ("host:port"). INVALID_ARGUMENT when a PEM file can't be read
// or only one of the client certificate and key is given.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& target,
                                                           const ChannelOptions& options);

// A client context for one call that must finish within `timeout` from now. The call waits
// (within that time) for the channel to connect rather than failing while the peer is starting
// or restarting: use it for every call that does work.
std::unique_ptr<grpc::ClientContext> ContextWithin(absl::Duration timeout);

// A context for a probe that must tell the truth about now: it fails at once with UNAVAILABLE
// when the peer cannot be reached (health and readiness checks).
std::unique_ptr<grpc::ClientContext> ProbeContextWithin(absl::Duration timeout);

}  // namespace assisted::grpcutil

#endif  // ASSISTED_LIB_GRPC_CHANNEL_H_
