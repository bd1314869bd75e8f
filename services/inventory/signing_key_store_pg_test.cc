#include "services/inventory/signing_key_store.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/inventory/store_test_base.h"

namespace assisted::inventory {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using types::v1::Cluster;
using types::v1::Host;
using types::v1::InfraEnv;

using SigningKeyStoreTest = ResourceStoresTest;

TEST_F(SigningKeyStoreTest, InfraEnvSigningKeysAreForServicesAndRegeneratedByTheirTenantOnly) {
  const InfraEnv infra_env = NewInfraEnv(alice_);
  // Made on first use, the same on every later read, never shown to a tenant.
  auto key = signing_keys_->Get(Caller::System(), infra_env.id());
  ASSERT_THAT(key, IsOk());
  EXPECT_EQ(key->size(), 32u);
  EXPECT_THAT(signing_keys_->Get(Caller::System(), infra_env.id()), IsOkAndHolds(*key));
  EXPECT_THAT(signing_keys_->Get(alice_, infra_env.id()),
              StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(signing_keys_->Get(Caller::System(), Uuid(9, 9)),
              StatusIs(absl::StatusCode::kNotFound));
  auto before = infra_envs_->Get(alice_, infra_env.id());
  ASSERT_THAT(before, IsOk());

  // Another tenant cannot rotate it, nor tell the infra-env exists.
  EXPECT_THAT(signing_keys_->Regenerate(bob_, infra_env.id()),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(signing_keys_->Get(Caller::System(), infra_env.id()), IsOkAndHolds(*key));

  // Its owner can: a new key, a new version (caches keyed by it let go), a logged change.
  auto regenerated = signing_keys_->Regenerate(alice_, infra_env.id());
  ASSERT_THAT(regenerated, IsOk());
  EXPECT_EQ(regenerated->resource_version(), before->resource_version() + 1);
  EXPECT_EQ(regenerated->name(), "discovery");
  auto rotated = signing_keys_->Get(Caller::System(), infra_env.id());
  ASSERT_THAT(rotated, IsOk());
  EXPECT_EQ(rotated->size(), 32u);
  EXPECT_NE(*rotated, *key);
  auto after = infra_envs_->Get(alice_, infra_env.id());
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->resource_version(), regenerated->resource_version());
  EXPECT_EQ(after->name(), "discovery");
}

}  // namespace
}  // namespace assisted::inventory
