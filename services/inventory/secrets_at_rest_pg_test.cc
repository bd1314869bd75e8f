// Secrets at rest: what the inventory stores of pull secrets, infra-env signing keys and secret
// artifacts must reveal nothing to someone holding only a copy of the database.

#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/inventory/artifact_store.h"
#include "services/inventory/cluster_store.h"
#include "services/inventory/infra_env_store.h"
#include "services/inventory/secret_columns.h"
#include "services/inventory/signing_key_store.h"
#include "services/inventory/store_test_base.h"

namespace assisted::inventory {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kPullSecretAuth[] = "c2VjcmV0LXB1bGwtc2VjcmV0LWZvci10ZXN0cw";
constexpr char kRootCaKey[] =
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"
    "-----END PRIVATE KEY-----\n";
constexpr char kKubeadminPassword[] = "Xq7pV-Lm3Rt-Kd9Wz-Bn2Hy";
constexpr char kKubeconfig[] =
    "apiVersion: v1\nusers:\n- name: admin\n  user:\n    client-key-data: "
    "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tCk1IY0NBUUVFSUtleURhdGEK\n";

class SecretsAtRestTest : public InventoryDbTest {
 protected:
  void SetUp() override {
    InventoryDbTest::SetUp();
    UseSealer(&sealer_);
  }

  // Stores that seal with `sealer` (null: in plain, as an inventory did before sealing).
  void UseSealer(const crypto::Sealer* sealer) {
    clusters_ = std::make_unique<ClusterStore>(*pool_, ResourceStoreOptions{.sealer = sealer});
    infra_envs_ = std::make_unique<InfraEnvStore>(*pool_, ResourceStoreOptions{.sealer = sealer});
    signing_keys_ =
        std::make_unique<SigningKeyStore>(*pool_, ResourceStoreOptions{.sealer = sealer});
    artifacts_ = std::make_unique<ArtifactStore>(*pool_, 1 << 20, sealer);
  }

  static crypto::Sealer MakeSealer(char fill, std::vector<std::string> older = {}) {
    return *crypto::Sealer::FromKeys(std::string(crypto::kSealKeySize, fill), std::move(older));
  }

  std::string Sql(const std::string& sql, const std::vector<pg::Param>& params = {}) {
    absl::StatusOr<pg::Pool::Handle> db = pool_->Acquire();
    EXPECT_THAT(db.status(), IsOk());
    absl::StatusOr<pg::Result> rows = (*db)->Exec(sql, params);
    EXPECT_THAT(rows.status(), IsOk());
    return rows.ok() && rows->rows() > 0 ? std::string(rows->Get(0, 0)) : "";
  }

  static std::string PullSecret() {
    return absl::StrCat(R"({"auths":{"quay.io":{"auth":")", kPullSecretAuth, R"("}}})");
  }

  types::v1::Cluster NewCluster() {
    types::v1::Cluster to_be;
    to_be.set_name("sealed");
    to_be.set_base_dns_domain("example.com");
    absl::StatusOr<types::v1::Cluster> cluster =
        clusters_->Create(Caller::System(), to_be, PullSecret());
    EXPECT_THAT(cluster.status(), IsOk());
    return cluster.value_or(types::v1::Cluster());
  }

  types::v1::InfraEnv NewInfraEnv(const std::string& cluster_id) {
    types::v1::InfraEnv to_be;
    to_be.set_name("discovery");
    to_be.set_cluster_id(cluster_id);
    absl::StatusOr<types::v1::InfraEnv> infra_env =
        infra_envs_->Create(Caller::System(), to_be, PullSecret());
    EXPECT_THAT(infra_env.status(), IsOk());
    return infra_env.value_or(types::v1::InfraEnv());
  }

  void PutArtifact(const std::string& cluster_id, const std::string& name,
                   const std::string& content, int64_t offset = 0) {
    EXPECT_THAT(artifacts_
                    ->Put(Caller::System(), {.cluster_id = cluster_id,
                                             .name = name,
                                             .kind = v1::ARTIFACT_KIND_CREDENTIALS,
                                             .content = content,
                                             .offset = offset})
                    .status(),
                IsOk());
  }

  absl::StatusOr<std::string> ReadArtifact(const std::string& cluster_id, const std::string& name,
                                           int64_t offset = 0, int64_t length = 0) {
    absl::StatusOr<v1::Artifact> artifact =
        artifacts_->Get(Caller::System(), cluster_id, name, {.offset = offset, .length = length});
    if (!artifact.ok()) return artifact.status();
    return artifact->content();
  }

  absl::StatusOr<std::string> PullSecretOf(const types::v1::Cluster& cluster) {
    return clusters_->GetPullSecret(Caller::System(), cluster.id());
  }

