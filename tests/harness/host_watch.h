// File: tests/harness/host_watch.h
//
// Waits for hosts and clusters to reach states by following the inventory's Watch (the change
// feed), so integration tests never poll with sleeps:
//
//   StatusWatch watch = WatchHostsUntil(*stub, infra_env_id, /*after_seq=*/1,
//       [&](const HostStatuses& seen) { return AllAre(seen, ids, HOST_STATUS_KNOWN); },
//       absl::Seconds(60));
//   ASSERT_TRUE(watch.done) << watch.error;
//   ... later, only changes after those already read count:
//   WatchHostsUntil(*stub, infra_env_id, watch.last_seq, ...);
//
//   WatchClusterUntil(*stub, cluster_id, 1, [](const StatusWatch& w) { ... w.cluster ... });

#ifndef ASSISTED_TESTS_HARNESS_HOST_WATCH_H_
#define ASSISTED_TESTS_HARNESS_HOST_WATCH_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"

namespace assisted::testing {

// Latest status seen per host id.
using HostStatuses = std::map<std::string, types::v1::HostStatus>;

struct StatusWatch {
  HostStatuses seen;  // hosts: statuses from the changes after after_seq
  types::v1::ClusterStatus cluster = types::v1::CLUSTER_STATUS_UNSPECIFIED;  // last seen
  int64_t last_seq = 0;  // the last change read (after_seq if none)
  bool done = false;     // `done` held before the deadline
  std::string error;     // when not done: how the watch ended
};

// Reads the changes `filter` selects with a seq above `after_seq` (WatchRequest.from_seq
// semantics; 1 covers every change but the very first, which creates the first resource) until
// `done(watch)` holds or `timeout` passes.
StatusWatch WatchUntil(inventory::v1::InventoryService::Stub& stub,
                       const inventory::v1::WatchFilter& filter, int64_t after_seq,
                       const std::function<bool(const StatusWatch&)>& done, absl::Duration timeout);

// Host changes of `infra_env_id` until `done(seen)`.
StatusWatch WatchHostsUntil(inventory::v1::InventoryService::Stub& stub,
                            const std::string& infra_env_id, int64_t after_seq,
                            const std::function<bool(const HostStatuses&)>& done,
                            absl::Duration timeout);

// Changes of `cluster_id` and its hosts until `done(watch)`.
StatusWatch WatchClusterUntil(inventory::v1::InventoryService::Stub& stub,
                              const std::string& cluster_id, int64_t after_seq,
                              const std::function<bool(const StatusWatch&)>& done,
                              absl::Duration timeout);

// Whether every host in `ids` was seen with `status`.
bool AllAre(const HostStatuses& seen, const std::vector<std::string>& ids,
            types::v1::HostStatus status);

// Follows `cluster_id`'s artifact changes after `after_seq` until artifact `name` is stored
// whole (not partial, e.g. a log bundle uploaded in chunks); returns its content. An error
// when the watch ends first or `timeout` passes.
absl::StatusOr<std::string> WatchArtifactUntilComplete(inventory::v1::InventoryService::Stub& stub,
                                                       const std::string& cluster_id,
                                                       int64_t after_seq, const std::string& name,
                                                       absl::Duration timeout);

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_HOST_WATCH_H_
