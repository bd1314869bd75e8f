// File: services/orchestrator/refresh_scheduler_test.cc
//
// When the hub's refreshes run, with a fake judge and a fake clock: an agent's own work goes
// ahead of a herd's Watch echoes, waiting refreshes of one target coalesce, an echo of a
// version already judged is never refreshed, and an echo that arrives while an action's
// refresh runs waits for it and is dropped when it judged it. One worker, held at a gate while
// work is queued, makes the order deterministic: no sleeping.

#include "services/orchestrator/refresh_scheduler.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/time/clock.h"
#include "prometheus/registry.h"

namespace assisted::orchestrator {
namespace {

namespace inv = inventory::v1;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

RefreshTarget Cluster(const std::string& id) { return RefreshTarget{"", "", id}; }

inv::WatchEvent ClusterChanged(const std::string& id, int64_t version) {
  inv::WatchEvent event;
  event.set_kind(inv::RESOURCE_KIND_CLUSTER);
  event.set_id(id);
  event.set_resource_version(version);
  return event;
}

class RefreshSchedulerTest : public ::testing::Test {
 protected:
  // Holds the one worker until Release, so everything queued meanwhile waits.
  void HoldTheWorker() {
    absl::Notification held;
    ASSERT_TRUE(scheduler_.RunSessionWork([this, &held] {
      held.Notify();
      gate_.WaitForNotification();
    }));
    held.WaitForNotification();
  }
  void Release() {
    gate_.Notify();
    scheduler_.WaitIdle();
  }

  void Record(const std::string& what) {
    absl::MutexLock lock(&mu_);
    ran_.push_back(what);
  }
  std::vector<std::string> Ran() {
    absl::MutexLock lock(&mu_);
    return ran_;
  }

  // What the refresher reports of a cluster refreshed at `version`, as the hub relays it.
  static RefreshOutcome JudgedAt(const std::string& cluster_id, int64_t version) {
    RefreshOutcome outcome;
    outcome.cluster.emplace();
    outcome.cluster->set_id(cluster_id);
    outcome.cluster->set_resource_version(version);
    return outcome;
  }

  // Judges every cluster at `version_` (what the inventory would return), reported as the
  // refresher reports its refreshes.
  absl::StatusOr<RefreshOutcome> Judge(const RefreshTarget& target, const types::v1::Host*,
                                       RefreshCause cause) {
    Record(absl::StrCat("refresh ", target.Key(), " (", RefreshCauseName(cause), ")"));
    scheduler_.Started(target.Key());
    const RefreshOutcome outcome = JudgedAt(target.cluster_id, version_);
    scheduler_.Finished(target.Key(), &outcome);
    return outcome;
  }

  double Skipped() {
    for (const prometheus::MetricFamily& family : registry_.Collect()) {
      if (family.name == "assisted_orchestrator_refreshes_skipped_total") {
        return family.metric.at(0).counter.value;
      }
    }
    return -1;
  }