  // Every row of every table as PostgreSQL prints it, what a dump holds (bytea in hex).
  std::string Dump() {
    absl::StatusOr<pg::Pool::Handle> db = pool_->Acquire();
    EXPECT_THAT(db.status(), IsOk());
    absl::StatusOr<pg::Result> tables =
        (*db)->Exec("SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
    EXPECT_THAT(tables.status(), IsOk());
    std::string dump;
    for (int i = 0; i < tables->rows(); ++i) {
      absl::StatusOr<pg::Result> rows = (*db)->Exec(absl::StrCat(
          "SELECT coalesce(string_agg(t::text, E'\\n'), '') FROM ", tables->Get(i, 0), " t"));
      EXPECT_THAT(rows.status(), IsOk());
      absl::StrAppend(&dump, tables->Get(i, 0), ":\n", rows->Get(0, 0), "\n");
    }
    return dump;
  }

  // Whether `dump` holds `secret` as text or as the hex PostgreSQL prints bytea in.
  static void ExpectAbsent(const std::string& dump, const std::string& secret) {
    EXPECT_THAT(dump, Not(HasSubstr(secret))) << "in text";
    EXPECT_THAT(dump, Not(HasSubstr(absl::BytesToHexString(secret)))) << "in hex";
  }

  // A cluster with a pull secret, its infra-env (with one too) and that infra-env's signing key,
  // and the cluster's secret artifacts, all written through the stores.
  struct Written {
    types::v1::Cluster cluster;
    types::v1::InfraEnv infra_env;
    std::string signing_key;
  };
  Written WriteSecrets() {
    Written written{.cluster = NewCluster()};
    written.infra_env = NewInfraEnv(written.cluster.id());
    absl::StatusOr<std::string> signing_key =
        signing_keys_->Get(Caller::System(), written.infra_env.id());
    EXPECT_THAT(signing_key.status(), IsOk());
    written.signing_key = signing_key.value_or("");
    PutArtifact(written.cluster.id(), "tls/root-ca.key", kRootCaKey);
    PutArtifact(written.cluster.id(), "kubeadmin-password", kKubeadminPassword);
    PutArtifact(written.cluster.id(), "kubeconfig", kKubeconfig);
    return written;
  }

  void ExpectNoneInTheDump(const Written& written) {
    const std::string dump = Dump();
    ExpectAbsent(dump, kPullSecretAuth);
    ExpectAbsent(dump, "PRIVATE KEY");
    ExpectAbsent(dump, kKubeadminPassword);
    ExpectAbsent(dump, "client-key-data");
    ExpectAbsent(dump, written.signing_key);
  }

  // The stores read every secret back as it was written.
  void ExpectReadable(const Written& written) {
    EXPECT_THAT(PullSecretOf(written.cluster), IsOkAndHolds(PullSecret()));
    EXPECT_THAT(signing_keys_->Get(Caller::System(), written.infra_env.id()),
                IsOkAndHolds(written.signing_key));
    EXPECT_THAT(ReadArtifact(written.cluster.id(), "tls/root-ca.key"), IsOkAndHolds(kRootCaKey));
    EXPECT_THAT(ReadArtifact(written.cluster.id(), "kubeadmin-password"),
                IsOkAndHolds(kKubeadminPassword));
    EXPECT_THAT(ReadArtifact(written.cluster.id(), "kubeconfig"), IsOkAndHolds(kKubeconfig));
  }

  void ExpectResealed(const absl::StatusOr<ResealCounts>& counts) {
    ASSERT_THAT(counts.status(), IsOk());
    EXPECT_EQ(counts->pull_secrets, 2);
    EXPECT_EQ(counts->signing_keys, 1);
    EXPECT_EQ(counts->artifacts, 3);
  }

  const crypto::Sealer sealer_ = MakeSealer('k');
  std::unique_ptr<ClusterStore> clusters_;
  std::unique_ptr<InfraEnvStore> infra_envs_;
  std::unique_ptr<SigningKeyStore> signing_keys_;
  std::unique_ptr<ArtifactStore> artifacts_;
};

TEST_F(SecretsAtRestTest, ADatabaseDumpRevealsNoSecret) {
  const Written written = WriteSecrets();
  ExpectNoneInTheDump(written);
  ExpectReadable(written);
}

TEST_F(SecretsAtRestTest, ListingReadsNoSecretAndReportsThePlaintextsSizeAndHash) {
  const types::v1::Cluster cluster = NewCluster();
  PutArtifact(cluster.id(), "tls/root-ca.key", kRootCaKey);
  absl::StatusOr<std::vector<v1::ArtifactInfo>> listed =
      artifacts_->List(Caller::System(), cluster.id(), {});
  ASSERT_THAT(listed.status(), IsOk());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].size_bytes(), std::string(kRootCaKey).size());
  EXPECT_EQ((*listed)[0].sha256(),
            Sql("SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex')", {kRootCaKey}));
  // Clusters are listed with whether they have a pull secret, not with it.
  absl::StatusOr<v1::ListClustersResponse> all = clusters_->List(Caller::System(), {});
  ASSERT_THAT(all.status(), IsOk());
  EXPECT_TRUE(all->clusters(0).pull_secret_set());
}

