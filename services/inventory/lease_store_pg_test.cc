#include "services/inventory/lease_store.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/inventory/cluster_store.h"
#include "services/inventory/store_test_base.h"

namespace assisted::inventory {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

class LeaseStoreTest : public InventoryDbTest {
 protected:
  void SetUp() override {
    InventoryDbTest::SetUp();
    clusters_ = std::make_unique<ClusterStore>(*pool_);
    leases_ = std::make_unique<LeaseStore>(*pool_);
    cluster_id_ = CreateCluster(Caller::User("alice", "org-a"));
    ASSERT_FALSE(cluster_id_.empty());
  }

  absl::StatusOr<v1::LeaseResponse> Lease(const std::string& holder, v1::LeaseAction action,
                                          absl::Duration ttl = absl::Seconds(30)) {
    return leases_->Lease(action, "orchestrator-leader", holder, ttl);
  }

  // The database clock passes the lease's expiry: its expiry moves into the past.
  void ExpireLease() {
    ExecSql(
        "UPDATE leases SET expires_at = now() - interval '1 second' "
        "WHERE name = 'orchestrator-leader'");
  }

  std::string cluster_id_;
  std::unique_ptr<ClusterStore> clusters_;
  std::unique_ptr<LeaseStore> leases_;
};

TEST_F(LeaseStoreTest, LeaseChangesHandsOnlyWhenFreeAndBumpsTheEpochThen) {
  auto a = Lease("replica-a", v1::LEASE_ACTION_ACQUIRE);
  ASSERT_THAT(a, IsOk());
  EXPECT_TRUE(a->granted());
  EXPECT_EQ(a->epoch(), 1);
  auto b = Lease("replica-b", v1::LEASE_ACTION_ACQUIRE);
  ASSERT_THAT(b, IsOk());
  EXPECT_FALSE(b->granted());
  EXPECT_EQ(b->holder(), "replica-a");
  auto renewed = Lease("replica-a", v1::LEASE_ACTION_RENEW);
  EXPECT_TRUE(renewed->granted());
  EXPECT_EQ(renewed->epoch(), 1);
  EXPECT_TRUE(Lease("replica-a", v1::LEASE_ACTION_RELEASE)->granted());
  auto taken = Lease("replica-b", v1::LEASE_ACTION_ACQUIRE);
  EXPECT_TRUE(taken->granted());
  EXPECT_EQ(taken->epoch(), 2);
  EXPECT_FALSE(Lease("replica-a", v1::LEASE_ACTION_RENEW)->granted());
}

TEST_F(LeaseStoreTest, AnExpiredLeaseIsTakenOver) {
  ASSERT_TRUE(Lease("replica-a", v1::LEASE_ACTION_ACQUIRE)->granted());
  EXPECT_FALSE(Lease("replica-b", v1::LEASE_ACTION_ACQUIRE)->granted());
  ExpireLease();
  auto b = Lease("replica-b", v1::LEASE_ACTION_ACQUIRE);
  EXPECT_TRUE(b->granted());
  EXPECT_EQ(b->epoch(), 2);
}

TEST_F(LeaseStoreTest, WritesFromADeposedLeaderAreFencedOff) {
  auto a = Lease("replica-a", v1::LEASE_ACTION_ACQUIRE);
  ASSERT_TRUE(a->granted());
  ClusterStatusChange write{.expected = types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT,
                            .next = types::v1::CLUSTER_STATUS_INSUFFICIENT,
                            .fence = {.lease = "orchestrator-leader", .epoch = a->epoch()}};
  ExpireLease();
  auto b = Lease("replica-b", v1::LEASE_ACTION_ACQUIRE);
  ASSERT_TRUE(b->granted());
  EXPECT_THAT(clusters_->UpdateStatus(Caller::System(), cluster_id_, write),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("epoch 2")));
  write.fence.epoch = b->epoch();
  EXPECT_THAT(clusters_->UpdateStatus(Caller::System(), cluster_id_, write), IsOk());
  write.fence.lease = "no-such-lease";
  EXPECT_THAT(clusters_->UpdateStatus(Caller::System(), cluster_id_, write),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST_F(LeaseStoreTest, LeaseRequestsAreValidated) {
  EXPECT_THAT(leases_->Lease(v1::LEASE_ACTION_ACQUIRE, "", "h", absl::Seconds(1)),
              StatusIs(absl::StatusCode::kInvalidArgument, "name: required"));
  EXPECT_THAT(leases_->Lease(v1::LEASE_ACTION_ACQUIRE, "x", "", absl::Seconds(1)),
              StatusIs(absl::StatusCode::kInvalidArgument, "holder: required"));
  EXPECT_THAT(leases_->Lease(v1::LEASE_ACTION_UNSPECIFIED, "x", "h", absl::Seconds(1)),
              StatusIs(absl::StatusCode::kInvalidArgument, "action: required"));
  EXPECT_THAT(leases_->Lease(v1::LEASE_ACTION_ACQUIRE, "x", "h", absl::ZeroDuration()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ttl")));
}

}  // namespace
}  // namespace assisted::inventory
