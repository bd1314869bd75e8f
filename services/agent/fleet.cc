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
#include "grpcpp/support/client_callback.h"
#include "lib/process/subprocess.h"
#include "lib/random/random.h"
#include "lib/service/runner.h"
#include "lib/status/status_macros.h"
#include "lib/time/clock.h"
#include "nlohmann/json.hpp"
#include "services/agent/boot/discovery_media.h"
#include "services/agent/simulation/profile.h"
#include "services/agent/steps/executors.h"
#include "services/agent/steps/install.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/stream_client.h"

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

// One thread running callbacks at their time. Callbacks must be quick (they post real work).
class Timer {
 public:
  Timer() : thread_([this] { Loop(); }) {}
  ~Timer() { Stop(); }

  void After(absl::Duration delay, std::function<void()> callback) {
    absl::MutexLock lock(&mu_);
    if (!stopping_) due_.emplace(absl::Now() + delay, std::move(callback));
  }

  // Drops what is pending and joins the thread.
  void Stop() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
      due_.clear();
    }
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Loop() {
    absl::MutexLock lock(&mu_);
    while (!stopping_) {
      if (due_.empty()) {
        mu_.Await(absl::Condition(
            +[](Timer* t)
                 ABSL_EXCLUSIVE_LOCKS_REQUIRED(t->mu_) { return t->stopping_ || !t->due_.empty(); },
            this));
        continue;
      }
      const absl::Time next = due_.begin()->first;
      if (absl::Now() < next) {
        // Wakes early when an earlier callback is added or on Stop.
        const size_t pending = due_.size();
        auto changed = [this, pending]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          return stopping_ || due_.size() != pending;
        };
        mu_.AwaitWithDeadline(absl::Condition(&changed), next);
        continue;
      }
      std::function<void()> callback = std::move(due_.begin()->second);
      due_.erase(due_.begin());
      mu_.Unlock();
      callback();
      mu_.Lock();
    }
  }

  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::multimap<absl::Time, std::function<void()>> due_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

// What every agent of a fleet shares.
struct Shared {
  Fleet::Options options;
  FleetObserver observer;
  log::Logger log = log::Logger::Discard();
  SystemRandom random;
  RealClock clock;
  process::LocalProcessRunner processes;
  Timer timer;
  std::unique_ptr<TaskPool> steps;
  std::string agent_version = service::kVersion;
  std::atomic<int> registered_now{0};
};

class FleetAgent;

// One stream of one agent: a callback-API reactor. Writes are queued (one in flight at a time,
// as the API requires); a hold keeps the call alive until the last write finished, so OnDone
// never races a write. It owns itself until OnDone (others may hold references longer). Never
// call into it with an agent lock held: gRPC may run reactions inline.
class Session final : public grpc::ClientBidiReactor<v1::AgentMessage, v1::ServiceMessage> {
 public:
  explicit Session(FleetAgent& agent) : agent_(agent) {}

  // Starts the call with `registration` as its first message; `self` is this session.
  void Begin(std::shared_ptr<Session> self, v1::AgentService::Stub& stub, const std::string& token,
             const v1::AgentMessage& registration);
  // Queues `message`; dropped once the stream is closing (the outbox keeps it for the next).
  void Send(const v1::AgentMessage& message);
  void Cancel() { context_.TryCancel(); }

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone(const grpc::Status& status) override;

 private:
  void Closing();

