// File: services/gateway/server.h
//
// Composition root of assisted-gateway: the public REST/JSON API (/api/assisted-install/v2/…,
// port 8080 by default, see api.h) that maps onto the other services' gRPC APIs, with user, agent
// and image-token authentication (auth.h). Its only state is a read cache of rendered answers
// (read_cache.h, --read-cache-entries; 0 turns it off), kept coherent by following the
// inventory's change log. Its own gRPC port (9093) carries only health checks and reflection,
// for the same probes and tools that watch the other services.

#ifndef ASSISTED_SERVICES_GATEWAY_SERVER_H_
#define ASSISTED_SERVICES_GATEWAY_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/optional.h"
#include "lib/config/config.h"
#include "lib/grpc/channel.h"
#include "lib/grpc/server.h"
#include "lib/http/server.h"
#include "lib/service/runner.h"
#include "services/gateway/oidc_sign_in.h"

namespace assisted::gateway {

struct Config {
  grpcutil::GrpcServerOptions grpc{.listen = "0.0.0.0:9093"};
  // REST bodies are small JSON documents: a tight body limit and deadline keep slow or huge
  // uploads from holding handler threads.
  http::HttpServerOptions http{.listen = "0.0.0.0:8080",
                               .handler_threads = 32,
                               .max_body_bytes = 1 << 20,
                               .body_timeout = absl::Seconds(15)};
  // "jwt": bearer tokens required; "none": every caller is an anonymous admin (development).
  std::string auth = "jwt";
  std::string jwt_secret_file;       // HS256 key of the local issuer
  std::string jwks_file;             // RS256 keys of an external identity provider
  std::string jwt_issuer;            // when set, user tokens' iss must equal it
  std::string jwt_audience;          // when set, user tokens' aud must name it
  std::string url_signing_key_file;  // the image service's key: agent and image tokens
  absl::Duration backend_timeout = absl::Seconds(10);
  std::string inventory_address = "localhost:9091";
  // The orchestrator's management API (its internal listener), not the agents' port.
  std::string orchestrator_address = "localhost:9094";
  std::string image_address = "localhost:9092";
  // How calls to the three backends authenticate (internal mutual TLS).
  grpcutil::InternalClientTls internal_tls;
  // Read cache bounds; 0 entries: no cache, no change-log stream, every read goes to the
  // inventory.
  int read_cache_entries = 10000;
  int read_cache_mib = 256;
  // The web UI's built files (ui/'s build output), served at "/"; empty: no UI.
  std::string ui_dir;
  // The agent-based installer's node 0: the one cluster anyone may watch read-only without
  // credentials (the UI opens its progress); empty: none.
  std::string read_only_cluster;
  // Sign-in through an identity provider in the UI (oidc_sign_in.h): its discovery document
  // saved to a file, the client id it registered for the UI, the scopes asked for. Needs
  // --jwks-file; empty file: the UI asks for a bearer token.
  std::string oidc_discovery_file;
  std::string oidc_client_id;
  std::string oidc_scopes = "openid";
  // What those three settings and the auth settings describe, checked and read while the
  // command line is parsed (a bad document exits 2 like any bad setting); empty: no provider.
  absl::optional<OidcSignIn> oidc_sign_in;

  void Register(config::Parser& parser);
};

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context);

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_SERVER_H_
