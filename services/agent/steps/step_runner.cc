// File: services/agent/steps/step_runner.cc

#include "services/agent/steps/step_runner.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "google/protobuf/util/time_util.h"

namespace assisted::agent::steps {

namespace {

using google::protobuf::util::TimeUtil;

constexpr size_t kMaxStepIdLength = 128;
constexpr absl::string_view kOverran = "step did not finish before its deadline; cancelled";

bool PrintableId(absl::string_view id) {
  if (id.empty() || id.size() > kMaxStepIdLength) return false;
  return std::all_of(id.begin(), id.end(), [](char c) { return absl::ascii_isgraph(c); });
}

// "<type>-<8 lowercase hex>", e.g. "inventory-1a2b3c4d".
bool WellFormedId(absl::string_view id, absl::string_view type_name) {
  if (!absl::ConsumePrefix(&id, type_name) || !absl::ConsumePrefix(&id, "-")) return false;
  return id.size() == 8 && std::all_of(id.begin(), id.end(), [](char c) {
           return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'f');
         });
}

google::protobuf::Timestamp ToProto(absl::Time t) {
  return TimeUtil::NanosecondsToTimestamp(absl::ToUnixNanos(t));
}

}  // namespace

struct StepRunner::Task {
  Step step;
  StepExecutor* executor = nullptr;
  absl::Duration timeout;
  absl::Time started_at;
  absl::Time deadline;
  Cancellation cancellation;
  bool reported = false;  // the deadline result went out; drop the executor's
};

absl::StatusOr<std::unique_ptr<StepRunner>> StepRunner::Create(
    StepRunnerOptions options, std::vector<std::unique_ptr<StepExecutor>> executors,
    StepEnvironment environment, ResultCallback on_result) {
  if (environment.processes == nullptr || environment.clock == nullptr ||
      environment.log_chunks == nullptr || !on_result) {
    return absl::InvalidArgumentError(
        "step runner: missing process runner, clock, sink or callback");
  }
  if (options.max_concurrent < 1 || options.max_queued < 0) {
    return absl::InvalidArgumentError("step runner: max_concurrent must be >= 1");
  }
  absl::flat_hash_map<StepType, std::unique_ptr<StepExecutor>> by_type;
  for (auto& executor : executors) {
    if (executor == nullptr) return absl::InvalidArgumentError("step runner: null executor");
    const StepType type = executor->type();
    if (!by_type.emplace(type, std::move(executor)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("step runner: two executors for ", StepTypeName(type)));
    }
  }
  return std::unique_ptr<StepRunner>(new StepRunner(std::move(options), std::move(by_type),
                                                    std::move(environment), std::move(on_result)));
}

StepRunner::StepRunner(StepRunnerOptions options,
                       absl::flat_hash_map<StepType, std::unique_ptr<StepExecutor>> executors,
                       StepEnvironment environment, ResultCallback on_result)
    : options_(std::move(options)),
      executors_(std::move(executors)),
      environment_(std::move(environment)),
      on_result_(std::move(on_result)) {
  for (int i = 0; i < options_.max_concurrent; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  watchdog_ = std::thread([this] { WatchdogLoop(); });
}

StepRunner::~StepRunner() { Stop(); }

absl::Status StepRunner::Check(const Step& step, StepExecutor** executor) const {
  const std::string name = StepTypeName(step.step_type());
  auto it = executors_.find(step.step_type());
  if (it == executors_.end()) {
    return absl::InvalidArgumentError(
        name.empty() ? absl::StrCat("unknown step type ", static_cast<int>(step.step_type()))
                     : absl::StrCat("this agent does not run \"", name, "\" steps"));
  }
  *executor = it->second.get();
  if (!WellFormedId(step.step_id(), name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("step id \"", step.step_id(), "\" is not \"", name, "-<8 hex digits>\""));
  }
  if (step.args_size() > options_.max_args) {
    return absl::InvalidArgumentError(
        absl::StrCat(step.args_size(), " arguments, at most ", options_.max_args, " accepted"));
  }
  size_t bytes = 0;
  for (const std::string& arg : step.args()) bytes += arg.size();
  if (bytes > options_.max_args_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("arguments of ", bytes, " bytes, at most ",
                                                   options_.max_args_bytes, " accepted"));
  }
  if (step.has_timeout() && (step.timeout().seconds() < 0 || step.timeout().nanos() < 0 ||
                             step.timeout().nanos() >= 1'000'000'000)) {
    return absl::InvalidArgumentError("negative or malformed timeout");
  }
  return absl::OkStatus();
}

absl::Status StepRunner::Submit(Step step) {
  if (!PrintableId(step.step_id())) {
    return absl::InvalidArgumentError(
        absl::StrCat("step id must be 1 to ", kMaxStepIdLength, " printable ASCII characters"));
  }
  StepExecutor* executor = nullptr;
  absl::Status rejected = Check(step, &executor);
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return absl::FailedPreconditionError("step runner stopped");
    if (ids_.contains(step.step_id())) {
      return absl::AlreadyExistsError(absl::StrCat("step ", step.step_id(), " is already queued"));
    }
    if (rejected.ok() && queue_.size() >= static_cast<size_t>(options_.max_queued)) {
      rejected = absl::ResourceExhaustedError(
          absl::StrCat("agent busy: ", queue_.size(), " steps already waiting"));
    }
    if (rejected.ok()) {
      auto task = std::make_unique<Task>();
      const absl::Duration requested =
          step.has_timeout()  // absl saturates where nanoseconds in an int64 would overflow
              ? absl::Seconds(step.timeout().seconds()) + absl::Nanoseconds(step.timeout().nanos())
              : absl::ZeroDuration();
      task->timeout =
          std::min(requested > absl::ZeroDuration() ? requested : executor->default_timeout(),
                   options_.max_timeout);
      task->executor = executor;
      ids_.insert(step.step_id());
      task->step = std::move(step);
      queue_.push_back(std::move(task));
      return absl::OkStatus();
    }
  }
  environment_.log.Warning("step rejected",
                           {{"step_id", step.step_id()}, {"reason", rejected.message()}});
  const absl::Time now = environment_.clock->Now();
  Report(step, now, FailureResult(kExitInvalid, rejected.message()));
  return absl::OkStatus();
}

