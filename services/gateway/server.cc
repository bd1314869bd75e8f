#include "services/gateway/server.h"

#include <utility>

#include "absl/strings/strip.h"
#include "lib/file/read_file.h"
#include "lib/http/metrics.h"
#include "lib/inventory_client/signing_keys.h"
#include "lib/inventory_client/watch_follower.h"
#include "lib/random/random.h"
#include "lib/service/grpc_host.h"
#include "lib/status/status_macros.h"
#include "lib/time/clock.h"
#include "services/gateway/api.h"
#include "services/gateway/api_error.h"
#include "services/gateway/auth.h"
#include "services/gateway/backends.h"
#include "services/gateway/change_log_head.h"
#include "services/gateway/oidc_sign_in.h"
#include "services/gateway/read_cache.h"
#include "services/gateway/read_cache_metrics.h"
#include "services/gateway/request_context.h"
#include "services/gateway/web_ui.h"

namespace assisted::gateway {
namespace {

// Everything the HTTP handlers use, destroyed after the servers stopped (in reverse order: the
// change-log follower before the cache it feeds, before the backends it reads from).
struct Parts {
  RealClock clock;
  std::unique_ptr<Backends> backends;
  std::unique_ptr<InfraEnvSigningKeys> signing_keys;
  std::unique_ptr<Authenticator> authenticator;
  std::unique_ptr<ReadCacheMetrics> read_cache_metrics;
  std::unique_ptr<ChangeLogHead> change_log_head;
  std::unique_ptr<ReadCache> read_cache;
  std::unique_ptr<WebUi> web_ui;  // its change feed outlives the follower feeding it
  std::unique_ptr<inventory_client::WatchFollower> watch;
  std::unique_ptr<RestApi> api;
  std::unique_ptr<http::HttpMetrics> http_metrics;
};

class GatewayRunning final : public service::RunningService {
 public:
  GatewayRunning(std::unique_ptr<Parts> parts, std::unique_ptr<service::GrpcServiceHost> grpc,
                 std::unique_ptr<http::HttpServer> http)
      : parts_(std::move(parts)), grpc_(std::move(grpc)), http_(std::move(http)) {}
  ~GatewayRunning() override { Shutdown(absl::ZeroDuration()); }
  void Shutdown(absl::Duration grace) override {
    parts_->web_ui->Shutdown();  // held change answers end now, not at the grace's end
    http_->Shutdown(grace);
    grpc_->Shutdown(grace);
  }

