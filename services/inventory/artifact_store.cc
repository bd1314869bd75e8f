#include "services/inventory/artifact_store.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/status/status_macros.h"
#include "services/inventory/artifact_queries.h"
#include "services/inventory/change_log.h"
#include "services/inventory/secret_columns.h"
#include "services/inventory/transaction.h"

namespace assisted::inventory {
namespace {

constexpr int64_t kMaxInt32 = 0x7fffffff;

// Makes sure the cluster exists and the caller may see it; locks it against deletion.
// Locks the cluster (shared) for the rest of the transaction; with `status_in`, it must be in
// one of those statuses. A status change (an UPDATE of the row) waits for the lock, so it
// comes wholly before or wholly after the write.
absl::Status RequireCluster(pg::Transaction& tx, const Caller& caller,
                            const std::string& cluster_id,
                            const std::vector<types::v1::ClusterStatus>& status_in = {}) {
  if (cluster_id.empty()) return absl::InvalidArgumentError("cluster_id: required");
  Query q;
  q.Add(cluster_id);
  const std::string sql =
      absl::StrCat(artifact_sql::kLockCluster, TenancyPredicate(caller, {}, q.params()),
                   artifact_sql::kLockClusterTail);
  ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(sql, q.params()));
  if (rows.rows() == 0) {
    return absl::NotFoundError(absl::StrCat("cluster ", cluster_id, " not found"));
  }
  if (status_in.empty()) return absl::OkStatus();
  const absl::string_view status = rows.Get(0, 0);
  for (types::v1::ClusterStatus allowed : status_in) {
    if (types::v1::ClusterStatus_Name(allowed) == status) return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      absl::StrCat("cluster ", cluster_id, " is ", status, " now: the write is refused"));
}

// Bytes selected as encode(..., 'base64'), which PostgreSQL breaks into lines.
absl::StatusOr<std::string> Base64Content(absl::string_view selected) {
  std::string encoded(selected);
  encoded.erase(std::remove(encoded.begin(), encoded.end(), '\n'), encoded.end());
  std::string content;
  if (!absl::Base64Unescape(encoded, &content)) {
    return absl::DataLossError("stored artifact content is unreadable");
  }
  return content;
}

// A row's metadata columns (artifact_sql: ASSISTED_ARTIFACT_INFO).
v1::ArtifactInfo DecodeInfo(const pg::Result& rows, int row) {
  v1::ArtifactInfo info;
  info.set_cluster_id(std::string(rows.Get(row, 0)));
  info.set_name(std::string(rows.Get(row, 1)));
  v1::ArtifactKind kind;
  if (v1::ArtifactKind_Parse(std::string(rows.Get(row, 2)), &kind)) info.set_kind(kind);
  info.set_content_type(std::string(rows.Get(row, 3)));
  info.set_size_bytes(ToInt64(rows.Get(row, 4)));
  info.set_sha256(std::string(rows.Get(row, 5)));
  SetTimestamp(rows.Get(row, 6), *info.mutable_updated_at());
  info.set_partial(rows.Get(row, 7) == "t");
  return info;
}

// The statement `head` for cluster $1, narrowed to `selection`.
std::string Selected(Query& q, const std::string& cluster_id, absl::string_view head,
                     const ArtifactSelection& selection) {
  q.Add(cluster_id);
  std::string sql(head);
  if (!selection.name.empty()) {
    sql += absl::StrFormat(artifact_sql::kFilterName, q.Add(selection.name));
  }
  if (!selection.name_prefix.empty()) {
    sql += absl::StrFormat(artifact_sql::kFilterNamePrefix, q.Add(selection.name_prefix));
  }
  if (!selection.kinds.empty()) {
    sql += absl::StrFormat(
        artifact_sql::kFilterKindIn,
        q.Add(ArrayLiteral(EnumNames<v1::ArtifactKind>(selection.kinds, v1::ArtifactKind_Name))));
  }
  return sql;
}

absl::Status ValidateArtifactName(const std::string& name) {
  if (name.empty() || name.size() > 255) {
    return absl::InvalidArgumentError("name: required, at most 255 bytes");
  }
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x20) {
      return absl::InvalidArgumentError("name: control characters are not allowed");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::ArtifactInfo> ArtifactStore::Put(const Caller& caller,
                                                    const ArtifactWrite& write,
                                                    const Fence& fence) {
  RETURN_IF_ERROR(ValidateArtifactName(write.name));
  if (write.kind == v1::ARTIFACT_KIND_UNSPECIFIED) {
    return absl::InvalidArgumentError("kind: required");
  }
  if (write.offset < 0) return absl::InvalidArgumentError("offset: must not be negative");
  if (write.offset + static_cast<int64_t>(write.content.size()) > max_bytes_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("artifact ", write.name, " would exceed the limit of ", max_bytes_, " bytes"));
  }
  // A secret artifact is sealed whole: later chunks (offset > 0) open it, append and seal again
  // (ExtendSealed). Secret artifacts are small; the others keep their in-place appends.
  const bool seal = sealer_ != nullptr && IsSecretArtifact(write.kind, write.name);
  const std::string partial = write.partial ? "true" : "false";
  return InTransaction(pool_, [&](pg::Transaction& tx) -> absl::StatusOr<v1::ArtifactInfo> {
    RETURN_IF_ERROR(CheckFence(tx, fence));
    RETURN_IF_ERROR(RequireCluster(tx, caller, write.cluster_id, write.cluster_status_in));
    auto first_try = [&]() -> absl::StatusOr<pg::Result> {
      if (write.offset > 0) {
        return tx.Exec(artifact_sql::kAppendChunk,
                       {write.cluster_id, write.name, partial, absl::Base64Escape(write.content),
                        absl::StrCat(write.offset)});
      }
      SealedArtifact sealed;
      if (seal) {
        ASSIGN_OR_RETURN(sealed,
                         SealArtifact(*sealer_, write.content, write.cluster_id, write.name));
      }
      return tx.Exec(
          absl::StrCat(artifact_sql::kPut, write.if_absent ? artifact_sql::kOnConflictKeep
                                                           : artifact_sql::kOnConflictReplace),
          {write.cluster_id, write.name, v1::ArtifactKind_Name(write.kind), write.content_type,
           absl::Base64Escape(seal ? absl::string_view(sealed.content) : write.content), partial,
           seal ? pg::Param(absl::StrCat(sealed.size)) : pg::Param(),
           seal ? pg::Param(sealed.sha256_hex) : pg::Param()});
    };
    ASSIGN_OR_RETURN(pg::Result rows, first_try());
    if (rows.rows() == 0) {
      if (write.offset == 0) {
        return absl::AlreadyExistsError(absl::StrCat("artifact ", write.name, " of cluster ",
                                                     write.cluster_id, " already exists"));
      }
      ASSIGN_OR_RETURN(pg::Result stored,
                       tx.Exec(artifact_sql::kLockStored, {write.cluster_id, write.name}));
      const bool fits = stored.rows() > 0 && ToInt64(stored.Get(0, 0)) >= write.offset;
      if (!fits) {
        return absl::FailedPreconditionError(absl::StrCat(
            "offset: artifact ", write.name, " holds ",
            stored.rows() == 0 ? std::string("nothing") : absl::StrCat(stored.Get(0, 0), " bytes"),
            ", cannot write at ", write.offset));
      }
      if (stored.Get(0, 1) != "t") {
        return absl::InternalError("artifact changed while being extended; retry");
      }
      ASSIGN_OR_RETURN(rows, ExtendSealed(tx, write, stored.Get(0, 2)));
    }
    RETURN_IF_ERROR(AppendChange(tx, {v1::RESOURCE_KIND_ARTIFACT, write.name, "", write.cluster_id,
                                      1, v1::CHANGE_TYPE_UPDATED, ""}));
    return DecodeInfo(rows, 0);
  });
}

absl::StatusOr<pg::Result> ArtifactStore::ExtendSealed(pg::Transaction& tx,
                                                       const ArtifactWrite& write,
                                                       absl::string_view stored_base64) const {
  ASSIGN_OR_RETURN(std::string stored, Base64Content(stored_base64));
  ASSIGN_OR_RETURN(std::string plain,
                   OpenBytes(sealer_, stored, ArtifactPlace(write.cluster_id, write.name)));
  plain.resize(write.offset);
  plain.append(write.content.data(), write.content.size());
  ASSIGN_OR_RETURN(SealedArtifact sealed,
                   SealArtifact(*sealer_, plain, write.cluster_id, write.name));
  return tx.Exec(artifact_sql::kRewriteSealed,
                 {write.cluster_id, write.name, absl::Base64Escape(sealed.content),
                  absl::StrCat(sealed.size), sealed.sha256_hex, write.partial ? "true" : "false"});
}

absl::StatusOr<v1::Artifact> ArtifactStore::Get(const Caller& caller, const std::string& cluster_id,
                                                const std::string& name,
                                                const ArtifactRange& range) {
  if (range.offset < 0) return absl::InvalidArgumentError("offset: must not be negative");
  if (range.length < 0) return absl::InvalidArgumentError("length: must not be negative");
  std::vector<pg::Param> params = {cluster_id, name};
  const char* content = artifact_sql::kContentNone;
  if (!range.metadata_only && range.offset == 0 && range.length == 0) {
    content = artifact_sql::kContentWhole;
  } else if (!range.metadata_only) {
    // SQL's substring counts in int4 from 1; artifacts are far smaller, and an offset beyond the
    // content is refused below with the real size.
    const int64_t from = std::min(range.offset, kMaxInt32 - 1);
    const int64_t count = std::min(range.length > 0 ? range.length : kMaxInt32, kMaxInt32 - from);
    content = artifact_sql::kContentRange;
    params.push_back(absl::StrCat(from));
    params.push_back(absl::StrCat(count));
  }
  const std::string sql =
      absl::StrCat(range.offset == 0 ? artifact_sql::kGetHashed : artifact_sql::kGetUnhashed,
                   content, artifact_sql::kGetTail);
  return InTransaction(pool_, [&](pg::Transaction& tx) -> absl::StatusOr<v1::Artifact> {
    RETURN_IF_ERROR(RequireCluster(tx, caller, cluster_id));
    ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(sql, params));
    if (rows.rows() == 0) {
      return absl::NotFoundError(
          absl::StrCat("artifact ", name, " of cluster ", cluster_id, " not found"));
    }
    v1::Artifact artifact;
    *artifact.mutable_info() = DecodeInfo(rows, 0);
    if (range.offset > artifact.info().size_bytes()) {
      return absl::OutOfRangeError(
          absl::StrCat("offset: ", name, " holds ", artifact.info().size_bytes(), " bytes"));
    }
    if (!range.metadata_only) {
      ASSIGN_OR_RETURN(std::string bytes,
                       Base64Content(rows.Get(0, artifact_sql::kInfoColumnCount)));
      if (rows.Get(0, artifact_sql::kInfoColumnCount + 1) == "t") {
        ASSIGN_OR_RETURN(std::string plain,
                         OpenBytes(sealer_, bytes, ArtifactPlace(cluster_id, name)));
        bytes = plain.substr(
            range.offset, range.length > 0 ? static_cast<size_t>(range.length) : std::string::npos);
      }
      artifact.set_content(std::move(bytes));
    }
    return artifact;
  });
}

