// bench/lost_hosts: how soon the orchestrator notices hosts that vanish without a word — a
// machine that hangs or loses power sends no FIN or RST, so only the HTTP/2 keepalive can tell.
// N simulated agents against the real orchestrator (with the real inventory and a throwaway
// PostgreSQL); --frozen-percent of them run in a separate assisted-agent-fleet process, which
// the bench stops with SIGSTOP once they all registered and --settle passed: their
// connections stay open and silent. Reported, from the SIGSTOP: when each frozen host's
// status turned disconnected (the inventory's commit time of that change), p50, p99 and max,
// with the settings that bound it: the orchestrator pings a connection idle for
// --keepalive-time and drops it when no answer comes within --keepalive-timeout; the host then
// becomes disconnected once --disconnection-timeout passed since it was last heard (short here,
// 1 s, so the figure is the noticing; the product default is 3 min, upstream's). Hosts of the
// live agents that turned disconnected from the SIGSTOP until --watch-after past the last frozen
// one are counted as false alarms. The SIGSTOP waits for --settle and then for the services to
// go quiet (--quiet-percent): with thousands of agents on a loaded machine the registrations'
// refreshes take minutes, and a host's turn to disconnected would wait behind them.
//
//   ./dev bench lost_hosts [--agents=1000] [--frozen-percent=1] [--keepalive-time=20s]
// Last line: {"bench":"lost_hosts","agents":N,"frozen":F,"noticed_p50_s":…,"noticed_p99_s":…,
//   "noticed_max_s":…,"all_noticed":true,"false_alarms":0,"keepalive_time_s":…,
//   "keepalive_timeout_s":…,"disconnection_timeout_s":…,"cores":2}
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "bench/agent_groups.h"
#include "bench/percentile.h"
#include "bench/run_folder.h"
#include "bench/service_stack.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "lib/config/config.h"
#include "lib/process/subprocess.h"
#include "lib/service/runner.h"
#include "services/agent/simulation/profile_paths.h"
#include "tests/harness/probes.h"

namespace {

namespace inv = ::assisted::inventory::v1;
namespace types = ::assisted::types::v1;

struct Options {
  int agents = 1000;
  int frozen_percent = 1;
  int per_infra_env = 100;
  // The product's defaults (GrpcServerOptions in lib/grpc/server.h; not linked here: its
  // reflection plugin would register the reflection protos a second time in this binary).
  absl::Duration keepalive_time = absl::Seconds(20);
  absl::Duration keepalive_timeout = absl::Seconds(10);
  absl::Duration disconnection_timeout = absl::Seconds(1);
  absl::Duration settle = absl::Seconds(10);
  // After the settle: until the services' CPU stays under this share of a core for 5 s (the
  // registration storm's refreshes are done), so the figure is the noticing, not a backlog.
  int quiet_percent = 20;
  // After the frozen hosts were noticed, live hosts are watched this much longer for false
  // alarms (several keepalive rounds).
  absl::Duration watch_after = absl::Seconds(60);
  absl::Duration timeout = absl::Minutes(10);
};

bool Disconnected(types::HostStatus status) {
  return status == types::HOST_STATUS_DISCONNECTED ||
         status == types::HOST_STATUS_DISCONNECTED_UNBOUND;
}

// Follows every host change through the inventory's Watch: which hosts exist (those of the
// frozen infra-env apart), and when each host last turned disconnected (commit time).
class HostWatch {
 public:
  HostWatch(inv::InventoryService::Stub& stub, std::string frozen_infra_env)
      : frozen_infra_env_(std::move(frozen_infra_env)), thread_([this, &stub] {
          inv::WatchRequest request;
          request.mutable_filter()->add_kinds(inv::RESOURCE_KIND_HOST);
          std::unique_ptr<grpc::ClientReader<inv::WatchEvent>> reader =
              stub.Watch(&context_, request);
          inv::WatchEvent event;
          while (reader->Read(&event)) Record(event);
          reader->Finish().ok();
        }) {}
  ~HostWatch() {
    context_.TryCancel();
    thread_.join();
  }