 private:
  std::unique_ptr<Parts> parts_;
  std::unique_ptr<service::GrpcServiceHost> grpc_;
  std::unique_ptr<http::HttpServer> http_;
};

// A 256-bit HS256 key nobody holds.
constexpr size_t kThrowawayKeyBytes = 32;

absl::StatusOr<AuthOptions> LoadAuth(const Config& config, const log::Logger& log) {
  AuthOptions options;
  options.enabled = config.auth == "jwt";
  if (!options.enabled) {
    log.Warning("--auth=none: every caller is an anonymous administrator; development only");
    return options;
  }
  if (!config.jwt_secret_file.empty()) {
    ASSIGN_OR_RETURN(options.hs256_secret, ReadFile(config.jwt_secret_file, "--jwt-secret-file"));
  }
  if (!config.jwks_file.empty()) {
    ASSIGN_OR_RETURN(options.jwks, ReadFile(config.jwks_file, "--jwks-file"));
  }
  options.expected = {.issuer = config.jwt_issuer, .audience = config.jwt_audience};
  options.read_only_cluster_id = config.read_only_cluster;
  if (options.hs256_secret.empty() && options.jwks.empty()) {
    // Refuse every user rather than accept anyone: a random key nobody holds.
    log.Warning("no --jwt-secret-file or --jwks-file: no user token can be valid");
    ASSIGN_OR_RETURN(options.hs256_secret, SecureRandomBytes(kThrowawayKeyBytes));
  }
  if (!config.url_signing_key_file.empty()) {
    ASSIGN_OR_RETURN(options.url_signing_key,
                     ReadFile(config.url_signing_key_file, "--url-signing-key-file"));
  } else {
    log.Warning(
        "no --url-signing-key-file: agent and image tokens are refused, no cluster links signed");
  }
  return options;
}

// The identity provider the UI signs users in with, when configured; an error is about
// --oidc-discovery-file (Config::Register's check names it). Its tokens are checked with
// --jwks-file's keys, so without them no sign-in could succeed: refused as a bad setting.
absl::StatusOr<absl::optional<OidcSignIn>> LoadOidcSignIn(const Config& config) {
  if (config.oidc_discovery_file.empty()) return absl::optional<OidcSignIn>();
  if (config.auth != "jwt" || config.jwks_file.empty()) {
    return absl::InvalidArgumentError(
        "needs --auth=jwt and --jwks-file (the provider's keys, which check the tokens it "
        "issues)");
  }
  ASSIGN_OR_RETURN(std::string document,
                   ReadFile(config.oidc_discovery_file, "--oidc-discovery-file"));
  return ParseOidcDiscovery(document, config.oidc_client_id, config.oidc_scopes, config.jwt_issuer);
}

}  // namespace

void Config::Register(config::Parser& parser) {
  grpc.Register(parser);
  http.Register(parser, "http");
  parser
      .Int("handler-threads", &http.handler_threads,
           "threads running REST handlers (each blocks on a backend call)")
      .Range(1, 1024);
  grpcutil::AddPeerTarget(parser, "inventory-address", &inventory_address, "assisted-inventory");
  grpcutil::AddPeerTarget(parser, "orchestrator-address", &orchestrator_address,
                          "assisted-orchestrator's management API (--internal-grpc-listen)");
  grpcutil::AddPeerTarget(parser, "image-address", &image_address, "assisted-image");
  internal_tls.Register(parser);
  parser.String("auth", &auth, "user authentication: jwt, or none (development only)")
      .Check([](const std::string& value) {
        return value == "jwt" || value == "none"
                   ? absl::OkStatus()
                   : absl::InvalidArgumentError("expected jwt or none");
      });
  parser.String("jwt-secret-file", &jwt_secret_file,
                "HS256 key (>= 32 bytes) of the local token issuer (aictl token issue)");
  parser.String("jwks-file", &jwks_file, "JWKS document with an identity provider's RS256 keys");
  parser.String("jwt-issuer", &jwt_issuer,
                "when set, user tokens must carry this iss claim (the identity provider's URL)");
  parser.String("jwt-audience", &jwt_audience,
                "when set, user tokens' aud claim (a string or a list) must name this audience");
  parser.String("url-signing-key-file", &url_signing_key_file,
                "the image service's signing key, to accept agent and image tokens and to "
                "sign cluster download links");
  parser.Duration("backend-timeout", &backend_timeout, "deadline of each call to a backend")
      .Range(absl::Milliseconds(100), absl::Minutes(10));
  parser
      .Int("read-cache-entries", &read_cache_entries,
           "rendered reads kept, coherent with the inventory's change log; 0 turns the cache off")
      .Range(0, 10000000);
  parser.Int("read-cache-mib", &read_cache_mib, "memory bound of the read cache's answers (MiB)")
      .Range(1, 1 << 20);
  parser.String("ui-dir", &ui_dir, "the web UI's built files (ui/dist), served at /; empty: none");
  parser
      .String("read-only-cluster", &read_only_cluster,
              "agent-based installer (node 0): callers without credentials may watch this "
              "cluster's progress read-only, and the UI opens it without sign-in; empty: none")
      .Check(config::OptionalUuid);
  parser
      .String("oidc-discovery-file", &oidc_discovery_file,
              "the identity provider's /.well-known/openid-configuration document: the UI "
              "signs users in there (authorization code flow with PKCE); needs --jwks-file")
      // Checks run once every setting is read, so the auth settings it depends on are known.
      .Check([this](const std::string&) -> absl::Status {
        absl::StatusOr<absl::optional<OidcSignIn>> loaded = LoadOidcSignIn(*this);
        if (!loaded.ok()) {
          // Most messages name this flag already; the parser names it again.
          absl::string_view message = loaded.status().message();
          absl::ConsumePrefix(&message, "--oidc-discovery-file: ");
          return absl::InvalidArgumentError(message);
        }
        oidc_sign_in = *std::move(loaded);
        return absl::OkStatus();
      });
  parser
      .String("oidc-client-id", &oidc_client_id,
              "the UI's client id at the identity provider (a public client whose redirect "
              "URI is https://GATEWAY/oidc/callback)")
      .Check([this](const std::string& client_id) -> absl::Status {
        return client_id.empty() || !oidc_discovery_file.empty()
                   ? absl::OkStatus()
                   : absl::InvalidArgumentError("needs --oidc-discovery-file");
      });
  parser.String("oidc-scopes", &oidc_scopes,
                "scopes the UI asks the identity provider for, space-separated, openid among "
                "them");
}

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context) {
  auto parts = std::make_unique<Parts>();
  ASSIGN_OR_RETURN(parts->backends, Backends::Connect({.inventory = config.inventory_address,
                                                       .orchestrator = config.orchestrator_address,
                                                       .image = config.image_address,
                                                       .deadline = config.backend_timeout,
                                                       .channel = config.internal_tls.Channel()}));
  ASSIGN_OR_RETURN(AuthOptions auth, LoadAuth(config, context.log));
  parts->signing_keys = InfraEnvSigningKeys::FromInventory(
      parts->backends->inventory(), parts->clock, {}, config.backend_timeout);
  auth.infra_env_signing_key = parts->signing_keys->Lookup();
  ASSIGN_OR_RETURN(parts->authenticator, Authenticator::Create(std::move(auth)));
  ASSIGN_OR_RETURN(parts->web_ui, WebUi::Start({.ui_dir = config.ui_dir,
                                                .handler_threads = config.http.handler_threads,
                                                .follow_changes = config.read_cache_entries == 0,
                                                .read_only_cluster_id = config.read_only_cluster,
                                                .oidc = config.oidc_sign_in},
                                               *parts->backends, *parts->authenticator,
                                               parts->clock, context.log.Child("web-ui")));
  if (config.read_cache_entries > 0) {
    parts->read_cache_metrics = std::make_unique<ReadCacheMetrics>(*context.metrics);
    parts->change_log_head =
        std::make_unique<ChangeLogHead>(InventoryChangeLogHead(parts->backends->inventory()));
    parts->read_cache = std::make_unique<ReadCache>(
        ReadCacheOptions{.max_entries = config.read_cache_entries,
                         .max_bytes = int64_t{config.read_cache_mib} << 20},
        *parts->read_cache_metrics, [head = parts->change_log_head.get()](absl::Time deadline) {
          return head->Current(deadline);
        });
    parts->watch = std::make_unique<inventory_client::WatchFollower>(
        parts->backends->inventory(),
        inventory_client::WatchFollower::Options{.kinds = WebUi::WatchedKinds(), .hints = true},
        // Browsers hear of a change only once the cache dropped what it changed, so the read
        // they make on hearing it is fresh.
        parts->web_ui->AfterCache(parts->read_cache->FollowerCallbacks(),
                                  ReadCache::WatchedKinds()),
        context.log.Child("read-cache"));
  }
  parts->api = std::make_unique<RestApi>(*parts->backends, *parts->authenticator, parts->clock,
                                         parts->read_cache.get());

  // HTTP first: once the gRPC health check answers SERVING, the REST port is listening too.
  http::Router router;
  RETURN_IF_ERROR(parts->api->Register(router));
  RETURN_IF_ERROR(parts->web_ui->Register(router));
  router.WrapHandlers([&parts, access_log = context.log.Child("access")](http::Handler handler) {
    return WithRequestContext(std::move(handler), access_log, parts->clock);
  });
  parts->http_metrics = std::make_unique<http::HttpMetrics>(*context.metrics);
  http::HttpServerOptions http_options = config.http;
  // What the HTTP server refuses by itself (413, 400, 503, 404...) is an Error document too.
  http_options.error_response = [](int status, absl::string_view reason) {
    return http::Response::Json(status, ErrorJson(status, std::string(reason)));
  };
  ASSIGN_OR_RETURN(std::unique_ptr<http::HttpServer> http,
                   http::HttpServer::Start(http_options, std::move(router),
                                           parts->http_metrics.get(), context.log.Child("http")));
  auto grpc = std::make_unique<service::GrpcServiceHost>();
  RETURN_IF_ERROR(grpc->Start(config.grpc, context));
  return std::make_unique<GatewayRunning>(std::move(parts), std::move(grpc), std::move(http));
}

}  // namespace assisted::gateway
