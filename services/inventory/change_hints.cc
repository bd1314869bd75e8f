// File: services/inventory/change_hints.cc

#include "services/inventory/change_hints.h"

#include <algorithm>

#include "absl/algorithm/container.h"

namespace assisted::inventory {

v1::WatchEvent EventOf(const Change& change) {
  v1::WatchEvent event;
  event.set_kind(change.kind);
  event.set_id(change.id);
  event.set_infra_env_id(change.infra_env_id);
  event.set_cluster_id(change.cluster_id);
  event.set_resource_version(change.resource_version);
  event.set_change_type(change.type);
  types::v1::ClusterStatus cluster_status;
  types::v1::HostStatus host_status;
  if (change.kind == v1::RESOURCE_KIND_CLUSTER &&
      types::v1::ClusterStatus_Parse(change.status, &cluster_status)) {
    event.set_cluster_status(cluster_status);
  } else if (change.kind == v1::RESOURCE_KIND_HOST &&
             types::v1::HostStatus_Parse(change.status, &host_status)) {
    event.set_host_status(host_status);
  }
  return event;
}

bool Matches(const v1::WatchFilter& filter, const v1::WatchEvent& event) {
  if (filter.kinds_size() > 0 && !absl::c_linear_search(filter.kinds(), event.kind())) {
    return false;
  }
  if (!filter.cluster_id().empty() && filter.cluster_id() != event.cluster_id()) return false;
  return filter.infra_env_id().empty() || filter.infra_env_id() == event.infra_env_id();
}

HintRing::HintRing(size_t capacity) : slots_(std::max<size_t>(capacity, 1)) {}

uint64_t HintRing::Add(const Change& change) {
  v1::WatchEvent& slot = slots_[last_ % slots_.size()];
  slot = EventOf(change);
  slot.set_hint(true);
  return ++last_;
}

std::vector<v1::WatchEvent> HintRing::After(uint64_t after, const v1::WatchFilter& filter) const {
  std::vector<v1::WatchEvent> hints;
  const uint64_t oldest_kept = last_ > slots_.size() ? last_ - slots_.size() + 1 : 1;
  for (uint64_t n = std::max(after + 1, oldest_kept); n <= last_; ++n) {
    const v1::WatchEvent& hint = slots_[(n - 1) % slots_.size()];
    if (Matches(filter, hint)) hints.push_back(hint);
  }
  return hints;
}

}  // namespace assisted::inventory
