// File: services/orchestrator/events.h
//
// The orchestrator's user-visible events (inventory AppendEvent): host registration, host and
// cluster status changes, validations that start failing or pass again, and the milestones of
// user actions (actions/). One sink serves them all, so every event counts against the
// same rate limit. Each host (or cluster, for cluster events) has a token bucket, so a flapping
// host cannot flood the events table: beyond its burst it gets `rate` events per second, the
// rest are dropped and counted. Appends go out on the caller's thread (the hub's workers, the
// user action's) and a failed append is logged, never retried: events are a record for people,
// not the system of record.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_EVENTS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_EVENTS_H_

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "lib/log/log.h"
#include "lib/time/clock.h"
#include "services/orchestrator/inventory_port.h"

namespace assisted::orchestrator {

// Where the refresher and the hub report what happened.
class EventSink {
 public:
  virtual ~EventSink() = default;
  // Appends `event` (name, ids, severity and message set) unless its subject is over its rate.
  virtual void Emit(types::v1::Event event) = 0;
};

// Drops everything; for tests and tools that want no events.
class NoEvents final : public EventSink {
 public:
  void Emit(types::v1::Event) override {}
};

// A token bucket per subject: `burst` events at once, refilled at `per_second`.
struct EventRateOptions {
  double per_second = 0.2;  // one event every 5 s per host once the burst is spent
  double burst = 20;
  size_t max_subjects = 100000;  // buckets kept; full buckets are forgotten first when above
};

// Token buckets keyed by subject. Thread-safe; time from the injected clock.
class EventRateLimiter {
 public:
  EventRateLimiter(EventRateOptions options, const Clock& clock)
      : options_(options), clock_(clock) {}
  // Takes a token of `subject`'s bucket; false when it is empty.
  bool Allow(const std::string& subject);
  uint64_t dropped() const;

 private:
  struct Bucket {
    double tokens = 0;
    absl::Time updated;
  };
  const EventRateOptions options_;
  const Clock& clock_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Bucket> buckets_ ABSL_GUARDED_BY(mu_);
  uint64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
};

// Appends rate-limited events to the inventory.
class InventoryEvents final : public EventSink {
 public:
  InventoryEvents(InventoryPort& inventory, EventRateOptions options, const Clock& clock,
                  log::Logger log);
  void Emit(types::v1::Event event) override;
  uint64_t dropped() const { return limiter_.dropped(); }

 private:
  InventoryPort& inventory_;
  EventRateLimiter limiter_;
  const Clock& clock_;
  log::Logger log_;
};

// Event builders (names as in the reference's events catalogue).
types::v1::Event HostEvent(const types::v1::Host& host, std::string name, std::string message,
                           types::v1::EventSeverity severity = types::v1::EVENT_SEVERITY_INFO);
types::v1::Event ClusterEvent(const std::string& cluster_id, std::string name, std::string message,
                              types::v1::EventSeverity severity = types::v1::EVENT_SEVERITY_INFO);
types::v1::Event ClusterEvent(const types::v1::Cluster& cluster, std::string name,
                              std::string message,
                              types::v1::EventSeverity severity = types::v1::EVENT_SEVERITY_INFO);

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_EVENTS_H_
