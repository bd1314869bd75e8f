#include "lib/crypto/sealed.h"

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "lib/testing/test_files.h"

namespace assisted::crypto {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::assisted::testing::WriteTestFile;
using ::testing::HasSubstr;

const std::string kKeyA(32, 'a');
const std::string kKeyB(32, 'b');

Sealer Make(const std::string& current, std::vector<std::string> older = {}) {
  absl::StatusOr<Sealer> sealer = Sealer::FromKeys(current, std::move(older));
  EXPECT_THAT(sealer.status(), IsOk());
  return *std::move(sealer);
}

TEST(SealerTest, RoundTripsAndHidesThePlaintext) {
  const Sealer sealer = Make(kKeyA);
  const std::string secret = "{\"auths\":{\"quay.io\":{\"auth\":\"c2VjcmV0\"}}}";
  absl::StatusOr<std::string> sealed = sealer.Seal(secret, "clusters.secret:1");
  ASSERT_THAT(sealed.status(), IsOk());
  EXPECT_EQ(sealed->size(), secret.size() + kSealOverhead);
  EXPECT_THAT(*sealed, ::testing::Not(HasSubstr("auths")));
  EXPECT_TRUE(sealer.SealedWithCurrentKey(*sealed));
  EXPECT_THAT(sealer.Open(*sealed, "clusters.secret:1"), IsOkAndHolds(secret));
}

TEST(SealerTest, EmptyPlaintextRoundTrips) {
  const Sealer sealer = Make(kKeyA);
  absl::StatusOr<std::string> sealed = sealer.Seal("", "ad");
  ASSERT_THAT(sealed.status(), IsOk());
  EXPECT_THAT(sealer.Open(*sealed, "ad"), IsOkAndHolds(""));
}

TEST(SealerTest, EverySealUsesAFreshNonce) {
  const Sealer sealer = Make(kKeyA);
  EXPECT_NE(*sealer.Seal("same", "ad"), *sealer.Seal("same", "ad"));
}

TEST(SealerTest, OtherAssociatedDataIsRefused) {
  const Sealer sealer = Make(kKeyA);
  const std::string sealed = *sealer.Seal("secret", "clusters.secret:1");
  EXPECT_THAT(sealer.Open(sealed, "clusters.secret:2"), StatusIs(absl::StatusCode::kDataLoss));
}

TEST(SealerTest, TamperedCiphertextIsRefused) {
  const Sealer sealer = Make(kKeyA);
  const std::string sealed = *sealer.Seal("secret", "ad");
  for (size_t i = kSealHeaderSize; i < sealed.size(); ++i) {
    std::string tampered = sealed;
    tampered[i] ^= 0x01;
    EXPECT_THAT(sealer.Open(tampered, "ad"), StatusIs(absl::StatusCode::kDataLoss)) << i;
  }
}

TEST(SealerTest, TruncatedOrUnversionedEnvelopesAreRefused) {
  const Sealer sealer = Make(kKeyA);
  const std::string sealed = *sealer.Seal("secret", "ad");
  for (size_t size = 0; size < kSealOverhead; ++size) {
    EXPECT_THAT(sealer.Open(sealed.substr(0, size), "ad"), StatusIs(absl::StatusCode::kDataLoss));
  }
  std::string future = sealed;
  future[0] = 0x02;
  EXPECT_THAT(sealer.Open(future, "ad"), StatusIs(absl::StatusCode::kDataLoss));
}

TEST(SealerTest, OldKeysStillOpenButNewValuesUseTheCurrentOne) {
  const std::string sealed_by_a = *Make(kKeyA).Seal("secret", "ad");
  const Sealer rotated = Make(kKeyB, {kKeyA});
  EXPECT_THAT(rotated.Open(sealed_by_a, "ad"), IsOkAndHolds("secret"));
  EXPECT_FALSE(rotated.SealedWithCurrentKey(sealed_by_a));
  const std::string sealed_by_b = *rotated.Seal("secret", "ad");
  EXPECT_TRUE(rotated.SealedWithCurrentKey(sealed_by_b));
  EXPECT_THAT(Make(kKeyB).Open(sealed_by_b, "ad"), IsOkAndHolds("secret"));
}

TEST(SealerTest, AnUnknownKeyIsRefusedNamingIt) {
  const std::string sealed_by_a = *Make(kKeyA).Seal("secret", "ad");
  EXPECT_THAT(Make(kKeyB).Open(sealed_by_a, "ad"), StatusIs(absl::StatusCode::kFailedPrecondition,
                                                            HasSubstr("--secrets-old-key-files")));
}

TEST(SealerTest, AWrongKeyWithACollidingIdStillDoesNotOpen) {
  // A forged header naming the right key id cannot make another key's ciphertext open.
  const Sealer a = Make(kKeyA);
  std::string forged = *Make(kKeyB).Seal("secret", "ad");
  forged.replace(0, kSealHeaderSize, a.Header());
  EXPECT_THAT(a.Open(forged, "ad"), StatusIs(absl::StatusCode::kDataLoss));
}

TEST(SealerTest, KeysOfAnotherSizeAreRefused) {
  EXPECT_THAT(Sealer::FromKeys(std::string(31, 'k')).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("32 bytes")));
  EXPECT_THAT(Sealer::FromKeys(kKeyA, {std::string(33, 'k')}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(SealerTest, KeyFilesHoldRawOrBase64Keys) {
  const std::string raw = *WriteTestFile("keys/raw", kKeyA);
  const std::string base64 = *WriteTestFile("keys/b64", absl::Base64Escape(kKeyB) + "\n");
  absl::StatusOr<Sealer> sealer = Sealer::FromFiles(base64, {raw});
  ASSERT_THAT(sealer.status(), IsOk());
  EXPECT_EQ(sealer->Header(), Make(kKeyB).Header());
  EXPECT_THAT(sealer->Open(*Make(kKeyA).Seal("x", "ad"), "ad"), IsOkAndHolds("x"));
}

TEST(SealerTest, BadKeyFilesAreRefusedNamingTheFile) {
  const std::string short_key = *WriteTestFile("keys/short", "too short");
  EXPECT_THAT(Sealer::FromFiles(short_key).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(short_key)));
  EXPECT_THAT(Sealer::FromFiles("/nonexistent/secrets.key").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("/nonexistent/secrets.key")));
  EXPECT_THAT(Sealer::FromFiles(*WriteTestFile("keys/good", kKeyA), {short_key}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(short_key)));
  EXPECT_THAT(Sealer::FromFiles("").status(), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace assisted::crypto
