// File: services/agent/steps/step_runner.h
//
// Runs the steps the orchestrator sends, concurrently but bounded, and reports exactly one
// StepResult per accepted step. Rules:
//   - At most `max_concurrent` steps run at once (a fixed pool of worker threads).
//   - Never two steps of the same type at once: a second one WAITS in the queue until the first
//     finishes (it is not rejected, because the orchestrator expects a real result for every
//     step id it sends; e.g. a rejected disk-speed check would read as a failed one). Waiting
//     steps start in arrival order, skipping those whose type is busy.
//   - Unknown or unspecified types, ids not of the form "<type>-<8 hex>", too many or too large
//     arguments, a negative timeout and a full queue become a result with exit_code -1 and the
//     reason in `error`, as do arguments an executor refuses.
//   - Each step has a deadline (Step.timeout, else the executor's default, capped by
//     max_timeout). When it passes, the step's Cancellation is set and a result with exit code
//     -1 is reported at once (or when the executor returns, if that comes before the watchdog
//     looks); whatever the executor returns later is dropped. Its type stays
//     busy until the executor actually returns, so a cancelled step never overlaps a new one.
//   - Outputs larger than max_output_bytes (they must fit one gRPC message) become -1 results.
// Nothing is caught: executors validate their input and bound their work instead.

#ifndef ASSISTED_SERVICES_AGENT_STEPS_STEP_RUNNER_H_
#define ASSISTED_SERVICES_AGENT_STEPS_STEP_RUNNER_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

struct StepRunnerOptions {
  int max_concurrent = 4;                       // steps running at once (>= 1)
  int max_queued = 64;                          // steps waiting; beyond: rejected with -1
  absl::Duration max_timeout = absl::Hours(2);  // longer Step.timeout values are shortened
  int max_args = 16;                            // per step
  size_t max_args_bytes = 1 << 20;              // sum of a step's argument sizes
  size_t max_output_bytes = 3 << 20;            // a result must fit a 4 MiB gRPC message
  absl::Duration watchdog_tick = absl::Milliseconds(100);  // how often deadlines are checked
};

// The collaborators every step shares. All pointers must outlive the runner.
struct StepEnvironment {
  process::ProcessRunner* processes = nullptr;
  const Clock* clock = nullptr;
  LogChunkSink* log_chunks = nullptr;
  const SimulationHooks* simulation = nullptr;  // null on a real host
  log::Logger log = log::Logger::Discard();
  InstallReporter* install = nullptr;  // the install step's stages and reboot; null: dropped
};

// Receives every result. Called on a runner thread, or on the caller's thread inside Submit for
// a step rejected up front; never with the runner's lock held, so it may call Submit.
using ResultCallback = std::function<void(StepResult result)>;

class StepRunner {
 public:
  // INVALID_ARGUMENT for missing collaborators, a null executor, two executors of one type or
  // max_concurrent < 1.
  static absl::StatusOr<std::unique_ptr<StepRunner>> Create(
      StepRunnerOptions options, std::vector<std::unique_ptr<StepExecutor>> executors,
      StepEnvironment environment, ResultCallback on_result);

  // Stop()s.
  ~StepRunner();

  StepRunner(const StepRunner&) = delete;
  StepRunner& operator=(const StepRunner&) = delete;

  // Accepts `step`; OK means exactly one result for it will reach the callback (possibly a -1
  // rejection, delivered before Submit returns). ALREADY_EXISTS: a step with this id is queued
  // or running (nothing is reported for the duplicate). INVALID_ARGUMENT: the id is empty,
  // longer than 128 characters or not printable ASCII, so no result could carry it.
  // FAILED_PRECONDITION after Stop().
  absl::Status Submit(Step step);

  // Reports and cancels every running step whose deadline has passed by the clock. The
  // watchdog thread calls it every watchdog_tick; tests driving a FakeClock call it directly.
  void CheckDeadlines();

  // Rejects queued steps (-1, "agent stopping"), cancels running ones and waits for them to
  // return. Idempotent.
  void Stop();

  int running() const;
  int queued() const;

 private:
  struct Task;

  StepRunner(StepRunnerOptions options,
             absl::flat_hash_map<StepType, std::unique_ptr<StepExecutor>> executors,
             StepEnvironment environment, ResultCallback on_result);

  // Returns the reason `step` cannot run, or OK; sets *executor.
  absl::Status Check(const Step& step, StepExecutor** executor) const;
  void WorkerLoop();
  void WatchdogLoop();
  // Removes and returns the first queued task whose type is free, marking it running.
  std::unique_ptr<Task> TakeRunnable() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool HasRunnable() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Completes `result` for `step` and hands it to the callback.
  void Report(const Step& step, absl::Time started_at, StepResult result);

  const StepRunnerOptions options_;
  const absl::flat_hash_map<StepType, std::unique_ptr<StepExecutor>> executors_;
  const StepEnvironment environment_;
  const ResultCallback on_result_;

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<std::unique_ptr<Task>> queue_ ABSL_GUARDED_BY(mu_);
  std::vector<Task*> running_ ABSL_GUARDED_BY(mu_);            // owned by their worker threads
  absl::flat_hash_set<std::string> ids_ ABSL_GUARDED_BY(mu_);  // queued or running
  absl::flat_hash_set<int> busy_types_ ABSL_GUARDED_BY(mu_);

  std::vector<std::thread> workers_;
  std::thread watchdog_;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_STEP_RUNNER_H_
