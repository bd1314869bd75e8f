#include "services/agent/fleet.h"

#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "assisted/orchestrator/v1/controller_service.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "lib/process/subprocess.h"
#include "lib/random/random.h"
#include "lib/service/runner.h"
#include "lib/status/status_macros.h"
#include "lib/time/clock.h"
#include "nlohmann/json.hpp"
#include "services/agent/boot/discovery_media.h"
#include "services/agent/post_reboot.h"
#include "services/agent/protocol_session.h"
#include "services/agent/scheduler.h"
#include "services/agent/simulation/profile.h"
#include "services/agent/steps/executors.h"
#include "services/agent/steps/install.h"
#include "services/agent/steps/simulation.h"

namespace assisted::agent {
namespace {

using nlohmann::json;

// A fixed set of threads running posted tasks in order.
class TaskPool {
 public:
  explicit TaskPool(int threads) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
  }
  ~TaskPool() { Stop(); }

  void Post(std::function<void()> task) {
    absl::MutexLock lock(&mu_);
    if (!stopping_) tasks_.push_back(std::move(task));
  }

  // Runs what is queued, then joins the threads.
  void Stop() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  void Loop() {
    for (;;) {
      std::function<void()> task;
      {
        absl::MutexLock lock(&mu_);
        auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          return stopping_ || !tasks_.empty();
        };
        mu_.Await(absl::Condition(&ready));
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_;
};

// What every agent of a fleet shares.
struct Shared {
  Fleet::Options options;
  FleetObserver observer;
  log::Logger log = log::Logger::Discard();
  SystemRandom random;
  RealClock clock;
  process::LocalProcessRunner processes;
  TimerThread timer;  // every agent's reconnects, deadlines and delays
  std::unique_ptr<TaskPool> steps;
  std::string agent_version = service::kVersion;
  std::atomic<int> registered_now{0};
};

// What an agent sent, for its records.
struct SentRecord {
  uint64_t seq = 0;
  std::string kind;  // "step_result", "progress", "log_chunk"
  std::string step_id;
  std::string step_type;
  int exit_code = 0;
  std::string error;  // first 200 characters
  std::string stage;
};

steps::SimulationHooks WithRegistry(
    steps::SimulationHooks hooks,
    const std::function<steps::RegistryAnswer(const std::string&)>& registry) {
  if (registry) hooks.registry = registry;
  return hooks;
}

// One simulated host: its hardware and steps around the shared protocol session. Listener calls
// come on gRPC and timer threads and must not block: steps run on the shared pool.
class FleetAgent final : public ProtocolSession::Listener,
                         public steps::LogChunkSink,
                         public steps::InstallReporter {
 public:
  FleetAgent(Shared& shared, int index, simulation::SimulatedHost host)
      : shared_(shared),
        index_(index),
        host_(std::move(host)),
        hooks_(WithRegistry(host_.hooks(), shared.options.registry)),
        session_([this]() -> absl::StatusOr<std::shared_ptr<grpc::Channel>> { return channel_; },
                 StreamIdentity{.host_id = host_.host_id(),
                                .infra_env_id = shared.options.infra_env_id,
                                .agent_version = shared.agent_version,
                                .instance_id = RandomUuid(shared.random),
                                .token = shared.options.agent_token,
                                .inventory = [this] { return host_.inventory(); }},
                 *this, shared.timer, shared.clock, shared.random,
                 shared.log.With("host_id", host_.host_id()), {.backoff = shared.options.backoff}) {
    steps::ExecutorsConfig config;
    config.install.stage_delay = shared.options.stage_delay;
    for (std::unique_ptr<steps::StepExecutor>& e : steps::MakeExecutors(config, nullptr)) {
      const types::v1::StepType type = e->type();
      executors_[type] = std::move(e);
    }
  }

  // Opens the agent's own connection (before Connect; read-only afterwards).
  absl::Status Open() {
    grpcutil::ChannelOptions options = shared_.options.channel;
    options.dedicated_connection = true;
    options.connection_tag = host_id();
    ASSIGN_OR_RETURN(channel_,
                     grpcutil::MakeChannel(shared_.options.orchestrator_address, options));
    controller_ = orchestrator::v1::ControllerService::NewStub(channel_);
    return absl::OkStatus();
  }

  void Connect() {
    {
      absl::MutexLock lock(&mu_);
      if (stopped_) return;
    }
    session_.Start();
  }

  void Stop() {
    {
      absl::MutexLock lock(&mu_);
      stopped_ = true;
      cancellation_.Cancel();
    }
    session_.Stop();
  }

  // Blocks until the session ended and no step of this agent runs.
  void AwaitIdle() {
    session_.AwaitFinished().IgnoreError();  // why it ended went to OnFinished already
    absl::MutexLock lock(&mu_);
    auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !stepping_; };
    mu_.Await(absl::Condition(&idle));
  }

  void Progress(types::v1::HostStage stage, const std::string& info, int percentage) override {
    Deliver(ProgressMessage(stage, info, percentage, shared_.clock.Now()));
  }

  void RebootAfterResult(const steps::InstallRequest& request) override {
    absl::MutexLock lock(&mu_);
    pending_reboot_ = request;
  }

  absl::Status Send(const v1::LogChunk& chunk) override {
    v1::AgentMessage message;
    *message.mutable_log_chunk() = chunk;
    Deliver(std::move(message));
    return absl::OkStatus();
  }

  json Record() const {
    absl::MutexLock lock(&mu_);
    json record = RecordLocked(/*current=*/true);
    record["previous_instances"] = previous_;
    return record;
  }

  const std::string& host_id() const { return session_.identity().host_id; }
  // The session's logger (with host_id): one copy per agent.
  const log::Logger& log() const { return session_.log(); }

 private:
  // ---- ProtocolSession::Listener ----

  void OnInstruction(const v1::Instruction& instruction, bool first_time) override {
    const types::v1::Step& step = instruction.step();
    Emit(FleetEvent::Kind::kInstruction, [&step](FleetEvent& e) { e.step = step; });
    if (!first_time) return;
    absl::MutexLock lock(&mu_);
    // The install step's token is what the controller presents after the reboot.
    if (!instruction.controller_token().empty()) controller_token_ = instruction.controller_token();
    steps_.push_back(step);
    if (stepping_) return;
    stepping_ = true;
    shared_.steps->Post([this] { RunSteps(); });
  }

  void OnRegistered(const v1::Registered& registered) override {
    shared_.registered_now.fetch_add(1);
    const uint64_t applied = registered.last_applied_seq();
    Emit(FleetEvent::Kind::kRegistered, [applied](FleetEvent& e) { e.seq = applied; });
  }

  void OnRefused(const v1::Registered& registered) override {
    Emit(FleetEvent::Kind::kRefused,
         [&registered](FleetEvent& e) { e.detail = registered.reason(); });
  }

  void OnAcknowledged(uint64_t up_to_seq) override {
    Emit(FleetEvent::Kind::kAcknowledged, [up_to_seq](FleetEvent& e) { e.seq = up_to_seq; });
    if (session_.outbox().empty()) CloseIfRebooting();
  }

  void OnRejected(const v1::Reject& reject) override {
    absl::MutexLock lock(&mu_);
    rejected_.push_back(reject.seq());
  }

  void OnStreamEnded(const absl::Status& why, bool was_registered) override {
    if (was_registered) shared_.registered_now.fetch_sub(1);
    Emit(FleetEvent::Kind::kDisconnected,
         [&why](FleetEvent& e) { e.detail = std::string(why.message()); });
  }

  void OnFinished(const absl::Status&) override {
    bool rebooted = false;
    {
      absl::MutexLock lock(&mu_);
      rebooted = closing_for_reboot_;
    }
    if (rebooted) AfterReboot();
  }

  template <typename Fill>
  void Emit(FleetEvent::Kind kind, Fill fill) {
    if (!shared_.observer) return;
    FleetEvent event{kind, index_, host_id(), absl::Now()};
    fill(event);
    shared_.observer(event);
  }
  void Emit(FleetEvent::Kind kind) {
    Emit(kind, [](FleetEvent&) {});
  }

  // On a pool thread: this agent's queued steps, one at a time.
  void RunSteps() {
    for (;;) {
      types::v1::Step step;
      {
        absl::MutexLock lock(&mu_);
        if (steps_.empty() || stopped_) {
          steps_.clear();
          stepping_ = false;
          return;
        }
        step = std::move(steps_.front());
        steps_.pop_front();
      }
      types::v1::StepResult result = RunStep(step);
      v1::AgentMessage message;
      *message.mutable_step_result() = std::move(result);
      Deliver(std::move(message));
      std::optional<steps::InstallRequest> reboot;
      {
        absl::MutexLock lock(&mu_);
        reboot.swap(pending_reboot_);
      }
      if (reboot.has_value()) Reboot(*reboot);
    }
  }

  // After the install step's result: report Rebooting, and end the discovery session once the
  // orchestrator has acknowledged everything (or after a grace period).
  void Reboot(const steps::InstallRequest& request) {
    Progress(types::v1::HOST_STAGE_REBOOTING, "", -1);
    {
      absl::MutexLock lock(&mu_);
      rebooting_ = true;
      installed_ = request;
    }
    log().Info("rebooting", {{"role", request.role}, {"bootstrap", request.bootstrap ? 1 : 0}});
    if (session_.outbox().empty()) CloseIfRebooting();
    shared_.timer.After(absl::Seconds(30), [this] { CloseIfRebooting(); });
  }

  void CloseIfRebooting() {
    {
      absl::MutexLock lock(&mu_);
      if (!rebooting_ || closing_for_reboot_) return;
      closing_for_reboot_ = true;
    }
    // OnFinished reboots once the stream is gone; a session that already ended has none.
    if (!session_.Close()) AfterReboot();
  }

  // The host is back up: the discovery image again (a new agent instance registers), or the
  // installed OS, whose controller reports the remaining stages.
  void AfterReboot() {
    Emit(FleetEvent::Kind::kRebooted);
    steps::InstallRequest request;
    {
      absl::MutexLock lock(&mu_);
      request = installed_;
      rebooting_ = false;
      closing_for_reboot_ = false;
      if (host_.profile().reboot_into_discovery) {
        previous_.push_back(RecordLocked(/*current=*/false));
        sent_.clear();
        rejected_.clear();
      }
    }
    if (host_.profile().reboot_into_discovery) {
      log().Info("booted the discovery image again");
      session_.NewInstance(RandomUuid(shared_.random));
      Connect();
      return;
    }
    {
      absl::MutexLock lock(&mu_);
      // The installed OS's reporter, as assisted-reporter runs it (post_reboot.h).
      calls_ = PostRebootReports(
          steps::ReporterSettingsFor(request, {.controller_token = controller_token_,
                                               .infra_env_id = session_.identity().infra_env_id}));
    }
    shared_.steps->Post([this] { Call(0, 0); });
  }

  // On a pool thread: report `index` of calls_ (attempt `attempt`); the next one follows
  // stage_delay later, a refused one is retried after RetryDelay (at most kMaxAttempts times).
  void Call(size_t index, int attempt) {
    static constexpr int kMaxAttempts = 120;
    ControllerReport report;
    std::string token;
    {
      absl::MutexLock lock(&mu_);
      if (stopped_ || index >= calls_.size()) return;
      report = calls_[index];
      token = controller_token_;
    }
    const grpc::Status status = CallReport(*controller_, token, report, absl::Seconds(10));
    if (status.ok()) {
      {
        absl::MutexLock lock(&mu_);
        reported_.push_back(report.name);
      }
      Emit(FleetEvent::Kind::kReported, [&](FleetEvent& e) { e.detail = report.name; });
      shared_.timer.After(shared_.options.stage_delay, [this, index] {
        shared_.steps->Post([this, index] { Call(index + 1, 0); });
      });
      return;
    }
    if (attempt + 1 >= kMaxAttempts) {
      log().Error("controller report refused; giving up",
                  {{"report", report.name}, {"error", status.error_message()}});
      return;
    }
    log().Debug("controller report refused; retrying",
                {{"report", report.name}, {"error", status.error_message()}});
    shared_.timer.After(RetryDelay(attempt), [this, index, attempt] {
      shared_.steps->Post([this, index, attempt] { Call(index, attempt + 1); });
    });
  }

  types::v1::StepResult RunStep(const types::v1::Step& step) {
    const absl::Time started = shared_.clock.Now();
    types::v1::StepResult result;
    if (step.step_type() == types::v1::STEP_TYPE_INVENTORY) {
      *result.mutable_inventory() = host_.inventory();
    } else if (auto it = executors_.find(step.step_type()); it != executors_.end()) {
      steps::StepExecutor& executor = *it->second;
      const absl::Duration timeout =
          step.has_timeout() ? absl::Seconds(step.timeout().seconds()) : executor.default_timeout();
      steps::StepContext context{shared_.processes, shared_.clock,        cancellation_,     *this,
                                 &hooks_,           log().Child("steps"), started + timeout, this};
      result = executor.Run(step, context);
    } else {
      result = steps::FailureResult(
          steps::kExitInvalid,
          absl::StrCat("unsupported step type ", types::v1::StepType_Name(step.step_type())));
    }
    result.set_step_id(step.step_id());
    result.set_step_type(step.step_type());
    *result.mutable_started_at() =
        google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(started));
    *result.mutable_finished_at() = google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(
        absl::ToUnixMicros(shared_.clock.Now()));
    return result;
  }

