// File: lib/inventory_client/watch_follower.h
//
// Follows the inventory's change log (InventoryService.Watch) on its own thread, so a process
// learns of every change whoever made it: a user action through another replica, a gateway edit,
// another replica's refresh. The orchestrator follows it to react to host and cluster changes;
// the gateway follows it to keep its read cache coherent. It starts from the head at start-up
// (from_seq 0: a BOOKMARK gives the current seq), resumes after the last seq it saw when the
// stream breaks (backoff 1 s x1.6, at most 30 s), and when the inventory no longer holds that
// seq (OUT_OF_RANGE: the change log was trimmed) it starts from the head again and calls
// `on_resync` so the caller re-reads what it cares about instead of trusting a gap. With
// `hints`, changes made through the inventory replica it follows also arrive early, unnumbered
// (WatchEvent.hint), and again numbered: callers must take a change twice in their stride.
//
// Callbacks run on the follower's thread, one at a time; they must not block for long (hand
// work to a queue).

#ifndef ASSISTED_LIB_INVENTORY_CLIENT_WATCH_FOLLOWER_H_
#define ASSISTED_LIB_INVENTORY_CLIENT_WATCH_FOLLOWER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "lib/log/log.h"
#include "lib/random/random.h"

namespace assisted::inventory_client {

class WatchFollower {
 public:
  // Every callback but on_change may be left empty.
  struct Callbacks {
    // A change (never a BOOKMARK).
    std::function<void(const inventory::v1::WatchEvent&)> on_change;
    // Changes may have been missed: the change log was trimmed past our position, or the first
    // stream (which starts "from now") began only after an earlier attempt failed.
    std::function<void()> on_resync;
    // A stream delivered its first message: from now until `on_broken`, every change after the
    // position the stream resumed from is delivered. Callers that must not act on a stale view
    // (a cache) stand down until this and after `on_broken`.
    std::function<void()> on_established;
    // The established stream ended (inventory down, network trouble, or the follower being
    // destroyed); changes are not delivered until the next `on_established`.
    std::function<void()> on_broken;
    // Every change numbered up to `seq` has been delivered (called after each numbered message,
    // bookmarks included, once its on_change returned): a reader that learnt the change-log
    // head from GetChangeLogHead waits for this to pass it.
    std::function<void(int64_t seq)> on_position;
  };

  struct Options {
    // Changes of these kinds (all when empty).
    std::vector<inventory::v1::ResourceKind> kinds;
    // Ask for hints too (WatchRequest.hints).
    bool hints = false;
  };

  // Starts following at once.
  WatchFollower(inventory::v1::InventoryService::StubInterface& inventory, Options options,
                Callbacks callbacks, log::Logger log);
  // Cancels the stream and joins the thread.
  ~WatchFollower();
  WatchFollower(const WatchFollower&) = delete;
  WatchFollower& operator=(const WatchFollower&) = delete;

  // The last seq seen (0 before the first message; hints have none).
  int64_t seq() const { return seq_.load(); }

 private:
  void Run();

  inventory::v1::InventoryService::StubInterface& inventory_;
  const Options options_;
  const Callbacks callbacks_;
  log::Logger log_;
  SystemRandom random_;
  std::atomic<int64_t> seq_{0};
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  grpc::ClientContext* current_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::thread thread_;
};

}  // namespace assisted::inventory_client

#endif  // ASSISTED_LIB_INVENTORY_CLIENT_WATCH_FOLLOWER_H_
