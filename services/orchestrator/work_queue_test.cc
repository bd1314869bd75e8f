// File: services/orchestrator/work_queue_test.cc
//
// The work queue's two lanes, with one worker held at a gate so the order in which queued work
// runs is deterministic, and a fake clock aging the background lane: no sleeping.

#include "services/orchestrator/work_queue.h"

#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/time/clock.h"

namespace assisted::orchestrator {
namespace {

using ::testing::ElementsAre;
using Lane = WorkQueue::Lane;

// One worker, held at a gate until Release; records what ran, in order.
class WorkQueueTest : public ::testing::Test {
 protected:
  WorkQueueTest() {
    EXPECT_TRUE(queue_.Submit([this] {
      held_.Notify();
      gate_.WaitForNotification();
    }));
    held_.WaitForNotification();  // the worker holds the gate: nothing else is taken yet
  }

  void Queue(const std::string& name, Lane lane) {
    ASSERT_TRUE(queue_.Submit(
        [this, name] {
          absl::MutexLock lock(&mu_);
          ran_.push_back(name);
        },
        lane));
  }
  std::vector<std::string> Release() {
    gate_.Notify();
    queue_.WaitIdle();
    absl::MutexLock lock(&mu_);
    return ran_;
  }

  FakeClock clock_;
  absl::Notification held_;
  absl::Notification gate_;
  absl::Mutex mu_;
  std::vector<std::string> ran_ ABSL_GUARDED_BY(mu_);
  WorkQueue queue_{/*threads=*/1, /*max_backlog=*/100, &clock_, absl::Seconds(1)};
};

TEST_F(WorkQueueTest, SessionWorkRunsBeforeBackgroundWorkQueuedEarlier) {
  Queue("echo-1", Lane::kBackground);
  Queue("echo-2", Lane::kBackground);
  Queue("session-1", Lane::kSession);
  Queue("session-2", Lane::kSession);
  EXPECT_THAT(Release(), ElementsAre("session-1", "session-2", "echo-1", "echo-2"));
}

TEST_F(WorkQueueTest, BackgroundWorkThatWaitedTooLongGetsEveryOtherTurnUntilCaughtUp) {
  Queue("echo-1", Lane::kBackground);
  Queue("echo-2", Lane::kBackground);
  clock_.Advance(absl::Seconds(2));  // the echoes have waited past max_background_wait
  for (const char* session : {"session-1", "session-2", "session-3"}) {
    Queue(session, Lane::kSession);
  }
  EXPECT_THAT(Release(), ElementsAre("echo-1", "session-1", "echo-2", "session-2", "session-3"));
}

TEST(WorkQueueBacklogTest, TheBacklogBoundCountsBothLanes) {
  WorkQueue queue(/*threads=*/1, /*max_backlog=*/2);
  absl::Notification gate;
  absl::Notification taken;
  ASSERT_TRUE(queue.Submit([&] {
    taken.Notify();
    gate.WaitForNotification();
  }));
  taken.WaitForNotification();  // the worker holds it: the backlog is empty
  EXPECT_TRUE(queue.Submit([] {}, Lane::kBackground));
  EXPECT_TRUE(queue.Submit([] {}, Lane::kSession));
  EXPECT_FALSE(queue.Submit([] {}, Lane::kSession));
  EXPECT_EQ(queue.backlog(), 2u);
  gate.Notify();
  queue.WaitIdle();
}

}  // namespace
}  // namespace assisted::orchestrator