TEST_F(SecretsAtRestTest, SealedArtifactsUploadAndReadInChunks) {
  const types::v1::Cluster cluster = NewCluster();
  const std::string pem = kRootCaKey;
  PutArtifact(cluster.id(), "tls/root-ca.key", pem.substr(0, 10));
  PutArtifact(cluster.id(), "tls/root-ca.key", pem.substr(10), 10);
  EXPECT_THAT(ReadArtifact(cluster.id(), "tls/root-ca.key"), IsOkAndHolds(pem));
  EXPECT_THAT(ReadArtifact(cluster.id(), "tls/root-ca.key", 5, 20),
              IsOkAndHolds(pem.substr(5, 20)));
  EXPECT_THAT(ReadArtifact(cluster.id(), "tls/root-ca.key", 30), IsOkAndHolds(pem.substr(30)));
  const ArtifactWrite past_the_end{.cluster_id = cluster.id(),
                                   .name = "tls/root-ca.key",
                                   .kind = v1::ARTIFACT_KIND_CREDENTIALS,
                                   .content = "x",
                                   .offset = static_cast<int64_t>(pem.size() + 1)};
  EXPECT_THAT(artifacts_->Put(Caller::System(), past_the_end).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr(absl::StrCat(pem.size(), " bytes"))));
  ExpectAbsent(Dump(), "PRIVATE KEY");
}

TEST_F(SecretsAtRestTest, ASecretMovedToAnotherRowDoesNotOpen) {
  const types::v1::Cluster victim = NewCluster();
  const types::v1::Cluster attacker = NewCluster();
  Sql("UPDATE clusters SET secret = (SELECT secret FROM clusters WHERE id = $1::uuid) WHERE id = "
      "$2::uuid",
      {victim.id(), attacker.id()});
  EXPECT_THAT(PullSecretOf(attacker), StatusIs(absl::StatusCode::kDataLoss));
  EXPECT_THAT(PullSecretOf(victim), IsOkAndHolds(PullSecret()));
}

TEST_F(SecretsAtRestTest, SecretsWrittenInPlainStillReadAndAreSealedByTheResealPass) {
  UseSealer(nullptr);  // an inventory of before sealing
  const Written written = WriteSecrets();
  EXPECT_THAT(Dump(), HasSubstr(kPullSecretAuth));

  UseSealer(&sealer_);
  ExpectReadable(written);
  ExpectResealed(ResealSecrets(*pool_, sealer_));
  ExpectNoneInTheDump(written);
  ExpectReadable(written);

  // A second pass finds nothing left to do.
  absl::StatusOr<ResealCounts> again = ResealSecrets(*pool_, sealer_);
  ASSERT_THAT(again.status(), IsOk());
  EXPECT_EQ(again->pull_secrets + again->signing_keys + again->artifacts, 0);
}

TEST_F(SecretsAtRestTest, RotationResealsUnderTheNewKeySoTheOldOneCanGo) {
  const Written written = WriteSecrets();
  const crypto::Sealer rotated = MakeSealer('n', {std::string(crypto::kSealKeySize, 'k')});
  ExpectResealed(ResealSecrets(*pool_, rotated));

  const crypto::Sealer new_key_only = MakeSealer('n');
  UseSealer(&new_key_only);
  ExpectReadable(written);
}

TEST_F(SecretsAtRestTest, WithoutTheKeySealedSecretsAreRefusedNotMisread) {
  const types::v1::Cluster cluster = NewCluster();
  PutArtifact(cluster.id(), "kubeadmin-password", kKubeadminPassword);
  const crypto::Sealer other = MakeSealer('o');
  UseSealer(&other);
  EXPECT_THAT(PullSecretOf(cluster), StatusIs(absl::StatusCode::kFailedPrecondition,
                                              HasSubstr("--secrets-old-key-files")));
  EXPECT_THAT(ReadArtifact(cluster.id(), "kubeadmin-password").status(),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  // The re-seal pass leaves what it cannot open as it is, and says how much.
  absl::StatusOr<ResealCounts> counts = ResealSecrets(*pool_, other);
  ASSERT_THAT(counts.status(), IsOk());
  EXPECT_EQ(counts->unreadable, 2);
  EXPECT_EQ(counts->pull_secrets + counts->artifacts, 0);
  UseSealer(&sealer_);
  EXPECT_THAT(PullSecretOf(cluster), IsOkAndHolds(PullSecret()));
  UseSealer(nullptr);
  EXPECT_THAT(PullSecretOf(cluster),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("--secrets-key-file")));
}

}  // namespace
}  // namespace assisted::inventory
