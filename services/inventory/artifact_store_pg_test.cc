#include "services/inventory/artifact_store.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/inventory/store_test_base.h"

namespace assisted::inventory {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kName[] = "logs/host.tar.gz";

class ArtifactStoreTest : public InventoryDbTest {
 protected:
  void SetUp() override {
    InventoryDbTest::SetUp();
    cluster_id_ = CreateCluster(alice_);
    ASSERT_FALSE(cluster_id_.empty());
    artifacts_ = std::make_unique<ArtifactStore>(*pool_, 1 << 20);
  }

  absl::StatusOr<v1::ArtifactInfo> Put(const std::string& content, int64_t offset = 0,
                                       bool partial = false, const Caller* caller = nullptr) {
    return artifacts_->Put(caller != nullptr ? *caller : alice_, {.cluster_id = cluster_id_,
                                                                  .name = kName,
                                                                  .kind = v1::ARTIFACT_KIND_LOGS,
                                                                  .content = content,
                                                                  .offset = offset,
                                                                  .partial = partial});
  }

  absl::StatusOr<std::string> Read() {
    absl::StatusOr<v1::Artifact> artifact = artifacts_->Get(alice_, cluster_id_, kName);
    if (!artifact.ok()) return artifact.status();
    return artifact->content();
  }

  const Caller alice_ = Caller::User("alice", "org-a");
  const Caller bob_ = Caller::User("bob", "org-b");
  std::string cluster_id_;
  std::unique_ptr<ArtifactStore> artifacts_;
};

TEST_F(ArtifactStoreTest, ArtifactsHoldBinaryContentAndGrowByChunks) {
  const std::string binary("\0\1\2\xff\x00zz", 7);
  auto first = Put(binary, 0, /*partial=*/true);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->size_bytes(), 7);
  EXPECT_TRUE(first->partial());
  auto second = Put("tail", 7);
  ASSERT_THAT(second, IsOk());
  EXPECT_FALSE(second->partial());
  EXPECT_THAT(Read(), IsOkAndHolds(binary + "tail"));
  // Writing the same chunk again is harmless.
  ASSERT_THAT(Put("tail", 7), IsOk());
  EXPECT_THAT(Read(), IsOkAndHolds(binary + "tail"));
  EXPECT_EQ(second->sha256().size(), 64u);
  EXPECT_THAT(Put("x", 100), StatusIs(absl::StatusCode::kFailedPrecondition,
                                      HasSubstr("holds 11 bytes, cannot write at 100")));
}

// Large artifacts are read in ranges, so that no message or buffer holds one whole; reading
// without a range still returns everything, as callers that predate ranges expect.
TEST_F(ArtifactStoreTest, ArtifactsAreReadInRanges) {
  std::string content;
  for (int i = 0; i < 1000; ++i) content += static_cast<char>(i * 7);
  ASSERT_THAT(Put(content), IsOk());
  ArtifactRange range;
  std::string reassembled;
  for (int64_t offset = 0; offset < 1000; offset += 300) {
    range.offset = offset;
    range.length = 300;
    absl::StatusOr<v1::Artifact> chunk = artifacts_->Get(alice_, cluster_id_, kName, range);
    ASSERT_THAT(chunk, IsOk());
    EXPECT_EQ(chunk->content().size(), offset + 300 <= 1000 ? 300u : 1000u - offset);
    EXPECT_EQ(chunk->info().size_bytes(), 1000);  // the whole artifact's size, for the reader
    EXPECT_EQ(chunk->info().sha256().empty(), offset > 0);  // hashed on the first chunk only
    reassembled += chunk->content();
  }
  EXPECT_TRUE(reassembled == content);
  range.offset = 900;
  range.length = 0;  // to the end
  EXPECT_THAT(artifacts_->Get(alice_, cluster_id_, kName, range)->content(), content.substr(900));
  range.offset = 1000;  // at the end: nothing more
  EXPECT_THAT(artifacts_->Get(alice_, cluster_id_, kName, range)->content(), "");
  range.offset = 1001;
  EXPECT_THAT(artifacts_->Get(alice_, cluster_id_, kName, range),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("1000 bytes")));
  range.offset = -1;
  EXPECT_THAT(artifacts_->Get(alice_, cluster_id_, kName, range),
              StatusIs(absl::StatusCode::kInvalidArgument));
  range.offset = 0;
  range.length = -5;
  EXPECT_THAT(artifacts_->Get(alice_, cluster_id_, kName, range),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Read(), IsOkAndHolds(content));
}

TEST_F(ArtifactStoreTest, ArtifactsAreBoundedScopedAndDeletable) {
  EXPECT_THAT(Put(std::string((1 << 20) + 1, 'x')), StatusIs(absl::StatusCode::kResourceExhausted));
  ASSERT_THAT(Put("content"), IsOk());
  EXPECT_THAT(Put("evil", 0, false, &bob_), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(artifacts_->List(alice_, cluster_id_, {.name_prefix = "logs/"})->size(), 1u);
  EXPECT_THAT(artifacts_->Delete(alice_, cluster_id_, {.kinds = {v1::ARTIFACT_KIND_LOGS}}),
              IsOkAndHolds(1));
  EXPECT_THAT(Read(), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ArtifactStoreTest, DeletingByNameSparesArtifactsWhoseNamesItPrefixes) {
  for (const char* name : {"manifests/openshift/a.yaml", "manifests/openshift/a.yaml.json"}) {
    ASSERT_THAT(artifacts_->Put(alice_,
                                {.cluster_id = cluster_id_,
                                 .name = name,
                                 .kind = v1::ARTIFACT_KIND_MANIFEST,
                                 .content_type = "application/yaml",
                                 .content = "a: 1"},
                                {}),
                IsOk());
  }
  EXPECT_THAT(artifacts_->Delete(alice_, cluster_id_, {.name = "manifests/openshift/a.yaml"}),
              IsOkAndHolds(1));
  absl::StatusOr<std::vector<v1::ArtifactInfo>> left =
      artifacts_->List(alice_, cluster_id_, {.name_prefix = "manifests/"});
  ASSERT_THAT(left, IsOk());
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].name(), "manifests/openshift/a.yaml.json");
  EXPECT_THAT(artifacts_->Delete(bob_, cluster_id_, {.name = "manifests/openshift/a.yaml.json"}),
              StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace assisted::inventory
