// bench/image: the image service's real download path — the catalog's cached base ISO, the
// Publisher (token check, discovery Ignition, gzip'd cpio in the embed area, kargs) and the
// service's own HTTP routes on lib/http — serving a discovery ISO to 1, 8 and 64 concurrent
// libcurl clients over loopback, next to plain sendfile of the same cached file in the same run.
// The base is a CoreOS-like test ISO built by lib/iso's test-image builder (xorriso) around a
// sparse rootfs, --size bytes in all (1 GiB by default), kept in --dir between runs. Each server
// runs in a child process so its CPU time and peak RSS are its own.
//
// Goals (reference: perf-reliability): >= 80 % of the sendfile baseline at 64 clients, >= 1 GB
// per second of server CPU, RSS <= 256 MiB at 64 clients, first byte <= 50 ms.
//
//   ./dev bench image [--size=1073741824] [--clients=1,8,64] [--dir=/tmp/assisted-image-bench]
// Last line: {"bench":"image","size":…,"clients_64_gbps":…,"baseline_64_gbps":…,"ratio_64":…,
//             "gb_per_core_s":…,"rss_mib":…,"ttfb_p50_ms":…,"ttfb_p99_ms":…,…,"cores":2}

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "bench/download_harness.h"
#include "curl/curl.h"
#include "google/protobuf/util/time_util.h"
#include "lib/auth/token.h"
#include "lib/config/config.h"
#include "lib/http/server.h"
#include "lib/iso/test_image.h"
#include "lib/log/log.h"
#include "lib/process/subprocess.h"
#include "lib/time/clock.h"
#include "services/image/catalog.h"
#include "services/image/http_routes.h"
#include "services/image/publisher.h"

namespace {

namespace bench = assisted::bench;
namespace image = assisted::image;

constexpr char kInfraEnvId[] = "4f0d6d8e-5c47-4b8a-9a3e-0c1e6b7d2a10";
constexpr char kSigningKey[] = "bench-signing-key-0123456789abcdef0123456789";
constexpr uint64_t kIsoOverhead = 4 << 20;  // what the ISO adds around its rootfs, at most

struct Options {
  int64_t size = int64_t{1} << 30;
  std::string dir = "/tmp/assisted-image-bench";
};

assisted::log::Logger QuietLog() {
  auto sink = std::make_shared<assisted::log::StreamSink>(stderr, assisted::log::Level::kWarning,
                                                          assisted::log::Format::kText);
  return assisted::log::Logger(sink, "bench");
}

// An infra-env like a user's: SSH key, pull secret, NTP sources, a kernel argument.
class BenchInfraEnvs final : public image::InfraEnvSource {
 public:
  absl::StatusOr<image::InfraEnvRecord> Get(const std::string& id) override {
    if (id != kInfraEnvId) return absl::NotFoundError("no such infra-env");
    image::InfraEnvRecord record;
    record.infra_env.set_id(kInfraEnvId);
    record.infra_env.set_name("bench");
    record.signing_key = std::string(32, 'b');  // the infra-env's own, for its agent token
    record.infra_env.set_openshift_version("4.16");
    record.infra_env.set_ssh_authorized_key(
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl bench");
    record.infra_env.add_additional_ntp_sources("ntp.example.com");
    auto* karg = record.infra_env.add_kernel_arguments();
    karg->set_operation(assisted::types::v1::KERNEL_ARGUMENT_OPERATION_APPEND);
    karg->set_value("console=ttyS0,115200");
    *record.infra_env.mutable_created_at() =
        google::protobuf::util::TimeUtil::SecondsToTimestamp(1767225600);
    record.pull_secret = R"({"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}})";
    return record;
  }
};

std::vector<image::OsImage> BaseImages(const std::string& iso_path) {
  return {{"4.16", "x86_64", "file://" + iso_path, "416.94.bench", ""}};
}

