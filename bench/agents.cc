// bench/agents: N simulated agents against ONE real orchestrator (with the real inventory and a
// throwaway PostgreSQL), or against --replicas of each on the one database, each agent its own
// gRPC connection and stream. Measures what an operator of a large fleet cares about:
//   * register_s: from the first connection to every host registered;
//   * the orchestrator's RSS per connected agent (VmRSS with all connected, less before any);
//   * steady state over --steady once the fleet has settled (--settle after the last
//     registration: first inventories, checks and validations; 60 s is enough for 1,000 agents
//     on 2 cores, larger fleets need more): the services' CPU (as a share of one core) and the
//     database's committed transactions per second;
//   * push latency from a state change to the agent receiving its new instruction: --clusters
//     clusters of 5 hosts each are among the agents; for each in turn the bench changes the
//     cluster's additional NTP source in the inventory (as the gateway would) and times until
//     each of its hosts' agents receives the ntp-synchronizer step carrying it (the change
//     travels inventory Watch -> orchestrator refresh -> push). Twice: "quiet", each change
//     --push-gap after the last (the steady-state fleet with one change at a time: push_p50_ms,
//     push_p99_ms), then "back to back", each change as soon as the last one was received, so
//     it races the last one's five step results (push_back_to_back_*);
//   * reregister_s: kill -9 of the orchestrator, the same one started again on the same port,
//     until every agent registered anew (they back off 1 s x1.6 with jitter, at most 120 s).
// First, the floor of these figures (--floor, on by default): the same fleet against
// bench/bare_agent_server, which answers every Register and holds the streams with nothing
// behind them: floor_register_s (every agent connecting at once until all registered, the
// floor of both register_s and reregister_s) and floor_rss_mib (what that server holds), each
// figure then also as a ratio to its floor (rss_ratio, register_ratio, reregister_ratio). With
// --replicas the orchestrators' RSS together is set against the one bare server's.
// The remaining agents sit in unbound infra-envs of --per-infra-env hosts (late binding).
// With --replicas=N (2 or more) the agents of infra-env g dial orchestrator replica g mod N
// first (all replicas, as behind one Service: "ipv4:A,B"), and orchestrator replica i follows
// inventory replica i. Every cluster change is written through inventory replica 0, so a push to
// an agent on another replica crossed both replicas (push_other_replica_*: the agents of
// replicas 1..N-1). reregister_s is then the time from kill -9 of the last replica (not
// restarted) until each of its agents registered on a survivor.
//
//   ./dev bench agents [--agents=1000] [--clusters=40] [--steady=20s] [--replicas=2]
// Last line: {"bench":"agents","agents":N,"register_s":…,"orchestrator_rss_mib":…,
//   "rss_per_agent_kib":…,"steady_cpu_cores":…,"steady_db_commits_per_s":…,"push_p50_ms":…,
//   "push_p99_ms":…,"push_samples":…,"push_after_heard_p50_ms":…,"push_after_heard_p99_ms":…,
//   "push_back_to_back_p50_ms":…,"push_back_to_back_p99_ms":…,"reregister_s":…,"replicas":…,
//   "push_other_replica_p50_ms":…,"push_other_replica_p99_ms":…,"floor_register_s":…,
//   "floor_rss_mib":…,"floor_rss_per_agent_kib":…,"rss_ratio":…,"register_ratio":…,
//   "reregister_ratio":…,"cores":…}
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "bench/agent_groups.h"
#include "bench/download_harness.h"
#include "bench/percentile.h"
#include "bench/run_folder.h"
#include "bench/service_stack.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "lib/config/config.h"
#include "lib/log/log.h"
#include "lib/service/runner.h"
#include "lib/status/status_macros.h"
#include "services/agent/fleet.h"
#include "tests/harness/service_launcher.h"

namespace {

namespace inv = ::assisted::inventory::v1;
namespace types = ::assisted::types::v1;
using ::assisted::agent::Fleet;
using ::assisted::agent::FleetEvent;
using ::assisted::bench::PhaseCost;
using ::assisted::bench::ServiceStack;

constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"eDp5"}}})";
constexpr int kClusterHosts = 5;

