#include "services/image/server.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "assisted/image/v1/image_service.grpc.pb.h"
#include "lib/file/read_file.h"
#include "lib/grpc/channel.h"
#include "lib/http/metrics.h"
#include "lib/random/random.h"
#include "lib/service/grpc_host.h"
#include "lib/status/status_macros.h"
#include "lib/time/clock.h"
#include "services/image/catalog.h"
#include "services/image/http_routes.h"
#include "services/image/publisher.h"
#include "services/image/service.h"

namespace assisted::image {
namespace {

constexpr size_t kMinKeyBytes = 32;

// Everything the servers use, in dependency order (destroyed in reverse).
struct Parts {
  RealClock clock;
  CurlFetcher fetcher;
  process::LocalProcessRunner runner;  // xorriso, deriving the minimal ISOs
  std::unique_ptr<Catalog> catalog;
  std::unique_ptr<InventoryInfraEnvSource> infra_envs;
  std::unique_ptr<Publisher> publisher;
  std::unique_ptr<http::HttpMetrics> http_metrics;
};

// Both servers and the catalog preparation, stopped in the right order.
class ImageRunning final : public service::RunningService {
 public:
  ImageRunning(std::shared_ptr<Parts> parts, std::unique_ptr<service::GrpcServiceHost> grpc,
               std::unique_ptr<http::HttpServer> http, log::Logger log)
      : parts_(std::move(parts)), grpc_(std::move(grpc)), http_(std::move(http)), log_(log) {
    grpc_->SetServing(v1::ImageService::service_full_name(), false);
    preparing_ = std::thread([this] {
      if (absl::Status prepared = parts_->catalog->Prepare(); !prepared.ok()) {
        log_.Error("base images unusable; not ready", {{"error", prepared.message()}});
        return;
      }
      grpc_->SetServing(v1::ImageService::service_full_name(), true);
      log_.Info("base images ready");
    });
  }

  ~ImageRunning() override { Shutdown(absl::ZeroDuration()); }

  void Shutdown(absl::Duration grace) override {
    if (http_ != nullptr) http_->Shutdown(grace);
    grpc_->Shutdown(grace);
    if (preparing_.joinable()) preparing_.join();
  }

 private:
  std::shared_ptr<Parts> parts_;
  std::unique_ptr<service::GrpcServiceHost> grpc_;
  std::unique_ptr<http::HttpServer> http_;
  log::Logger log_;
  std::thread preparing_;
};

absl::StatusOr<std::string> SigningKey(const Config& config, const log::Logger& log) {
  if (config.url_signing_key_file.empty()) {
    log.Warning("no --url-signing-key-file: download links die with this process");
    return SecureRandomBytes(kMinKeyBytes);
  }
  ASSIGN_OR_RETURN(std::string key,
                   ReadFile(config.url_signing_key_file, "--url-signing-key-file"));
  if (key.size() < kMinKeyBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("--url-signing-key-file: needs at least ", kMinKeyBytes, " bytes"));
  }
  return key;
}

}  // namespace

void Config::Register(config::Parser& parser) {
  grpc.Register(parser);
  http.Register(parser, "http");
  grpcutil::AddPeerTarget(parser, "inventory-address", &inventory_address, "assisted-inventory");
  internal_tls.Register(parser);
  parser
      .String("os-images", &os_images,
              "JSON list of base images: [{openshift_version, cpu_architecture, url, version, "
              "sha256?}]")
      .Check([](const std::string& value) { return ParseOsImages(value).status(); });
  parser.String("image-cache-dir", &image_cache_dir, "where fetched base images are kept");
  parser.String("public-url", &public_url, "how clients reach the HTTP port (download URLs)");
  parser.String("url-signing-key-file", &url_signing_key_file,
                "file with the key signing download URLs and agent tokens (>= 32 bytes)");
  parser.Duration("url-ttl", &url_ttl, "how long a download URL stays valid")
      .Range(absl::Minutes(1), absl::Hours(24 * 30));
  parser
      .String("orchestrator-address", &orchestrator_address,
              "the orchestrator as hosts reach it, written into the discovery image")
      .Check(config::HostPort);
  parser.Bool("orchestrator-tls", &orchestrator_tls, "agents use TLS towards the orchestrator");
  parser.String("orchestrator-ca-file", &orchestrator_ca_file,
                "PEM bundle signing the orchestrator, written into the discovery image");
  parser.String("default-openshift-version", &default_openshift_version,
                "base image for infra-envs that name no OpenShift version");
}

absl::StatusOr<std::unique_ptr<service::RunningService>> Start(const Config& config,
                                                               service::Context& context) {
  auto parts = std::make_shared<Parts>();
  ASSIGN_OR_RETURN(std::vector<OsImage> images, ParseOsImages(config.os_images));
  parts->catalog =
      std::make_unique<Catalog>(config.image_cache_dir, std::move(images), parts->fetcher,
                                parts->runner, context.log.Child("catalog"));
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::Channel> inventory,
                   grpcutil::MakeChannel(config.inventory_address, config.internal_tls.Channel()));
  parts->infra_envs = std::make_unique<InventoryInfraEnvSource>(std::move(inventory));
  PublisherOptions publishing;
  publishing.public_url = config.public_url;
  ASSIGN_OR_RETURN(publishing.signing_key, SigningKey(config, context.log));
  publishing.url_ttl = config.url_ttl;
  publishing.default_openshift_version = config.default_openshift_version;
  publishing.ignition.orchestrator_address = config.orchestrator_address;
  publishing.ignition.tls = config.orchestrator_tls;
  publishing.ignition.agent_version = service::kVersion;
  if (!config.orchestrator_ca_file.empty()) {
    ASSIGN_OR_RETURN(publishing.ignition.ca_bundle_pem,
                     ReadFile(config.orchestrator_ca_file, "--orchestrator-ca-file"));
  }
  parts->publisher =
      std::make_unique<Publisher>(std::move(publishing), *parts->catalog, *parts->infra_envs);

  auto grpc = std::make_unique<service::GrpcServiceHost>();
  grpc->Add(std::make_unique<ImageServiceImpl>(*parts->publisher, *parts->catalog, parts->clock),
            v1::ImageService::service_full_name());
  RETURN_IF_ERROR(grpc->Start(config.grpc, context));

  ASSIGN_OR_RETURN(http::Router router,
                   DownloadRoutes(*parts->publisher, *parts->catalog, parts->clock));
  parts->http_metrics = std::make_unique<http::HttpMetrics>(*context.metrics);
  ASSIGN_OR_RETURN(std::unique_ptr<http::HttpServer> http,
                   http::HttpServer::Start(config.http, std::move(router),
                                           parts->http_metrics.get(), context.log.Child("http")));
  return std::make_unique<ImageRunning>(std::move(parts), std::move(grpc), std::move(http),
                                        context.log);
}

}  // namespace assisted::image
