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
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "curl/curl.h"
#include "lib/config/config.h"
#include "lib/http/content.h"
#include "lib/http/ranges.h"
#include "lib/http/server.h"
#include "lib/log/log.h"

namespace {

namespace http = assisted::http;

struct Options {
  int64_t size = int64_t{1} << 30;
  std::vector<std::string> clients = {"1", "8", "64"};
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
  auto sink = std::make_shared<assisted::log::StreamSink>(stderr, assisted::log::Level::kWarning,
                                                          assisted::log::Format::kText);
  auto server = http::HttpServer::Start(options, std::move(router), nullptr,
                                        assisted::log::Logger(sink, "bench"));
  if (!server.ok()) _exit(1);
  const int port = (*server)->port();
  if (::write(report, &port, sizeof port) != sizeof port) _exit(1);
  char byte;
  while (::read(control, &byte, 1) > 0) {
  }
  (*server)->Shutdown(absl::Seconds(1));
  _exit(0);
}

// The baseline: accept, read a request head, write a minimal response head, sendfile the whole
// file with a blocking socket, repeat; one thread per connection.
void ServeBaselineConnection(int client, int file, uint64_t size) {
  std::string head = absl::StrCat("HTTP/1.1 200 OK\r\nContent-Length: ", size, "\r\n\r\n");
  char buffer[4096];
  std::string request;
  for (;;) {
    const ssize_t n = ::read(client, buffer, sizeof buffer);
    if (n <= 0) break;
    request.append(buffer, static_cast<size_t>(n));
    if (request.find("\r\n\r\n") == std::string::npos) continue;
    request.clear();
    if (::send(client, head.data(), head.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(head.size())) {
      break;
    }
    off_t offset = 0;
    while (static_cast<uint64_t>(offset) < size) {
      if (::sendfile(client, file, &offset, size - static_cast<uint64_t>(offset)) <= 0) break;
    }
    if (static_cast<uint64_t>(offset) < size) break;
  }
  ::close(client);
}

void RunBaseline(const std::string& path, int control, int report) {
  ::signal(SIGPIPE, SIG_IGN);  // a child of its own: the process disposition is ours to set
  const int file = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (file < 0 || ::fstat(file, &st) != 0) _exit(1);
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener, 1024) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    _exit(1);
  }
  const int port = ntohs(address.sin_port);
  if (::write(report, &port, sizeof port) != sizeof port) _exit(1);
  std::thread([listener, file, size = static_cast<uint64_t>(st.st_size)]() {
    for (;;) {
      const int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      std::thread(ServeBaselineConnection, client, file, size).detach();
    }
  }).detach();
  char byte;
  while (::read(control, &byte, 1) > 0) {
  }
  _exit(0);
}

struct Child {
  pid_t pid = -1;
  int control = -1;  // closing it stops the child
  int port = 0;
};

Child Spawn(void (*run)(const std::string&, int, int), const std::string& path) {
  int control[2], report[2];
  if (::pipe2(control, O_CLOEXEC) != 0 || ::pipe2(report, O_CLOEXEC) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(control[1]);
    ::close(report[0]);
    run(path, control[0], report[1]);
    _exit(0);
  }
  ::close(control[0]);
  ::close(report[1]);
  Child child{pid, control[1], 0};
  if (::read(report[0], &child.port, sizeof child.port) != sizeof child.port) child.port = 0;
  ::close(report[0]);
  return child;
}

void Stop(Child& child) {
  ::close(child.control);
  int status;
  ::waitpid(child.pid, &status, 0);
}

// utime + stime of `pid`, in seconds.
double CpuSeconds(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);
    if (i == 15) break;
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// A "VmXXX:" figure of `pid` in MiB.
double StatusMib(pid_t pid, const std::string& key) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      int64_t kib = 0;
      std::istringstream(line.substr(key.size())) >> kib;
      return static_cast<double>(kib) / 1024;
    }
  }
  return 0;
}

// --- the clients ---------------------------------------------------------------------------

size_t CountBytes(char*, size_t size, size_t count, void* user) {
  *static_cast<uint64_t*>(user) += size * count;
  return size * count;
}

struct Download {
  uint64_t bytes = 0;
  long status = 0;
  double ttfb_ms = 0;
  bool ok = false;
};

Download Fetch(const std::string& url) {
  Download download;
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, 512L * 1024);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, CountBytes);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &download.bytes);
  download.ok = curl_easy_perform(curl) == CURLE_OK;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &download.status);
  curl_off_t start_transfer_us = 0;
  curl_easy_getinfo(curl, CURLINFO_STARTTRANSFER_TIME_T, &start_transfer_us);
  download.ttfb_ms = static_cast<double>(start_transfer_us) / 1000;
  curl_easy_cleanup(curl);
  return download;
}

