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

TEST(RandomUuid, IsCanonicalVersionFourAndVaries) {
  SeededRandom random(3);
  const std::string a = RandomUuid(random);
  const std::string b = RandomUuid(random);
  EXPECT_NE(a, b);
  ASSERT_EQ(a.size(), 36u);
  EXPECT_EQ(a[14], '4');
  EXPECT_NE(std::string("89ab").find(a[19]), std::string::npos);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef-"), std::string::npos);
}

}  // namespace
}  // namespace assisted
