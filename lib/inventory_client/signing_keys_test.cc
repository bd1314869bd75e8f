#include "lib/inventory_client/signing_keys.h"

#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted {
namespace {

using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;

// The inventory's keys, and how often each was read.
struct FakeInventory {
  std::map<std::string, std::string> keys;
  std::map<std::string, int> reads;
  bool down = false;

  InfraEnvSigningKeys::Fetch AsFetch() {
    return [this](const std::string& id) -> absl::StatusOr<std::string> {
      ++reads[id];
      if (down) return absl::UnavailableError("inventory unavailable");
      auto found = keys.find(id);
      if (found == keys.end()) return absl::NotFoundError("infra-env not found");
      return found->second;
    };
  }
};

TEST(InfraEnvSigningKeys, AReadKeyServesEveryoneUntilTheTtlThenARegeneratedOneIsInForce) {
  FakeInventory inventory;
  inventory.keys["a"] = "key-1";
  FakeClock clock;
  InfraEnvSigningKeys keys(inventory.AsFetch(), clock, {.ttl = absl::Seconds(5)});
  for (int i = 0; i < 100; ++i) EXPECT_THAT(keys.Get("a"), IsOkAndHolds("key-1"));
  EXPECT_EQ(inventory.reads["a"], 1);

  inventory.keys["a"] = "key-2";  // regenerated
  clock.Advance(absl::Seconds(4));
  EXPECT_THAT(keys.Get("a"), IsOkAndHolds("key-1"));
  clock.Advance(absl::Seconds(1));
  EXPECT_THAT(keys.Get("a"), IsOkAndHolds("key-2"));
  EXPECT_EQ(inventory.reads["a"], 2);
}

TEST(InfraEnvSigningKeys, FailuresAreNeverRemembered) {
  FakeInventory inventory;
  FakeClock clock;
  InfraEnvSigningKeys keys(inventory.AsFetch(), clock);
  EXPECT_THAT(keys.Get("a"), StatusIs(absl::StatusCode::kNotFound));
  inventory.keys["a"] = "key-1";
  EXPECT_THAT(keys.Get("a"), IsOkAndHolds("key-1"));
  inventory.down = true;
  EXPECT_THAT(keys.Get("b"), StatusIs(absl::StatusCode::kUnavailable));
  inventory.down = false;
  inventory.keys["b"] = "key-b";
  EXPECT_THAT(keys.Get("b"), IsOkAndHolds("key-b"));
}

TEST(InfraEnvSigningKeys, StaysWithinItsSize) {
  FakeInventory inventory;
  for (int i = 0; i < 10; ++i) inventory.keys[std::to_string(i)] = "key";
  FakeClock clock;
  InfraEnvSigningKeys keys(inventory.AsFetch(), clock, {.ttl = absl::Seconds(5), .max_entries = 4});
  for (int i = 0; i < 10; ++i) EXPECT_THAT(keys.Get(std::to_string(i)), IsOkAndHolds("key"));
  // The last one read is still remembered, whatever was dropped to make room.
  EXPECT_THAT(keys.Get("9"), IsOkAndHolds("key"));
  EXPECT_EQ(inventory.reads["9"], 1);
}

TEST(InfraEnvSigningKeys, AZeroTtlReadsEveryTime) {
  FakeInventory inventory;
  inventory.keys["a"] = "key-1";
  FakeClock clock;
  InfraEnvSigningKeys keys(inventory.AsFetch(), clock, {.ttl = absl::ZeroDuration()});
  EXPECT_THAT(keys.Get("a"), IsOkAndHolds("key-1"));
  EXPECT_THAT(keys.Get("a"), IsOkAndHolds("key-1"));
  EXPECT_EQ(inventory.reads["a"], 2);
}

}  // namespace
}  // namespace assisted
