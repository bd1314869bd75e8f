// bench/fleet: how many simulated agents one process holds, what each costs, and how fast a
// push reaches all of them.
//
// A child process (this binary with --serve) runs a minimal AgentService on the callback API
// that accepts every registration and, on SIGUSR1, pushes one instruction carrying its send
// time to every stream. The parent starts a Fleet (services/agent/fleet.h) of --agents simulated
// hosts, each with its own connection, and measures: time until all are registered, the
// parent's resident memory per agent, and the push latency (server send -> agent receive).
//
// Last line: {"bench":"fleet","agents":N,"register_s":…,"rss_per_agent_kb":…,
//             "push_p50_ms":…,"push_p99_ms":…,"push_all_ms":…,"threads":…,"cores":…}
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <iostream>
#include <list>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "bench/percentile.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "lib/config/config.h"
#include "lib/log/log.h"
#include "lib/service/runner.h"
#include "services/agent/fleet.h"

namespace {

namespace v1 = ::assisted::agent::v1;

// One agent stream on the fake server: answers Register, pushes on request, acks results.
class Stream final : public grpc::ServerBidiReactor<v1::AgentMessage, v1::ServiceMessage> {
 public:
  explicit Stream(std::function<void(Stream*)> done) : done_(std::move(done)) { StartRead(&in_); }

  void Push(const v1::ServiceMessage& message) {
    {
      absl::MutexLock lock(&mu_);
      if (closed_) return;
      queue_.push_back(message);
      if (writing_) return;
      writing_ = true;
      out_ = queue_.front();
      queue_.pop_front();
    }
    StartWrite(&out_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      bool finish = false;
      {
        absl::MutexLock lock(&mu_);
        closed_ = true;
        finish = !writing_;
      }
      if (finish) Finish(grpc::Status::OK);
      return;
    }
    if (in_.has_register_()) {
      v1::ServiceMessage registered;
      registered.mutable_registered()->set_accepted(true);
      registered.mutable_registered()->set_host_id(in_.register_().host_id());
      Push(registered);
    } else if (in_.seq() > 0) {
      v1::ServiceMessage ack;
      ack.mutable_ack()->set_up_to_seq(in_.seq());
      Push(ack);
    }
    StartRead(&in_);
  }

  void OnWriteDone(bool ok) override {
    bool next = false;
    bool finish = false;
    {
      absl::MutexLock lock(&mu_);
      if (ok && !queue_.empty() && !closed_) {
        out_ = queue_.front();
        queue_.pop_front();
        next = true;
      } else {
        writing_ = false;
        finish = closed_ || !ok;
        if (finish) closed_ = true;
      }
    }
    if (next) StartWrite(&out_);
    if (finish) Finish(grpc::Status::OK);
  }

  void OnDone() override {
    done_(this);
    delete this;
  }

 private:
  std::function<void(Stream*)> done_;
  v1::AgentMessage in_;
  absl::Mutex mu_;
  std::deque<v1::ServiceMessage> queue_ ABSL_GUARDED_BY(mu_);
  v1::ServiceMessage out_;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

class FakeAgentService final : public v1::AgentService::CallbackService {
 public:
  grpc::ServerBidiReactor<v1::AgentMessage, v1::ServiceMessage>* Connect(
      grpc::CallbackServerContext*) override {
    auto* stream = new Stream([this](Stream* s) {
      absl::MutexLock lock(&mu_);
      streams_.remove(s);
    });
    absl::MutexLock lock(&mu_);
    streams_.push_back(stream);
    return stream;
  }

  // Pushes one instruction with the send time (unix µs) in args[0] to every stream.
  void PushAll() {
    // Under the lock, so no stream is deleted meanwhile; Push never runs a reaction inline here
    // (the bench never pushes to a finished stream).
    absl::MutexLock lock(&mu_);
    for (Stream* stream : streams_) {
      v1::ServiceMessage message;
      auto& step = *message.mutable_instruction()->mutable_step();
      step.set_step_id("dhcp-lease-allocate-00000001");
      step.set_step_type(assisted::types::v1::STEP_TYPE_DHCP_LEASE_ALLOCATE);
      step.add_args(absl::StrCat(absl::ToUnixMicros(absl::Now())));
      stream->Push(message);
    }
  }

 private:
  absl::Mutex mu_;
  std::list<Stream*> streams_ ABSL_GUARDED_BY(mu_);
};

void RaiseFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// The child: serve until killed; SIGUSR1 pushes.
int Serve(const std::string& port_file) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  FakeAgentService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 5000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) return 1;
  std::ofstream(port_file + ".tmp") << port << "\n";
  std::rename((port_file + ".tmp").c_str(), port_file.c_str());
  for (;;) {
    int signal = 0;
    sigwait(&set, &signal);
    service.PushAll();
  }
}

// A number field of /proc/self/status ("VmRSS" in KB, "Threads").
int64_t StatusField(absl::string_view name) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view text = line;
    if (!absl::ConsumePrefix(&text, name) || !absl::ConsumePrefix(&text, ":")) continue;
    absl::ConsumeSuffix(&text, "kB");
    int64_t value = 0;
    if (absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &value)) return value;
  }
  return 0;
}

using ::assisted::bench::Percentile;

}  // namespace