absl::StatusOr<std::vector<v1::ArtifactInfo>> ArtifactStore::List(
    const Caller& caller, const std::string& cluster_id, const ArtifactSelection& selection) {
  Query q;
  const std::string sql = absl::StrCat(Selected(q, cluster_id, artifact_sql::kList, selection),
                                       artifact_sql::kListOrder);
  return InTransaction(pool_,
                       [&](pg::Transaction& tx) -> absl::StatusOr<std::vector<v1::ArtifactInfo>> {
                         RETURN_IF_ERROR(RequireCluster(tx, caller, cluster_id));
                         ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(sql, q.params()));
                         std::vector<v1::ArtifactInfo> infos;
                         for (int row = 0; row < rows.rows(); ++row)
                           infos.push_back(DecodeInfo(rows, row));
                         return infos;
                       });
}

absl::StatusOr<int64_t> ArtifactStore::Delete(const Caller& caller, const std::string& cluster_id,
                                              const ArtifactSelection& selection,
                                              const Fence& fence) {
  Query q;
  std::string sql = absl::StrCat(Selected(q, cluster_id, artifact_sql::kDelete, selection),
                                 artifact_sql::kDeleteTail);
  absl::StrAppend(
      &sql, ChangeLogAppend(q, v1::RESOURCE_KIND_ARTIFACT, v1::CHANGE_TYPE_DELETED, "removed"),
      " SELECT ", kWakeSequencers);
  return InTransaction(pool_, [&](pg::Transaction& tx) -> absl::StatusOr<int64_t> {
    RETURN_IF_ERROR(CheckFence(tx, fence));
    RETURN_IF_ERROR(RequireCluster(tx, caller, cluster_id, selection.cluster_status_in));
    ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(sql, q.params()));
    return ToInt64(rows.Get(0, 0));
  });
}

}  // namespace assisted::inventory
