// File: lib/service/runner.h
//
// The shared life cycle of every long-running binary (the four services and the agent):
//   parse flags + environment -> (--help: print usage, exit 0 | bad setting: one line, exit 2)
//   -> logging -> metrics endpoint -> build the service (its composition root)
//   -> wait for SIGTERM/SIGINT -> drain within the grace period -> exit 0.
// A service's main.cc binds its own settings to a Parser and hands RunMain a factory; nothing
// else lives in main.cc.

#ifndef ASSISTED_LIB_SERVICE_RUNNER_H_
#define ASSISTED_LIB_SERVICE_RUNNER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/config/config.h"
#include "lib/log/log.h"
#include "lib/time/clock.h"
#include "prometheus/registry.h"

namespace assisted::service {

// The project's release version, reported by --version, build-info metrics and agents.
inline constexpr char kVersion[] = "0.1.0";

// Exit codes scripts can rely on.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;    // could not start, or failed while running
inline constexpr int kExitBadConfig = 2;  // a setting is missing or invalid

// Settings every long-running binary has. Defaults differ per binary (metrics port).
struct BaseOptions {
  std::string log_level = "info";
  std::string log_format = "text";
  // Prometheus endpoint "host:port"; empty disables it.
  std::string metrics_listen;
  // How long in-flight work may take to finish after SIGTERM.
  absl::Duration shutdown_grace = absl::Seconds(10);

  // Adds --log-level, --log-format, --metrics-listen, --shutdown-grace.
  void Register(config::Parser& parser);
};

// What a composition root receives. Everything here outlives the service it builds.
struct Context {
  std::string service_name;  // "inventory", "agent", …
  log::Logger log;
  std::shared_ptr<prometheus::Registry> metrics;
  const Clock& clock;
};

// A started service. Destroyed after Shutdown().
class RunningService {
 public:
  virtual ~RunningService() = default;
  // Stops taking new work and finishes in-flight work within `grace`.
  virtual void Shutdown(absl::Duration grace) = 0;
};

using Factory = std::function<absl::StatusOr<std::unique_ptr<RunningService>>(Context&)>;

// Parses the command line and environment of a main that is not a service (benches, tools):
// nullopt to go on, or the exit code to return at once: kExitOk after --help (usage) or
// --version, kExitBadConfig after "program: error" on stderr. RunMain parses the same way.
std::optional<int> ParseCommandLine(config::Parser& parser, int argc, char** argv);

// In optimised (NDEBUG) builds, turns off Abseil's lock-order (deadlock cycle) checking, which
// Debian's Abseil performs on every Mutex acquisition, gRPC's included: a few per cent of every
// process's CPU under load (seen in perf as absl graphcycles). Unoptimised builds, the tests,
// keep the check. RunMain calls it; other mains (benches) may.
void SkipLockOrderChecksWhenOptimised();

// Runs a binary's whole life; returns its exit code. `parser` already holds the binary's own
// settings; RunMain adds `base`'s (with their defaults as given) before parsing. `factory` is
// called once, after the settings were parsed and validated.
int RunMain(config::Parser& parser, BaseOptions base, int argc, char** argv,
            const Factory& factory);

// The whole main() of a binary whose settings are a `Config` with
// `void Register(config::Parser&)`, started by `start(config, context)`:
//
//   int main(int argc, char** argv) {
//     return RunService<inventory::Config>("assisted-inventory", "The system of record.",
//                                          {.metrics_listen = "0.0.0.0:9101"}, argc, argv,
//                                          inventory::Start);
//   }
template <typename Config>
int RunService(const char* program, const char* summary, BaseOptions base, int argc, char** argv,
               absl::StatusOr<std::unique_ptr<RunningService>> (*start)(const Config&, Context&)) {
  Config config;
  config::Parser parser(program, summary);
  config.Register(parser);
  return RunMain(parser, std::move(base), argc, argv,
                 [&config, start](Context& context) { return start(config, context); });
}

}  // namespace assisted::service

#endif  // ASSISTED_LIB_SERVICE_RUNNER_H_
