// bench/grpc_health: unary RPC throughput and latency through the project's gRPC server
// bootstrap (health service, reflection, keepalive, per-method metrics interceptor) over
// loopback TCP. The baseline every later service's unary RPCs can be compared with.
//
//   ./dev bench grpc_health [--clients=8] [--duration=5s]
// Last line: {"bench":"grpc_health","clients":8,"rpcs":…,"qps":…,"p50_us":…,"p99_us":…,"cores":2}

#include <algorithm>
#include <iostream>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "lib/config/config.h"
#include "lib/grpc/channel.h"
#include "lib/grpc/server.h"
#include "lib/service/runner.h"
#include "prometheus/registry.h"

namespace {

struct Options {
  int clients = 8;
  absl::Duration duration = absl::Seconds(5);
};

// Runs Health/Check back to back on its own connection until `end`; returns latencies in µs.
std::vector<double> RunClient(const std::string& target, absl::Time end) {
  auto channel = assisted::grpcutil::MakeChannel(target, {.dedicated_connection = true});
  auto stub = grpc::health::v1::Health::NewStub(*channel);
  std::vector<double> latencies;
  grpc::health::v1::HealthCheckRequest request;
  grpc::health::v1::HealthCheckResponse response;
  while (absl::Now() < end) {
    grpc::ClientContext context;
    const absl::Time start = absl::Now();
    if (!stub->Check(&context, request, &response).ok()) continue;
    latencies.push_back(absl::ToDoubleMicroseconds(absl::Now() - start));
  }
  return latencies;
}

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * sorted.size()))];
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  assisted::config::Parser parser("grpc_health", "Unary gRPC health-check load over loopback.");
  parser.Int("clients", &options.clients, "concurrent clients, one connection each").Range(1, 1024);
  parser.Duration("duration", &options.duration, "how long to send")
      .Range(absl::Milliseconds(100), absl::Minutes(10));
  if (std::optional<int> exit_code = assisted::service::ParseCommandLine(parser, argc, argv)) {
    return *exit_code;
  }

  prometheus::Registry registry;
  auto server = assisted::grpcutil::GrpcServer::Start({.listen = "127.0.0.1:0"}, {}, registry,
                                                      assisted::log::Logger::Discard());
  if (!server.ok()) {
    std::cerr << "grpc_health: " << server.status() << "\n";
    return 1;
  }
  const std::string target = absl::StrFormat("127.0.0.1:%d", (*server)->port());
  std::cout << "sending Health/Check from " << options.clients << " clients for "
            << absl::FormatDuration(options.duration) << " to " << target << "\n";

  const absl::Time end = absl::Now() + options.duration;
  std::vector<std::vector<double>> per_client(options.clients);
  std::vector<std::thread> threads;
  for (int i = 0; i < options.clients; ++i) {
    threads.emplace_back([&, i] { per_client[i] = RunClient(target, end); });
  }
  for (std::thread& thread : threads) thread.join();
  (*server)->Shutdown(absl::Seconds(1));

  std::vector<double> all;
  for (const auto& latencies : per_client)
    all.insert(all.end(), latencies.begin(), latencies.end());
  std::sort(all.begin(), all.end());
  const double qps = all.size() / absl::ToDoubleSeconds(options.duration);
  std::cout << absl::StrFormat("%d RPCs, %.0f per second, p50 %.0f us, p99 %.0f us\n", all.size(),
                               qps, Percentile(all, 0.5), Percentile(all, 0.99));
  std::cout << absl::StrFormat(
      "{\"bench\":\"grpc_health\",\"clients\":%d,\"rpcs\":%d,\"qps\":%.0f,\"p50_us\":%.0f,"
      "\"p99_us\":%.0f,\"cores\":%d}\n",
      options.clients, all.size(), qps, Percentile(all, 0.5), Percentile(all, 0.99),
      std::thread::hardware_concurrency());
  return 0;
}
