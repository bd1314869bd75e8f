#include "services/orchestrator/replica_presence.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"

namespace assisted::orchestrator {

ReplicaPresence::ReplicaPresence(InventoryPort& inventory, std::string replica_id,
                                 PresenceOptions options, log::Logger log)
    : inventory_(inventory),
      replica_id_(std::move(replica_id)),
      options_(options),
      log_(std::move(log)) {}

std::string ReplicaPresence::LeaseName(const std::string& replica_id) {
  return absl::StrCat("agent-streams/", replica_id);
}

absl::StatusOr<bool> ReplicaPresence::Acquire(const std::string& name) {
  ASSIGN_OR_RETURN(LeaseState lease, inventory_.AcquireLease(name, replica_id_, options_.ttl));
  return lease.granted;
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
  ASSIGN_OR_RETURN(std::vector<types::v1::Host> listed,
                   inventory_.ListHostsHeldByOthers(replica_id_));
  for (types::v1::Host& host : listed) {
    held[host.agent_stream_holder()].push_back(std::move(host));
  }

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
  (void)inventory_.ReleaseLease(LeaseName(holder), replica_id_);  // it expires anyway
}

}  // namespace assisted::orchestrator