  // Waits until `hosts` hosts exist, `frozen` of them in the frozen infra-env.
  bool WaitRegistered(int hosts, int frozen, absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return static_cast<int>(hosts_.size()) >= hosts && static_cast<int>(frozen_.size()) >= frozen;
    };
    return mu_.AwaitWithDeadline(absl::Condition(&enough), deadline);
  }
  // Waits until every frozen host turned disconnected after `since`; when each did.
  std::map<std::string, absl::Time> WaitFrozenDisconnected(absl::Time since, absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    auto all = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const std::string& id : frozen_) {
        auto it = disconnected_at_.find(id);
        if (it == disconnected_at_.end() || it->second < since) return false;
      }
      return true;
    };
    mu_.AwaitWithDeadline(absl::Condition(&all), deadline);
    std::map<std::string, absl::Time> noticed;
    for (const std::string& id : frozen_) {
      auto it = disconnected_at_.find(id);
      if (it != disconnected_at_.end() && it->second >= since) noticed[id] = it->second;
    }
    return noticed;
  }
  // Hosts outside the frozen infra-env that turned disconnected after `since`.
  int OthersDisconnectedSince(absl::Time since) const {
    absl::MutexLock lock(&mu_);
    int count = 0;
    for (const auto& [id, at] : disconnected_at_) {
      if (at >= since && !frozen_.count(id)) ++count;
    }
    return count;
  }

 private:
  void Record(const inv::WatchEvent& event) {
    if (event.kind() != inv::RESOURCE_KIND_HOST) return;
    absl::MutexLock lock(&mu_);
    hosts_.insert(event.id());
    if (event.infra_env_id() == frozen_infra_env_) frozen_.insert(event.id());
    if (event.has_host_status() && Disconnected(event.host_status())) {
      disconnected_at_[event.id()] = absl::FromUnixSeconds(event.changed_at().seconds()) +
                                     absl::Nanoseconds(event.changed_at().nanos());
    }
  }

  const std::string frozen_infra_env_;
  grpc::ClientContext context_;
  mutable absl::Mutex mu_;
  std::set<std::string> hosts_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> frozen_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, absl::Time> disconnected_at_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;  // last: uses the members above
};

using ::assisted::bench::Percentile;

int Fail(const std::string& what) {
  std::cerr << "lost_hosts: " << what << "\n";
  return 1;
}

// CPU seconds so far of the orchestrator, the inventory and PostgreSQL together.
double ServicesCpuSeconds(assisted::bench::ServiceStack& stack) {
  std::map<std::string, double> parts = stack.CpuSecondsByPart();
  return parts["orchestrator"] + parts["inventory"] + parts["postgres"];
}

