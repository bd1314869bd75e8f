// File: lib/time/clock.h
//
// The project's only door to the time of day. Logic takes a `const Clock&` so that tests can
// drive time with FakeClock instead of sleeping; main() hands out RealClock.

#ifndef ASSISTED_LIB_TIME_CLOCK_H_
#define ASSISTED_LIB_TIME_CLOCK_H_

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace assisted {

class Clock {
 public:
  virtual ~Clock() = default;

  // Returns the current time. Thread-safe.
  virtual absl::Time Now() const = 0;
};

// Wall-clock time from the operating system.
class RealClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
};

// A clock that moves only when told to. Thread-safe, so a test thread can advance it while the
// code under test reads it.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1'700'000'000)) : now_(start) {}

  absl::Time Now() const override {
    absl::MutexLock lock(&mu_);
    return now_;
  }

  // Moves time forward by `delta` (which may be zero, never negative in sane tests).
  void Advance(absl::Duration delta) {
    absl::MutexLock lock(&mu_);
    now_ += delta;
  }

  void Set(absl::Time now) {
    absl::MutexLock lock(&mu_);
    now_ = now;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
};

}  // namespace assisted

#endif  // ASSISTED_LIB_TIME_CLOCK_H_
