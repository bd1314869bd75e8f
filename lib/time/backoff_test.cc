#include "lib/time/backoff.h"

#include "gtest/gtest.h"

namespace assisted {
namespace {

TEST(Backoff, GrowsByTheMultiplierWithinTheJitterUpToTheCap) {
  SeededRandom random(7);
  Backoff backoff({}, random);
  double nominal = 1.0;
  for (int i = 0; i < 30; ++i) {
    const double seconds = absl::ToDoubleSeconds(backoff.Next());
    EXPECT_GE(seconds, nominal * 0.8 - 1e-9) << i;
    EXPECT_LE(seconds, nominal * 1.2 + 1e-9) << i;
    nominal = std::min(nominal * 1.6, 120.0);
  }
}

TEST(Backoff, ResetStartsOverAndJitterSpreadsAFleet) {
  SeededRandom random(1);
  Backoff backoff({}, random);
  for (int i = 0; i < 5; ++i) backoff.Next();
  backoff.Reset();
  EXPECT_LE(backoff.Next(), absl::Seconds(1.2));
  // Many clients failing together do not retry in lockstep.
  absl::Duration low = absl::InfiniteDuration(), high = absl::ZeroDuration();
  for (int client = 0; client < 100; ++client) {
    Backoff fresh({}, random);
    const absl::Duration delay = fresh.Next();
    low = std::min(low, delay);
    high = std::max(high, delay);
  }
  EXPECT_GT(high - low, absl::Milliseconds(200));
}

}  // namespace
}  // namespace assisted
