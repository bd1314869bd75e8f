#include "services/orchestrator/replica_presence.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/client_context.h"
#include "lib/grpc/channel.h"
#include "lib/status/grpc_status.h"

namespace assisted::orchestrator {

namespace inv = ::assisted::inventory::v1;

ReplicaPresence::ReplicaPresence(inv::InventoryService::StubInterface& inventory,
                                 std::string replica_id, PresenceOptions options, log::Logger log)
    : inventory_(inventory),
      replica_id_(std::move(replica_id)),
      options_(options),
      log_(std::move(log)) {}

std::string ReplicaPresence::LeaseName(const std::string& replica_id) {
  return absl::StrCat("agent-streams/", replica_id);
}

std::unique_ptr<grpc::ClientContext> ReplicaPresence::Context() const {
  return grpcutil::ContextWithin(options_.inventory_timeout);
}

absl::StatusOr<bool> ReplicaPresence::Acquire(const std::string& name) {
  inv::LeaseRequest request;
  request.set_name(name);
  request.set_holder(replica_id_);
  *request.mutable_ttl() = google::protobuf::util::TimeUtil::MillisecondsToDuration(
      absl::ToInt64Milliseconds(options_.ttl));
  request.set_action(inv::LEASE_ACTION_ACQUIRE);
  inv::LeaseResponse response;
  const grpc::Status status = inventory_.Lease(Context().get(), request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response.granted();
}

void ReplicaPresence::KeepAlive(absl::Time now) {
  {
    absl::MutexLock lock(&mu_);
    if (now - renewed_ < options_.ttl / 3) return;
  }
  absl::StatusOr<bool> granted = Acquire(LeaseName(replica_id_));
  if (granted.ok() && *granted) {
    absl::MutexLock lock(&mu_);
    renewed_ = now;
    return;
  }
  log_.Warning("cannot hold this replica's agent-streams lease",
               {{"replica", replica_id_},
                {"error", granted.ok() ? "held by another replica with this id"
                                       : std::string(granted.status().message())}});
}

bool ReplicaPresence::alive() const {
  absl::MutexLock lock(&mu_);
  return renewed_ != absl::InfinitePast();
}

absl::StatusOr<std::vector<ReplicaPresence::Orphans>> ReplicaPresence::FindOrphans() {
  std::map<std::string, std::vector<types::v1::Host>> held;
  inv::ListHostsRequest list;
  list.set_held_by_other_than(replica_id_);
  list.set_omit_reports(true);
  list.set_page_size(1000);
  do {
    inv::ListHostsResponse page;
    const grpc::Status status = inventory_.ListHosts(Context().get(), list, &page);
    if (!status.ok()) return FromGrpcStatus(status);
    for (types::v1::Host& host : *page.mutable_hosts()) {
      held[host.agent_stream_holder()].push_back(std::move(host));
    }
    list.set_page_token(page.next_page_token());
  } while (!list.page_token().empty());

  std::vector<Orphans> orphans;
  for (auto& [holder, hosts] : held) {
    absl::StatusOr<bool> taken = Acquire(LeaseName(holder));
    if (!taken.ok()) return taken.status();
    if (!*taken) continue;  // alive (or another replica is handing its hosts back)
    orphans.push_back({holder, std::move(hosts)});
  }
  return orphans;
}

void ReplicaPresence::Done(const std::string& holder) {
  inv::LeaseRequest request;
  request.set_name(LeaseName(holder));
  request.set_holder(replica_id_);
  request.set_action(inv::LEASE_ACTION_RELEASE);
  inv::LeaseResponse response;
  (void)inventory_.Lease(Context().get(), request, &response);  // it expires anyway
}

}  // namespace assisted::orchestrator