  // Numbers `message`, records it (before an Ack can cover it), and sends it now if the stream
  // is registered (else the next registration re-sends it).
  void Deliver(v1::AgentMessage message) {
    SentRecord record = Describe(message);
    session_.Send(std::move(message), [this, &record](const v1::AgentMessage& numbered) {
      record.seq = numbered.seq();
      absl::MutexLock lock(&mu_);
      sent_.push_back(std::move(record));
    });
  }

  // This instance's books; with `current`, also who the agent is.
  json RecordLocked(bool current) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    json sent = json::array();
    for (const SentRecord& r : sent_) {
      json entry = {{"seq", r.seq}, {"kind", r.kind}};
      if (!r.step_id.empty()) {
        entry["step_id"] = r.step_id;
        entry["step_type"] = r.step_type;
        entry["exit_code"] = r.exit_code;
        if (!r.error.empty()) entry["error"] = r.error;
      }
      if (!r.stage.empty()) entry["stage"] = r.stage;
      sent.push_back(std::move(entry));
    }
    json record = {{"instance_id", session_.instance_id()},
                   {"acknowledged_up_to", session_.outbox().acknowledged()},
                   {"sent", std::move(sent)},
                   {"rejected", rejected_}};
    if (current) {
      record["agent"] = index_;
      record["host_id"] = host_id();
      record["registrations"] = session_.registrations();
      record["reported"] = reported_;
    }
    return record;
  }

