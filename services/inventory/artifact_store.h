// File: services/inventory/artifact_store.h
//
// Artifacts: the generated files of a cluster (install-config, Ignition, credentials, logs),
// written whole or in chunks, read whole or in ranges, sealed at rest when secret
// (secret_columns.h: IsSecretArtifact). Every write is logged as a change
// (RESOURCE_KIND_ARTIFACT). Callers see the artifacts of the clusters they can see. SQL:
// artifact_queries.h.

#ifndef ASSISTED_SERVICES_INVENTORY_ARTIFACT_STORE_H_
#define ASSISTED_SERVICES_INVENTORY_ARTIFACT_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "lib/crypto/sealed.h"
#include "lib/pg/pool.h"
#include "services/inventory/store_common.h"

namespace assisted::inventory {

// One write of an artifact (ArtifactStore::Put).
struct ArtifactWrite {
  std::string cluster_id;
  std::string name;                                       // 1 to 255 bytes, no control characters
  v1::ArtifactKind kind = v1::ARTIFACT_KIND_UNSPECIFIED;  // required
  std::string content_type;
  absl::string_view content;  // must outlive the call
  // 0 creates or replaces the artifact; more extends it (a chunked upload) from that byte.
  int64_t offset = 0;
  bool partial = false;    // more chunks follow
  bool if_absent = false;  // ALREADY_EXISTS instead of replacing (offset 0 only)
  // Non-empty: only while the cluster's status is one of these (checked under its row lock);
  // FAILED_PRECONDITION otherwise.
  std::vector<types::v1::ClusterStatus> cluster_status_in;
};

// The part of an artifact a read returns (ArtifactStore::Get).
struct ArtifactRange {
  bool metadata_only = false;
  int64_t offset = 0;  // bytes skipped
  int64_t length = 0;  // bytes at most; 0: to the end
};

// Which of a cluster's artifacts List and Delete act on. Empty fields do not filter.
struct ArtifactSelection {
  std::string name;  // exactly this name, when set
  std::string name_prefix;
  std::vector<v1::ArtifactKind> kinds;
  // Delete only: as ArtifactWrite::cluster_status_in.
  std::vector<types::v1::ClusterStatus> cluster_status_in;
};

class ArtifactStore {
 public:
  // `sealer` seals secret artifacts at rest; null stores them in plain (development only). It
  // must outlive the store.
  ArtifactStore(pg::Pool& pool, int64_t max_bytes, const crypto::Sealer* sealer = nullptr)
      : pool_(pool), max_bytes_(max_bytes), sealer_(sealer) {}

  // Creates, replaces or extends an artifact of a cluster the caller can see. RESOURCE_EXHAUSTED
  // beyond max_bytes; FAILED_PRECONDITION for an offset past the stored size or a `fence` no
  // longer held or a cluster status not in cluster_status_in; ALREADY_EXISTS with if_absent.
  absl::StatusOr<v1::ArtifactInfo> Put(const Caller& caller, const ArtifactWrite& write,
                                       const Fence& fence = {});
  // NOT_FOUND for a missing artifact; OUT_OF_RANGE for an offset past its size.
  absl::StatusOr<v1::Artifact> Get(const Caller& caller, const std::string& cluster_id,
                                   const std::string& name, const ArtifactRange& range = {});
  // Metadata only, by name.
  absl::StatusOr<std::vector<v1::ArtifactInfo>> List(const Caller& caller,
                                                     const std::string& cluster_id,
                                                     const ArtifactSelection& selection);
  // Returns how many it deleted.
  absl::StatusOr<int64_t> Delete(const Caller& caller, const std::string& cluster_id,
                                 const ArtifactSelection& selection, const Fence& fence = {});

 private:
  // A later chunk of a sealed artifact (`stored_base64`, locked in `tx`): opened, extended and
  // sealed again. Returns the row's metadata columns.
  absl::StatusOr<pg::Result> ExtendSealed(pg::Transaction& tx, const ArtifactWrite& write,
                                          absl::string_view stored_base64) const;

  pg::Pool& pool_;
  const int64_t max_bytes_;
  const crypto::Sealer* const sealer_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_ARTIFACT_STORE_H_
