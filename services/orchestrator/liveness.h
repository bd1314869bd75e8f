// File: services/orchestrator/liveness.h
//
// Agent liveness in memory. Every message on a host's stream (heartbeats included) stamps the
// host's last-heard time here and nowhere else: a quiet connected fleet costs the database
// nothing (perf goal G4: liveness <= 50 writes/s whatever the fleet size).
//
// The design across replicas:
//   * The replica holding a host's stream is the only judge of its connection. When the stream
//     registers it writes Host.agent_stream_holder = its replica id and checked_in_at = now;
//     when the stream closes it writes holder = "" and checked_in_at = the last time it heard
//     the agent ("last seen"). Those are the only liveness writes: two per connection.
//   * When it refreshes a host it holds, the refresher replaces the stored checked_in_at by the
//     last-heard time from this tracker, so the core's `connected` validation and the state
//     machine's disconnection rule judge the live value.
//   * A host held by another replica counts as heard now (that replica judges it).
//   * A host held by nobody is judged from its stored checked_in_at (last seen).
//   * The monitor (monitor.h) asks Expired() each interval for the hosts this replica holds whose
//     agents fell silent, and refreshes their clusters: they go `disconnected` by the core's
//     rules. A later message heals them (the refresh sees a fresh last-heard time).
//
// Thread-safe. Time comes from the injected Clock, so tests drive it with FakeClock.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_LIVENESS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_LIVENESS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
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
  // When this replica last heard the host's agent; nullopt when it holds no stream for it.
  virtual std::optional<absl::Time> LastHeard(const std::string& host_key) const = 0;
};

class LivenessTracker final : public LivenessView {
 public:
  LivenessTracker(std::string replica_id, const Clock& clock)
      : replica_id_(std::move(replica_id)), clock_(clock) {}

  const std::string& replica_id() const override { return replica_id_; }
  std::optional<absl::Time> LastHeard(const std::string& host_key) const override;

  // The host's agent spoke (any message) now. True when it had been reported silent (the
  // caller refreshes it so it heals).
  bool Heard(const std::string& host_key);
  // The stream is gone: returns when the agent was last heard (nullopt if it was not tracked).
  std::optional<absl::Time> Forget(const std::string& host_key);
  // Hosts silent for longer than `silence` that were not reported yet; each is reported once
  // per silence (hearing it again re-arms it).
  std::vector<std::string> NewlySilent(absl::Duration silence);
  size_t size() const;

 private:
  struct Entry {
    absl::Time last_heard;
    bool reported_silent = false;
  };
  const std::string replica_id_;
  const Clock& clock_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Entry> hosts_ ABSL_GUARDED_BY(mu_);
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_LIVENESS_H_