// Waits until the orchestrator, the inventory and PostgreSQL together used less than `cores` of
// a core over 5 s; false at `deadline`. All three: a backlog of refreshes waits on inventory
// calls, so the orchestrator alone looks idle while it drains.
bool AwaitQuiet(assisted::bench::ServiceStack& stack, double cores, absl::Time deadline) {
  constexpr absl::Duration kWindow = absl::Seconds(5);
  const absl::Time start = absl::Now();
  double before = ServicesCpuSeconds(stack);
  while (absl::Now() < deadline) {
    absl::SleepFor(kWindow);
    const double now = ServicesCpuSeconds(stack);
    const double used = (now - before) / absl::ToDoubleSeconds(kWindow);
    before = now;
    if (used < cores) {
      std::cout << absl::StrFormat("services quiet (%.2f cores) after %.0f s more\n", used,
                                   absl::ToDoubleSeconds(absl::Now() - start))
                << std::flush;
      return true;
    }
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  assisted::service::SkipLockOrderChecksWhenOptimised();  // the fleets run in this process
  Options options;
  assisted::config::Parser parser(
      "lost_hosts",
      "How soon the orchestrator notices silent hosts: a share of the agents is frozen with "
      "SIGSTOP (no FIN, no RST) and each host's turn to disconnected is timed.");
  parser.Int("agents", &options.agents, "simulated agents, one connection each").Range(10, 60000);
  parser.Int("frozen-percent", &options.frozen_percent, "share of the agents frozen (at least one)")
      .Range(1, 50);
  parser.Int("per-infra-env", &options.per_infra_env, "hosts per infra-env").Range(1, 10000);
  parser
      .Duration("keepalive-time", &options.keepalive_time,
                "the orchestrator's --grpc-keepalive-time")
      .Range(absl::Seconds(1), absl::Hours(2));
  parser
      .Duration("keepalive-timeout", &options.keepalive_timeout,
                "the orchestrator's --grpc-keepalive-timeout")
      .Range(absl::Seconds(1), absl::Minutes(5));
  parser
      .Duration("disconnection-timeout", &options.disconnection_timeout,
                "the orchestrator's --host-disconnection-timeout")
      .Range(absl::Seconds(1), absl::Hours(1));
  parser.Duration("settle", &options.settle, "pause after every agent registered, before SIGSTOP")
      .Range(absl::ZeroDuration(), absl::Minutes(30));
  parser
      .Int("quiet-percent", &options.quiet_percent,
           "before SIGSTOP, wait until the orchestrator, the inventory and PostgreSQL together "
           "use less than this percentage of a core for 5 s")
      .Range(1, 200);
  parser
      .Duration("watch-after", &options.watch_after,
                "after the frozen hosts were noticed, watch the live ones this long for false "
                "alarms")
      .Range(absl::ZeroDuration(), absl::Minutes(30));
  parser.Duration("timeout", &options.timeout, "give up on any phase after this long")
      .Range(absl::Seconds(10), absl::Hours(4));
  if (std::optional<int> exit_code = assisted::service::ParseCommandLine(parser, argc, argv)) {
    return *exit_code;
  }
  const int frozen = std::max(1, options.agents * options.frozen_percent / 100);
  const int live = options.agents - frozen;
  assisted::bench::RaiseOpenFileLimit();
  absl::StatusOr<assisted::bench::RunFolder> folder =
      assisted::bench::RunFolder::Create("lost-hosts-bench");
  if (!folder.ok()) return Fail(std::string(folder.status().message()));
  const std::string& dir = folder->path();

  std::cout << "starting PostgreSQL, assisted-inventory and assisted-orchestrator\n" << std::flush;
  std::vector<std::string> orchestrator_args =
      assisted::bench::OrchestratorArgsForAgents(options.agents);
  orchestrator_args.insert(
      orchestrator_args.end(),
      {absl::StrCat("--grpc-keepalive-time=", absl::FormatDuration(options.keepalive_time)),
       absl::StrCat("--grpc-keepalive-timeout=", absl::FormatDuration(options.keepalive_timeout)),
       absl::StrCat("--host-disconnection-timeout=",
                    absl::FormatDuration(options.disconnection_timeout))});
  auto stack = assisted::bench::ServiceStack::Start({.orchestrator_args = orchestrator_args});
  if (!stack.ok()) return Fail(std::string(stack.status().message()));
  auto stub = inv::InventoryService::NewStub(
      grpc::CreateChannel((*stack)->inventory().grpc_target(), grpc::InsecureChannelCredentials()));

  // The live agents' groups, then one group of the frozen ones (its own infra-env).
  std::vector<assisted::bench::AgentGroup> groups =
      assisted::bench::UnboundGroups(0, live, options.per_infra_env, 1);
  groups.push_back({"", "", live, frozen, 0});
  if (absl::Status created = assisted::bench::CreateInfraEnvs(*stub, groups, "lost");
      !created.ok()) {
    return Fail(std::string(created.message()));
  }
  const assisted::bench::AgentGroup frozen_group = groups.back();
  groups.pop_back();
  HostWatch watch(*stub, frozen_group.infra_env_id);

  auto fleets = assisted::bench::StartFleets(
      groups, [&](const assisted::bench::AgentGroup&) { return (*stack)->orchestrators_target(0); },
      dir, [](int, const assisted::agent::FleetEvent&) {});
  if (!fleets.ok()) return Fail(std::string(fleets.status().message()));
  auto frozen_fleet = assisted::process::Subprocess::Start(
      {assisted::testing::RunfilePath("services/agent/assisted-agent-fleet"),
       "--profile=" + assisted::agent::simulation::testing::ProfilePath("fleet"),
       absl::StrCat("--count=", frozen), absl::StrCat("--first-index=", live),
       "--orchestrator=" + (*stack)->orchestrators_target(0),
       "--infra-env=" + frozen_group.infra_env_id, "--state-dir=" + dir + "/frozen",
       "--seed=agents-bench", "--step-threads=1", "--log-level=warning"},
      {}, dir + "/frozen-fleet.log");
  if (!frozen_fleet.ok()) return Fail(std::string(frozen_fleet.status().message()));
  std::cout << live << " live agents in this process, " << frozen
            << " to be frozen in assisted-agent-fleet (pid " << (*frozen_fleet)->pid() << ")\n"
            << std::flush;
  const absl::Time deadline = absl::Now() + options.timeout;
  if (!watch.WaitRegistered(options.agents, frozen, deadline)) {
    return Fail(absl::StrCat("not all ", options.agents, " agents registered"));
  }
  std::cout << "all registered; settling for " << absl::FormatDuration(options.settle) << "\n"
            << std::flush;
  absl::SleepFor(options.settle);
  if (!AwaitQuiet(**stack, options.quiet_percent / 100.0, deadline)) {
    return Fail("the services did not go quiet after the registrations");
  }

  const absl::Time stopped = absl::Now();
  (*frozen_fleet)->Signal(SIGSTOP);
  std::cout << "SIGSTOP sent to " << frozen << " agents\n" << std::flush;
  const std::map<std::string, absl::Time> noticed =
      watch.WaitFrozenDisconnected(stopped, absl::Now() + options.timeout);
  std::vector<double> seconds;
  for (const auto& [id, at] : noticed) seconds.push_back(absl::ToDoubleSeconds(at - stopped));
  absl::SleepFor(options.watch_after);
  const int false_alarms = watch.OthersDisconnectedSince(stopped);
  (*frozen_fleet)->Signal(SIGCONT);
  (*frozen_fleet)->Stop(absl::Seconds(10));
  for (auto& fleet : *fleets) fleet->Stop();

  const bool all_noticed = static_cast<int>(noticed.size()) == frozen;
  std::cout << absl::StrFormat(
      "%d of %d frozen hosts turned disconnected: p50 %.1f s, p99 %.1f s, max %.1f s after "
      "SIGSTOP (keepalive %s + %s, disconnection timeout %s); %d live hosts falsely "
      "disconnected\n",
      noticed.size(), frozen, Percentile(seconds, 0.5), Percentile(seconds, 0.99),
      Percentile(seconds, 1.0), absl::FormatDuration(options.keepalive_time),
      absl::FormatDuration(options.keepalive_timeout),
      absl::FormatDuration(options.disconnection_timeout), false_alarms);
  std::cout << absl::StrFormat(
      "{\"bench\":\"lost_hosts\",\"agents\":%d,\"frozen\":%d,\"noticed_p50_s\":%.1f,"
      "\"noticed_p99_s\":%.1f,\"noticed_max_s\":%.1f,\"all_noticed\":%s,\"false_alarms\":%d,"
      "\"keepalive_time_s\":%.0f,\"keepalive_timeout_s\":%.0f,\"disconnection_timeout_s\":%.0f,"
      "\"cores\":%d}\n",
      options.agents, frozen, Percentile(seconds, 0.5), Percentile(seconds, 0.99),
      Percentile(seconds, 1.0), all_noticed ? "true" : "false", false_alarms,
      absl::ToDoubleSeconds(options.keepalive_time),
      absl::ToDoubleSeconds(options.keepalive_timeout),
      absl::ToDoubleSeconds(options.disconnection_timeout), std::thread::hardware_concurrency());
  return all_noticed && false_alarms == 0 ? 0 : 1;
}
