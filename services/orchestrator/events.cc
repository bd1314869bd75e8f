// File: services/orchestrator/events.cc

#include "services/orchestrator/events.h"

#include <algorithm>

#include "lib/time/proto_time.h"

namespace assisted::orchestrator {

bool EventRateLimiter::Allow(const std::string& subject) {
  const absl::Time now = clock_.Now();
  absl::MutexLock lock(&mu_);
  if (buckets_.size() >= options_.max_subjects && !buckets_.contains(subject)) {
    // Forget buckets that have refilled: they behave exactly like new ones.
    absl::erase_if(buckets_, [&](const auto& entry) {
      return entry.second.tokens +
                 absl::ToDoubleSeconds(now - entry.second.updated) * options_.per_second >=
             options_.burst;
    });
  }
  auto [it, fresh] = buckets_.try_emplace(subject, Bucket{options_.burst, now});
  Bucket& bucket = it->second;
  if (!fresh) {
    bucket.tokens =
        std::min(options_.burst,
                 bucket.tokens + absl::ToDoubleSeconds(now - bucket.updated) * options_.per_second);
    bucket.updated = now;
  }
  if (bucket.tokens < 1) {
    ++dropped_;
    return false;
  }
  bucket.tokens -= 1;
  return true;
}

uint64_t EventRateLimiter::dropped() const {
  absl::MutexLock lock(&mu_);
  return dropped_;
}

InventoryEvents::InventoryEvents(InventoryPort& inventory, EventRateOptions options,
                                 const Clock& clock, log::Logger log)
    : inventory_(inventory), limiter_(options, clock), clock_(clock), log_(std::move(log)) {}

void InventoryEvents::Emit(types::v1::Event event) {
  const std::string& subject = !event.host_id().empty() ? event.host_id() : event.cluster_id();
  if (!limiter_.Allow(subject)) return;
  if (!event.has_event_time()) {
    *event.mutable_event_time() = ToTimestamp(clock_.Now());
  }
  if (absl::Status appended = inventory_.AppendEvent(event); !appended.ok()) {
    log_.Warning("cannot append an event", {{"name", event.name()}, {"error", appended.message()}});
  }
}

types::v1::Event HostEvent(const types::v1::Host& host, std::string name, std::string message,
                           types::v1::EventSeverity severity) {
  types::v1::Event event;
  event.set_name(std::move(name));
  event.set_host_id(host.id());
  event.set_infra_env_id(host.infra_env_id());
  event.set_cluster_id(host.cluster_id());
  event.set_severity(severity);
  event.set_category(types::v1::EVENT_CATEGORY_USER);
  event.set_message(std::move(message));
  return event;
}

types::v1::Event ClusterEvent(const types::v1::Cluster& cluster, std::string name,
                              std::string message, types::v1::EventSeverity severity) {
  return ClusterEvent(cluster.id(), std::move(name), std::move(message), severity);
}

types::v1::Event ClusterEvent(const std::string& cluster_id, std::string name, std::string message,
                              types::v1::EventSeverity severity) {
  types::v1::Event event;
  event.set_name(std::move(name));
  event.set_cluster_id(cluster_id);
  event.set_severity(severity);
  event.set_category(types::v1::EVENT_CATEGORY_USER);
  event.set_message(std::move(message));
  return event;
}

}  // namespace assisted::orchestrator