  FleetAgent& agent_;
  std::shared_ptr<Session> self_;  // until OnDone
  grpc::ClientContext context_;
  v1::ServiceMessage incoming_;
  absl::Mutex mu_;
  std::deque<v1::AgentMessage> queue_ ABSL_GUARDED_BY(mu_);
  v1::AgentMessage writing_message_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool hold_released_ ABSL_GUARDED_BY(mu_) = false;
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

// One call of the simulated in-cluster controller.
using ControllerCall =
    std::function<grpc::Status(orchestrator::v1::ControllerService::Stub&, grpc::ClientContext&)>;

class FleetAgent final : public steps::LogChunkSink, public steps::InstallReporter {
 public:
  FleetAgent(Shared& shared, int index, simulation::SimulatedHost host)
      : shared_(shared),
        index_(index),
        host_(std::move(host)),
        log_(shared.log.With("host_id", host_.host_id())),
        backoff_(shared.options.backoff, shared.random) {
    identity_.host_id = host_.host_id();
    identity_.infra_env_id = shared.options.infra_env_id;
    identity_.agent_version = shared.agent_version;
    identity_.instance_id = RandomUuid(shared.random);
    identity_.token = shared.options.agent_token;
    identity_.inventory = [this] { return host_.inventory(); };
    steps::ExecutorsConfig config;
    config.install.stage_delay = shared.options.stage_delay;
    for (std::unique_ptr<steps::StepExecutor>& e : steps::MakeExecutors(config, nullptr)) {
      const types::v1::StepType type = e->type();
      executors_[type] = std::move(e);
    }
  }

  absl::Status Open() {
    grpcutil::ChannelOptions options = shared_.options.channel;
    options.dedicated_connection = true;
    options.connection_tag = identity_.host_id;
    ASSIGN_OR_RETURN(channel_,
                     grpcutil::MakeChannel(shared_.options.orchestrator_address, options));
    stub_ = v1::AgentService::NewStub(channel_);
    controller_ = orchestrator::v1::ControllerService::NewStub(channel_);
    return absl::OkStatus();
  }

  void Connect() {
    auto session = std::make_shared<Session>(*this);
    {
      absl::MutexLock lock(&mu_);
      if (stopped_) return;
      session_ = session;
      ++sessions_;
    }
    session->Begin(session, *stub_, identity_.token, RegisterMessage(identity_, steps_run_));
  }

  void Stop() {
    std::shared_ptr<Session> session;
    {
      absl::MutexLock lock(&mu_);
      stopped_ = true;
      cancellation_.Cancel();
      session = session_;
    }
    if (session != nullptr) session->Cancel();
  }

  // Blocks until no session of this agent is alive.
  void AwaitIdle() {
    absl::MutexLock lock(&mu_);
    auto idle = [this]()
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return sessions_ == 0 && !stepping_; };
    mu_.Await(absl::Condition(&idle));
  }

  // On a gRPC thread; must not block.
  void OnMessage(Session& session, const v1::ServiceMessage& message) {
    switch (message.body_case()) {
      case v1::ServiceMessage::kRegistered:
        OnRegistered(session, message.registered());
        break;
      case v1::ServiceMessage::kInstruction:
        OnInstruction(message.instruction());
        break;
      case v1::ServiceMessage::kAck: {
        const uint64_t seq = message.ack().up_to_seq();
        outbox_.Acknowledge(seq);
        Emit(FleetEvent::Kind::kAcknowledged, [seq](FleetEvent& e) { e.seq = seq; });
        if (outbox_.Pending().empty()) CloseIfRebooting();
        break;
      }
      case v1::ServiceMessage::kReject: {
        absl::MutexLock lock(&mu_);
        rejected_.push_back(message.reject().seq());
        break;
      }
      case v1::ServiceMessage::kStop: {
        absl::MutexLock lock(&mu_);
        if (message.stop().action() == v1::STOP_ACTION_EXIT) give_up_ = true;
        retry_after_ = absl::Seconds(message.stop().retry_after().seconds());
        session.Cancel();
        break;
      }
      default:
        break;
    }
  }

