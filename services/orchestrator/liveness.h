// File: services/orchestrator/liveness.h
//
// Agent liveness in memory. A host whose agent holds an open stream to this replica is alive:
// the stream itself is the heartbeat (gRPC keepalive, --grpc-keepalive-time/-timeout, breaks the
// stream of a peer that stopped answering, e.g. a frozen or unplugged machine), so nothing is
// written while a quiet host stays connected (perf goal G4: liveness <= 50 writes/s whatever
// the fleet size).
//
// The design across replicas:
//   * The replica holding a host's stream is the only judge of its connection. When the stream
//     registers it writes Host.agent_stream_holder = its replica id and checked_in_at = now;
//     when the stream closes it writes holder = "" and checked_in_at = the close time ("last
//     seen"). Those are the only liveness writes: two per connection.
//   * When it refreshes a host it holds, the refresher reads the host's checked_in_at as "now"
//     from this tracker, so the core's `connected` validation and the state machine's
//     disconnection rule see a live agent.
//   * A host held by another replica counts as heard now (that replica judges it).
//   * A host held by nobody is judged from its stored checked_in_at (last seen): the replica
//     where its stream closed refreshes it once the disconnection timeout has passed, and the
//     core's rules make it `disconnected`. A new stream heals it.
//   * A replica killed with -9 leaves its holder set on the hosts it held. Their agents
//     reconnect (backoff) and overwrite it; for a host whose agent is gone too, another
//     replica finds the dead one's presence lease gone and clears the holder
//     (replica_presence.h), and the host goes disconnected like any other.
//
// Thread-safe. Time comes from the injected Clock, so tests drive it with FakeClock.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_LIVENESS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_LIVENESS_H_

#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "lib/time/clock.h"

namespace assisted::orchestrator {

// A host's key: "<infra_env_id>/<host_id>".
std::string HostKey(const std::string& infra_env_id, const std::string& host_id);

// What the refresher needs to know about liveness.
class LivenessView {
 public:
  virtual ~LivenessView() = default;
  // This replica's id, as written to Host.agent_stream_holder.
  virtual const std::string& replica_id() const = 0;
  // When this replica last heard the host's agent (now, while its stream is open here);
  // nullopt when it holds no stream for it.
  virtual std::optional<absl::Time> LastHeard(const std::string& host_key) const = 0;
};

class LivenessTracker final : public LivenessView {
 public:
  LivenessTracker(std::string replica_id, const Clock& clock)
      : replica_id_(std::move(replica_id)), clock_(clock) {}

  const std::string& replica_id() const override { return replica_id_; }
  std::optional<absl::Time> LastHeard(const std::string& host_key) const override;

  // The host's stream registered here.
  void Opened(const std::string& host_key);
  // The host's stream closed: returns the time it was last seen (now).
  absl::Time Closed(const std::string& host_key);
  size_t size() const;

 private:
  const std::string replica_id_;
  const Clock& clock_;
  mutable absl::Mutex mu_;
  absl::flat_hash_set<std::string> open_ ABSL_GUARDED_BY(mu_);
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_LIVENESS_H_