  static SentRecord Describe(const v1::AgentMessage& numbered) {
    SentRecord record;
    record.seq = numbered.seq();
    if (numbered.has_step_result()) {
      record.kind = "step_result";
      record.step_id = numbered.step_result().step_id();
      record.step_type = steps::StepTypeName(numbered.step_result().step_type());
      record.exit_code = numbered.step_result().exit_code();
      record.error = numbered.step_result().error().substr(0, 200);
    } else if (numbered.has_progress()) {
      record.kind = "progress";
      record.stage = types::v1::HostStage_Name(numbered.progress().current_stage());
    } else {
      record.kind = "log_chunk";
    }
    return record;
  }

  Shared& shared_;
  const int index_;
  const simulation::SimulatedHost host_;
  const steps::SimulationHooks hooks_;      // the host's, with Options::registry when given
  std::shared_ptr<grpc::Channel> channel_;  // this host's own connection
  std::unique_ptr<orchestrator::v1::ControllerService::Stub> controller_;
  // From the install step (Instruction.controller_token); a secret, never logged.
  std::string controller_token_ ABSL_GUARDED_BY(mu_);
  std::vector<ControllerReport> calls_ ABSL_GUARDED_BY(mu_);  // set in AfterReboot
  absl::flat_hash_map<int, std::unique_ptr<steps::StepExecutor>> executors_;
  steps::Cancellation cancellation_;  // set when the agent stops

