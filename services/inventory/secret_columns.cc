#include "services/inventory/secret_columns.h"

#include <openssl/sha.h>

#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/status/status_macros.h"
#include "services/inventory/transaction.h"

namespace assisted::inventory {
namespace {

// Rows read per statement of a pass: small, so no statement holds much memory or time.
constexpr int kResealBatch = 100;
constexpr char kNoUuid[] = "00000000-0000-0000-0000-000000000000";

absl::Status NoKey() {
  return absl::FailedPreconditionError(
      "a secret in the database is sealed, but no --secrets-key-file is configured");
}

// Runs `statement` (a SELECT of up to kResealBatch rows after the cursor given as its last
// parameters, ordered by the cursor columns) until it selects nothing, handing each row to
// `reseal`; `advance` moves the cursor to a row's key. A row that does not open (a key not
// configured, or damage) is counted in `unreadable` and left as it is.
template <typename Reseal, typename Advance>
absl::StatusOr<int64_t> EachBatch(pg::Pool& pool, const std::string& statement,
                                  std::vector<std::string> params, int64_t& unreadable,
                                  Reseal reseal, Advance advance) {
  int64_t resealed = 0;
  for (;;) {
    std::vector<pg::Param> bound(params.begin(), params.end());
    ASSIGN_OR_RETURN(pg::Result rows, ReadOnConnection(pool, [&](pg::Connection& db) {
                       return db.Exec(statement, bound);
                     }));
    if (rows.rows() == 0) return resealed;
    for (int row = 0; row < rows.rows(); ++row) {
      absl::StatusOr<bool> written = reseal(rows, row);
      if (absl::IsFailedPrecondition(written.status()) || absl::IsDataLoss(written.status())) {
        ++unreadable;
        continue;
      }
      if (!written.ok()) return written.status();
      if (*written) ++resealed;
    }
    advance(rows, rows.rows() - 1, params);
  }
}

absl::StatusOr<bool> Updated(pg::Pool& pool, const std::string& sql,
                             const std::vector<pg::Param>& params) {
  ASSIGN_OR_RETURN(pg::Result result,
                   OnConnection(pool, [&](pg::Connection& db) { return db.Exec(sql, params); }));
  return result.affected_rows() > 0;
}

absl::StatusOr<int64_t> ResealPullSecrets(pg::Pool& pool, const crypto::Sealer& sealer,
                                          absl::string_view table, int64_t& unreadable) {
  const std::string current = kSealedTextPrefix + absl::Base64Escape(sealer.Header());
  return EachBatch(
      pool,
      absl::StrCat("SELECT id::text, secret FROM ", table,
                   " WHERE secret IS NOT NULL AND left(secret, length($1)) <> $1 AND id > "
                   "$2::uuid ORDER BY id LIMIT ",
                   kResealBatch),
      {current, kNoUuid}, unreadable,
      [&](const pg::Result& rows, int row) -> absl::StatusOr<bool> {
        const std::string place = SecretPlace(table, "secret", rows.Get(row, 0));
        ASSIGN_OR_RETURN(std::string plain, OpenText(&sealer, rows.Get(row, 1), place));
        ASSIGN_OR_RETURN(std::string sealed, SealText(&sealer, plain, place));
        return Updated(
            pool,
            absl::StrCat("UPDATE ", table, " SET secret = $3 WHERE id = $1::uuid AND secret = $2"),
            {std::string(rows.Get(row, 0)), std::string(rows.Get(row, 1)), sealed});
      },
      [](const pg::Result& rows, int row, std::vector<std::string>& params) {
        params[1] = std::string(rows.Get(row, 0));
      });
}

absl::StatusOr<int64_t> ResealSigningKeys(pg::Pool& pool, const crypto::Sealer& sealer,
                                          int64_t& unreadable) {
  return EachBatch(
      pool,
      absl::StrCat("SELECT id::text, encode(signing_key, 'hex') FROM infra_envs WHERE signing_key "
                   "IS NOT NULL AND substring(signing_key from 1 for length(decode($1, 'hex'))) "
                   "<> decode($1, 'hex') AND id > $2::uuid ORDER BY id LIMIT ",
                   kResealBatch),
      {absl::BytesToHexString(sealer.Header()), kNoUuid}, unreadable,
      [&](const pg::Result& rows, int row) -> absl::StatusOr<bool> {
        const std::string place = SecretPlace("infra_envs", "signing_key", rows.Get(row, 0));
        ASSIGN_OR_RETURN(std::string plain,
                         OpenSigningKey(&sealer, absl::HexStringToBytes(rows.Get(row, 1)), place));
        ASSIGN_OR_RETURN(std::string sealed, SealBytes(&sealer, plain, place));
        return Updated(pool,
                       "UPDATE infra_envs SET signing_key = decode($3, 'hex') WHERE id = $1::uuid "
                       "AND signing_key = decode($2, 'hex')",
                       {std::string(rows.Get(row, 0)), std::string(rows.Get(row, 1)),
                        absl::BytesToHexString(sealed)});
      },
      [](const pg::Result& rows, int row, std::vector<std::string>& params) {
        params[1] = std::string(rows.Get(row, 0));
      });
}

absl::StatusOr<int64_t> ResealArtifacts(pg::Pool& pool, const crypto::Sealer& sealer,
                                        int64_t& unreadable) {
  return EachBatch(
      pool,
      absl::StrCat("SELECT cluster_id::text, name, encode(content, 'hex'), sealed_size IS NOT NULL "
                   "FROM artifacts WHERE ((sealed_size IS NULL AND ",
                   kSecretArtifactSql,
                   ") OR (sealed_size IS NOT NULL AND substring(content from 1 for "
                   "length(decode($1, 'hex'))) <> decode($1, 'hex'))) AND (cluster_id, name) > "
                   "($2::uuid, $3) ORDER BY cluster_id, name LIMIT ",
                   kResealBatch),
      {absl::BytesToHexString(sealer.Header()), kNoUuid, ""}, unreadable,
      [&](const pg::Result& rows, int row) -> absl::StatusOr<bool> {
        const std::string cluster_id(rows.Get(row, 0));
        const std::string name(rows.Get(row, 1));
        const std::string stored = absl::HexStringToBytes(rows.Get(row, 2));
        std::string plain = stored;
        if (rows.Get(row, 3) == "t") {
          ASSIGN_OR_RETURN(plain, OpenBytes(&sealer, stored, ArtifactPlace(cluster_id, name)));
        }
        ASSIGN_OR_RETURN(SealedArtifact sealed, SealArtifact(sealer, plain, cluster_id, name));
        return Updated(
            pool,
            "UPDATE artifacts SET content = decode($3, 'hex'), sealed_size = $4::bigint, "
            "sealed_sha256 = $5 WHERE cluster_id = $1::uuid AND name = $2 AND content = "
            "decode($6, 'hex')",
            {cluster_id, name, absl::BytesToHexString(sealed.content), absl::StrCat(sealed.size),
             sealed.sha256_hex, std::string(rows.Get(row, 2))});
      },
      [](const pg::Result& rows, int row, std::vector<std::string>& params) {
        params[1] = std::string(rows.Get(row, 0));
        params[2] = std::string(rows.Get(row, 1));
      });
}

}  // namespace

std::string SecretPlace(absl::string_view table, absl::string_view column, absl::string_view row) {
  return absl::StrCat(table, ".", column, ":", row);
}

std::string ArtifactPlace(absl::string_view cluster_id, absl::string_view name) {
  return SecretPlace("artifacts", "content", absl::StrCat(cluster_id, "/", name));
}

absl::StatusOr<std::string> SealText(const crypto::Sealer* sealer, absl::string_view plain,
                                     absl::string_view place) {
  if (sealer == nullptr) return std::string(plain);
  ASSIGN_OR_RETURN(std::string envelope, sealer->Seal(plain, place));
  return kSealedTextPrefix + absl::Base64Escape(envelope);
}

absl::StatusOr<std::string> OpenText(const crypto::Sealer* sealer, absl::string_view stored,
                                     absl::string_view place) {
  if (!absl::ConsumePrefix(&stored, kSealedTextPrefix)) return std::string(stored);
  std::string envelope;
  if (!absl::Base64Unescape(stored, &envelope)) {
    return absl::DataLossError(absl::StrCat("the sealed value of ", place, " is unreadable"));
  }
  return OpenBytes(sealer, envelope, place);
}

absl::StatusOr<std::string> SealBytes(const crypto::Sealer* sealer, absl::string_view plain,
                                      absl::string_view place) {
  if (sealer == nullptr) return std::string(plain);
  return sealer->Seal(plain, place);
}

absl::StatusOr<std::string> OpenBytes(const crypto::Sealer* sealer, absl::string_view envelope,
                                      absl::string_view place) {
  if (sealer == nullptr) return NoKey();
  absl::StatusOr<std::string> plain = sealer->Open(envelope, place);
  if (!plain.ok()) {
    return absl::Status(plain.status().code(), absl::StrCat(place, ": ", plain.status().message()));
  }
  return plain;
}

absl::StatusOr<std::string> OpenSigningKey(const crypto::Sealer* sealer, absl::string_view stored,
                                           absl::string_view place) {
  if (stored.size() == kSigningKeySize) return std::string(stored);
  return OpenBytes(sealer, stored, place);
}

bool IsSecretArtifact(v1::ArtifactKind kind, absl::string_view name) {
  return kind == v1::ARTIFACT_KIND_CREDENTIALS || absl::EndsWith(name, ".key");
}

absl::StatusOr<SealedArtifact> SealArtifact(const crypto::Sealer& sealer, absl::string_view plain,
                                            absl::string_view cluster_id, absl::string_view name) {
  SealedArtifact sealed;
  ASSIGN_OR_RETURN(sealed.content, sealer.Seal(plain, ArtifactPlace(cluster_id, name)));
  sealed.size = static_cast<int64_t>(plain.size());
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(plain.data()), plain.size(), digest);
  sealed.sha256_hex =
      absl::BytesToHexString(absl::string_view(reinterpret_cast<char*>(digest), sizeof(digest)));
  return sealed;
}

absl::StatusOr<ResealCounts> ResealSecrets(pg::Pool& pool, const crypto::Sealer& sealer) {
  ResealCounts counts;
  for (const char* table : {"clusters", "infra_envs"}) {
    ASSIGN_OR_RETURN(int64_t resealed, ResealPullSecrets(pool, sealer, table, counts.unreadable));
    counts.pull_secrets += resealed;
  }
  ASSIGN_OR_RETURN(counts.signing_keys, ResealSigningKeys(pool, sealer, counts.unreadable));
  ASSIGN_OR_RETURN(counts.artifacts, ResealArtifacts(pool, sealer, counts.unreadable));
  return counts;
}

}  // namespace assisted::inventory
