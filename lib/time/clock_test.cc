#include "lib/time/clock.h"

#include "gtest/gtest.h"

namespace assisted {
namespace {

TEST(FakeClock, MovesOnlyWhenAdvanced) {
  FakeClock clock;
  const absl::Time start = clock.Now();
  EXPECT_EQ(clock.Now(), start);
  clock.Advance(absl::Minutes(3));
  EXPECT_EQ(clock.Now(), start + absl::Minutes(3));
  clock.Set(absl::UnixEpoch());
  EXPECT_EQ(clock.Now(), absl::UnixEpoch());
}

TEST(RealClock, FollowsTheSystemClock) {
  RealClock clock;
  const absl::Time before = absl::Now();
  const absl::Time now = clock.Now();
  EXPECT_GE(now, before);
  EXPECT_LE(now, absl::Now());
}

}  // namespace
}  // namespace assisted
