// File: services/orchestrator/inventory_port.h
//
// The orchestrator's door to the inventory: exactly the operations the hub, the refresher, the
// replica presence, the event sink and the user actions use, in the orchestrator's own terms
// (absl::StatusOr, records of assisted.types.v1, core's field patches), never gRPC stubs. Two
// implementations: GrpcInventory (below, every call within a deadline through
// grpcutil::ContextWithin, which also rides out a peer that is starting) and FakeInventory
// (services/orchestrator/testing/fake_inventory.h, in memory, for unit tests).
//
// Contract every implementation keeps (the real inventory's):
//   * Every record has a resource_version, bumped by each write. A write with an expected
//     version (> 0) fails ABORTED when the stored version differs; 0 writes whatever is stored.
//   * A status change is a compare-and-set of the status: ABORTED when the stored status is not
//     the expected one, the patch and status_info written with it otherwise.
//   * NOT_FOUND for an unknown record; ALREADY_EXISTS for an if_absent artifact that exists.
//   * A fenced write fails when its lease has changed hands since (the fence's epoch).
//   * Watch delivers each change once, in the order made, numbered (WatchEvent.seq).
//
//   GrpcInventory inventory(channel, absl::Seconds(10));
//   ASSIGN_OR_RETURN(types::v1::Cluster cluster, inventory.GetCluster(id, /*with_hosts=*/true));

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_INVENTORY_PORT_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_INVENTORY_PORT_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/event.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/infra_env.pb.h"
#include "grpcpp/channel.h"
#include "lib/log/log.h"
#include "services/orchestrator/core/fields_update.h"

namespace assisted::orchestrator {

// One artifact write (PutArtifact).
struct ArtifactWrite {
  std::string cluster_id;
  std::string name;
  inventory::v1::ArtifactKind kind = inventory::v1::ARTIFACT_KIND_UNSPECIFIED;
  std::string content_type;
  std::string content;
  int64_t offset = 0;    // where `content` goes (chunked uploads)
  bool partial = false;  // more chunks follow
  bool if_absent = false;
  std::optional<inventory::v1::LeaseFence> fence;
  // Non-empty: only while the cluster's status is one of these, checked by the inventory in
  // the write's transaction under the cluster's lock (FAILED_PRECONDITION otherwise).
  std::vector<types::v1::ClusterStatus> cluster_status_in;
};

// A lease as the inventory answers: whether the caller holds it, who does, and the holding's
// fencing epoch (changes whenever the lease changes hands, never on renewal).
struct LeaseState {
  bool granted = false;
  std::string holder;
  int64_t epoch = 0;
};

// What a Watch subscriber is told; callbacks run one at a time.
struct WatchCallbacks {
  std::function<void(const inventory::v1::WatchEvent&)> on_change;
  // Changes may have been missed (the change log was trimmed): re-read what matters.
  std::function<void()> on_resync;
};

// Changes stop being delivered when this is destroyed.
class WatchSubscription {
 public:
  virtual ~WatchSubscription() = default;
};

class InventoryPort {
 public:
  virtual ~InventoryPort() = default;

  // Reads.
  virtual absl::StatusOr<types::v1::Cluster> GetCluster(const std::string& id, bool with_hosts) = 0;
  virtual absl::StatusOr<types::v1::Host> GetHost(const std::string& infra_env_id,
                                                  const std::string& id) = 0;
  virtual absl::StatusOr<types::v1::InfraEnv> GetInfraEnv(const std::string& id) = 0;
  virtual absl::StatusOr<std::vector<types::v1::InfraEnv>> ListClusterInfraEnvs(
      const std::string& cluster_id) = 0;
  // Hosts whose agent stream is held by a replica other than `holder` (reports omitted).
  virtual absl::StatusOr<std::vector<types::v1::Host>> ListHostsHeldByOthers(
      const std::string& holder) = 0;
  virtual absl::StatusOr<std::string> GetPullSecret(const std::string& cluster_id) = 0;
  virtual absl::StatusOr<std::string> GetInfraEnvSigningKey(const std::string& infra_env_id) = 0;

  // Writes. `expected_version` 0: whatever version is stored.
  virtual absl::StatusOr<types::v1::Host> CreateHost(const types::v1::Host& host) = 0;
  virtual absl::StatusOr<types::v1::Host> UpdateHost(const std::string& infra_env_id,
                                                     const std::string& id,
                                                     const core::HostFieldsUpdate& update,
                                                     int64_t expected_version) = 0;
  virtual absl::StatusOr<types::v1::Cluster> UpdateCluster(const std::string& id,
                                                           const core::ClusterFieldsUpdate& update,
                                                           int64_t expected_version) = 0;
  // Compare-and-set of `stored`'s status (its status is the one expected) to `to`.
  virtual absl::StatusOr<types::v1::Host> UpdateHostStatus(const types::v1::Host& stored,
                                                           types::v1::HostStatus to,
                                                           const std::string& status_info,
                                                           const core::HostFieldsUpdate& patch) = 0;
  virtual absl::StatusOr<types::v1::Cluster> UpdateClusterStatus(
      const types::v1::Cluster& stored, types::v1::ClusterStatus to, const std::string& status_info,
      const core::ClusterFieldsUpdate& patch) = 0;
  virtual absl::Status AppendEvent(const types::v1::Event& event) = 0;

