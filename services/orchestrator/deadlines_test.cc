// File: services/orchestrator/deadlines_test.cc
//
// The monitor's timetable on a fake clock: keys come due in time order and only when due, and
// a deadline set sooner than the one the monitor sleeps towards wakes it at once.

#include "services/orchestrator/deadlines.h"

#include <thread>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/time/clock.h"

namespace assisted::orchestrator {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(DeadlinesTest, KeysComeDueEarliestFirstAndOnlyOnceTheirTimeCame) {
  FakeClock clock;
  Deadlines deadlines(clock);
  const absl::Time start = clock.Now();
  deadlines.Set("late", start + absl::Minutes(3));
  deadlines.Set("early", start + absl::Minutes(1));
  deadlines.Set("middle", start + absl::Minutes(2));
  EXPECT_EQ(deadlines.Earliest(), start + absl::Minutes(1));
  EXPECT_THAT(deadlines.TakeDue(start), IsEmpty());
  EXPECT_THAT(deadlines.TakeDue(start + absl::Minutes(2)), ElementsAre("early", "middle"));
  EXPECT_THAT(deadlines.TakeDue(start + absl::Minutes(2)), IsEmpty());  // taken once
  EXPECT_EQ(deadlines.size(), 1u);
  EXPECT_THAT(deadlines.TakeDue(start + absl::Hours(1)), ElementsAre("late"));
  EXPECT_EQ(deadlines.Earliest(), absl::InfiniteFuture());
}

TEST(DeadlinesTest, SettingAKeyAgainMovesItsOneDeadlineAndCancelRemovesIt) {
  FakeClock clock;
  Deadlines deadlines(clock);
  const absl::Time start = clock.Now();
  deadlines.Set("host", start + absl::Minutes(1));
  deadlines.Set("host", start + absl::Minutes(5));
  EXPECT_EQ(deadlines.size(), 1u);
  EXPECT_THAT(deadlines.TakeDue(start + absl::Minutes(2)), IsEmpty());
  deadlines.SetIfUnset("host", start);  // has one: unchanged
  EXPECT_EQ(deadlines.Earliest(), start + absl::Minutes(5));
  deadlines.Cancel("host");
  EXPECT_FALSE(deadlines.Has("host"));
  EXPECT_THAT(deadlines.TakeDue(start + absl::Hours(1)), IsEmpty());
}

TEST(DeadlinesTest, ADeadlineSetSoonerWakesAMonitorSleepingTowardsALaterOne) {
  FakeClock clock;
  Deadlines deadlines(clock);
  deadlines.Set("far", clock.Now() + absl::Hours(1));
  absl::Notification woke;
  std::thread monitor([&] {
    // Without the early wake this would sleep an hour of real time.
    deadlines.WaitForDue(absl::Hours(1));
    woke.Notify();
  });
  deadlines.AwaitWaiter();
  deadlines.Set("near", clock.Now());
  EXPECT_TRUE(woke.WaitForNotificationWithTimeout(absl::Seconds(30)));
  deadlines.Stop();
  monitor.join();
  EXPECT_THAT(deadlines.TakeDue(clock.Now()), ElementsAre("near"));
}

TEST(DeadlinesTest, ALaterDeadlineDoesNotWakeTheMonitorAndStopDoes) {
  FakeClock clock;
  Deadlines deadlines(clock);
  deadlines.Set("near", clock.Now() + absl::Hours(1));
  absl::Notification woke;
  bool running = true;
  std::thread monitor([&] {
    running = deadlines.WaitForDue(absl::Hours(2));
    woke.Notify();
  });
  deadlines.AwaitWaiter();
  deadlines.Set("later", clock.Now() + absl::Hours(2));
  EXPECT_FALSE(woke.HasBeenNotified());
  deadlines.Stop();
  EXPECT_TRUE(woke.WaitForNotificationWithTimeout(absl::Seconds(30)));
  monitor.join();
  EXPECT_FALSE(running);  // stopped
}

}  // namespace
}  // namespace assisted::orchestrator
