#include "services/inventory/infra_env_store.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/inventory/store_test_base.h"

namespace assisted::inventory {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

using InfraEnvStoreTest = ResourceStoresTest;

TEST_F(InfraEnvStoreTest, AnInfraEnvWithLiveHostsIsDeletedOnlyWithForceAndTakesThemAlong) {
  const types::v1::InfraEnv infra_env = NewInfraEnv(alice_);
  ASSERT_THAT(NewHost(alice_, infra_env, Uuid(2, 1)), IsOk());
  EXPECT_THAT(infra_envs_->Delete(alice_, infra_env.id()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("still has 1 hosts")));
  EXPECT_THAT(infra_envs_->Get(alice_, infra_env.id()), IsOk());
  EXPECT_THAT(infra_envs_->Delete(bob_, infra_env.id(), {}, /*force=*/true),
              StatusIs(absl::StatusCode::kNotFound));
  ASSERT_THAT(infra_envs_->Delete(alice_, infra_env.id(), {}, /*force=*/true), IsOk());
  EXPECT_THAT(infra_envs_->Get(alice_, infra_env.id()), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(hosts_->Get(alice_, {infra_env.id(), Uuid(2, 1)}),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(InfraEnvStoreTest, ListsTheInfraEnvsOfAClusterItsTenantSees) {
  const types::v1::Cluster cluster = NewCluster(alice_, "c");
  const types::v1::InfraEnv bound = NewInfraEnv(alice_, cluster.id());
  NewInfraEnv(alice_);
  auto listed = infra_envs_->List(alice_, {.cluster_id = cluster.id()});
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->infra_envs_size(), 1);
  EXPECT_EQ(listed->infra_envs(0).id(), bound.id());
  EXPECT_EQ(infra_envs_->List(alice_, {})->infra_envs_size(), 2);
  EXPECT_EQ(infra_envs_->List(bob_, {})->infra_envs_size(), 0);
}

TEST_F(InfraEnvStoreTest, ItsPullSecretIsReadBackOnlyThroughGetPullSecret) {
  types::v1::InfraEnv to_be;
  to_be.set_name("discovery");
  auto created = infra_envs_->Create(alice_, to_be, R"({"auths":{}})");
  ASSERT_THAT(created, IsOk());
  EXPECT_TRUE(created->pull_secret_set());
  EXPECT_THAT(infra_envs_->GetPullSecret(Caller::System(), created->id()),
              IsOkAndHolds(R"({"auths":{}})"));
  EXPECT_THAT(infra_envs_->GetPullSecret(bob_, created->id()),
              StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace assisted::inventory
