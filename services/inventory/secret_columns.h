// File: services/inventory/secret_columns.h
//
// How the inventory keeps secrets at rest: pull secrets (clusters.secret, infra_envs.secret),
// infra-env signing keys (infra_envs.signing_key) and secret artifacts (IsSecretArtifact) are
// stored sealed (lib/crypto/sealed.h), each bound to its place (table, column and row) so that a
// ciphertext copied to another row does not open.
//
// Values written before sealing existed (or by an inventory running with
// --secrets-plaintext-for-development) stay readable:
// - text columns hold kSealedTextPrefix + base64(envelope); anything else is plain;
// - a signing key of exactly kSigningKeySize bytes is plain (an envelope is always longer);
// - an artifact is sealed when its sealed_size column is set (migration 5).
// ResealSecrets seals those, and re-seals what an older key sealed, in place.
//
// A null Sealer means "store in plain" (development only); reading a sealed value then fails
// with FAILED_PRECONDITION naming the missing setting.

#ifndef ASSISTED_SERVICES_INVENTORY_SECRET_COLUMNS_H_
#define ASSISTED_SERVICES_INVENTORY_SECRET_COLUMNS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "lib/crypto/sealed.h"
#include "lib/pg/pool.h"

namespace assisted::inventory {

inline constexpr char kSealedTextPrefix[] = "sealed:";
// Infra-env signing keys: 256 random bits.
inline constexpr size_t kSigningKeySize = 32;

// The associated data of a secret: where it lives, e.g. "clusters.secret:<id>".
std::string SecretPlace(absl::string_view table, absl::string_view column, absl::string_view row);

// Text columns: the stored text of `plain`, and the plain text of what is stored.
absl::StatusOr<std::string> SealText(const crypto::Sealer* sealer, absl::string_view plain,
                                     absl::string_view place);
absl::StatusOr<std::string> OpenText(const crypto::Sealer* sealer, absl::string_view stored,
                                     absl::string_view place);

// Binary columns: the envelope of `plain` (`plain` itself without a sealer), and the plain bytes
// of an envelope.
absl::StatusOr<std::string> SealBytes(const crypto::Sealer* sealer, absl::string_view plain,
                                      absl::string_view place);
absl::StatusOr<std::string> OpenBytes(const crypto::Sealer* sealer, absl::string_view envelope,
                                      absl::string_view place);

// Signing keys: plain when exactly kSigningKeySize bytes, else an envelope.
absl::StatusOr<std::string> OpenSigningKey(const crypto::Sealer* sealer, absl::string_view stored,
                                           absl::string_view place);

// Artifacts stored sealed: credentials (kubeconfigs, kubeadmin-password, the root CA) and any
// private key ("*.key"). kSecretArtifactSql is the same rule over the artifacts table's columns.
bool IsSecretArtifact(v1::ArtifactKind kind, absl::string_view name);
inline constexpr char kSecretArtifactSql[] =
    "(kind = 'ARTIFACT_KIND_CREDENTIALS' OR right(name, 4) = '.key')";

// The associated data of an artifact's content.
std::string ArtifactPlace(absl::string_view cluster_id, absl::string_view name);

// A secret artifact as stored: its envelope, and the size and SHA-256 of its plaintext (what
// ArtifactInfo reports, kept in columns so that listing artifacts never opens them).
struct SealedArtifact {
  std::string content;
  int64_t size = 0;
  std::string sha256_hex;
};
absl::StatusOr<SealedArtifact> SealArtifact(const crypto::Sealer& sealer, absl::string_view plain,
                                            absl::string_view cluster_id, absl::string_view name);

// Secrets sealed (or re-sealed under the current key) by one ResealSecrets pass.
struct ResealCounts {
  int64_t pull_secrets = 0;
  int64_t signing_keys = 0;
  int64_t artifacts = 0;
  // Values left as they were because they do not open: sealed with a key not configured, or
  // damaged. Reading them fails the same way.
  int64_t unreadable = 0;
};

// Seals every secret stored in plain and re-seals every one sealed with an older key, in batches
// of short statements, each a compare-and-set on the old value (a concurrent write wins and is
// left alone). Safe to run on several replicas at once. Values that do not open are counted and
// skipped; errors are the database's.
absl::StatusOr<ResealCounts> ResealSecrets(pg::Pool& pool, const crypto::Sealer& sealer);

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_SECRET_COLUMNS_H_
