#include "lib/service/runner.h"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "lib/metrics/metrics_server.h"

namespace assisted::service {
namespace {

// Blocks the stop signals in this thread and every thread it creates later, so that only
// sigwait() below sees them: no signal handler, no global flag.
sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // A peer closing a socket mid-write must be an error return, never a dead process.
  signal(SIGPIPE, SIG_IGN);
  return set;
}

std::string ServiceName(const std::string& program) {
  absl::string_view name = program;
  absl::ConsumePrefix(&name, "assisted-");
  return std::string(name);
}

}  // namespace

void BaseOptions::Register(config::Parser& parser) {
  parser.String("log-level", &log_level, "debug, info, warning or error")
      .Check([](const std::string& v) { return log::ParseLevel(v).status(); });
  parser.String("log-format", &log_format, "text or json (one object per line)")
      .Check([](const std::string& v) { return log::ParseFormat(v).status(); });
  parser
      .String("metrics-listen", &metrics_listen,
              "Prometheus /metrics listen address host:port, empty = off")
      .Check(config::OptionalHostPort);
  parser
      .Duration("shutdown-grace", &shutdown_grace,
                "time in-flight work gets to finish after SIGTERM")
      .Range(absl::ZeroDuration(), absl::Minutes(10));
}

std::optional<int> ParseCommandLine(config::Parser& parser, int argc, char** argv) {
  absl::StatusOr<config::Action> action = parser.Parse(argc, argv, config::ProcessEnvironment());
  if (!action.ok()) {
    std::fprintf(stderr, "%s: %s\n", parser.program().c_str(),
                 std::string(action.status().message()).c_str());
    return kExitBadConfig;
  }
  if (*action == config::Action::kHelp) {
    std::cout << parser.Usage();
    return kExitOk;
  }
  if (*action == config::Action::kVersion) {
    std::cout << parser.program() << " " << kVersion << "\n";
    return kExitOk;
  }
  return std::nullopt;
}

void SkipLockOrderChecksWhenOptimised() {
#ifdef NDEBUG
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
#endif
}

int RunMain(config::Parser& parser, BaseOptions base, int argc, char** argv,
            const Factory& factory) {
  SkipLockOrderChecksWhenOptimised();
  base.Register(parser);
  if (std::optional<int> exit_code = ParseCommandLine(parser, argc, argv)) return *exit_code;

  const sigset_t stop_signals = BlockStopSignals();
  const std::string name = ServiceName(parser.program());
  auto sink = std::make_shared<log::StreamSink>(stderr, *log::ParseLevel(base.log_level),
                                                *log::ParseFormat(base.log_format));
  log::Logger root(sink, name);
  RealClock clock;
  auto registry = std::make_shared<prometheus::Registry>();
  metrics::ExportBuildInfo(*registry, name, kVersion,
                           absl::ToDoubleSeconds(clock.Now() - absl::UnixEpoch()));

  std::unique_ptr<metrics::MetricsServer> metrics_server;
  if (!base.metrics_listen.empty()) {
    absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> started =
        metrics::MetricsServer::Start(base.metrics_listen, registry);
    if (!started.ok()) {
      root.Error("cannot start", {{"error", started.status().message()}});
      return kExitFailure;
    }
    metrics_server = *std::move(started);
    root.Info("serving metrics",
              {{"listen", base.metrics_listen}, {"port", metrics_server->port()}});
  }

  Context context{name, root, registry, clock};
  absl::StatusOr<std::unique_ptr<RunningService>> service = factory(context);
  if (!service.ok()) {
    root.Error("cannot start", {{"error", service.status().message()}});
    return kExitFailure;
  }
  root.Info("started", {{"version", kVersion}});

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  root.Info("stopping", {{"signal", strsignal(signal_number)},
                         {"grace", absl::FormatDuration(base.shutdown_grace)}});
  (*service)->Shutdown(base.shutdown_grace);
  service->reset();
  metrics_server.reset();
  root.Info("stopped");
  return kExitOk;
}

}  // namespace assisted::service
