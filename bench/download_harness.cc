#include "bench/download_harness.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "curl/curl.h"
#include "lib/service/runner.h"

namespace assisted::bench {
namespace {

void ServeBaselineConnection(int client, int file, uint64_t size) {
  const std::string head = absl::StrCat("HTTP/1.1 200 OK\r\nContent-Length: ", size, "\r\n\r\n");
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

size_t CountBytes(char*, size_t size, size_t count, void* user) {
  *static_cast<uint64_t*>(user) += size * count;
  return size * count;
}

struct Fetched {
  uint64_t bytes = 0;
  long status = 0;
  double ttfb_ms = 0;
  bool ok = false;
};

Fetched Fetch(const std::string& url) {
  Fetched fetched;
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, 512L * 1024);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, CountBytes);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &fetched.bytes);
  fetched.ok = curl_easy_perform(curl) == CURLE_OK;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &fetched.status);
  curl_off_t start_transfer_us = 0;
  curl_easy_getinfo(curl, CURLINFO_STARTTRANSFER_TIME_T, &start_transfer_us);
  fetched.ttfb_ms = static_cast<double>(start_transfer_us) / 1000;
  curl_easy_cleanup(curl);
  return fetched;
}

// The `q` quantile (0..1) of sorted `values` (nearest rank).
double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t rank = static_cast<size_t>(q * static_cast<double>(sorted.size()) + 0.999999);
  return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

}  // namespace

Child SpawnServer(const std::function<void(int control, int report)>& serve) {
  int control[2], report[2];
  if (::pipe2(control, O_CLOEXEC) != 0 || ::pipe2(report, O_CLOEXEC) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(control[1]);
    ::close(report[0]);
    serve(control[0], report[1]);
    _exit(0);
  }
  ::close(control[0]);
  ::close(report[1]);
  Child child{pid, control[1], 0};
  if (::read(report[0], &child.port, sizeof child.port) != sizeof child.port) child.port = 0;
  ::close(report[0]);
  return child;
}

void ReportPort(int report, int port) {
  if (::write(report, &port, sizeof port) != sizeof port) _exit(1);
  ::close(report);
}

void WaitForStop(int control) {
  char byte;
  while (::read(control, &byte, 1) > 0) {
  }
}

void StopServer(Child& child) {
  ::close(child.control);
  int status;
  ::waitpid(child.pid, &status, 0);
}

void ServeWithSendfile(const std::string& path, int control, int report) {
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
  ReportPort(report, ntohs(address.sin_port));
  std::thread([listener, file, size = static_cast<uint64_t>(st.st_size)]() {
    for (;;) {
      const int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      std::thread(ServeBaselineConnection, client, file, size).detach();
    }
  }).detach();
  WaitForStop(control);
  _exit(0);
}

Level RunLevel(const Child& server, const std::string& url, int clients, uint64_t size) {
  std::vector<Fetched> fetched(clients);
  std::vector<std::thread> threads;
  absl::Notification go;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i]() {
      go.WaitForNotification();
      fetched[i] = Fetch(url);
    });
  }
  const double cpu_before = CpuSeconds(server.pid);
  const double clients_cpu_before = CpuSeconds(::getpid());
  const absl::Time start = absl::Now();
  go.Notify();
  for (std::thread& thread : threads) thread.join();
  const double wall = absl::ToDoubleSeconds(absl::Now() - start);
  const double cpu = CpuSeconds(server.pid) - cpu_before;
  const double total_cpu = cpu + CpuSeconds(::getpid()) - clients_cpu_before;

  Level level;
  level.clients = clients;
  uint64_t bytes = 0;
  std::vector<double> ttfb;
  for (const Fetched& one : fetched) {
    bytes += one.bytes;
    ttfb.push_back(one.ttfb_ms);
    if (!one.ok || one.status != 200 || one.bytes != size) ++level.failures;
  }
  std::sort(ttfb.begin(), ttfb.end());
  level.gbps = static_cast<double>(bytes) / wall / 1e9;
  level.server_cpu_s = cpu;
  level.gbps_per_core = cpu > 0 ? static_cast<double>(bytes) / cpu / 1e9 : 0;
  level.gbps_per_total_core = total_cpu > 0 ? static_cast<double>(bytes) / total_cpu / 1e9 : 0;
  level.ttfb_ms_p50 = Quantile(ttfb, 0.5);
  level.ttfb_ms_p99 = Quantile(ttfb, 0.99);
  level.ttfb_ms_max = ttfb.empty() ? 0 : ttfb.back();
  return level;
}

void PrintLevel(const std::string& name, const Level& level) {
  std::cout << absl::StrFormat(
                   "%-8s %3d clients: %6.2f GB/s, %6.2f GB/s per server core (%.2f s CPU), "
                   "%.2f GB/s per core of server and clients, ttfb p50 %.2f ms p99 %.2f ms%s\n",
                   name, level.clients, level.gbps, level.gbps_per_core, level.server_cpu_s,
                   level.gbps_per_total_core, level.ttfb_ms_p50, level.ttfb_ms_p99,
                   level.failures > 0 ? absl::StrCat(", ", level.failures, " FAILED") : "")
            << std::flush;
}

ServerRun MeasureServer(const std::string& name, const Child& server, const std::string& url,
                        const std::vector<int>& levels, uint64_t size) {
  ServerRun result{name, {}, 0};
  for (int clients : levels) {
    result.levels.push_back(RunLevel(server, url, clients, size));
    PrintLevel(name, result.levels.back());
  }
  result.rss_mib = StatusMib(server.pid, "VmHWM:");
  std::cout << absl::StrFormat("%-8s peak RSS %.1f MiB\n", name, result.rss_mib) << std::flush;
  return result;
}

CommandLine ParseCommandLine(config::Parser& parser, const std::string& name, int argc,
                             char** argv) {
  std::vector<std::string> clients = {"1", "8", "64"};
  parser.List("clients", &clients, "concurrency levels, comma-separated");
  CommandLine line;
  if (std::optional<int> exit_code = service::ParseCommandLine(parser, argc, argv)) {
    line.exit_code = *exit_code;
    return line;
  }
  for (const std::string& text : clients) {
    int count;
    if (!absl::SimpleAtoi(text, &count) || count < 1 || count > 1024) {
      std::cerr << name << ": --clients: \"" << text << "\" is not a count from 1 to 1024\n";
      line.exit_code = 2;
      return line;
    }
    line.levels.push_back(count);
  }
  line.run = true;
  return line;
}

}  // namespace assisted::bench