  // Artifacts. GetArtifact: NOT_FOUND when absent; `metadata_only` leaves content empty.
  virtual absl::StatusOr<inventory::v1::Artifact> GetArtifact(const std::string& cluster_id,
                                                              const std::string& name,
                                                              bool metadata_only) = 0;
  virtual absl::Status PutArtifact(const ArtifactWrite& write) = 0;
  virtual absl::Status DeleteArtifacts(const std::string& cluster_id,
                                       const std::vector<inventory::v1::ArtifactKind>& kinds) = 0;
  // Metadata (no content) of the cluster's artifacts of `kind`, by name.
  virtual absl::StatusOr<std::vector<inventory::v1::ArtifactInfo>> ListArtifacts(
      const std::string& cluster_id, inventory::v1::ArtifactKind kind) = 0;
  // Deletes the one artifact named `name`; the number deleted (0 or 1). With
  // `cluster_status_in`, as ArtifactWrite's.
  virtual absl::StatusOr<int64_t> DeleteArtifact(
      const std::string& cluster_id, const std::string& name,
      const std::vector<types::v1::ClusterStatus>& cluster_status_in) = 0;

  // Leases: acquire (or renew, for the holder) for `ttl`; release.
  virtual absl::StatusOr<LeaseState> AcquireLease(const std::string& name,
                                                  const std::string& holder,
                                                  absl::Duration ttl) = 0;
  virtual absl::Status ReleaseLease(const std::string& name, const std::string& holder) = 0;

  // Follows changes of `kinds` (all when empty) from now on. With `hints`, a change may also
  // arrive early, unnumbered (WatchEvent.hint), and again numbered.
  virtual std::unique_ptr<WatchSubscription> Watch(std::vector<inventory::v1::ResourceKind> kinds,
                                                   bool hints, WatchCallbacks callbacks) = 0;

  // Composite reads the orchestrator repeats. The artifact's content, nullopt when absent.
  absl::StatusOr<std::optional<std::string>> ArtifactContent(const std::string& cluster_id,
                                                             const std::string& name);
};

// The inventory service over gRPC; every call within `timeout`.
class GrpcInventory final : public InventoryPort {
 public:
  GrpcInventory(std::shared_ptr<grpc::Channel> channel, absl::Duration timeout, log::Logger log);

  absl::StatusOr<types::v1::Cluster> GetCluster(const std::string& id, bool with_hosts) override;
  absl::StatusOr<types::v1::Host> GetHost(const std::string& infra_env_id,
                                          const std::string& id) override;
  absl::StatusOr<types::v1::InfraEnv> GetInfraEnv(const std::string& id) override;
  absl::StatusOr<std::vector<types::v1::InfraEnv>> ListClusterInfraEnvs(
      const std::string& cluster_id) override;
  absl::StatusOr<std::vector<types::v1::Host>> ListHostsHeldByOthers(
      const std::string& holder) override;
  absl::StatusOr<std::string> GetPullSecret(const std::string& cluster_id) override;
  absl::StatusOr<std::string> GetInfraEnvSigningKey(const std::string& infra_env_id) override;
  absl::StatusOr<types::v1::Host> CreateHost(const types::v1::Host& host) override;
  absl::StatusOr<types::v1::Host> UpdateHost(const std::string& infra_env_id, const std::string& id,
                                             const core::HostFieldsUpdate& update,
                                             int64_t expected_version) override;
  absl::StatusOr<types::v1::Cluster> UpdateCluster(const std::string& id,
                                                   const core::ClusterFieldsUpdate& update,
                                                   int64_t expected_version) override;
  absl::StatusOr<types::v1::Host> UpdateHostStatus(const types::v1::Host& stored,
                                                   types::v1::HostStatus to,
                                                   const std::string& status_info,
                                                   const core::HostFieldsUpdate& patch) override;
  absl::StatusOr<types::v1::Cluster> UpdateClusterStatus(
      const types::v1::Cluster& stored, types::v1::ClusterStatus to, const std::string& status_info,
      const core::ClusterFieldsUpdate& patch) override;
  absl::Status AppendEvent(const types::v1::Event& event) override;
  absl::StatusOr<inventory::v1::Artifact> GetArtifact(const std::string& cluster_id,
                                                      const std::string& name,
                                                      bool metadata_only) override;
  absl::Status PutArtifact(const ArtifactWrite& write) override;
  absl::Status DeleteArtifacts(const std::string& cluster_id,
                               const std::vector<inventory::v1::ArtifactKind>& kinds) override;
  absl::StatusOr<std::vector<inventory::v1::ArtifactInfo>> ListArtifacts(
      const std::string& cluster_id, inventory::v1::ArtifactKind kind) override;
  absl::StatusOr<int64_t> DeleteArtifact(
      const std::string& cluster_id, const std::string& name,
      const std::vector<types::v1::ClusterStatus>& cluster_status_in) override;
  absl::StatusOr<LeaseState> AcquireLease(const std::string& name, const std::string& holder,
                                          absl::Duration ttl) override;
  absl::Status ReleaseLease(const std::string& name, const std::string& holder) override;
  std::unique_ptr<WatchSubscription> Watch(std::vector<inventory::v1::ResourceKind> kinds,
                                           bool hints, WatchCallbacks callbacks) override;

 private:
  using Stub = inventory::v1::InventoryService::Stub;
  // Any unary call of the stub within the deadline: Call(&Stub::GetHost, request).
  template <typename Request, typename Response>
  absl::StatusOr<Response> Call(grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&,
                                                             Response*),
                                const Request& request);

  std::unique_ptr<Stub> stub_;
  const absl::Duration timeout_;
  log::Logger log_;
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_INVENTORY_PORT_H_
