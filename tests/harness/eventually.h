// File: tests/harness/eventually.h
//
// The one way a test waits for something another process or thread will make true.
//
//   EXPECT_TRUE(Eventually([&] { return Observed{host.status() == KNOWN, host.status_info()}; },
//                          absl::Seconds(10), "host known"));
//
// Contract: `observe` is asked at once, then again with backoff (10 ms doubling to 250 ms)
// until it reports `met` or `timeout` has passed; it is always asked once more at the deadline.
// On timeout the result's message names `what`, the timeout and the last value observed, so a
// failure says what was seen instead of "false". Where the waiting side has an event source (a
// mutex its producer unlocks), EventuallyUnder waits on that instead: no polling at all.

#ifndef ASSISTED_TESTS_HARNESS_EVENTUALLY_H_
#define ASSISTED_TESTS_HARNESS_EVENTUALLY_H_

#include <functional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace assisted::testing {

// What one look saw: whether the condition holds, and what to print if it never does.
struct Observed {
  bool met = false;
  std::string seen;
};

::testing::AssertionResult Eventually(const std::function<Observed()>& observe,
                                      absl::Duration timeout, absl::string_view what);

// For a plain condition (nothing worth printing beyond `what`).
::testing::AssertionResult Eventually(const std::function<bool()>& condition,
                                      absl::Duration timeout, absl::string_view what);

// Waits on `mu` until `observe` (called with `mu` held, after every release of it by anyone)
// reports `met`: for state a test's own threads or callbacks write under `mu`.
::testing::AssertionResult EventuallyUnder(absl::Mutex& mu,
                                           const std::function<Observed()>& observe,
                                           absl::Duration timeout, absl::string_view what);

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_EVENTUALLY_H_