struct Options {
  int agents = 1000;
  int clusters = 40;
  int per_infra_env = 100;
  int workers = 0;  // the orchestrator's --workers; 0: its default
  absl::Duration steady = absl::Seconds(20);
  absl::Duration settle = absl::Seconds(60);
  absl::Duration timeout = absl::Minutes(20);
  absl::Duration push_gap = absl::Milliseconds(250);
  int replicas = 1;
  bool floor = true;  // measure the floor first (MeasureFloor)
};

// What every agent has seen, filled by the fleets' observers (gRPC threads: short and locked).
class Observations {
 public:
  explicit Observations(int agents) : registered_at_(agents, absl::InfinitePast()) {}

  void OnEvent(int agent, const FleetEvent& event) {
    absl::MutexLock lock(&mu_);
    if (event.kind == FleetEvent::Kind::kRegistered) {
      if (registered_at_[agent] == absl::InfinitePast()) ++ever_registered_;
      registered_at_[agent] = event.at;
      if (event.at >= since_) ++registered_since_;
      return;
    }
    if (event.kind != FleetEvent::Kind::kInstruction || marker_.empty()) return;
    if (event.step.step_type() != types::STEP_TYPE_NTP_SYNCHRONIZER) return;
    for (const std::string& arg : event.step.args()) {
      if (absl::StrContains(arg, marker_) && !received_.count(agent)) received_[agent] = event.at;
    }
  }

  int ever_registered() const {
    absl::MutexLock lock(&mu_);
    return ever_registered_;
  }
  // Counts registrations from `since` on (a new count).
  void CountFrom(absl::Time since) {
    absl::MutexLock lock(&mu_);
    since_ = since;
    registered_since_ = 0;
  }
  int registered_since() const {
    absl::MutexLock lock(&mu_);
    return registered_since_;
  }
  bool WaitRegisteredSince(int wanted, absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return registered_since_ >= wanted; };
    return mu_.AwaitWithDeadline(absl::Condition(&enough), deadline);
  }
  bool WaitEverRegistered(int wanted, absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return ever_registered_ >= wanted; };
    return mu_.AwaitWithDeadline(absl::Condition(&enough), deadline);
  }
  absl::Time LastRegistration() const {
    absl::MutexLock lock(&mu_);
    return *std::max_element(registered_at_.begin(), registered_at_.end());
  }

  // Starts looking for instructions carrying `marker`.
  void Expect(std::string marker) {
    absl::MutexLock lock(&mu_);
    marker_ = std::move(marker);
    received_.clear();
  }
  // Waits until all `agents` received the marked instruction; their receive times.
  std::map<int, absl::Time> WaitReceived(const std::vector<int>& agents, absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    auto all = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (int agent : agents) {
        if (!received_.count(agent)) return false;
      }
      return true;
    };
    mu_.AwaitWithDeadline(absl::Condition(&all), deadline);
    return received_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<absl::Time> registered_at_ ABSL_GUARDED_BY(mu_);
  int ever_registered_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time since_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  int registered_since_ ABSL_GUARDED_BY(mu_) = 0;
  std::string marker_ ABSL_GUARDED_BY(mu_);
  std::map<int, absl::Time> received_ ABSL_GUARDED_BY(mu_);
};

// When each cluster change first reached a watcher of its own, which asks for hints as the
// orchestrator does: splits push latency into "until watchers hear of it" and "orchestrator
// refresh and push".
class ClusterChangesSeen {
 public:
  explicit ClusterChangesSeen(inv::InventoryService::Stub& stub)
      : thread_([this, &stub] {
          inv::WatchRequest request;
          request.mutable_filter()->add_kinds(inv::RESOURCE_KIND_CLUSTER);
          request.set_hints(true);
          std::unique_ptr<grpc::ClientReader<inv::WatchEvent>> reader =
              stub.Watch(&context_, request);
          inv::WatchEvent event;
          while (reader->Read(&event)) {
            absl::MutexLock lock(&mu_);
            // The first word of it: a hint, or the numbered event if that came first.
            if (event.change_type() == inv::CHANGE_TYPE_UPDATED) {
              seen_.emplace(event.id(), absl::Now());
            }
          }
          reader->Finish().ok();
        }) {}
  ~ClusterChangesSeen() {
    context_.TryCancel();
    thread_.join();
  }
  // Forgets what was seen of `cluster_id`.
  void Forget(const std::string& cluster_id) {
    absl::MutexLock lock(&mu_);
    seen_.erase(cluster_id);
  }
  // When an update of `cluster_id` arrived since Forget (InfiniteFuture if none did).
  absl::Time SeenAt(const std::string& cluster_id) const {
    absl::MutexLock lock(&mu_);
    auto it = seen_.find(cluster_id);
    return it == seen_.end() ? absl::InfiniteFuture() : it->second;
  }

