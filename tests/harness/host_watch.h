// File: tests/harness/host_watch.h
//
// Waits for hosts to reach states by following the inventory's Watch (the change feed), so
// integration tests never poll with sleeps:
//
//   HostWatch watch = WatchHostsUntil(*stub, infra_env_id, /*after_seq=*/1,
//       [&](const HostStatuses& seen) { return AllAre(seen, ids, HOST_STATUS_KNOWN); },
//       absl::Seconds(60));
//   ASSERT_TRUE(watch.done);
//   ... later, only changes after those already read count:
//   WatchHostsUntil(*stub, infra_env_id, watch.last_seq, ...);

#ifndef ASSISTED_TESTS_HARNESS_HOST_WATCH_H_
#define ASSISTED_TESTS_HARNESS_HOST_WATCH_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"

namespace assisted::testing {

// Latest status seen per host id.
using HostStatuses = std::map<std::string, types::v1::HostStatus>;

struct HostWatch {
  HostStatuses seen;     // statuses from the changes after after_seq
  int64_t last_seq = 0;  // the last change read (after_seq if none)
  bool done = false;     // `done` held before the deadline
  std::string error;     // when not done: how the watch ended
};

// Reads host changes of `infra_env_id` with a seq above `after_seq` (WatchRequest.from_seq
// semantics; 1 covers every host change, as the infra-env's creation comes first) until
// `done(seen)` holds or `timeout` passes.
HostWatch WatchHostsUntil(inventory::v1::InventoryService::Stub& stub,
                          const std::string& infra_env_id, int64_t after_seq,
                          const std::function<bool(const HostStatuses&)>& done,
                          absl::Duration timeout);

// Whether every host in `ids` was seen with `status`.
bool AllAre(const HostStatuses& seen, const std::vector<std::string>& ids,
            types::v1::HostStatus status);

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_HOST_WATCH_H_