  FakeClock clock_;
  prometheus::Registry registry_;
  HubMetrics metrics_{registry_};
  absl::Notification gate_;
  absl::Mutex mu_;
  std::vector<std::string> ran_ ABSL_GUARDED_BY(mu_);
  int64_t version_ = 1;
  RefreshScheduler scheduler_{{.workers = 1, .max_backlog = 100000},
                              [this](const RefreshTarget& target, const types::v1::Host* host,
                                     RefreshCause cause) { return Judge(target, host, cause); },
                              metrics_,
                              clock_,
                              log::Logger::Discard()};
};

TEST_F(RefreshSchedulerTest, AHostsOwnRefreshRunsBeforeTheEchoesOfARegistrationHerd) {
  ASSERT_NO_FATAL_FAILURE(HoldTheWorker());
  // A herd registered: the Watch echoes its writes, one refresh per cluster waits.
  constexpr int kHerdClusters = 1000;
  for (int i = 0; i < kHerdClusters; ++i) {
    scheduler_.RefreshLater(Cluster(absl::StrCat("herd-", i)), ClusterChanged("herd", 0));
  }
  // Then one more agent registers: its message and the refresh it causes are session work.
  ASSERT_TRUE(scheduler_.RunSessionWork([this] {
    Record("register");
    scheduler_.RefreshNow(Cluster("mine"));
  }));
  Release();
  const std::vector<std::string> ran = Ran();
  ASSERT_EQ(ran.size(), kHerdClusters + 2u);
  EXPECT_EQ(ran[0], "register");
  EXPECT_EQ(ran[1], "refresh mine (agent)");
  EXPECT_EQ(ran[2], "refresh herd-0 (watch)");  // the echoes keep their order after it
  EXPECT_EQ(ran.back(), absl::StrCat("refresh herd-", kHerdClusters - 1, " (watch)"));
}

TEST_F(RefreshSchedulerTest, EveryAgentsSessionWorkGoesAheadOfEchoesQueuedBeforeIt) {
  ASSERT_NO_FATAL_FAILURE(HoldTheWorker());
  scheduler_.RefreshLater(Cluster("echo-1"));
  scheduler_.RefreshLater(Cluster("echo-2"));
  for (const char* agent : {"agent-1", "agent-2"}) {
    ASSERT_TRUE(scheduler_.RunSessionWork([this, agent] { Record(agent); }));
  }
  Release();
  EXPECT_THAT(Ran(), ElementsAre("agent-1", "agent-2", "refresh echo-1 (monitor)",
                                 "refresh echo-2 (monitor)"));
}

TEST_F(RefreshSchedulerTest, RefreshesOfOneClusterAskedForWhileOneWaitsRunOnce) {
  ASSERT_NO_FATAL_FAILURE(HoldTheWorker());
  for (int version = 1; version <= 5; ++version) {
    scheduler_.RefreshLater(Cluster("c1"), ClusterChanged("c1", version));
  }
  scheduler_.RefreshLater(Cluster("c2"));
  scheduler_.RefreshLater(Cluster("c1"));
  Release();
  EXPECT_THAT(Ran(), ElementsAre("refresh c1 (monitor)", "refresh c2 (monitor)"));
}

TEST_F(RefreshSchedulerTest, AnEchoOfAVersionAlreadyJudgedHereIsNotRefreshed) {
  version_ = 7;
  scheduler_.RefreshNow(Cluster("c1"));  // judges (and writes) c1 at version 7
  scheduler_.RefreshLater(Cluster("c1"), ClusterChanged("c1", 7));  // its own write, echoed
  scheduler_.WaitIdle();
  EXPECT_TRUE(scheduler_.AlreadyJudged(ClusterChanged("c1", 6)));
  EXPECT_FALSE(scheduler_.AlreadyJudged(ClusterChanged("c1", 8)));
  scheduler_.RefreshLater(Cluster("c1"), ClusterChanged("c1", 8));  // a change made elsewhere
  scheduler_.WaitIdle();
  EXPECT_THAT(Ran(), ElementsAre("refresh c1 (agent)", "refresh c1 (watch)"));
}

TEST_F(RefreshSchedulerTest, AWaitingEchoJudgedMeanwhileByTheHostsOwnRefreshIsSkipped) {
  ASSERT_NO_FATAL_FAILURE(HoldTheWorker());
  version_ = 3;
  scheduler_.RefreshLater(Cluster("c1"), ClusterChanged("c1", 3));
  ASSERT_TRUE(scheduler_.RunSessionWork([this] { scheduler_.RefreshNow(Cluster("c1")); }));
  Release();
  EXPECT_THAT(Ran(), ElementsAreArray({"refresh c1 (agent)"}));  // the echo found v3 judged
}

// A user action writes, then refreshes on its own thread (Refresher::RefreshClusterAfter,
// reported from before the write): the Watch echo of its write arrives meanwhile.
TEST_F(RefreshSchedulerTest, AnEchoArrivingWhileAnActionsRefreshRunsIsDroppedWhenItJudgedIt) {
  scheduler_.Started("c1");
  scheduler_.RefreshLater(Cluster("c1"), ClusterChanged("c1", 3));  // the action's write
  scheduler_.WaitIdle();
  EXPECT_THAT(Ran(), ElementsAre()) << "judged before the action's refresh ended";
  const RefreshOutcome judged = JudgedAt("c1", 4);  // it read version 3 and wrote 4
  scheduler_.Finished("c1", &judged);
  scheduler_.RefreshLater(Cluster("c1"), ClusterChanged("c1", 4));  // its write's echo, late
  scheduler_.WaitIdle();
  EXPECT_THAT(Ran(), ElementsAre());
  EXPECT_EQ(Skipped(), 1);
}

TEST_F(RefreshSchedulerTest, AChangeTheActionsRefreshDidNotJudgeRunsWhenItEnds) {
  scheduler_.Started("c1");
  scheduler_.RefreshLater(Cluster("c1"), ClusterChanged("c1", 5));  // someone else's, later
  const RefreshOutcome judged = JudgedAt("c1", 4);
  scheduler_.Finished("c1", &judged);
  scheduler_.WaitIdle();
  EXPECT_THAT(Ran(), ElementsAre("refresh c1 (watch)"));
}

TEST_F(RefreshSchedulerTest, AChangeWaitingForAFailedRefreshRunsWhenItEnds) {
  scheduler_.Started("c1");
  scheduler_.RefreshLater(Cluster("c1"), ClusterChanged("c1", 3));
  scheduler_.Finished("c1", nullptr);  // the action's write or refresh failed
  scheduler_.WaitIdle();
  EXPECT_THAT(Ran(), ElementsAre("refresh c1 (watch)"));
}

// The action's refresh may have read before the agent's write: the agent's own refresh runs.
TEST_F(RefreshSchedulerTest, AnAgentsRefreshDoesNotWaitForAnActionsRefresh) {
  scheduler_.Started("c1");
  scheduler_.RefreshNow(Cluster("c1"));
  EXPECT_THAT(Ran(), ElementsAre("refresh c1 (agent)"));
  scheduler_.Finished("c1", nullptr);
}

// An agent's result is written, then its refresh runs (hub_results.cc): the write's echo may
// arrive in between.
TEST_F(RefreshSchedulerTest, AWritesEchoArrivingBeforeItsRefreshWaitsForItAndIsDropped) {
  version_ = 3;
  {
    const RefreshScheduler::Expecting expecting(scheduler_, Cluster("c1"));
    scheduler_.RefreshLater(Cluster("c1"), ClusterChanged("c1", 3));  // the write's echo
    scheduler_.WaitIdle();
    scheduler_.RefreshNow(Cluster("c1"));  // reads version 3
  }
  scheduler_.WaitIdle();
  EXPECT_THAT(Ran(), ElementsAre("refresh c1 (agent)"));
  EXPECT_EQ(Skipped(), 1);
}

}  // namespace
}  // namespace assisted::orchestrator