 private:
  grpc::ClientContext context_;
  mutable absl::Mutex mu_;
  std::map<std::string, absl::Time> seen_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

using ::assisted::bench::Percentile;

// A cluster of kClusterHosts on 10.100.0.0/16 (the fleet profile's network).
types::Cluster ClusterSpec(int index) {
  types::Cluster spec;
  spec.set_name(absl::StrCat("bench-", index));
  spec.set_openshift_version("4.16");
  spec.set_base_dns_domain("example.com");
  spec.set_control_plane_count(3);
  spec.add_machine_networks()->set_cidr("10.100.0.0/16");
  spec.add_api_vips()->set_ip("10.100.255.5");
  spec.add_ingress_vips()->set_ip("10.100.255.6");
  return spec;
}

using Group = ::assisted::bench::AgentGroup;

struct PushFigures {
  double p50_ms = 0;
  double p99_ms = 0;
  int samples = 0;
  double after_heard_p50_ms = 0;
  double after_heard_p99_ms = 0;
  // Of the agents on orchestrator replicas other than 0 (--replicas).
  double other_replica_p50_ms = 0;
  double other_replica_p99_ms = 0;
};

// Changes the additional NTP source of each of the first `clusters` groups in turn, `gap` apart,
// and times until every agent of the cluster receives the ntp-synchronizer step carrying it.
PushFigures MeasurePushes(absl::string_view name, absl::Duration gap,
                          const std::vector<Group>& groups, int clusters,
                          inv::InventoryService::Stub& stub, Observations& seen,
                          ServiceStack& stack) {
  const PhaseCost push_cost(stack);
  std::vector<double> push_ms;
  std::vector<double> update_ms;         // of which the inventory's UpdateCluster (its commit)
  std::vector<double> heard_ms;          // from the change until a watcher hears of it
  std::vector<double> after_heard_ms;    // from then to each agent receiving its step
  std::vector<double> other_replica_ms;  // push_ms of the agents on replicas other than 0
  auto changes_seen = std::make_unique<ClusterChangesSeen>(stub);
  for (int c = 0; c < clusters; ++c) {
    if (c > 0) absl::SleepFor(gap);
    const Group& group = groups[c];
    const std::string marker =
        absl::StrCat("ntp-", c, "-", absl::ToUnixMicros(absl::Now()), ".example.com");
    seen.Expect(marker);
    changes_seen->Forget(group.cluster_id);
    inv::UpdateClusterRequest update;
    update.mutable_cluster()->set_id(group.cluster_id);
    update.mutable_cluster()->set_additional_ntp_source(marker);
    update.mutable_update_mask()->add_paths("additional_ntp_source");
    types::Cluster updated;
    grpc::ClientContext context;
    const absl::Time changed = absl::Now();
    const grpc::Status status = stub.UpdateCluster(&context, update, &updated);
    if (!status.ok()) {
      std::cerr << "agents: cannot update a cluster: " << status.error_message() << "\n";
      return {};
    }
    const double commit_ms = absl::ToDoubleMilliseconds(absl::Now() - changed);
    update_ms.push_back(commit_ms);
    std::vector<int> agents;
    for (int i = 0; i < group.count; ++i) agents.push_back(group.first + i);
    const std::map<int, absl::Time> received =
        seen.WaitReceived(agents, absl::Now() + absl::Seconds(30));
    const absl::Time heard = changes_seen->SeenAt(group.cluster_id);
    if (heard != absl::InfiniteFuture()) {
      heard_ms.push_back(absl::ToDoubleMilliseconds(heard - changed));
    }
    for (int agent : agents) {
      auto it = received.find(agent);
      if (it == received.end()) continue;
      push_ms.push_back(absl::ToDoubleMilliseconds(it->second - changed));
      if (group.replica != 0) other_replica_ms.push_back(push_ms.back());
      if (heard != absl::InfiniteFuture()) {
        after_heard_ms.push_back(absl::ToDoubleMilliseconds(it->second - heard));
      }
      if (push_ms.back() > 500) {
        std::cout << absl::StrFormat(
            "slow push: cluster #%d, agent %d: %.0f ms (the update took %.0f ms)\n", c, agent,
            push_ms.back(), commit_ms);
      }
    }
  }
  changes_seen.reset();
  std::vector<double> slowest = push_ms;
  std::sort(slowest.rbegin(), slowest.rend());
  slowest.resize(std::min<size_t>(slowest.size(), 5));
  std::cout << "pushes, " << name << ", slowest (ms):";
  for (double ms : slowest) std::cout << absl::StrFormat(" %.0f", ms);
  std::cout << "\n";
  const PushFigures figures{Percentile(push_ms, 0.5),          Percentile(push_ms, 0.99),
                            static_cast<int>(push_ms.size()),  Percentile(after_heard_ms, 0.5),
                            Percentile(after_heard_ms, 0.99),  Percentile(other_replica_ms, 0.5),
                            Percentile(other_replica_ms, 0.99)};
  std::cout << absl::StrFormat(
                   "push latency, %s (%s apart), over %d agents: p50 %.1f ms, p99 %.1f ms (%d of "
                   "%d received); the cluster update itself took p50 %.1f ms, p99 %.1f ms\n",
                   name, absl::FormatDuration(gap), clusters * kClusterHosts, figures.p50_ms,
                   figures.p99_ms, figures.samples, clusters * kClusterHosts,
                   Percentile(update_ms, 0.5), Percentile(update_ms, 0.99))
            << absl::StrFormat(
                   "  of which: until a watcher hears of the change p50 %.1f ms, p99 %.1f ms; "
                   "from there to the agent (orchestrator refresh and push) p50 %.1f ms, "
                   "p99 %.1f ms\n",
                   Percentile(heard_ms, 0.5), Percentile(heard_ms, 0.99),
                   figures.after_heard_p50_ms, figures.after_heard_p99_ms)
            << (other_replica_ms.empty()
                    ? ""
                    : absl::StrFormat("  agents on replicas other than 0 (%d): p50 %.1f ms, p99 "
                                      "%.1f ms\n",
                                      static_cast<int>(other_replica_ms.size()),
                                      figures.other_replica_p50_ms, figures.other_replica_p99_ms))
            << "  (" << push_cost.Describe(clusters, "cluster change") << ")\n"
            << std::flush;
  return figures;
}

// StartFleets reporting to `seen`.
absl::StatusOr<std::vector<std::unique_ptr<Fleet>>> StartFleets(
    const std::vector<Group>& groups, const std::function<std::string(const Group&)>& target,
    const std::string& dir, Observations& seen) {
  return assisted::bench::StartFleets(
      groups, target, dir,
      [&seen](int agent, const FleetEvent& event) { seen.OnEvent(agent, event); });
}

// Waits until `wanted` agents ever registered, printing progress every 30 s; false after
// `timeout`.
bool AwaitRegistrations(Observations& seen, int wanted, absl::Time start, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!seen.WaitEverRegistered(wanted, std::min(deadline, absl::Now() + absl::Seconds(30))) &&
         absl::Now() < deadline) {
    std::cout << absl::StrFormat("  %.0f s: %d of %d registered\n",
                                 absl::ToDoubleSeconds(absl::Now() - start), seen.ever_registered(),
                                 wanted)
              << std::flush;
  }
  return seen.ever_registered() >= wanted;
}