bool StepRunner::HasRunnable() const {
  return std::any_of(queue_.begin(), queue_.end(), [this](const std::unique_ptr<Task>& task) {
    return !busy_types_.contains(task->step.step_type());
  });
}

std::unique_ptr<StepRunner::Task> StepRunner::TakeRunnable() {
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (busy_types_.contains((*it)->step.step_type())) continue;
    std::unique_ptr<Task> task = std::move(*it);
    queue_.erase(it);
    busy_types_.insert(task->step.step_type());
    task->started_at = environment_.clock->Now();
    task->deadline = task->started_at + task->timeout;
    running_.push_back(task.get());
    return task;
  }
  return nullptr;
}

void StepRunner::WorkerLoop() {
  for (;;) {
    std::unique_ptr<Task> task;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || HasRunnable(); };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) return;
      task = TakeRunnable();
    }
    const log::Logger log = environment_.log.With("step_id", task->step.step_id());
    log.Info("step started", {{"timeout", absl::FormatDuration(task->timeout)}});
    StepContext context{*environment_.processes,  *environment_.clock,     task->cancellation,
                        *environment_.log_chunks, environment_.simulation, log,
                        task->deadline,           environment_.install};
    StepResult result = task->executor->Run(task->step, context);
    bool late;
    {
      absl::MutexLock lock(&mu_);
      running_.erase(std::find(running_.begin(), running_.end(), task.get()));
      busy_types_.erase(task->step.step_type());
      ids_.erase(task->step.step_id());
      late = task->reported;
      task->reported = true;
    }
    if (late) {
      log.Warning("step returned after its deadline; result dropped",
                  {{"exit_code", result.exit_code()}});
      continue;
    }
    if (environment_.clock->Now() >= task->deadline) {  // before the watchdog noticed
      result = FailureResult(kExitInvalid, kOverran);
    }
    log.Info("step finished", {{"exit_code", result.exit_code()}});
    Report(task->step, task->started_at, std::move(result));
  }
}

void StepRunner::CheckDeadlines() {
  std::vector<std::pair<Step, absl::Time>> overdue;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = environment_.clock->Now();
    for (Task* task : running_) {
      if (task->reported || now < task->deadline) continue;
      task->reported = true;
      task->cancellation.Cancel();
      overdue.emplace_back(task->step, task->started_at);
    }
  }
  for (auto& [step, started_at] : overdue) {
    environment_.log.Warning("step overran its deadline; cancelled", {{"step_id", step.step_id()}});
    Report(step, started_at, FailureResult(kExitInvalid, kOverran));
  }
}

void StepRunner::WatchdogLoop() {
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(&stopping_), options_.watchdog_tick);
      if (stopping_) return;
    }
    CheckDeadlines();
  }
}

void StepRunner::Stop() {
  std::deque<std::unique_ptr<Task>> dropped;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    dropped.swap(queue_);
    for (const auto& task : dropped) ids_.erase(task->step.step_id());
    for (Task* task : running_) task->cancellation.Cancel();
  }
  for (const auto& task : dropped) {
    Report(task->step, environment_.clock->Now(),
           FailureResult(kExitInvalid, "agent stopping; step not run"));
  }
  for (std::thread& worker : workers_) worker.join();
  watchdog_.join();
}

void StepRunner::Report(const Step& step, absl::Time started_at, StepResult result) {
  if (result.output().size() > options_.max_output_bytes) {
    result = FailureResult(kExitInvalid,
                           absl::StrCat("output of ", result.output().size(),
                                        " bytes exceeds the limit of ", options_.max_output_bytes));
  }
  result.set_step_id(step.step_id());
  result.set_step_type(step.step_type());
  *result.mutable_started_at() = ToProto(started_at);
  *result.mutable_finished_at() = ToProto(environment_.clock->Now());
  on_result_(std::move(result));
}

int StepRunner::running() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(running_.size());
}

int StepRunner::queued() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(queue_.size());
}

}  // namespace assisted::agent::steps