  // Lock order: the session's send lock, then mu_ (Deliver's callback), then the session's
  // own locks (its accessors). Listener calls come with no session lock held.
  mutable absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<types::v1::Step> steps_ ABSL_GUARDED_BY(mu_);
  bool stepping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<SentRecord> sent_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> rejected_ ABSL_GUARDED_BY(mu_);
  std::optional<steps::InstallRequest> pending_reboot_ ABSL_GUARDED_BY(mu_);
  steps::InstallRequest installed_ ABSL_GUARDED_BY(mu_);
  bool rebooting_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_for_reboot_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::string> reported_ ABSL_GUARDED_BY(mu_);
  std::vector<json> previous_ ABSL_GUARDED_BY(mu_);

  ProtocolSession session_;  // last: its callbacks use everything above
};

}  // namespace

class Fleet::Impl {
 public:
  Shared shared;
  std::vector<std::unique_ptr<FleetAgent>> agents;
  bool stopped = false;

  void Stop() {
    if (stopped) return;
    stopped = true;
    for (auto& agent : agents) agent->Stop();
    shared.timer.Stop();  // no reconnect starts from now on
    for (auto& agent : agents) agent->AwaitIdle();
    shared.steps->Stop();
  }
};

Fleet::Fleet(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Fleet::~Fleet() { Stop(); }

void Fleet::Stop() { impl_->Stop(); }

int Fleet::size() const { return static_cast<int>(impl_->agents.size()); }

int Fleet::registered() const { return impl_->shared.registered_now.load(); }

std::string Fleet::host_id(int index) const { return impl_->agents.at(index)->host_id(); }

std::string Fleet::Records() const {
  json records = json::array();
  for (const auto& agent : impl_->agents) records.push_back(agent->Record());
  return records.dump();
}

absl::Status Fleet::WriteRecords(const std::string& path) const {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << Records() << "\n";
    if (!out.good()) return absl::InternalError(absl::StrCat("cannot write ", temporary));
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error)
    return absl::InternalError(absl::StrCat("cannot rename to ", path, ": ", error.message()));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Fleet>> Fleet::Start(Options options, FleetObserver observer,
                                                    log::Logger log) {
  if (options.count < 1) return absl::InvalidArgumentError("count must be at least 1");
  if (options.first_index < 0)
    return absl::InvalidArgumentError("first_index must not be negative");
  if (options.step_threads < 1)
    return absl::InvalidArgumentError("step_threads must be at least 1");
  if (options.infra_env_id.empty()) return absl::InvalidArgumentError("infra_env_id is required");
  if (options.orchestrator_address.empty()) {
    return absl::InvalidArgumentError("orchestrator_address is required");
  }
  ASSIGN_OR_RETURN(simulation::Profile profile, simulation::LoadProfile(options.profile));
  ASSIGN_OR_RETURN(types::v1::Inventory tree, simulation::CollectTreeInventory(profile));
  if (options.state_dir.empty()) {
    options.state_dir = absl::StrCat("/tmp/assisted-fleet-", profile.name,
                                     options.seed.empty() ? "" : "-", options.seed);
  }
  auto impl = std::make_unique<Impl>();
  impl->shared.options = options;
  impl->shared.observer = std::move(observer);
  impl->shared.log = log;
  impl->shared.steps = std::make_unique<TaskPool>(options.step_threads);
  for (int i = 0; i < options.count; ++i) {
    const int index = options.first_index + i;
    const std::string disk = absl::StrCat(options.state_dir, "/", profile.name, "-", index, ".img");
    RETURN_IF_ERROR(simulation::PrepareDiskImage(disk, profile.disk_size_bytes));
    ASSIGN_OR_RETURN(simulation::SimulatedHost host,
                     simulation::SimulatedHost::Create(
                         profile, tree, {.index = index, .seed = options.seed}, disk));
    auto agent = std::make_unique<FleetAgent>(impl->shared, i, std::move(host));
    RETURN_IF_ERROR(agent->Open());
    impl->agents.push_back(std::move(agent));
  }
  for (auto& agent : impl->agents) agent->Connect();
  return std::unique_ptr<Fleet>(new Fleet(std::move(impl)));
}

absl::Status ApplyDiscoveryIso(const std::string& iso_path, Fleet::Options& options) {
  ASSIGN_OR_RETURN(boot::DiscoverySettings settings, boot::SettingsFromIso(iso_path));
  options.orchestrator_address = settings.orchestrator_address;
  options.infra_env_id = settings.infra_env_id;
  options.agent_token = settings.agent_token;
  options.channel.tls = settings.tls;
  if (settings.ca_bundle_pem.empty()) return absl::OkStatus();
  const std::string dir = options.state_dir.empty() ? std::string("/tmp") : options.state_dir;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  const std::string ca_file = dir + "/discovery-ca.pem";
  std::ofstream out(ca_file, std::ios::trunc);
  out << settings.ca_bundle_pem;
  if (!out.flush()) return absl::InternalError(absl::StrCat("cannot write ", ca_file));
  options.channel.ca_bundle_file = ca_file;
  return absl::OkStatus();
}

}  // namespace assisted::agent