// What the agent streams cost with nothing behind them (bench/bare_agent_server).
struct Floor {
  double register_s = 0;  // the whole fleet connecting at once until every agent registered
  double rss_mib = 0;     // the server's VmRSS holding every stream
  double rss_per_agent_kib = 0;
};

// The same fleets as the measured run, against a bare_agent_server of its own; stopped after.
absl::StatusOr<Floor> MeasureFloor(const Options& options, const std::vector<Group>& groups,
                                   const std::string& dir) {
  std::cout << "floor: " << options.agents << " agents against bare_agent_server\n" << std::flush;
  ASSIGN_OR_RETURN(std::unique_ptr<assisted::testing::LaunchedService> server,
                   assisted::testing::LaunchedService::Launch(
                       {.binary = "bench/bare_agent_server", .args = {"--log-level=warning"}}));
  const double rss_before = assisted::bench::StatusMib(server->pid(), "VmRSS:");
  Observations seen(options.agents);
  const absl::Time start = absl::Now();
  ASSIGN_OR_RETURN(std::vector<std::unique_ptr<Fleet>> fleets,
                   StartFleets(
                       groups, [&](const Group&) { return server->grpc_target(); },
                       absl::StrCat(dir, "/floor"), seen));
  if (!AwaitRegistrations(seen, options.agents, start, options.timeout)) {
    return absl::DeadlineExceededError(absl::StrCat("floor: only ", seen.ever_registered(), " of ",
                                                    options.agents, " agents registered"));
  }
  Floor floor;
  floor.register_s = absl::ToDoubleSeconds(seen.LastRegistration() - start);
  floor.rss_mib = assisted::bench::StatusMib(server->pid(), "VmRSS:");
  floor.rss_per_agent_kib = (floor.rss_mib - rss_before) * 1024 / options.agents;
  for (auto& fleet : fleets) fleet->Stop();
  server->Stop();
  std::cout << absl::StrFormat(
                   "floor: all %d registered in %.1f s; the bare server holds them in %.1f MiB "
                   "(%.1f KiB per agent)\n",
                   options.agents, floor.register_s, floor.rss_mib, floor.rss_per_agent_kib)
            << std::flush;
  return floor;
}

