// File: services/orchestrator/testing/fake_inventory.h
//
// An in-memory InventoryPort (inventory_port.h) for unit tests of the orchestrator: no
// PostgreSQL, no processes, no threads. It keeps the real inventory's contract:
//   * every write bumps the record's resource_version; a write with an expected version that
//     is not the stored one fails ABORTED, as does a status compare-and-set whose expected
//     status is not the stored one;
//   * a new host without a status gets discovering (discovering-unbound outside a cluster);
//   * created_at, updated_at and status_updated_at (when the status moves) are the fake
//     clock's now, as the inventory stamps them with its own;
//   * leases are held until their ttl passes on the injected clock, re-acquired by their
//     holder without a new epoch, taken by another holder with epoch + 1; a fenced artifact
//     write fails FAILED_PRECONDITION once its lease changed hands; if_absent: ALREADY_EXISTS;
//   * Watch delivers every host and cluster change in the order made, numbered from 1, on the
//     writer's thread right after the write (outside the fake's lock, one delivery at a time).
// Tests seed records with Add*, read them back with Cluster/Host/Events, and make a method
// fail with FailNext.
//
//   FakeClock clock;
//   FakeInventory inventory(clock);
//   inventory.AddCluster(cluster);
//   AgentHub hub(inventory, options, random, log, {.clock = &clock});

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_TESTING_FAKE_INVENTORY_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_TESTING_FAKE_INVENTORY_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "lib/time/clock.h"
#include "services/orchestrator/inventory_port.h"

namespace assisted::orchestrator::testing {

class FakeInventory final : public InventoryPort {
 public:
  explicit FakeInventory(const Clock& clock) : clock_(clock) {}

  // Seeding (no Watch event, version 1 unless the record carries one). Returns what is stored.
  types::v1::Cluster AddCluster(types::v1::Cluster cluster, std::string pull_secret = "{}");
  types::v1::InfraEnv AddInfraEnv(types::v1::InfraEnv infra_env, std::string signing_key = "");
  types::v1::Host AddHost(types::v1::Host host);
  // Forgets a seeded host (no Watch event), e.g. to seed it again under another infra-env.
  void RemoveHost(const std::string& infra_env_id, const std::string& id);

  // What is stored now (NOT_FOUND-free: a default record when absent).
  types::v1::Cluster Cluster(const std::string& id) const;
  types::v1::Host Host(const std::string& infra_env_id, const std::string& id) const;
  bool HasHost(const std::string& infra_env_id, const std::string& id) const;
  std::vector<types::v1::Event> Events() const;
  // Host updates written so far (UpdateHost and UpdateHostStatus), to count applications.
  int host_writes() const;
  // The next call of `method` (e.g. "UpdateHost") fails with `status`, once.
  void FailNext(const std::string& method, absl::Status status);
  // Runs `then` once, right after the next GetCluster has read (outside the fake's lock): to
  // place another writer's change between a caller's read and its write.
  void AfterNextGetCluster(std::function<void()> then);

  // InventoryPort.
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
  struct Lease {
    std::string holder;
    int64_t epoch = 0;
    absl::Time expires;
  };
  struct Subscriber {
    std::vector<inventory::v1::ResourceKind> kinds;
    WatchCallbacks callbacks;
  };
  class Subscription;
  using HostKey = std::pair<std::string, std::string>;  // infra-env id, host id

  absl::Status Injected(const std::string& method) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // An artifact write's cluster_status_in, as the inventory checks it.
  absl::Status ClusterStatusIn(const std::string& cluster_id,
                               const std::vector<types::v1::ClusterStatus>& allowed) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Numbers a change and queues it for the subscribers.
  void Announce(inventory::v1::ResourceKind kind, const types::v1::Host* host,
                const types::v1::Cluster* cluster, inventory::v1::ChangeType change)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Hands queued changes to the subscribers, in order; call without mu_.
  void Deliver() ABSL_LOCKS_EXCLUDED(mu_);
  // What a write requires of the stored record, and the status it sets.
  template <typename Status>
  struct WriteCheck {
    int64_t expected_version = 0;           // 0: any
    std::optional<Status> expected_status;  // a status compare-and-set
    std::optional<Status> to;
    std::string status_info;
  };
  // The one write of a stored host or cluster: NOT_FOUND, ABORTED on a version or status that
  // is not the expected one; otherwise `update` (and the status) written, the version bumped,
  // the timestamps stamped and the change announced.
  template <typename Record, typename Key, typename Status>
  absl::StatusOr<Record> Write(std::map<Key, Record>& records, const Key& key,
                               const std::string& what, const WriteCheck<Status>& check,
                               const core::FieldsUpdate<Record>& update)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Clock& clock_;
  mutable absl::Mutex mu_;
  std::map<std::string, types::v1::Cluster> clusters_ ABSL_GUARDED_BY(mu_);
  std::function<void()> after_get_cluster_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> pull_secrets_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, types::v1::InfraEnv> infra_envs_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> signing_keys_ ABSL_GUARDED_BY(mu_);
  std::map<HostKey, types::v1::Host> hosts_ ABSL_GUARDED_BY(mu_);
  std::map<std::pair<std::string, std::string>, inventory::v1::Artifact> artifacts_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, Lease> leases_ ABSL_GUARDED_BY(mu_);
  std::vector<types::v1::Event> events_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::vector<absl::Status>> failures_ ABSL_GUARDED_BY(mu_);
  int host_writes_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t seq_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<inventory::v1::WatchEvent> pending_ ABSL_GUARDED_BY(mu_);
  int next_subscriber_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int, Subscriber> subscribers_ ABSL_GUARDED_BY(mu_);
  absl::Mutex delivering_;  // one delivery at a time, so changes arrive in order
};

}  // namespace assisted::orchestrator::testing

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_TESTING_FAKE_INVENTORY_H_