int main(int argc, char** argv) {
  int agents = 1000;
  std::string profile = "tests/fixtures/profiles/fleet.json";
  std::string serve;
  absl::Duration timeout = absl::Minutes(5);
  assisted::config::Parser parser("fleet",
                                  "Simulated agents in one process: memory, registration, push.");
  parser.Int("agents", &agents, "simulated agents, one connection each").Range(1, 60000);
  parser.String("profile", &profile, "simulation profile (a /16 subnet for large fleets)");
  parser.String("serve", &serve, "internal: run the fake server, write its port to this file");
  parser.Duration("timeout", &timeout, "give up waiting after this long");
  if (std::optional<int> exit_code = assisted::service::ParseCommandLine(parser, argc, argv)) {
    return *exit_code;
  }
  RaiseFileLimit();
  if (!serve.empty()) return Serve(serve);

  // The server runs in a child so the parent's memory is the agents' alone.
  const std::string port_file = absl::StrCat("/tmp/bench-fleet-", getpid(), ".port");
  const pid_t child = fork();
  if (child == 0) {
    execl("/proc/self/exe", argv[0], ("--serve=" + port_file).c_str(), nullptr);
    _exit(127);
  }
  int port = 0;
  for (const absl::Time give_up = absl::Now() + absl::Seconds(20); absl::Now() < give_up;) {
    std::ifstream in(port_file);
    if (in >> port && port > 0) break;
    absl::SleepFor(absl::Milliseconds(20));  // waiting for a child process's file, not a test
  }
  std::remove(port_file.c_str());
  if (port <= 0) {
    std::cerr << "fleet: the fake server did not start\n";
    kill(child, SIGKILL);
    return 1;
  }

  absl::Mutex mu;
  int registered = 0;
  int pushed = 0;
  std::vector<double> push_ms;
  absl::Time last_push = absl::InfinitePast();
  auto observe = [&](const assisted::agent::FleetEvent& e) {
    absl::MutexLock lock(&mu);
    if (e.kind == assisted::agent::FleetEvent::Kind::kRegistered) ++registered;
    if (e.kind == assisted::agent::FleetEvent::Kind::kInstruction && e.step.args_size() == 1) {
      int64_t sent_us = 0;
      if (absl::SimpleAtoi(e.step.args(0), &sent_us)) {
        push_ms.push_back(absl::ToDoubleMilliseconds(e.at - absl::FromUnixMicros(sent_us)));
        last_push = std::max(last_push, e.at);
      }
      ++pushed;
    }
  };

  const int64_t rss_before = StatusField("VmRSS");
  assisted::agent::Fleet::Options options;
  options.profile = profile;
  options.count = agents;
  options.orchestrator_address = absl::StrCat("127.0.0.1:", port);
  options.infra_env_id = "0a1b2c3d-4e5f-4789-8bcd-ef0123456789";
  options.state_dir = absl::StrCat("/tmp/bench-fleet-", getpid());
  options.seed = "bench";
  const absl::Time start = absl::Now();
  auto fleet = assisted::agent::Fleet::Start(options, observe, assisted::log::Logger::Discard());
  if (!fleet.ok()) {
    std::cerr << "fleet: " << fleet.status() << "\n";
    kill(child, SIGKILL);
    return 1;
  }
  double register_s = 0;
  {
    absl::MutexLock lock(&mu);
    auto all = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return registered >= agents; };
    mu.AwaitWithTimeout(absl::Condition(&all), timeout);
    register_s = absl::ToDoubleSeconds(absl::Now() - start);
  }
  const int64_t rss_registered = StatusField("VmRSS");
  const absl::Time push_start = absl::Now();
  kill(child, SIGUSR1);
  {
    absl::MutexLock lock(&mu);
    auto all = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return pushed >= agents; };
    mu.AwaitWithTimeout(absl::Condition(&all), timeout);
  }
  const int threads = static_cast<int>(StatusField("Threads"));
  double p50 = 0;
  double p99 = 0;
  double all_ms = 0;
  int got = 0;
  int reg = 0;
  {
    absl::MutexLock lock(&mu);
    p50 = Percentile(push_ms, 0.5);
    p99 = Percentile(push_ms, 0.99);
    all_ms = absl::ToDoubleMilliseconds(last_push - push_start);
    got = pushed;
    reg = registered;
  }
  (*fleet)->Stop();
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  const double per_agent_kb = static_cast<double>(rss_registered - rss_before) / agents;
  std::cout << absl::StrFormat(
      "%d agents: %d registered in %.2f s; RSS %d KB -> %d KB (%.1f KB per agent), %d threads; "
      "push to %d: p50 %.1f ms, p99 %.1f ms, all within %.1f ms\n",
      agents, reg, register_s, rss_before, rss_registered, per_agent_kb, threads, got, p50, p99,
      all_ms);
  std::cout << absl::StrFormat(
      "{\"bench\":\"fleet\",\"agents\":%d,\"registered\":%d,\"register_s\":%.2f,"
      "\"rss_per_agent_kb\":%.1f,\"push_p50_ms\":%.2f,\"push_p99_ms\":%.2f,\"push_all_ms\":%.1f,"
      "\"threads\":%d,\"cores\":%d}\n",
      agents, reg, register_s, per_agent_kb, p50, p99, all_ms, threads,
      std::thread::hardware_concurrency());
  return reg == agents && got == agents ? 0 : 1;
}
