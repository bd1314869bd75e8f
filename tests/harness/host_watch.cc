#include "tests/harness/host_watch.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/client_context.h"

namespace assisted::testing {

namespace inv = ::assisted::inventory::v1;

StatusWatch WatchUntil(inv::InventoryService::Stub& stub, const inv::WatchFilter& filter,
                       int64_t after_seq, const std::function<bool(const StatusWatch&)>& done,
                       absl::Duration timeout) {
  StatusWatch watch;
  watch.last_seq = after_seq;
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  inv::WatchRequest request;
  request.set_from_seq(after_seq);
  *request.mutable_filter() = filter;
  auto reader = stub.Watch(&context, request);
  inv::WatchEvent event;
  while (reader->Read(&event)) {
    if (event.seq() > 0) watch.last_seq = event.seq();
    if (event.status_case() == inv::WatchEvent::kHostStatus) {
      watch.seen[event.id()] = event.host_status();
    } else if (event.status_case() == inv::WatchEvent::kClusterStatus) {
      watch.cluster = event.cluster_status();
    } else {
      continue;  // bookmarks, deletions, events, artifacts
    }
    if (done(watch)) {
      watch.done = true;
      context.TryCancel();
      break;
    }
  }
  if (!watch.done) {
    const grpc::Status status = reader->Finish();
    watch.error = absl::StrCat("watch ended: ", status.error_code(), " ", status.error_message());
  }
  return watch;
}

StatusWatch WatchHostsUntil(inv::InventoryService::Stub& stub, const std::string& infra_env_id,
                            int64_t after_seq, const std::function<bool(const HostStatuses&)>& done,
                            absl::Duration timeout) {
  inv::WatchFilter filter;
  filter.set_infra_env_id(infra_env_id);
  filter.add_kinds(inv::RESOURCE_KIND_HOST);
  return WatchUntil(
      stub, filter, after_seq, [&](const StatusWatch& watch) { return done(watch.seen); }, timeout);
}

StatusWatch WatchClusterUntil(inv::InventoryService::Stub& stub, const std::string& cluster_id,
                              int64_t after_seq,
                              const std::function<bool(const StatusWatch&)>& done,
                              absl::Duration timeout) {
  inv::WatchFilter filter;
  filter.set_cluster_id(cluster_id);
  filter.add_kinds(inv::RESOURCE_KIND_CLUSTER);
  filter.add_kinds(inv::RESOURCE_KIND_HOST);
  return WatchUntil(stub, filter, after_seq, done, timeout);
}

bool AllAre(const HostStatuses& seen, const std::vector<std::string>& ids,
            types::v1::HostStatus status) {
  for (const std::string& id : ids) {
    auto it = seen.find(id);
    if (it == seen.end() || it->second != status) return false;
  }
  return true;
}

}  // namespace assisted::testing
