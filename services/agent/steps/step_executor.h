// File: services/agent/steps/step_executor.h
//
// The contract between the agent's step runner and the code that carries out one kind of step
// (an "executor"): the executor interface, the per-step context through which executors reach
// the outside world (processes, time, cancellation, the log-chunk upload, simulation hooks), and
// the helpers that build results.
//
//   class Inventory final : public StepExecutor {
//     StepType type() const override { return types::v1::STEP_TYPE_INVENTORY; }
//     StepResult Run(const Step& step, StepContext& context) override { ... }
//   };
//
// Executors validate their arguments first and answer bad ones with InvalidArgsResult (exit
// code -1). They never throw, and they stop promptly once the context says cancelled; every
// blocking call they make is bounded by context.Budget().

#ifndef ASSISTED_SERVICES_AGENT_STEPS_STEP_EXECUTOR_H_
#define ASSISTED_SERVICES_AGENT_STEPS_STEP_EXECUTOR_H_

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "assisted/agent/v1/agent_service.pb.h"
#include "assisted/types/v1/step.pb.h"
#include "lib/log/log.h"
#include "lib/process/subprocess.h"
#include "lib/time/clock.h"

namespace assisted::agent::steps {

using types::v1::Step;
using types::v1::StepResult;
using types::v1::StepType;

struct SimulationHooks;  // simulation.h
class InstallReporter;   // install.h

// Exit code of a result for an unknown step, bad arguments, or a step that overran its deadline.
inline constexpr int kExitInvalid = -1;

// The canonical name of a step type, also the prefix of step ids: STEP_TYPE_CONNECTIVITY_CHECK ->
// "connectivity-check". Empty for UNSPECIFIED and values outside the enum.
std::string StepTypeName(StepType type);

// Tells a running step to stop. Set once by the runner (deadline passed, agent stopping); read
// by the executor between units of work.
class Cancellation {
 public:
  void Cancel() {
    if (!notification_.HasBeenNotified()) notification_.Notify();
  }
  bool cancelled() const { return notification_.HasBeenNotified(); }
  // Sleeps up to `timeout` (real time), waking early on cancellation. Returns cancelled().
  bool SleepUnlessCancelled(absl::Duration timeout) const {
    return notification_.WaitForNotificationWithTimeout(timeout);
  }

 private:
  absl::Notification notification_;
};

// Where logs-gather sends the pieces of a log bundle (the agent's session queues them for the
// orchestrator). Send may block while the session's outgoing buffer is full; it returns an error
// when the bundle cannot be delivered at all, and the step then fails.
class LogChunkSink {
 public:
  virtual ~LogChunkSink() = default;
  virtual absl::Status Send(const agent::v1::LogChunk& chunk) = 0;
};

// What a step may use besides its arguments. Built by the runner for each step.
struct StepContext {
  process::ProcessRunner& processes;  // every external command goes through it
  const Clock& clock;                 // time of day and the deadline; durations use steady time
  const Cancellation& cancellation;
  LogChunkSink& log_chunks;
  // Non-null when the agent simulates a host: executors then take the hooks' answers instead of
  // touching the machine (see simulation.h). Null on a real host.
  const SimulationHooks* simulation = nullptr;
  log::Logger log = log::Logger::Discard();
  absl::Time deadline = absl::InfiniteFuture();
  // Where the install step reports stages and hands over the reboot; null: dropped.
  InstallReporter* install = nullptr;

  bool cancelled() const { return cancellation.cancelled(); }
  // Time left before the deadline (zero once it passed).
  absl::Duration Remaining() const;
  // `limit`, shortened to what is left before the deadline: the bound for one blocking call.
  absl::Duration Budget(absl::Duration limit) const { return std::min(limit, Remaining()); }
};

// Carries out one kind of step. Implementations are thread-safe: the runner never runs two steps
// of the same type at once, but the executor object is shared across time and threads.
class StepExecutor {
 public:
  virtual ~StepExecutor() = default;
  virtual StepType type() const = 0;
  // Time limit when the Step carries none.
  virtual absl::Duration default_timeout() const { return absl::Minutes(10); }
  // Runs `step` (already checked to be of type()) and returns its result. The runner fills in
  // step_id, step_type and the timestamps.
  virtual StepResult Run(const Step& step, StepContext& context) = 0;
};

// Result builders. `error` is the human-readable reason shown to users.
// Executors of a step type with a typed report (step.proto) set it on the result.
StepResult SuccessResult(std::string output = "");
StepResult FailureResult(int exit_code, absl::string_view error, std::string output = "");
// exit_code -1 with "invalid arguments: <status message>".
StepResult InvalidArgsResult(const absl::Status& status);

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_STEP_EXECUTOR_H_
