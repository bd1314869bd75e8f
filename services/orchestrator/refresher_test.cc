// File: services/orchestrator/refresher_test.cc
//
// The one refresher on an in-memory inventory and a fake clock: hosts move by the host table,
// the cluster follows by the cluster table, and a lost compare-and-set is re-read.

#include "services/orchestrator/refresher.h"

#include "gtest/gtest.h"
#include "lib/step_reports/reference_json.h"
#include "lib/testing/status_matchers.h"
#include "lib/time/clock.h"
#include "prometheus/registry.h"
#include "services/orchestrator/core/validation_ids.h"
#include "services/orchestrator/install_metrics.h"
#include "services/orchestrator/testing/fake_inventory.h"
#include "services/orchestrator/testing/healthy_world.h"

namespace assisted::orchestrator {
namespace {

using ::assisted::testing::IsOk;
using testing::AddHealthyCluster;
using testing::HostId;
using testing::kInfraEnvId;

class RefresherTest : public ::testing::Test {
 protected:
  RefresherTest() { AddHealthyCluster(inventory_, clock_.Now()); }

  // The host `index` reports no disks any more.
  absl::Status TakeDisksOf(int index) {
    core::HostFieldsUpdate no_disks;
    *no_disks.fields.mutable_inventory() = inventory_.Host(kInfraEnvId, HostId(index)).inventory();
    no_disks.fields.mutable_inventory()->clear_disks();
    no_disks.Mark("inventory");
    return inventory_.UpdateHost(kInfraEnvId, HostId(index), no_disks, 0).status();
  }

  FakeClock clock_;
  testing::FakeInventory inventory_{clock_};
  LivenessTracker liveness_{"replica-under-test", clock_};
  InventoryEvents events_{inventory_, {}, clock_, log::Logger::Discard()};
  Refresher refresher_{inventory_, {}, clock_, liveness_, events_, log::Logger::Discard()};
};

TEST_F(RefresherTest, DiscoveredHostsWithHealthyReportsBecomeKnownAndTheClusterReady) {
  absl::StatusOr<RefreshOutcome> outcome = refresher_.RefreshCluster("c1");
  ASSERT_THAT(outcome, IsOk());
  for (int i = 1; i <= 3; ++i) {
    const types::v1::Host host = inventory_.Host(kInfraEnvId, HostId(i));
    EXPECT_EQ(host.status(), types::v1::HOST_STATUS_KNOWN) << host.status_info();
  }
  const types::v1::Cluster cluster = inventory_.Cluster("c1");
  EXPECT_EQ(cluster.status(), types::v1::CLUSTER_STATUS_READY) << cluster.status_info();
  EXPECT_TRUE(outcome->cluster_written);
  bool status_event = false;
  for (const types::v1::Event& event : inventory_.Events()) {
    status_event = status_event || event.name() == "host_status_updated";
  }
  EXPECT_TRUE(status_event);
}

TEST_F(RefresherTest, TheRefreshReadsTheTypedReportsAndNeverTheirJsonText) {
  // Every report text field garbage, the typed reports healthy: were any of the texts parsed
  // (as every refresh did before the typed fields), the host's checks would pend.
  for (int i = 1; i <= 3; ++i) {
    types::v1::Host host = inventory_.Host(kInfraEnvId, HostId(i));
    for (const step_reports::HostReportField& report : step_reports::HostReportFields()) {
      host.GetReflection()->SetString(&host, host.GetDescriptor()->FindFieldByName(report.text),
                                      "{not json");
    }
    inventory_.AddHost(host);
  }
  ASSERT_THAT(refresher_.RefreshCluster("c1"), IsOk());
  for (int i = 1; i <= 3; ++i) {
    const types::v1::Host host = inventory_.Host(kInfraEnvId, HostId(i));
    EXPECT_EQ(host.status(), types::v1::HOST_STATUS_KNOWN) << host.status_info();
  }
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_READY);
}

TEST_F(RefresherTest, ASecondRefreshOfAnUnchangedClusterWritesNothing) {
  ASSERT_THAT(refresher_.RefreshCluster("c1"), IsOk());
  const int writes = inventory_.host_writes();
  const int64_t version = inventory_.Cluster("c1").resource_version();
  absl::StatusOr<RefreshOutcome> again = refresher_.RefreshCluster("c1");
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->hosts_written, 0);
  EXPECT_FALSE(again->cluster_written);
  EXPECT_EQ(inventory_.host_writes(), writes);
  EXPECT_EQ(inventory_.Cluster("c1").resource_version(), version);
}

