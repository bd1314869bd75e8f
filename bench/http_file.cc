// bench/http_file: serving a large file over lib/http the way the image service serves an ISO
// (the file with a 4 KiB in-memory overlay spliced in: sendfile for the file ranges, write for
// the overlay), to 1, 8 and 64 concurrent libcurl clients over loopback, next to a plain
// blocking sendfile server (thread per connection, the kernel does all the work) as the baseline.
// Each server runs in a child process so that its CPU time (utime+stime from /proc/PID/stat)
// and peak RSS (VmHWM from /proc/PID/status) are its own, not the clients'.
//
//   ./dev bench http_file [--size=1073741824] [--clients=1,8,64] [--file=/tmp/...]
// Last line: {"bench":"http_file","size":…,"lib_c1_gbps":…,"lib_c1_gbps_per_core":…,
//             "lib_c1_ttfb_ms":…,…,"lib_rss_mib":…,"base_c1_gbps":…,…,"cores":2}

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/download_harness.h"
#include "curl/curl.h"
#include "lib/config/config.h"
#include "lib/http/content.h"
#include "lib/http/ranges.h"
#include "lib/http/server.h"
#include "lib/log/log.h"

namespace {

namespace bench = assisted::bench;
namespace http = assisted::http;

struct Options {
  int64_t size = int64_t{1} << 30;
  std::string file;  // default: /tmp/assisted-http-bench-<size>.bin
};

constexpr uint64_t kOverlayAt = 32768;
constexpr uint64_t kOverlaySize = 4096;

// Makes `path` a `size`-byte file of zeros with real blocks (fallocate, else written), and
// reads it once so every run serves from the page cache.
bool PrepareFile(const std::string& path, uint64_t size) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || static_cast<uint64_t>(st.st_size) != size) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    if (::fallocate(fd, 0, 0, static_cast<off_t>(size)) != 0) {
      const std::string zeros(1 << 20, '\0');
      for (uint64_t done = 0; done < size;) {
        const ssize_t n = ::write(fd, zeros.data(), std::min<uint64_t>(zeros.size(), size - done));
        if (n <= 0) {
          ::close(fd);
          return false;
        }
        done += static_cast<uint64_t>(n);
      }
    }
    ::close(fd);
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::vector<char> buffer(4 << 20);
  while (::read(fd, buffer.data(), buffer.size()) > 0) {
  }
  ::close(fd);
  return true;
}

// --- the servers, each in a child process -------------------------------------------------

// Runs lib/http serving the file with an overlay; returns when `control` closes.
void RunLibHttp(const std::string& path, int control, int report) {
  auto file = http::SharedFile::Open(path);
  if (!file.ok()) _exit(1);
  http::Content content;
  content.body.Append(*http::Segment::File(*file, 0, kOverlayAt));
  content.body.Append(http::Segment::Memory(std::string(kOverlaySize, '\0')));
  content.body.Append(*http::Segment::File(*file, kOverlayAt + kOverlaySize,
                                           (*file)->size() - kOverlayAt - kOverlaySize));
  content.etag = http::FormatETag("bench");
  content.last_modified = (*file)->modified();
  content.content_type = "application/x-iso9660-image";
  http::Router router;
  if (!router
           .Handle("GET", "/discovery.iso",
                   [&content](const http::Request& request) {
                     return http::ServeContent(request, content);
                   })
           .ok()) {
    _exit(1);
  }
  http::HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  options.max_in_flight = 4096;
  options.max_connections_per_peer = 4096;  // every bench client comes from 127.0.0.1
  auto sink = std::make_shared<assisted::log::StreamSink>(stderr, assisted::log::Level::kWarning,
                                                          assisted::log::Format::kText);
  auto server = http::HttpServer::Start(options, std::move(router), nullptr,
                                        assisted::log::Logger(sink, "bench"));
  if (!server.ok()) _exit(1);
  assisted::bench::ReportPort(report, (*server)->port());
  assisted::bench::WaitForStop(control);
  (*server)->Shutdown(absl::Seconds(1));
  _exit(0);
}

// Runs `serve` in a child process and measures it at every level.
bench::ServerRun Measure(const std::string& name, void (*serve)(const std::string&, int, int),
                         const std::string& path, const std::string& url_path,
                         const std::vector<int>& levels, uint64_t size) {
  bench::Child child =
      bench::SpawnServer([&](int control, int report) { serve(path, control, report); });
  if (child.port == 0) {
    std::cerr << "http_file: the " << name << " server did not start\n";
    return {name, {}, 0};
  }
  bench::ServerRun run = bench::MeasureServer(
      name, child, absl::StrCat("http://127.0.0.1:", child.port, url_path), levels, size);
  bench::StopServer(child);
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  assisted::config::Parser parser("http_file",
                                  "Large-file download throughput of lib/http vs plain sendfile.");
  parser.Int64("size", &options.size, "file size in bytes").Range(1 << 20, int64_t{64} << 30);
  parser.String("file", &options.file, "file to serve (created if missing or of another size)");
  const bench::CommandLine line = bench::ParseCommandLine(parser, "http_file", argc, argv);
  if (!line.run) return line.exit_code;
  const uint64_t size = static_cast<uint64_t>(options.size);
  if (options.file.empty()) options.file = absl::StrCat("/tmp/assisted-http-bench-", size, ".bin");
  if (!PrepareFile(options.file, size)) {
    std::cerr << "http_file: cannot create " << options.file << ": " << std::strerror(errno)
              << "\n";
    return 1;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  std::cout << "serving " << options.file << " (" << size << " bytes) over loopback\n";

  // Forked before any thread of this process exists (curl starts none until a transfer).
  const bench::ServerRun lib =
      Measure("lib/http", RunLibHttp, options.file, "/discovery.iso", line.levels, size);
  const bench::ServerRun base =
      Measure("sendfile", bench::ServeWithSendfile, options.file, "/", line.levels, size);

  std::string json = absl::StrCat("{\"bench\":\"http_file\",\"size\":", size);
  for (const bench::ServerRun* run : {&lib, &base}) {
    const std::string prefix = run == &lib ? "lib" : "base";
    for (const bench::Level& level : run->levels) {
      absl::StrAppend(&json,
                      absl::StrFormat(",\"%s_c%d_gbps\":%.2f,\"%s_c%d_gbps_per_core\":%.2f,"
                                      "\"%s_c%d_ttfb_ms\":%.2f,\"%s_c%d_failures\":%d",
                                      prefix, level.clients, level.gbps, prefix, level.clients,
                                      level.gbps_per_core, prefix, level.clients, level.ttfb_ms_max,
                                      prefix, level.clients, level.failures));
    }
    absl::StrAppend(&json, absl::StrFormat(",\"%s_rss_mib\":%.1f", prefix, run->rss_mib));
  }
  absl::StrAppend(&json, ",\"cores\":", std::thread::hardware_concurrency(), "}");
  std::cout << json << "\n";
  curl_global_cleanup();
  return 0;
}
