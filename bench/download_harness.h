// File: bench/download_harness.h
//
// What the download benches (bench/http_file, bench/image) share: a server under test runs in a
// forked child so its CPU time (utime+stime from /proc/PID/stat) and peak RSS (VmHWM) are its
// own and not the clients'; libcurl clients download a URL concurrently and report throughput
// and time to first byte; and the baseline every download path is compared with, a plain
// blocking sendfile(2) server (thread per connection, the kernel does all the work).
//
//   Child server = SpawnServer([&](int control, int report) { ...; ReportPort(report, port);
//                                                              WaitForStop(control); });
//   ServerRun run = MeasureServer("mine", server, url, {1, 8, 64}, expected_size);
//   StopServer(server);

#ifndef ASSISTED_BENCH_DOWNLOAD_HARNESS_H_
#define ASSISTED_BENCH_DOWNLOAD_HARNESS_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/process_figures.h"
#include "lib/config/config.h"

namespace assisted::bench {

// A server running in a child process.
struct Child {
  pid_t pid = -1;
  int control = -1;  // closing it tells the child to stop
  int port = 0;      // 0: the child failed to start
};

// Forks; the child runs `serve(control, report)`, which must bind a port, ReportPort() it and
// then WaitForStop(). Call before this process starts any thread (fork copies only the caller).
Child SpawnServer(const std::function<void(int control, int report)>& serve);

// For the child: tells the parent the bound port / blocks until the parent stops it.
void ReportPort(int report, int port);
void WaitForStop(int control);

// Tells the child to stop and reaps it. Children forked later hold copies of the earlier ones'
// control pipes: stop them in the reverse order of spawning.
void StopServer(Child& child);

// The baseline server (for SpawnServer): answers every request on 127.0.0.1 with a minimal
// response head and the whole of `path` through blocking sendfile, one thread per connection.
void ServeWithSendfile(const std::string& path, int control, int report);

// The figures of one concurrency level.
struct Level {
  int clients = 0;
  double gbps = 0;           // payload bytes per wall second, 1e9
  double gbps_per_core = 0;  // payload bytes per second of server CPU, 1e9
  double server_cpu_s = 0;
  // Payload bytes per second of CPU of the server and the clients together, 1e9. On loopback
  // the kernel charges the protocol work of a transfer now to the sender, now to the receiver,
  // as scheduling falls; the two together are what a transfer costs.
  double gbps_per_total_core = 0;
  double ttfb_ms_p50 = 0;  // time to first byte over the clients
  double ttfb_ms_p99 = 0;
  double ttfb_ms_max = 0;
  int failures = 0;  // not 200, or not `size` bytes
};

// `clients` libcurl clients download `url` at once; each must get 200 and `size` bytes.
Level RunLevel(const Child& server, const std::string& url, int clients, uint64_t size);

// Prints one line with the figures of `level` for the server called `name`.
void PrintLevel(const std::string& name, const Level& level);

struct ServerRun {
  std::string name;
  std::vector<Level> levels;
  double rss_mib = 0;  // the server's peak RSS after all levels
};

// RunLevel for each of `levels` in turn, printing a line per level and the peak RSS.
ServerRun MeasureServer(const std::string& name, const Child& server, const std::string& url,
                        const std::vector<int>& levels, uint64_t size);

// The outcome of a bench's command line.
struct CommandLine {
  bool run = false;  // false: exit with exit_code (0 after --help, 2 after a bad flag)
  int exit_code = 0;
  std::vector<int> levels;  // --clients: the concurrency levels
};

// Adds --clients (default 1,8,64) to `parser`, which holds the bench's other flags, and parses
// argv and the environment. Problems go to stderr prefixed with `name`.
CommandLine ParseCommandLine(config::Parser& parser, const std::string& name, int argc,
                             char** argv);

}  // namespace assisted::bench

#endif  // ASSISTED_BENCH_DOWNLOAD_HARNESS_H_
