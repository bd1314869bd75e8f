// File: services/agent/scheduler.h
//
// Delayed callbacks for the agent side: the protocol session (services/agent/protocol_session.h)
// waits out reconnect backoff and registration deadlines through a Scheduler, so tests drive
// time by hand and one thread serves any number of sessions (a 10,000-agent fleet has one).

#ifndef ASSISTED_SERVICES_AGENT_SCHEDULER_H_
#define ASSISTED_SERVICES_AGENT_SCHEDULER_H_

#include <functional>
#include <map>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace assisted::agent {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Runs `callback` once, `delay` from now, on a thread of the scheduler's. Callbacks must be
  // quick (they start asynchronous work, they do not do it). Thread-safe.
  virtual void After(absl::Duration delay, std::function<void()> callback) = 0;
};

// One thread running callbacks at their time (wall clock).
class TimerThread final : public Scheduler {
 public:
  TimerThread();
  // Stop()s.
  ~TimerThread() override;

  void After(absl::Duration delay, std::function<void()> callback) override;

  // Drops what is pending, joins the thread; later After() calls are ignored. Idempotent. Must
  // not be called from a callback.
  void Stop();

 private:
  void Loop();

  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::multimap<absl::Time, std::function<void()>> due_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;  // last: it uses everything above
};

}  // namespace assisted::agent

#endif  // ASSISTED_SERVICES_AGENT_SCHEDULER_H_
