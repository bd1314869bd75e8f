#include "lib/random/random.h"

#include <set>

#include "gtest/gtest.h"

namespace assisted {
namespace {

TEST(Random, SeededSequencesRepeat) {
  SeededRandom a(7), b(7), c(8);
  uint32_t x = a.Next32();
  EXPECT_EQ(x, b.Next32());
  EXPECT_NE(x, c.Next32());
}

TEST(Random, SystemRandomVaries) {
  SystemRandom r;
  std::set<uint32_t> seen;
  for (int i = 0; i < 16; ++i) seen.insert(r.Next32());
  EXPECT_GT(seen.size(), 8u);
}

}  // namespace
}  // namespace assisted
