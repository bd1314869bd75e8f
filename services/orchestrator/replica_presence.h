// File: services/orchestrator/replica_presence.h
//
// Which orchestrator replicas are alive, for the hosts whose agent stream another replica holds
// (liveness.h: such a host counts as connected, its holder judges it). A replica killed with -9
// cannot clear Host.agent_stream_holder on the hosts it held; their agents reconnect elsewhere
// and overwrite it, but a host whose agent is gone too would count as connected for ever.
//
// So every replica holds the inventory lease "agent-streams/<replica id>" while it runs
// (KeepAlive renews it well within its ttl), and now and then looks for hosts held by replicas
// whose lease is gone (FindOrphans). It takes a dead replica's lease while it hands that
// replica's hosts back (another sweeping replica then sees the lease held and leaves them
// alone), and releases it after (Done). A lease that was never taken counts as gone: a replica
// takes its own before it serves any stream.
//
//   ReplicaPresence presence(inventory, "orchestrator-1a2b", {.ttl = absl::Seconds(30)}, log);
//   presence.KeepAlive(clock.Now());  // from the monitor, every few seconds
//   for (const Orphans& dead : *presence.FindOrphans()) { ...; presence.Done(dead.holder); }

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_REPLICA_PRESENCE_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_REPLICA_PRESENCE_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "assisted/types/v1/host.pb.h"
#include "lib/log/log.h"
#include "services/orchestrator/inventory_port.h"

namespace assisted::orchestrator {

struct PresenceOptions {
  // How long a replica's lease outlives its last renewal: a killed replica's hosts are handed
  // back at most this long (plus one sweep) after it died.
  absl::Duration ttl = absl::Seconds(30);
};

class ReplicaPresence {
 public:
  // Hosts left held by a replica that is gone.
  struct Orphans {
    std::string holder;
    std::vector<types::v1::Host> hosts;  // as listed (reports omitted)
  };

  ReplicaPresence(InventoryPort& inventory, std::string replica_id, PresenceOptions options,
                  log::Logger log);

  // Takes or renews this replica's lease if a third of its ttl has passed (by `now`) since it
  // last did. Failures are logged and retried on the next call.
  void KeepAlive(absl::Time now);
  // Whether this replica's lease was taken at least once.
  bool alive() const;

  // Hosts held by other replicas whose lease is gone, by holder; this replica now holds each of
  // those holders' leases until Done(holder).
  absl::StatusOr<std::vector<Orphans>> FindOrphans();
  // Releases the lease taken in `holder`'s name.
  void Done(const std::string& holder);

  static std::string LeaseName(const std::string& replica_id);

 private:
  // Acquires lease `name` for this replica; whether it was granted.
  absl::StatusOr<bool> Acquire(const std::string& name);

  InventoryPort& inventory_;
  const std::string replica_id_;
  const PresenceOptions options_;
  log::Logger log_;
  mutable absl::Mutex mu_;
  absl::Time renewed_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_REPLICA_PRESENCE_H_