int Fail(const std::string& what) {
  std::cerr << "agents: " << what << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  assisted::service::SkipLockOrderChecksWhenOptimised();  // the fleets run in this process
  Options options;
  assisted::config::Parser parser(
      "agents",
      "N simulated agents against one real orchestrator: memory, push latency, steady "
      "state, recovery after kill -9.");
  parser.Int("agents", &options.agents, "simulated agents, one connection each").Range(10, 60000);
  parser.Int("clusters", &options.clusters, "5-host clusters among them (push latency samples)")
      .Range(1, 2000);
  parser.Int("workers", &options.workers, "the orchestrator's --workers (0: its default)")
      .Range(0, 256);
  parser.Int("per-infra-env", &options.per_infra_env, "unbound hosts per infra-env")
      .Range(1, 10000);
  parser.Duration("steady", &options.steady, "how long steady state is measured")
      .Range(absl::Seconds(1), absl::Minutes(30));
  parser.Duration("settle", &options.settle, "pause after registration before steady state")
      .Range(absl::ZeroDuration(), absl::Minutes(30));
  parser
      .Duration("push-gap", &options.push_gap,
                "pause between cluster changes in the quiet push phase (lets the previous "
                "change's step results land)")
      .Range(absl::ZeroDuration(), absl::Minutes(1));
  parser.Duration("timeout", &options.timeout, "give up on any phase after this long")
      .Range(absl::Seconds(10), absl::Hours(4));
  parser.Bool("floor", &options.floor,
              "first measure the floor: the same fleet against bench/bare_agent_server");
  parser
      .Int("replicas", &options.replicas,
           "replicas of the inventory and of the orchestrator; the agents spread over them")
      .Range(1, 8);
  if (std::optional<int> exit_code = assisted::service::ParseCommandLine(parser, argc, argv)) {
    return *exit_code;
  }
  if (options.clusters * kClusterHosts > options.agents) {
    return Fail("--clusters x 5 must not exceed --agents");
  }
  assisted::bench::RaiseOpenFileLimit();
  absl::StatusOr<assisted::bench::RunFolder> folder =
      assisted::bench::RunFolder::Create("agents-bench");
  if (!folder.ok()) return Fail(std::string(folder.status().message()));
  const std::string& dir = folder->path();

  std::cout << "starting PostgreSQL, assisted-inventory and assisted-orchestrator ("
            << options.replicas << " of each)\n"
            << std::flush;
  std::vector<std::string> orchestrator_args =
      assisted::bench::OrchestratorArgsForAgents(options.agents);
  if (options.workers > 0) orchestrator_args.push_back(absl::StrCat("--workers=", options.workers));
  auto stack = assisted::bench::ServiceStack::Start(
      {.orchestrator_args = orchestrator_args, .replicas = options.replicas});
  if (!stack.ok()) return Fail(std::string(stack.status().message()));
  auto stub = inv::InventoryService::NewStub(
      grpc::CreateChannel((*stack)->inventory().grpc_target(), grpc::InsecureChannelCredentials()));
  const double rss_before = (*stack)->OrchestratorRssMib();

  // Infra-envs: one per cluster, then unbound ones for the rest.
  std::vector<Group> groups;
  int next = 0;
  for (int c = 0; c < options.clusters; ++c) {
    inv::CreateClusterRequest create;
    *create.mutable_cluster() = ClusterSpec(c);
    create.set_pull_secret(kPullSecret);
    types::Cluster cluster;
    grpc::ClientContext context;
    const grpc::Status created = stub->CreateCluster(&context, create, &cluster);
    if (!created.ok()) return Fail("cannot register a cluster: " + created.error_message());
    groups.push_back({"", cluster.id(), next, kClusterHosts, c % options.replicas});
    next += kClusterHosts;
  }
  for (Group& group :
       assisted::bench::UnboundGroups(next, options.agents - next, options.per_infra_env,
                                      options.replicas, static_cast<int>(groups.size()))) {
    groups.push_back(std::move(group));
  }
  if (absl::Status created = assisted::bench::CreateInfraEnvs(*stub, groups); !created.ok()) {
    return Fail(std::string(created.message()));
  }

  // The floor: the same fleets, registering with a server that does nothing else.
  std::optional<Floor> floor;
  if (options.floor) {
    absl::StatusOr<Floor> measured = MeasureFloor(options, groups, dir);
    if (!measured.ok()) return Fail(std::string(measured.status().message()));
    floor = *measured;
  }

  // The fleets: one per infra-env, every agent its own connection.
  Observations seen(options.agents);
  const absl::Time register_start = absl::Now();
  const PhaseCost registration_cost(**stack);
  absl::StatusOr<std::vector<std::unique_ptr<Fleet>>> started = StartFleets(
      groups, [&](const Group& group) { return (*stack)->orchestrators_target(group.replica); },
      dir, seen);
  if (!started.ok()) return Fail(std::string(started.status().message()));
  std::vector<std::unique_ptr<Fleet>> fleets = *std::move(started);
  std::cout << options.agents << " agents started in " << fleets.size() << " fleets\n"
            << std::flush;
  if (!AwaitRegistrations(seen, options.agents, register_start, options.timeout)) {
    return Fail(absl::StrCat("only ", seen.ever_registered(), " of ", options.agents,
                             " agents registered"));
  }
  const double register_s = absl::ToDoubleSeconds(seen.LastRegistration() - register_start);
  std::cout << absl::StrFormat("all %d registered in %.1f s (%s)\n", options.agents, register_s,
                               registration_cost.Describe(options.agents, "agent"))
            << std::flush;

  // Settle (first inventories, checks, validations), then measure steady state.
  absl::SleepFor(options.settle);
  const double rss_mib = (*stack)->OrchestratorRssMib();
  const double cpu_before = (*stack)->ServiceCpuSeconds();
  const PhaseCost steady_cost(**stack);
  const assisted::bench::DbWrites writes_before = (*stack)->DbWritesNow();
  absl::SleepFor(options.steady);
  std::cout << "steady state: " << steady_cost.Describe(options.agents, "agent") << "\n";
  const double steady_cpu =
      ((*stack)->ServiceCpuSeconds() - cpu_before) / absl::ToDoubleSeconds(options.steady);
  const assisted::bench::DbWrites writes_after = (*stack)->DbWritesNow();
  const double commits_per_s =
      (writes_after.commits - writes_before.commits) / absl::ToDoubleSeconds(options.steady);
  std::cout << absl::StrFormat(
                   "orchestrator RSS %.1f MiB (%.1f KiB per agent); steady state: %.2f cores, "
                   "%.1f database commits/s\n",
                   rss_mib, (rss_mib - rss_before) * 1024 / options.agents, steady_cpu,
                   commits_per_s)
            << std::flush;

  // Push latency, one cluster change at a time: first with each change alone on a quiet fleet,
  // then back to back (each change lands while the last one's step results are being applied).
  const PushFigures quiet =
      MeasurePushes("quiet", options.push_gap, groups, options.clusters, *stub, seen, **stack);
  const PushFigures busy = MeasurePushes("back to back", absl::ZeroDuration(), groups,
                                         options.clusters, *stub, seen, **stack);

  // kill -9: how long until every agent is registered again. One replica: it is started again
  // on its port. Several: the last one is gone for good, and its agents move to the others.
  const int moved = options.replicas - 1;
  int to_register = options.agents;
  if (options.replicas > 1) {
    to_register = 0;
    for (const Group& group : groups) {
      if (group.replica == moved) to_register += group.count;
    }
  }
  const PhaseCost reregistration_cost(**stack);
  const absl::Time killed = absl::Now();
  seen.CountFrom(killed);
  if (options.replicas > 1) {
    (*stack)->KillOrchestrator(moved);
  } else {
    absl::Status restarted = (*stack)->RestartOrchestratorHard();
    if (!restarted.ok()) return Fail(std::string(restarted.message()));
    std::cout << absl::StrFormat("after kill -9: the new orchestrator serves after %.1f s\n",
                                 absl::ToDoubleSeconds(absl::Now() - killed))
              << std::flush;
  }
  // Progress every 10 s: how the herd of reconnecting agents drains.
  const absl::Time back_deadline = absl::Now() + options.timeout;
  bool all_back = false;
  while (!all_back && absl::Now() < back_deadline) {
    all_back = seen.WaitRegisteredSince(to_register,
                                        std::min(back_deadline, absl::Now() + absl::Seconds(10)));
    if (!all_back) {
      std::cout << absl::StrFormat("  %.0f s after kill -9: %d of %d re-registered\n",
                                   absl::ToDoubleSeconds(absl::Now() - killed),
                                   seen.registered_since(), to_register)
                << std::flush;
    }
  }
  const double reregister_s = absl::ToDoubleSeconds(seen.LastRegistration() - killed);
  std::cout << absl::StrFormat("after kill -9: %s %d re-registered in %.1f s (%s)\n",
                               all_back ? "all" : "NOT all", to_register, reregister_s,
                               reregistration_cost.Describe(options.agents, "agent"))
            << std::flush;

  for (auto& fleet : fleets) fleet->Stop();
  // Each figure beside its floor: RSS against the bare server's, both registrations against
  // the whole fleet connecting to it at once.
  std::string floor_json = "\"floor_register_s\":null,\"floor_rss_mib\":null,";
  if (floor) {
    floor_json = absl::StrFormat(
        "\"floor_register_s\":%.1f,\"floor_rss_mib\":%.1f,\"floor_rss_per_agent_kib\":%.1f,"
        "\"rss_ratio\":%.2f,\"register_ratio\":%.2f,\"reregister_ratio\":%.2f,",
        floor->register_s, floor->rss_mib, floor->rss_per_agent_kib, rss_mib / floor->rss_mib,
        register_s / floor->register_s, reregister_s / floor->register_s);
    std::cout << absl::StrFormat(
        "against the floor: RSS %.2fx, registration %.2fx, re-registration %.2fx\n",
        rss_mib / floor->rss_mib, register_s / floor->register_s, reregister_s / floor->register_s);
  }
  std::cout << absl::StrFormat(
      "{\"bench\":\"agents\",\"agents\":%d,\"register_s\":%.1f,\"orchestrator_rss_mib\":%.1f,"
      "\"rss_per_agent_kib\":%.1f,\"steady_cpu_cores\":%.3f,\"steady_db_commits_per_s\":%.1f,"
      "\"push_p50_ms\":%.1f,\"push_p99_ms\":%.1f,\"push_samples\":%d,"
      "\"push_after_heard_p50_ms\":%.1f,\"push_after_heard_p99_ms\":%.1f,"
      "\"push_back_to_back_p50_ms\":%.1f,\"push_back_to_back_p99_ms\":%.1f,\"reregister_s\":%.1f,"
      "\"all_reregistered\":%s,\"replicas\":%d,\"reregistered\":%d,"
      "\"push_other_replica_p50_ms\":%.1f,\"push_other_replica_p99_ms\":%.1f,%s\"cores\":%d}\n",
      options.agents, register_s, rss_mib, (rss_mib - rss_before) * 1024 / options.agents,
      steady_cpu, commits_per_s, quiet.p50_ms, quiet.p99_ms, quiet.samples,
      quiet.after_heard_p50_ms, quiet.after_heard_p99_ms, busy.p50_ms, busy.p99_ms, reregister_s,
      all_back ? "true" : "false", options.replicas, to_register, quiet.other_replica_p50_ms,
      quiet.other_replica_p99_ms, floor_json, std::thread::hardware_concurrency());
  return all_back && quiet.samples > 0 && busy.samples > 0 ? 0 : 1;
}