// Builds the base ISO once (kept between runs) and returns the catalog's cached copy, read once
// so that both servers send it from the page cache.
absl::StatusOr<std::string> PrepareBase(const Options& options) {
  const std::string iso = absl::StrCat(options.dir, "/base-", options.size, ".iso");
  if (!std::filesystem::exists(iso)) {
    std::cout << "building a " << options.size << "-byte test ISO with xorriso\n" << std::flush;
    assisted::iso::TestImageOptions build;
    build.rootfs_bytes = static_cast<uint64_t>(options.size) - kIsoOverhead;
    assisted::process::LocalProcessRunner runner;
    const std::string partial = iso + ".partial";
    absl::Status built =
        assisted::iso::BuildTestImage(runner, build, options.dir + "/tree", partial);
    if (!built.ok()) return built;
    std::filesystem::rename(partial, iso);
    std::filesystem::remove_all(options.dir + "/tree");
  }
  image::CurlFetcher fetcher;
  assisted::process::LocalProcessRunner runner;
  image::Catalog catalog(absl::StrCat(options.dir, "/cache-", options.size), BaseImages(iso),
                         fetcher, runner, QuietLog());
  if (absl::Status prepared = catalog.Prepare(); !prepared.ok()) return prepared;
  absl::StatusOr<const image::CachedImage*> base = catalog.Find("4.16", "x86_64");
  if (!base.ok()) return base.status();
  std::vector<char> buffer(4 << 20);
  for (off_t at = 0; pread((*base)->fd, buffer.data(), buffer.size(), at) > 0;
       at += static_cast<off_t>(buffer.size())) {
  }
  return (*base)->path;
}

