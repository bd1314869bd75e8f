// File: services/orchestrator/testing/fake_inventory_test.cc
//
// The fake keeps the inventory's contract that the orchestrator's logic relies on.

#include "services/orchestrator/testing/fake_inventory.h"

#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::orchestrator::testing {
namespace {

namespace inv = inventory::v1;
using ::assisted::testing::IsOk;

types::v1::Host NewHost() {
  types::v1::Host host;
  host.set_id("h1");
  host.set_infra_env_id("ie1");
  host.set_cluster_id("c1");
  return host;
}

class FakeInventoryTest : public ::testing::Test {
 protected:
  FakeInventoryTest() {
    types::v1::InfraEnv infra_env;
    infra_env.set_id("ie1");
    infra_env.set_cluster_id("c1");
    inventory_.AddInfraEnv(infra_env);
    types::v1::Cluster cluster;
    cluster.set_id("c1");
    cluster.set_status(types::v1::CLUSTER_STATUS_INSUFFICIENT);
    inventory_.AddCluster(cluster);
  }

  core::HostFieldsUpdate Hostname(const std::string& name) {
    core::HostFieldsUpdate update;
    update.fields.set_requested_hostname(name);
    update.Mark("requested_hostname");
    return update;
  }

  FakeClock clock_;
  FakeInventory inventory_{clock_};
};

TEST_F(FakeInventoryTest, ANewHostStartsDiscoveringAtVersionOne) {
  auto created_or = inventory_.CreateHost(NewHost());
  ASSERT_THAT(created_or, IsOk());
  types::v1::Host created = *created_or;
  EXPECT_EQ(created.status(), types::v1::HOST_STATUS_DISCOVERING);
  EXPECT_EQ(created.resource_version(), 1);
  EXPECT_EQ(inventory_.CreateHost(NewHost()).status().code(), absl::StatusCode::kAlreadyExists);
}

TEST_F(FakeInventoryTest, AWriteOnAnOlderVersionIsAbortedAndChangesNothing) {
  ASSERT_THAT(inventory_.CreateHost(NewHost()).status(), IsOk());
  auto written_or = inventory_.UpdateHost("ie1", "h1", Hostname("a"), 1);
  ASSERT_THAT(written_or, IsOk());
  types::v1::Host written = *written_or;
  EXPECT_EQ(written.resource_version(), 2);
  EXPECT_EQ(inventory_.UpdateHost("ie1", "h1", Hostname("b"), 1).status().code(),
            absl::StatusCode::kAborted);
  EXPECT_EQ(inventory_.Host("ie1", "h1").requested_hostname(), "a");
  // 0: whatever version is stored.
  ASSERT_THAT(inventory_.UpdateHost("ie1", "h1", Hostname("c"), 0).status(), IsOk());
  EXPECT_EQ(inventory_.Host("ie1", "h1").requested_hostname(), "c");
}

TEST_F(FakeInventoryTest, AStatusCompareAndSetFromAStaleStatusIsAborted) {
  auto stored_or = inventory_.CreateHost(NewHost());
  ASSERT_THAT(stored_or, IsOk());
  types::v1::Host stored = *stored_or;
  ASSERT_THAT(inventory_.UpdateHostStatus(stored, types::v1::HOST_STATUS_KNOWN, "ok", Hostname("a"))
                  .status(),
              IsOk());
  EXPECT_EQ(inventory_.UpdateHostStatus(stored, types::v1::HOST_STATUS_INSUFFICIENT, "", {})
                .status()
                .code(),
            absl::StatusCode::kAborted);
  EXPECT_EQ(inventory_.Host("ie1", "h1").status(), types::v1::HOST_STATUS_KNOWN);
  EXPECT_EQ(inventory_.Host("ie1", "h1").requested_hostname(), "a");
}

TEST_F(FakeInventoryTest, ALeaseIsHeldUntilItsTtlPassesThenChangesHandsWithANewEpoch) {
  auto first_or = inventory_.AcquireLease("l", "a", absl::Seconds(30));
  ASSERT_THAT(first_or, IsOk());
  LeaseState first = *first_or;
  EXPECT_TRUE(first.granted);
  auto other_or = inventory_.AcquireLease("l", "b", absl::Seconds(30));
  ASSERT_THAT(other_or, IsOk());
  LeaseState other = *other_or;
  EXPECT_FALSE(other.granted);
  EXPECT_EQ(other.holder, "a");
  auto renewed_or = inventory_.AcquireLease("l", "a", absl::Seconds(30));
  ASSERT_THAT(renewed_or, IsOk());
  LeaseState renewed = *renewed_or;
  EXPECT_EQ(renewed.epoch, first.epoch);
  clock_.Advance(absl::Seconds(31));
  auto taken_or = inventory_.AcquireLease("l", "b", absl::Seconds(30));
  ASSERT_THAT(taken_or, IsOk());
  LeaseState taken = *taken_or;
  EXPECT_TRUE(taken.granted);
  EXPECT_GT(taken.epoch, first.epoch);
}

TEST_F(FakeInventoryTest, AFencedWriteFailsOnceItsLeaseChangedHands) {
  auto held_or = inventory_.AcquireLease("l", "a", absl::Seconds(30));
  ASSERT_THAT(held_or, IsOk());
  LeaseState held = *held_or;
  inv::LeaseFence fence;
  fence.set_name("l");
  fence.set_epoch(held.epoch);
  ArtifactWrite write{.cluster_id = "c1", .name = "x", .content = "1", .fence = fence};
  ASSERT_THAT(inventory_.PutArtifact(write), IsOk());
  ASSERT_THAT(inventory_.ReleaseLease("l", "a"), IsOk());
  ASSERT_THAT(inventory_.AcquireLease("l", "b", absl::Seconds(30)).status(), IsOk());
  EXPECT_EQ(inventory_.PutArtifact(write).code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(FakeInventoryTest, WatchDeliversEveryChangeInOrderNumberedUntilUnsubscribed) {
  std::vector<inv::WatchEvent> seen;
  auto subscription =
      inventory_.Watch({inv::RESOURCE_KIND_HOST}, false,
                       {.on_change = [&](const inv::WatchEvent& event) { seen.push_back(event); }});
  ASSERT_THAT(inventory_.CreateHost(NewHost()).status(), IsOk());
  ASSERT_THAT(inventory_.UpdateHost("ie1", "h1", Hostname("a"), 0).status(), IsOk());
  core::ClusterFieldsUpdate cluster_change;
  cluster_change.fields.set_name("n");
  cluster_change.Mark("name");
  // Not a host: not delivered to this subscriber.
  ASSERT_THAT(inventory_.UpdateCluster("c1", cluster_change, 0).status(), IsOk());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].change_type(), inv::CHANGE_TYPE_CREATED);
  EXPECT_EQ(seen[1].resource_version(), 2);
  EXPECT_LT(seen[0].seq(), seen[1].seq());
  subscription.reset();
  ASSERT_THAT(inventory_.UpdateHost("ie1", "h1", Hostname("b"), 0).status(), IsOk());
  EXPECT_EQ(seen.size(), 2u);
}

}  // namespace
}  // namespace assisted::orchestrator::testing
