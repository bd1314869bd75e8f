// File: services/orchestrator/refresher.h
//
// Re-judges a cluster after something about one of its hosts changed: every host's validations
// (several depend on the other hosts: connectivity majority, hostname uniqueness, IP collisions,
// the machine network), every host's refresh transition, then the cluster's validations and
// refresh transition; when the cluster's status moved, its hosts once more against it. Each changed
// host or cluster is written with one compare-and-set of its status together with its validations;
// nothing is written when neither the status nor the outcome of a validation moved, so a refresh
// that learns nothing costs reads only. A host without a cluster is judged alone (the unbound
// machine).
//
// A lost compare-and-set (another writer moved the row first) re-reads and re-decides, a few
// times; every writer converges because each decides from what is stored after its own write.
//
// Liveness: the stored checked_in_at is replaced in memory by what `liveness` says (see
// liveness.h), so hosts held here are judged on their last-heard time and hosts held by
// another replica count as connected. Events (events.h) report status and validation changes.
//
//   Refresher refresher(stub, {.timeouts = timeouts}, clock, liveness, events, log);
//   ASSIGN_OR_RETURN(RefreshOutcome outcome, refresher.RefreshHost(infra_env_id, host_id));

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_REFRESHER_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_REFRESHER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "lib/log/log.h"
#include "lib/time/clock.h"
#include "services/orchestrator/core/timeouts.h"
#include "services/orchestrator/events.h"
#include "services/orchestrator/liveness.h"

namespace assisted::orchestrator {

struct RefreshOptions {
  core::Timeouts timeouts;
  absl::Duration inventory_timeout = absl::Seconds(10);
  int attempts = 4;  // decisions re-made after lost compare-and-sets
};

// Host fields to write along with a host's next compare-and-set.
struct HostFieldsPatch {
  types::v1::Host fields;
  std::vector<std::string> paths;
  template <typename Setter>
  void Set(const std::string& path, Setter set) {
    set(fields);
    paths.push_back(path);
  }
};

// What one refresh found. `hosts` and `cluster` are as stored after the refresh.
struct RefreshOutcome {
  std::optional<types::v1::Cluster> cluster;  // unset for an unbound host
  std::vector<types::v1::Host> hosts;         // the cluster's hosts (or the one unbound host)
  int hosts_written = 0;                      // host compare-and-sets that succeeded
  bool cluster_written = false;
};

class Refresher {
 public:
  Refresher(inventory::v1::InventoryService::StubInterface& inventory, RefreshOptions options,
            const Clock& clock, const LivenessView& liveness, EventSink& events, log::Logger log);

  // Refreshes the cluster of the host (or the host alone when it has no cluster).
  absl::StatusOr<RefreshOutcome> RefreshHost(const std::string& infra_env_id,
                                             const std::string& host_id);
  // The same, starting from `host` as the inventory just returned it (a write's answer): one
  // read fewer; a lost compare-and-set re-reads as usual.
  absl::StatusOr<RefreshOutcome> RefreshHost(types::v1::Host host);
  // Refreshes `cluster_id` and all its hosts.
  absl::StatusOr<RefreshOutcome> RefreshCluster(const std::string& cluster_id);

  // The host as the state machine and validations must see it: checked_in_at from liveness.
  types::v1::Host Observed(const types::v1::Host& stored, absl::Time now) const;

 private:
  absl::StatusOr<RefreshOutcome> RefreshHostFrom(const std::string& infra_env_id,
                                                 const std::string& host_id,
                                                 std::optional<types::v1::Host> known);
  // RefreshOnce, again while the cluster's status moves. Hosts are judged before their cluster
  // and some of their transitions follow the cluster's (prepared hosts start installing once it
  // is installing), so they are judged again against its new status, from what was just
  // written; otherwise they would wait for some later event to refresh them. At most 3 passes.
  absl::Status RefreshUntilSettled(types::v1::Cluster cluster, std::vector<types::v1::Host> hosts,
                                   RefreshOutcome& outcome);
  // One pass; ABORTED when a compare-and-set was lost (the caller re-reads and retries).
  absl::Status RefreshOnce(std::optional<types::v1::Cluster> cluster,
                           std::vector<types::v1::Host> hosts, RefreshOutcome& outcome);
  absl::Status WriteHost(
      const types::v1::Host& stored, const types::v1::Host& observed, const HostFieldsPatch& patch,
      types::v1::HostStatus to, const std::string& info,
      const google::protobuf::RepeatedPtrField<types::v1::ValidationResult>& validations,
      types::v1::Host& written);
  absl::Status WriteCluster(
      const types::v1::Cluster& stored, types::v1::ClusterStatus to, const std::string& info,
      const google::protobuf::RepeatedPtrField<types::v1::ValidationResult>& validations,
      types::v1::Cluster& written);
  absl::StatusOr<types::v1::Cluster> LoadCluster(const std::string& cluster_id);
  std::unique_ptr<grpc::ClientContext> Context() const;

  inventory::v1::InventoryService::StubInterface& inventory_;
  const RefreshOptions options_;
  const Clock& clock_;
  const LivenessView& liveness_;
  EventSink& events_;
  log::Logger log_;
};

// Whether two validation lists differ in outcome (id or status; messages are ignored, since
// some carry durations that change on every evaluation).
bool ValidationOutcomesDiffer(
    const google::protobuf::RepeatedPtrField<types::v1::ValidationResult>& a,
    const google::protobuf::RepeatedPtrField<types::v1::ValidationResult>& b);

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_REFRESHER_H_
