// File: services/gateway/change_log_head.h
//
// The inventory's change-log head as the read cache needs it (read_cache.h): for a read to see
// every write acknowledged before it began, whichever replica took the write, it must learn a
// head fetched (InventoryService.GetChangeLogHead) after it began, then wait for the change log
// it follows to pass that seq.
//
// Concurrent reads share fetches, the way a Raft leader batches ReadIndex requests: at most one
// fetch is in flight; a read that arrives while one is in flight cannot use it (it may have begun
// before the read) and waits for the next, which starts as soon as the current one returns and
// serves every read that arrived meanwhile. Under load a read therefore costs at most two fetch
// round trips of latency and the inventory sees one fetch per round trip, not one per read.
//
//   ChangeLogHead head([&](absl::Time deadline) { return FetchHead(stub, deadline); });
//   absl::StatusOr<int64_t> seq = head.Current(absl::Now() + absl::Seconds(1));
//
// Thread-safe.

#ifndef ASSISTED_SERVICES_GATEWAY_CHANGE_LOG_HEAD_H_
#define ASSISTED_SERVICES_GATEWAY_CHANGE_LOG_HEAD_H_

#include <cstdint>
#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"

namespace assisted::gateway {

class ChangeLogHead {
 public:
  // One round trip for the head, bounded by `deadline`.
  using Fetch = std::function<absl::StatusOr<int64_t>(absl::Time deadline)>;

  explicit ChangeLogHead(Fetch fetch) : fetch_(std::move(fetch)) {}
  ChangeLogHead(const ChangeLogHead&) = delete;
  ChangeLogHead& operator=(const ChangeLogHead&) = delete;

  // The head from a fetch that began after this call did. The fetch's error is returned to every
  // read it served; DEADLINE_EXCEEDED when `deadline` passes while waiting for another's fetch.
  absl::StatusOr<int64_t> Current(absl::Time deadline);

  // Reads waiting for another read's fetch (for tests and diagnostics).
  int waiting() const;

 private:
  const Fetch fetch_;
  mutable absl::Mutex mu_;
  uint64_t started_ ABSL_GUARDED_BY(mu_) = 0;   // fetches begun
  uint64_t finished_ ABSL_GUARDED_BY(mu_) = 0;  // fetches returned (they run one at a time)
  absl::StatusOr<int64_t> last_ ABSL_GUARDED_BY(mu_) = 0;  // what fetch number finished_ got
  int waiting_ ABSL_GUARDED_BY(mu_) = 0;
};

// The fetch of a ChangeLogHead from the inventory's GetChangeLogHead. `stub` must outlive it.
ChangeLogHead::Fetch InventoryChangeLogHead(inventory::v1::InventoryService::StubInterface& stub);

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_CHANGE_LOG_HEAD_H_