TEST_F(RefresherTest, AHostThatLosesItsDisksGoesInsufficientAndTheClusterFollows) {
  ASSERT_THAT(refresher_.RefreshCluster("c1"), IsOk());
  ASSERT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_READY);
  ASSERT_THAT(TakeDisksOf(2), IsOk());
  ASSERT_THAT(refresher_.RefreshCluster("c1"), IsOk());
  EXPECT_EQ(inventory_.Host(kInfraEnvId, HostId(2)).status(), types::v1::HOST_STATUS_INSUFFICIENT);
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_INSUFFICIENT);
}

// The cluster's status_info and validation messages follow its hosts even when its status and
// validation outcomes stay the same: they were written only when an outcome changed, so after
// a reset the cluster still said "master-0 (cancelled)" while the host was resetting.
TEST_F(RefresherTest, TheClusterExplainsItselfAnewWhenOnlyTheReasonChanges) {
  ASSERT_THAT(TakeDisksOf(2), IsOk());
  ASSERT_THAT(refresher_.RefreshCluster("c1"), IsOk());
  const types::v1::Cluster one_short = inventory_.Cluster("c1");
  ASSERT_EQ(one_short.status(), types::v1::CLUSTER_STATUS_INSUFFICIENT);
  ASSERT_THAT(TakeDisksOf(3), IsOk());
  ASSERT_THAT(refresher_.RefreshCluster("c1"), IsOk());
  const types::v1::Cluster two_short = inventory_.Cluster("c1");
  EXPECT_EQ(two_short.status(), types::v1::CLUSTER_STATUS_INSUFFICIENT);
  EXPECT_NE(two_short.status_info(), one_short.status_info());
  auto message = [](const types::v1::Cluster& cluster) {
    for (const types::v1::ValidationResult& v : cluster.validations_info()) {
      if (v.id() == core::cluster_id::kAllHostsAreReadyToInstall) return v.message();
    }
    return std::string("no such validation");
  };
  EXPECT_NE(message(two_short), message(one_short));
  // And a refresh with nothing new still writes nothing.
  ASSERT_THAT(refresher_.RefreshCluster("c1"), IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").resource_version(), two_short.resource_version());
}

// Before, only host validations were counted: a cluster that went insufficient left no trace
// in the metrics.
TEST_F(RefresherTest, AClusterValidationThatStartsFailingIsCountedOnce) {
  prometheus::Registry registry;
  InstallMetrics metrics(registry);
  Refresher counting{inventory_,        {},      clock_, liveness_, events_, log::Logger::Discard(),
                     /*files=*/nullptr, &metrics};
  ASSERT_THAT(counting.RefreshCluster("c1"), IsOk());
  ASSERT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_READY);
  ASSERT_THAT(TakeDisksOf(2), IsOk());
  ASSERT_THAT(counting.RefreshCluster("c1"), IsOk());
  ASSERT_THAT(counting.RefreshCluster("c1"), IsOk());  // still failing: not news
  double failed = -1;
  for (const prometheus::MetricFamily& family : registry.Collect()) {
    if (family.name != "assisted_cluster_validation_failures_total") continue;
    for (const prometheus::ClientMetric& metric : family.metric) {
      if (metric.label[0].value == core::cluster_id::kAllHostsAreReadyToInstall)
        failed = metric.counter.value;
    }
  }
  EXPECT_EQ(failed, 1);
}

TEST_F(RefresherTest, ALostCompareAndSetIsReadAgainAndDecidedAgain) {
  inventory_.FailNext("UpdateHostStatus", absl::AbortedError("moved by another replica"));
  ASSERT_THAT(refresher_.RefreshCluster("c1"), IsOk());
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_READY);
}

TEST_F(RefresherTest, AHostSilentPastTheDisconnectionTimeoutGoesDisconnected) {
  ASSERT_THAT(refresher_.RefreshCluster("c1"), IsOk());
  clock_.Advance(absl::Minutes(3) + absl::Seconds(1));
  ASSERT_THAT(refresher_.RefreshCluster("c1"), IsOk());
  EXPECT_EQ(inventory_.Host(kInfraEnvId, HostId(1)).status(), types::v1::HOST_STATUS_DISCONNECTED);
  EXPECT_EQ(inventory_.Cluster("c1").status(), types::v1::CLUSTER_STATUS_INSUFFICIENT);
}

}  // namespace
}  // namespace assisted::orchestrator