struct Level {
  int clients = 0;
  double gbps = 0;           // payload bytes per wall second, 1e9
  double gbps_per_core = 0;  // payload bytes per second of server CPU, 1e9
  double server_cpu_s = 0;
  double ttfb_ms_p50 = 0;
  double ttfb_ms_max = 0;
  int failures = 0;
};

Level RunLevel(const Child& server, const std::string& url, int clients, uint64_t size) {
  std::vector<Download> downloads(clients);
  std::vector<std::thread> threads;
  absl::Notification go;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i]() {
      go.WaitForNotification();
      downloads[i] = Fetch(url);
    });
  }
  const double cpu_before = CpuSeconds(server.pid);
  const absl::Time start = absl::Now();
  go.Notify();
  for (std::thread& thread : threads) thread.join();
  const double wall = absl::ToDoubleSeconds(absl::Now() - start);
  const double cpu = CpuSeconds(server.pid) - cpu_before;

  Level level;
  level.clients = clients;
  uint64_t bytes = 0;
  std::vector<double> ttfb;
  for (const Download& download : downloads) {
    bytes += download.bytes;
    ttfb.push_back(download.ttfb_ms);
    if (!download.ok || download.status != 200 || download.bytes != size) ++level.failures;
  }
  std::sort(ttfb.begin(), ttfb.end());
  level.gbps = static_cast<double>(bytes) / wall / 1e9;
  level.server_cpu_s = cpu;
  level.gbps_per_core = cpu > 0 ? static_cast<double>(bytes) / cpu / 1e9 : 0;
  level.ttfb_ms_p50 = ttfb[ttfb.size() / 2];
  level.ttfb_ms_max = ttfb.back();
  return level;
}

struct ServerRun {
  std::string name;
  std::vector<Level> levels;
  double rss_mib = 0;
};

ServerRun Measure(const std::string& name, void (*run)(const std::string&, int, int),
                  const std::string& path, const std::string& url_path,
                  const std::vector<int>& levels, uint64_t size) {
  ServerRun result{name, {}, 0};
  Child child = Spawn(run, path);
  if (child.port == 0) {
    std::cerr << "http_file: the " << name << " server did not start\n";
    return result;
  }
  const std::string url = absl::StrCat("http://127.0.0.1:", child.port, url_path);
  for (int clients : levels) {
    Level level = RunLevel(child, url, clients, size);
    std::cout << absl::StrFormat(
        "%-8s %3d clients: %6.2f GB/s, %6.2f GB/s per server core (%.2f s CPU), "
        "ttfb p50 %.2f ms max %.2f ms%s\n",
        name, clients, level.gbps, level.gbps_per_core, level.server_cpu_s, level.ttfb_ms_p50,
        level.ttfb_ms_max, level.failures > 0 ? absl::StrCat(", ", level.failures, " FAILED") : "");
    result.levels.push_back(level);
  }
  result.rss_mib = StatusMib(child.pid, "VmHWM:");
  std::cout << absl::StrFormat("%-8s peak RSS %.1f MiB\n", name, result.rss_mib);
  Stop(child);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  assisted::config::Parser parser("http_file",
                                  "Large-file download throughput of lib/http vs plain sendfile.");
  parser.Int64("size", &options.size, "file size in bytes").Range(1 << 20, int64_t{64} << 30);
  parser.List("clients", &options.clients, "concurrency levels, comma-separated");
  parser.String("file", &options.file, "file to serve (created if missing or of another size)");
  absl::StatusOr<assisted::config::Action> action =
      parser.Parse(argc, argv, assisted::config::ProcessEnvironment());
  if (!action.ok()) {
    std::cerr << "http_file: " << action.status().message() << "\n";
    return 2;
  }
  if (*action != assisted::config::Action::kRun) {
    std::cout << parser.Usage();
    return 0;
  }
  std::vector<int> levels;
  for (const std::string& text : options.clients) {
    int clients;
    if (!absl::SimpleAtoi(text, &clients) || clients < 1 || clients > 1024) {
      std::cerr << "http_file: --clients: \"" << text << "\" is not a count from 1 to 1024\n";
      return 2;
    }
    levels.push_back(clients);
  }
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
  const ServerRun lib =
      Measure("lib/http", RunLibHttp, options.file, "/discovery.iso", levels, size);
  const ServerRun base = Measure("sendfile", RunBaseline, options.file, "/", levels, size);

  std::string json = absl::StrCat("{\"bench\":\"http_file\",\"size\":", size);
  for (const ServerRun* run : {&lib, &base}) {
    const std::string prefix = run == &lib ? "lib" : "base";
    for (const Level& level : run->levels) {
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
