#include "tests/harness/eventually.h"

#include <algorithm>

#include "absl/time/clock.h"

namespace assisted::testing {
namespace {

::testing::AssertionResult TimedOut(absl::string_view what, absl::Duration timeout,
                                    const std::string& seen) {
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << what << ": not within " << absl::FormatDuration(timeout);
  if (!seen.empty()) failure << "; last seen: " << seen;
  return failure;
}

}  // namespace

::testing::AssertionResult Eventually(const std::function<Observed()>& observe,
                                      absl::Duration timeout, absl::string_view what) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Duration pause = absl::Milliseconds(10);
  while (true) {
    Observed observed = observe();
    if (observed.met) return ::testing::AssertionSuccess();
    const absl::Time now = absl::Now();
    if (now >= deadline) return TimedOut(what, timeout, observed.seen);
    // Backoff, not a synchronisation sleep: a quick change is seen quickly, a slow one is not
    // asked about hundreds of times. The last pause ends at the deadline, for one last look.
    absl::SleepFor(std::min(pause, deadline - now));
    pause = std::min(pause * 2, absl::Milliseconds(250));
  }
}

::testing::AssertionResult Eventually(const std::function<bool()>& condition,
                                      absl::Duration timeout, absl::string_view what) {
  return Eventually([&] { return Observed{condition(), ""}; }, timeout, what);
}

::testing::AssertionResult EventuallyUnder(absl::Mutex& mu,
                                           const std::function<Observed()>& observe,
                                           absl::Duration timeout, absl::string_view what) {
  Observed observed;
  auto met = [&] {
    observed = observe();
    return observed.met;
  };
  absl::MutexLock lock(&mu);
  if (mu.AwaitWithTimeout(absl::Condition(&met), timeout)) return ::testing::AssertionSuccess();
  return TimedOut(what, timeout, observed.seen);
}

}  // namespace assisted::testing
