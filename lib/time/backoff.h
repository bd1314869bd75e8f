// File: lib/time/backoff.h
//
// Exponential backoff with jitter for reconnecting clients: 1 s, then ×1.6 per failure, each
// delay spread ±20 % at random so a fleet that lost its server together does not come back in
// lockstep, capped at 120 s (the defaults; all configurable).

#ifndef ASSISTED_LIB_TIME_BACKOFF_H_
#define ASSISTED_LIB_TIME_BACKOFF_H_

#include "absl/time/time.h"
#include "lib/random/random.h"

namespace assisted {

struct BackoffPolicy {
  absl::Duration initial = absl::Seconds(1);
  double multiplier = 1.6;
  double jitter = 0.2;  // each delay is within ±jitter of its nominal value
  absl::Duration max = absl::Seconds(120);
};

class Backoff {
 public:
  Backoff(BackoffPolicy policy, Random& random) : policy_(policy), random_(random) {}

  // The delay before the next attempt; grows with each call until Reset().
  absl::Duration Next();

  // After a success: the next failure waits the initial delay again.
  void Reset() { attempt_ = 0; }

 private:
  BackoffPolicy policy_;
  Random& random_;
  int attempt_ = 0;
};

}  // namespace assisted

#endif  // ASSISTED_LIB_TIME_BACKOFF_H_
