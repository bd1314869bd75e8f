#include "tests/harness/host_watch.h"

#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/client_context.h"

namespace assisted::testing {

namespace inv = ::assisted::inventory::v1;

namespace {

// One Watch stream from `watch.last_seq`: reads until `done` or the stream ends; the final
// status when it ended without `done`.
grpc::Status WatchOnce(inv::InventoryService::Stub& stub, const inv::WatchFilter& filter,
                       const std::function<bool(const StatusWatch&)>& done, absl::Time deadline,
                       StatusWatch& watch) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  inv::WatchRequest request;
  request.set_from_seq(watch.last_seq);
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
  const grpc::Status status = reader->Finish();
  return watch.done ? grpc::Status::OK : status;
}

}  // namespace

StatusWatch WatchUntil(inv::InventoryService::Stub& stub, const inv::WatchFilter& filter,
                       int64_t after_seq, const std::function<bool(const StatusWatch&)>& done,
                       absl::Duration timeout) {
  StatusWatch watch;
  watch.last_seq = after_seq;
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    const grpc::Status status = WatchOnce(stub, filter, done, deadline, watch);
    if (watch.done) return watch;
    // Changes are numbered just after they commit: right after the first writes the head may
    // still be behind the seq a test starts from. And an inventory replica that dies ends the
    // stream (UNAVAILABLE): a watcher resumes from its last seq on another. Only those answers
    // are worth asking again.
    const bool not_numbered_yet = status.error_code() == grpc::StatusCode::OUT_OF_RANGE &&
                                  absl::StrContains(status.error_message(), "is ahead of");
    const bool replica_gone = status.error_code() == grpc::StatusCode::UNAVAILABLE;
    if (!(not_numbered_yet || replica_gone) || absl::Now() + absl::Milliseconds(20) >= deadline) {
      watch.error = absl::StrCat("watch ended: ", status.error_code(), " ", status.error_message());
      return watch;
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
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

namespace {

// The artifact's content when it is stored whole; nullopt while absent or partial.
std::optional<std::string> CompleteArtifact(inv::InventoryService::Stub& stub,
                                            const std::string& cluster_id,
                                            const std::string& name) {
  inv::GetArtifactRequest get;
  get.set_cluster_id(cluster_id);
  get.set_name(name);
  inv::Artifact artifact;
  grpc::ClientContext context;
  if (!stub.GetArtifact(&context, get, &artifact).ok() || artifact.info().partial()) {
    return std::nullopt;
  }
  return std::move(*artifact.mutable_content());
}

}  // namespace

absl::StatusOr<std::string> WatchArtifactUntilComplete(inv::InventoryService::Stub& stub,
                                                       const std::string& cluster_id,
                                                       int64_t after_seq, const std::string& name,
                                                       absl::Duration timeout) {
  if (auto content = CompleteArtifact(stub, cluster_id, name)) return *content;
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  inv::WatchRequest request;
  request.set_from_seq(after_seq);
  request.mutable_filter()->add_kinds(inv::RESOURCE_KIND_ARTIFACT);
  request.mutable_filter()->set_cluster_id(cluster_id);
  auto reader = stub.Watch(&context, request);
  inv::WatchEvent event;
  while (reader->Read(&event)) {
    if (event.id() != name) continue;
    if (auto content = CompleteArtifact(stub, cluster_id, name)) {
      context.TryCancel();
      return *content;
    }
  }
  const grpc::Status status = reader->Finish();
  return absl::DeadlineExceededError(absl::StrCat(
      "artifact ", name, " not complete: ", status.error_code(), " ", status.error_message()));
}

}  // namespace assisted::testing