// The image service's download side, as server.cc wires it, minus gRPC and the inventory.
void ServeImages(const Options& options, int control, int report) {
  const std::string iso = absl::StrCat(options.dir, "/base-", options.size, ".iso");
  image::CurlFetcher fetcher;
  assisted::process::LocalProcessRunner runner;
  image::Catalog catalog(absl::StrCat(options.dir, "/cache-", options.size), BaseImages(iso),
                         fetcher, runner, QuietLog());
  if (!catalog.Prepare().ok()) _exit(1);
  BenchInfraEnvs infra_envs;
  image::PublisherOptions publishing;
  publishing.signing_key = kSigningKey;
  publishing.ignition.orchestrator_address = "192.0.2.10:9090";
  publishing.default_openshift_version = "4.16";
  image::Publisher publisher(publishing, catalog, infra_envs);
  assisted::RealClock clock;
  absl::StatusOr<assisted::http::Router> router = image::DownloadRoutes(publisher, catalog, clock);
  if (!router.ok()) _exit(1);
  assisted::http::HttpServerOptions http;
  http.listen = "127.0.0.1:0";
  http.max_connections_per_peer = 4096;  // every bench client comes from 127.0.0.1
  auto server = assisted::http::HttpServer::Start(http, *std::move(router), nullptr, QuietLog());
  if (!server.ok()) _exit(1);
  bench::ReportPort(report, (*server)->port());
  bench::WaitForStop(control);
  (*server)->Shutdown(absl::Seconds(1));
  _exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  assisted::config::Parser parser(
      "image", "Discovery ISO downloads through the image service's own path vs plain sendfile.");
  parser.Int64("size", &options.size, "base ISO size in bytes")
      .Range(int64_t{16} << 20, int64_t{16} << 30);
  parser.String("dir", &options.dir, "where the base ISO and the image cache are kept");
  const bench::CommandLine line = bench::ParseCommandLine(parser, "image", argc, argv);
  if (!line.run) return line.exit_code;
  std::filesystem::create_directories(options.dir);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  const absl::StatusOr<std::string> cached = PrepareBase(options);
  if (!cached.ok()) {
    std::cerr << "image: " << cached.status().message() << "\n";
    return 1;
  }
  const uint64_t size = std::filesystem::file_size(*cached);
  absl::StatusOr<std::string> token =
      assisted::auth::SignToken({.service = kSigningKey}, assisted::auth::TokenPurpose::kDownload,
                                kInfraEnvId, absl::Now() + absl::Hours(4));
  if (!token.ok()) return 1;
  std::cout << "serving " << *cached << " (" << size << " bytes) over loopback\n";

  // Both servers are forked while this process runs no other thread, and measured in turns at
  // each level, so that what else runs on the machine weighs on both alike.
  bench::Child service =
      bench::SpawnServer([&](int control, int report) { ServeImages(options, control, report); });
  bench::Child baseline = bench::SpawnServer(
      [&](int control, int report) { bench::ServeWithSendfile(*cached, control, report); });
  if (service.port == 0 || baseline.port == 0) {
    std::cerr << "image: a server did not start\n";
    return 1;
  }
  bench::ServerRun served{"image", {}, 0};
  bench::ServerRun base{"sendfile", {}, 0};
  for (int clients : line.levels) {
    for (auto [run, child, path] :
         {std::make_tuple(&served, &service, absl::StrCat("/images/", *token, "/discovery.iso")),
          std::make_tuple(&base, &baseline, std::string("/"))}) {
      run->levels.push_back(bench::RunLevel(
          *child, absl::StrCat("http://127.0.0.1:", child->port, path), clients, size));
      bench::PrintLevel(run->name, run->levels.back());
    }
  }
  served.rss_mib = bench::StatusMib(service.pid, "VmHWM:");
  base.rss_mib = bench::StatusMib(baseline.pid, "VmHWM:");
  std::cout << absl::StrFormat("peak RSS: image %.1f MiB, sendfile %.1f MiB\n", served.rss_mib,
                               base.rss_mib);
  // The baseline was forked holding a copy of the service's control pipe: it goes first.
  bench::StopServer(baseline);
  bench::StopServer(service);

  std::string json = absl::StrCat("{\"bench\":\"image\",\"size\":", size);
  int failures = 0;
  double ttfb_p50 = 0, ttfb_p99 = 0, baseline_ttfb_p99 = 0;
  for (size_t i = 0; i < served.levels.size() && i < base.levels.size(); ++i) {
    const bench::Level& mine = served.levels[i];
    const bench::Level& theirs = base.levels[i];
    absl::StrAppend(
        &json, absl::StrFormat(",\"clients_%d_gbps\":%.2f,\"baseline_%d_gbps\":%.2f,"
                               "\"ratio_%d\":%.2f,\"gb_per_core_s_%d\":%.2f,"
                               "\"baseline_gb_per_core_s_%d\":%.2f,"
                               "\"gb_per_total_core_s_%d\":%.2f,"
                               "\"baseline_gb_per_total_core_s_%d\":%.2f,\"ttfb_p99_ms_%d\":%.2f",
                               mine.clients, mine.gbps, mine.clients, theirs.gbps, mine.clients,
                               theirs.gbps > 0 ? mine.gbps / theirs.gbps : 0, mine.clients,
                               mine.gbps_per_core, mine.clients, theirs.gbps_per_core, mine.clients,
                               mine.gbps_per_total_core, mine.clients, theirs.gbps_per_total_core,
                               mine.clients, mine.ttfb_ms_p99));
    failures += mine.failures + theirs.failures;
    ttfb_p50 = std::max(ttfb_p50, mine.ttfb_ms_p50);
    ttfb_p99 = std::max(ttfb_p99, mine.ttfb_ms_p99);
    // What the same clients see from plain sendfile: the share of the first-byte time that is
    // the machine's (connection set-up and scheduling of 64 client threads on 2 cores).
    baseline_ttfb_p99 = std::max(baseline_ttfb_p99, theirs.ttfb_ms_p99);
  }
  // The headline figures are those of the highest level.
  if (!served.levels.empty() && !base.levels.empty()) {
    const bench::Level& top = served.levels.back();
    absl::StrAppend(
        &json,
        absl::StrFormat(",\"clients\":%d,\"gb_per_core_s\":%.2f,\"ratio\":%.2f", top.clients,
                        top.gbps_per_core,
                        base.levels.back().gbps > 0 ? top.gbps / base.levels.back().gbps : 0));
  }
  absl::StrAppend(
      &json, absl::StrFormat(",\"rss_mib\":%.1f,\"baseline_rss_mib\":%.1f,"
                             "\"ttfb_p50_ms\":%.2f,\"ttfb_p99_ms\":%.2f,"
                             "\"baseline_ttfb_p99_ms\":%.2f,"
                             "\"failures\":%d,\"cores\":%d}",
                             served.rss_mib, base.rss_mib, ttfb_p50, ttfb_p99, baseline_ttfb_p99,
                             failures, std::thread::hardware_concurrency()));
  std::cout << json << "\n";
  curl_global_cleanup();
  return failures == 0 ? 0 : 1;
}
