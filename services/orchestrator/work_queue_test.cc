// File: services/orchestrator/work_queue_test.cc
//
// The work queue's two lanes, with one worker held at a gate so the order in which queued work
// runs is deterministic: no sleeping.

#include "services/orchestrator/work_queue.h"

#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace assisted::orchestrator {
namespace {

using ::testing::ElementsAre;
using Lane = WorkQueue::Lane;

TEST(WorkQueueTest, SessionWorkRunsBeforeBackgroundWorkQueuedEarlier) {
  WorkQueue queue(/*threads=*/1, /*max_backlog=*/100);
  absl::Notification gate;
  ASSERT_TRUE(queue.Submit([&] { gate.WaitForNotification(); }, Lane::kSession));
  absl::Mutex mu;
  std::vector<std::string> ran;
  auto record = [&](std::string name) {
    return [&, name] {
      absl::MutexLock lock(&mu);
      ran.push_back(name);
    };
  };
  ASSERT_TRUE(queue.Submit(record("echo-1"), Lane::kBackground));
  ASSERT_TRUE(queue.Submit(record("echo-2"), Lane::kBackground));
  ASSERT_TRUE(queue.Submit(record("session-1"), Lane::kSession));
  ASSERT_TRUE(queue.Submit(record("session-2"), Lane::kSession));
  gate.Notify();
  queue.WaitIdle();
  EXPECT_THAT(ran, ElementsAre("session-1", "session-2", "echo-1", "echo-2"));
}

TEST(WorkQueueTest, TheBacklogBoundCountsBothLanes) {
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
