#include "services/inventory/artifact_store.h"

#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/inventory/store_test_base.h"
#include "tests/harness/eventually.h"

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

// A guarded write (cluster_status_in) is refused once the cluster moved on, and so is a
// guarded delete; nothing changes.
TEST_F(ArtifactStoreTest, AGuardedWriteNeedsTheClusterInOneOfItsStatuses) {
  const std::vector<types::v1::ClusterStatus> before_install = {
      types::v1::CLUSTER_STATUS_READY, types::v1::CLUSTER_STATUS_INSUFFICIENT};
  ExecSql("UPDATE clusters SET status = 'CLUSTER_STATUS_READY'");
  const ArtifactWrite manifest = {.cluster_id = cluster_id_,
                                  .name = "manifests/openshift/a.yaml",
                                  .kind = v1::ARTIFACT_KIND_MANIFEST,
                                  .content = "a: 1",
                                  .cluster_status_in = before_install};
  ASSERT_THAT(artifacts_->Put(alice_, manifest), IsOk());
  ExecSql("UPDATE clusters SET status = 'CLUSTER_STATUS_PREPARING_FOR_INSTALLATION'");
  EXPECT_THAT(artifacts_->Put(alice_, manifest),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("CLUSTER_STATUS_PREPARING_FOR_INSTALLATION")));
  EXPECT_THAT(artifacts_->Delete(alice_, cluster_id_,
                                 {.name = manifest.name, .cluster_status_in = before_install}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(artifacts_->List(alice_, cluster_id_, {.name = manifest.name})->size(), 1u);
  // Unguarded writes (the installation's own files) do not care.
  EXPECT_THAT(Put("logs"), IsOk());
}

// The race an installation start and a manifest write run: the status change holds the
// cluster's row while its transaction is open, and a guarded write waits for it, then sees the
// new status and is refused. So a write is either before the change (and whoever reads the
// artifacts after the change sees it) or refused; never accepted and missed.
TEST_F(ArtifactStoreTest, AGuardedWriteWaitsForAStatusChangeUnderWayAndIsThenRefused) {
  ExecSql("UPDATE clusters SET status = 'CLUSTER_STATUS_READY'");
  absl::Status written;
  std::thread writer;
  {
    absl::StatusOr<pg::Pool::Handle> installer = pool_->Acquire();
    ASSERT_THAT(installer, IsOk());
    ASSERT_THAT((*installer)->Exec("BEGIN"), IsOk());
    ASSERT_THAT((*installer)
                    ->Exec("UPDATE clusters SET status = "
                           "'CLUSTER_STATUS_PREPARING_FOR_INSTALLATION' WHERE id = $1::uuid",
                           {cluster_id_}),
                IsOk());
    writer = std::thread([&] {
      written = artifacts_
                    ->Put(alice_, {.cluster_id = cluster_id_,
                                   .name = "manifests/openshift/late.yaml",
                                   .kind = v1::ARTIFACT_KIND_MANIFEST,
                                   .content = "a: 1",
                                   .cluster_status_in = {types::v1::CLUSTER_STATUS_READY}})
                    .status();
    });
    // The write is blocked on the cluster's row lock (observed, not slept for). pg_locks is
    // read live on every call; this thread holds its one connection of the pool, the
    // installer's.
    EXPECT_TRUE(::assisted::testing::Eventually(
        [&] {
          absl::StatusOr<pg::Result> waiting = (*installer)
                                                   ->Exec(
                                                       "SELECT count(*) FROM pg_locks WHERE NOT "
                                                       "granted AND pid <> pg_backend_pid()");
          return waiting.ok() && waiting->Get(0, 0) != "0";
        },
        absl::Seconds(30), "the guarded write waiting for the cluster's row"));
    EXPECT_THAT((*installer)->Exec("COMMIT"), IsOk());
  }
  writer.join();
  EXPECT_THAT(written, StatusIs(absl::StatusCode::kFailedPrecondition,
                                HasSubstr("CLUSTER_STATUS_PREPARING_FOR_INSTALLATION")));
  EXPECT_TRUE(artifacts_->List(alice_, cluster_id_, {.name_prefix = "manifests/"})->empty());
}

}  // namespace
}  // namespace assisted::inventory
