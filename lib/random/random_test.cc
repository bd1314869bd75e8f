#include "lib/random/random.h"

// The deprecated RAND_METHOD interface is the one way to stand in for OpenSSL's generator and
// prove that values come from it.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/rand.h>

#include <array>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;

constexpr unsigned char kMark = 0xa5;

// While alive, OpenSSL's RAND_bytes answers every request with kMark bytes, or fails.
class FakeOpenSslGenerator {
 public:
  explicit FakeOpenSslGenerator(bool fail) : saved_(RAND_get_rand_method()) {
    method_.bytes = fail ? &Fail : &Mark;
    method_.status = &Ready;
    RAND_set_rand_method(&method_);
  }
  ~FakeOpenSslGenerator() { RAND_set_rand_method(saved_); }

 private:
  static int Mark(unsigned char* buffer, int count) {
    std::fill(buffer, buffer + count, kMark);
    return 1;
  }
  static int Fail(unsigned char*, int) { return 0; }
  static int Ready() { return 1; }

  const RAND_METHOD* saved_;
  RAND_METHOD method_{};
};

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

TEST(Random, SystemRandomDrawsFromOpenSslsGenerator) {
  // Passwords, certificate serials and ids made with SystemRandom are only as unpredictable as
  // its source: it must be the CSPRNG.
  FakeOpenSslGenerator fake(/*fail=*/false);
  SystemRandom random;
  EXPECT_EQ(random.Next32(), 0xa5a5a5a5u);
  EXPECT_EQ(RandomUuid(random), "a5a5a5a5-a5a5-45a5-a5a5-a5a5a5a5a5a5");
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

TEST(SecureRandomBytes, ComeFromOpenSslsGenerator) {
  FakeOpenSslGenerator fake(/*fail=*/false);
  EXPECT_THAT(SecureRandomBytes(5), ::assisted::testing::IsOkAndHolds(std::string(5, kMark)));
}

TEST(SecureRandomBytes, AGeneratorFailureIsAnErrorNeverWeakBytes) {
  FakeOpenSslGenerator fake(/*fail=*/true);
  EXPECT_THAT(SecureRandomBytes(32), StatusIs(absl::StatusCode::kInternal));
}

TEST(SecureRandomBytes, LookUniformAndNeverRepeat) {
  constexpr int kBytes = 256 * 256;
  absl::StatusOr<std::string> bytes = SecureRandomBytes(kBytes);
  ASSERT_THAT(bytes, IsOk());
  ASSERT_EQ(bytes->size(), static_cast<size_t>(kBytes));
  std::array<int, 256> counts{};
  for (unsigned char byte : *bytes) ++counts[byte];
  // Each value is expected 256 times (standard deviation 16): ±7 deviations never trips by
  // chance, while a stuck or biased source does.
  for (int value = 0; value < 256; ++value) {
    EXPECT_GT(counts[value], 256 - 112) << value;
    EXPECT_LT(counts[value], 256 + 112) << value;
  }
  EXPECT_NE(*SecureRandomBytes(32), *SecureRandomBytes(32));
  EXPECT_THAT(SecureRandomBytes(0), ::assisted::testing::IsOkAndHolds(""));
}

}  // namespace
}  // namespace assisted