  void OnSessionDone(Session* session, const grpc::Status& status) {
    bool reconnect = false;
    bool rebooted = false;
    absl::Duration delay;
    {
      absl::MutexLock lock(&mu_);
      rebooted = closing_for_reboot_;
      if (session_.get() == session) session_ = nullptr;
      if (registered_) shared_.registered_now.fetch_sub(1);
      registered_ = false;
      --sessions_;
      reconnect = !stopped_ && !give_up_ && !rebooted;
      delay = retry_after_ > absl::ZeroDuration() ? retry_after_ : backoff_.Next();
      retry_after_ = absl::ZeroDuration();
    }
    Emit(FleetEvent::Kind::kDisconnected,
         [&status](FleetEvent& e) { e.detail = status.error_message(); });
    if (reconnect) shared_.timer.After(delay, [this] { Connect(); });
    if (rebooted) AfterReboot();
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

  const std::string& host_id() const { return identity_.host_id; }

 private:
  template <typename Fill>
  void Emit(FleetEvent::Kind kind, Fill fill) {
    if (!shared_.observer) return;
    FleetEvent event{kind, index_, identity_.host_id, absl::Now()};
    fill(event);
    shared_.observer(event);
  }
  void Emit(FleetEvent::Kind kind) {
    Emit(kind, [](FleetEvent&) {});
  }

  void OnRegistered(Session& session, const v1::Registered& registered) {
    if (!registered.accepted()) {
      {
        absl::MutexLock lock(&mu_);
        give_up_ = registered.next_action() == v1::REGISTRATION_ACTION_GIVE_UP;
        retry_after_ = absl::Seconds(registered.retry_after().seconds());
      }
      log_.Warning("registration refused", {{"reason", registered.reason()}});
      Emit(FleetEvent::Kind::kRefused,
           [&registered](FleetEvent& e) { e.detail = registered.reason(); });
      session.Cancel();
      return;
    }
    {
      // Kept messages go first, in seq order, before anything new: Deliver waits for send_mu_.
      absl::MutexLock sending(&send_mu_);
      outbox_.Acknowledge(registered.last_applied_seq());
      {
        absl::MutexLock lock(&mu_);
        if (!registered_) shared_.registered_now.fetch_add(1);
        registered_ = true;
        ++registrations_;
        backoff_.Reset();
      }
      for (const v1::AgentMessage& pending : outbox_.Pending()) session.Send(pending);
    }
    const uint64_t applied = registered.last_applied_seq();
    Emit(FleetEvent::Kind::kRegistered, [applied](FleetEvent& e) { e.seq = applied; });
  }

  void OnInstruction(const v1::Instruction& instruction) {
    const types::v1::Step& step = instruction.step();
    Emit(FleetEvent::Kind::kInstruction, [&step](FleetEvent& e) { e.step = step; });
    // A step already run in this boot is not run again (its result is kept or acknowledged).
    if (!steps_run_.Add(step)) return;
    absl::MutexLock lock(&mu_);
    // The install step's token is what the controller presents after the reboot.
    if (!instruction.controller_token().empty()) controller_token_ = instruction.controller_token();
    steps_.push_back(step);
    if (stepping_) return;
    stepping_ = true;
    shared_.steps->Post([this] { RunSteps(); });
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
    log_.Info("rebooting", {{"role", request.role}, {"bootstrap", request.bootstrap ? 1 : 0}});
    if (outbox_.Pending().empty()) CloseIfRebooting();
    shared_.timer.After(absl::Seconds(30), [this] { CloseIfRebooting(); });
  }

  void CloseIfRebooting() {
    std::shared_ptr<Session> session;
    {
      absl::MutexLock lock(&mu_);
      if (!rebooting_ || closing_for_reboot_) return;
      closing_for_reboot_ = true;
      session = session_;
    }
    if (session != nullptr) {
      session->Cancel();
    } else {
      AfterReboot();  // no stream to end
    }
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
        steps_run_.Reset();
        outbox_.Reset();
        identity_.instance_id = RandomUuid(shared_.random);
      }
    }
    if (host_.profile().reboot_into_discovery) {
      log_.Info("booted the discovery image again");
      Connect();
      return;
    }
    calls_ = ControllerCalls(request);
    shared_.steps->Post([this] { Call(0, 0); });
  }

  // What the simulated in-cluster controller reports for this host: its stages after the
  // reboot, and for the bootstrap host the cluster's finalizing stages and completion.
  std::vector<std::pair<std::string, ControllerCall>> ControllerCalls(
      const steps::InstallRequest& request) {
    namespace ov1 = orchestrator::v1;
    std::vector<std::pair<std::string, ControllerCall>> calls;
    for (types::v1::HostStage stage : steps::StagesAfterReboot(request)) {
      ov1::UpdateHostProgressRequest update;
      update.set_infra_env_id(identity_.infra_env_id);
      update.set_host_id(identity_.host_id);
      update.set_current_stage(stage);
      calls.emplace_back(types::v1::HostStage_Name(stage),
                         [update](ov1::ControllerService::Stub& stub, grpc::ClientContext& c) {
                           types::v1::Host host;
                           return stub.UpdateHostProgress(&c, update, &host);
                         });
    }
    if (!request.bootstrap) return calls;
    for (types::v1::FinalizingStage stage :
         {types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS,
          types::v1::FINALIZING_STAGE_ADDING_ROUTER_CA,
          types::v1::FINALIZING_STAGE_APPLYING_OLM_MANIFESTS,
          types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV_INITIALIZATION,
          types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV,
          types::v1::FINALIZING_STAGE_DONE}) {
      ov1::UpdateFinalizingProgressRequest update;
      update.set_cluster_id(request.cluster_id);
      update.set_finalizing_stage(stage);
      calls.emplace_back(types::v1::FinalizingStage_Name(stage),
                         [update](ov1::ControllerService::Stub& stub, grpc::ClientContext& c) {
                           types::v1::Cluster cluster;
                           return stub.UpdateFinalizingProgress(&c, update, &cluster);
                         });
    }
    ov1::CompleteInstallationRequest complete;
    complete.set_cluster_id(request.cluster_id);
    complete.set_is_success(true);
    calls.emplace_back("CompleteInstallation",
                       [complete](ov1::ControllerService::Stub& stub, grpc::ClientContext& c) {
                         types::v1::Cluster cluster;
                         return stub.CompleteInstallation(&c, complete, &cluster);
                       });
    return calls;
  }

  // On a pool thread: call `index` of calls_ (attempt `attempt`); the next one follows
  // stage_delay later, a refused one is retried with backoff (at most kMaxAttempts times).
  void Call(size_t index, int attempt) {
    static constexpr int kMaxAttempts = 120;
    {
      absl::MutexLock lock(&mu_);
      if (stopped_ || index >= calls_.size()) return;
    }
    std::unique_ptr<grpc::ClientContext> context = grpcutil::ContextWithin(absl::Seconds(10));
    {
      absl::MutexLock lock(&mu_);
      AddBearerToken(*context, controller_token_);
    }
    const grpc::Status status = calls_[index].second(*controller_, *context);
    if (status.ok()) {
      {
        absl::MutexLock lock(&mu_);
        reported_.push_back(calls_[index].first);
      }
      Emit(FleetEvent::Kind::kReported, [&](FleetEvent& e) { e.detail = calls_[index].first; });
      shared_.timer.After(shared_.options.stage_delay, [this, index] {
        shared_.steps->Post([this, index] { Call(index + 1, 0); });
      });
      return;
    }
    if (attempt + 1 >= kMaxAttempts) {
      log_.Error("controller report refused; giving up",
                 {{"report", calls_[index].first}, {"error", status.error_message()}});
      return;
    }
    log_.Debug("controller report refused; retrying",
               {{"report", calls_[index].first}, {"error", status.error_message()}});
    const absl::Duration delay =
        std::min(absl::Milliseconds(100) * (attempt + 1), absl::Seconds(5));
    shared_.timer.After(delay, [this, index, attempt] {
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
      steps::StepContext context{shared_.processes, shared_.clock,       cancellation_,     *this,
                                 &host_.hooks(),    log_.Child("steps"), started + timeout, this};
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

  // Numbers `message`, records it, and sends it now if the stream is registered (else the next
  // session re-sends it from the outbox).
  void Deliver(v1::AgentMessage message) {
    absl::MutexLock sending(&send_mu_);  // numbering and sending in one order
    const v1::AgentMessage numbered = outbox_.Add(std::move(message));
    std::shared_ptr<Session> session;
    {
      absl::MutexLock lock(&mu_);
      session = registered_ ? session_ : nullptr;
      sent_.push_back(Describe(numbered));
    }
    if (session != nullptr) session->Send(numbered);
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
    json record = {{"instance_id", identity_.instance_id},
                   {"acknowledged_up_to", outbox_.acknowledged()},
                   {"sent", std::move(sent)},
                   {"rejected", rejected_}};
    if (current) {
      record["agent"] = index_;
      record["host_id"] = identity_.host_id;
      record["registrations"] = registrations_;
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
  StreamIdentity identity_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::AgentService::Stub> stub_;
  std::unique_ptr<orchestrator::v1::ControllerService::Stub> controller_;
  // From the install step (Instruction.controller_token); a secret, never logged.
  std::string controller_token_ ABSL_GUARDED_BY(mu_);
  // Set in AfterReboot before the first Call, read-only afterwards.
  std::vector<std::pair<std::string, ControllerCall>> calls_;
  absl::flat_hash_map<int, std::unique_ptr<steps::StepExecutor>> executors_;
  Outbox outbox_;
  steps::Cancellation cancellation_;  // set when the agent stops
  log::Logger log_;

  // Lock order: send_mu_ before mu_; neither is held while calling into a Session.
  absl::Mutex send_mu_;
  mutable absl::Mutex mu_;
  Backoff backoff_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<Session> session_ ABSL_GUARDED_BY(mu_);
  int sessions_ ABSL_GUARDED_BY(mu_) = 0;
  bool registered_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  bool give_up_ ABSL_GUARDED_BY(mu_) = false;
  absl::Duration retry_after_ ABSL_GUARDED_BY(mu_);
  int registrations_ ABSL_GUARDED_BY(mu_) = 0;
  StepsRun steps_run_;
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
};

void Session::Begin(std::shared_ptr<Session> self, v1::AgentService::Stub& stub,
                    const std::string& token, const v1::AgentMessage& registration) {
  self_ = std::move(self);
  AddBearerToken(context_, token);
  stub.async()->Connect(&context_, this);
  AddHold();
  Send(registration);
  StartRead(&incoming_);
  StartCall();
}

void Session::Send(const v1::AgentMessage& message) {
  {
    absl::MutexLock lock(&mu_);
    if (closing_) return;
    queue_.push_back(message);
    if (writing_) return;
    writing_ = true;
    writing_message_ = std::move(queue_.front());
    queue_.pop_front();
  }
  StartWrite(&writing_message_);
}

void Session::OnWriteDone(bool ok) {
  bool next = false;
  bool release = false;
  {
    absl::MutexLock lock(&mu_);
    if (!ok) closing_ = true;
    if (!closing_ && !queue_.empty()) {
      writing_message_ = std::move(queue_.front());
      queue_.pop_front();
      next = true;
    } else {
      writing_ = false;
      release = closing_ && !hold_released_;
      if (release) hold_released_ = true;
    }
  }
  if (next) StartWrite(&writing_message_);
  if (release) RemoveHold();
}

void Session::Closing() {
  bool release = false;
  {
    absl::MutexLock lock(&mu_);
    closing_ = true;
    queue_.clear();
    release = !writing_ && !hold_released_;
    if (release) hold_released_ = true;
  }
  if (release) RemoveHold();
}

void Session::OnReadDone(bool ok) {
  if (!ok) {
    Closing();
    return;
  }
  agent_.OnMessage(*this, incoming_);
  StartRead(&incoming_);
}

void Session::OnDone(const grpc::Status& status) {
  agent_.OnSessionDone(this, status);
  std::shared_ptr<Session> last = std::move(self_);  // may delete this on return
}

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
