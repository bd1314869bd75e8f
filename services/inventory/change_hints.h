// File: services/inventory/change_hints.h
//
// Hints are early word of the changes this replica commits, for Watch streams that ask for them
// (WatchRequest.hints). The change log numbers a committed change some milliseconds later: a
// batching window, then the numbering transaction with an fsync of its own. A hint reaches the
// watchers at once. The numbered event still follows, and it alone marks a position to resume
// from.
//
// HintRing keeps the newest hints under running numbers, so every stream reads what it has not
// seen yet without a queue of its own. A stream that falls further behind than the ring holds
// misses the oldest hints, which costs it only latency.

#ifndef ASSISTED_SERVICES_INVENTORY_CHANGE_HINTS_H_
#define ASSISTED_SERVICES_INVENTORY_CHANGE_HINTS_H_

#include <cstdint>
#include <vector>

#include "assisted/inventory/v1/inventory_service.pb.h"
#include "services/inventory/change_log.h"

namespace assisted::inventory {

// `change` as a Watch event (no seq or commit time: the caller sets those it has).
v1::WatchEvent EventOf(const Change& change);

// Whether `event` passes `filter`: the test ReadChanges makes in SQL, for events not in a table.
bool Matches(const v1::WatchFilter& filter, const v1::WatchEvent& event);

// Not thread-safe: its owner (ChangeFeed) guards it.
class HintRing {
 public:
  explicit HintRing(size_t capacity);

  // Adds `change` as a hint (seq 0, `hint` set) and returns its number: 1, 2, …
  uint64_t Add(const Change& change);

  // The newest hint's number (0 while there is none).
  uint64_t last() const { return last_; }

  // The hints numbered above `after` that still are in the ring and match `filter`, oldest first.
  std::vector<v1::WatchEvent> After(uint64_t after, const v1::WatchFilter& filter) const;

 private:
  std::vector<v1::WatchEvent> slots_;  // hint n sits at slots_[(n - 1) % capacity]
  uint64_t last_ = 0;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_CHANGE_HINTS_H_
