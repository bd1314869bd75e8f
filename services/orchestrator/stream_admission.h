// File: services/orchestrator/stream_admission.h
//
// Which agent streams (AgentService.Connect) the orchestrator holds. A stream is unregistered
// from the moment it opens until the hub accepts its Register; anyone who can reach the agent
// port can open one, so unregistered streams are what an attacker gets for free and are held
// on a short leash:
//
//   limit                              flag                                       default
//   registered streams, in all         --max-agent-streams                        20,000
//   unregistered streams, per IP       --max-unregistered-agent-streams-per-peer  16
//   unregistered streams, in all       (--max-agent-streams again)
//   all streams from one IP            --max-agent-streams-per-peer               0 (none)
//   time from opening to a message     --agent-registration-deadline              30s
//
// Only registered streams count toward the global cap, so idle unregistered streams can no
// longer lock the fleet out; they are capped per peer address (IP, without the port: one
// machine opening many connections) and closed when they stay silent past the deadline
// (Overdue, called by the hub's monitor, which wakes at NextDeadline). A stream whose first
// message (its Register) came in time is not closed while that message waits for a worker:
// after a restart ten thousand agents reconnect at once, and registering them all takes
// longer than the deadline; closing the late ones made each back off and try again.
//
// Thread-safe; never blocks beyond its own mutex.
//
//   RETURN_IF_ERROR(admission.Open(session, clock.Now()));   // refused: close the stream
//   admission.Heard(*session);                               // its first message arrived
//   ...
//   RETURN_IF_ERROR(admission.Register(*session));           // refused: ask to retry later
//   ...
//   for (auto& late : admission.Overdue(clock.Now())) late->Close(...);
//   admission.Close(*session);                                // when the stream is done

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_STREAM_ADMISSION_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_STREAM_ADMISSION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/orchestrator/agent_session.h"

namespace assisted::orchestrator {

struct AdmissionLimits {
  int max_registered = 20000;
  // Bounds what idle streams from many addresses can cost (about 40 KB each in gRPC alone);
  // the orchestrator sets it to max_registered.
  int max_unregistered = 20000;
  int max_unregistered_per_peer = 16;
  int max_per_peer = 0;  // 0: no cap (a NAT gateway may front a whole rack)
  absl::Duration registration_deadline = absl::Seconds(30);
};

// The peer's address without its port ("ipv4:10.0.0.5:41234" -> "ipv4:10.0.0.5",
// "ipv6:[::1]:5" -> "ipv6:[::1]").
std::string PeerAddress(const std::string& peer);

class StreamAdmission {
 public:
  explicit StreamAdmission(AdmissionLimits limits) : limits_(limits) {}

  // Admits a new, unregistered stream opened at `now`. RESOURCE_EXHAUSTED naming the cap when
  // its peer already holds its share, or the unregistered streams are at their total cap; the
  // stream is then not counted (its Close is a no-op).
  absl::Status Open(const std::shared_ptr<Session>& session, absl::Time now);

  // The stream registers: from now on it counts toward the global cap and not its peer's
  // unregistered share. RESOURCE_EXHAUSTED when the registered streams are at their cap (the
  // stream stays unregistered); FAILED_PRECONDITION for a stream Open did not admit. OK again
  // for a stream already registered.
  absl::Status Register(const Session& session);

  // The stream sent its first message: it waits for a worker (a registration herd can keep it
  // waiting longer than the deadline), no longer idle, so the deadline stops applying to it.
  void Heard(const Session& session);

  // Forgets the stream. Idempotent.
  void Close(const Session& session);

  // Open streams that sent nothing for `registration_deadline` after they opened.
  std::vector<std::shared_ptr<Session>> Overdue(absl::Time now) const;
  // When the next silent stream is overdue; InfiniteFuture when every stream has spoken.
  absl::Time NextDeadline() const;

  int open() const;
  int registered() const;

 private:
  struct Stream {
    std::weak_ptr<Session> session;
    std::string peer;
    absl::Time opened;
    bool registered = false;
    bool heard = false;  // sent a message
  };
  const AdmissionLimits limits_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<const Session*, Stream> streams_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, int> per_peer_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, int> unregistered_per_peer_ ABSL_GUARDED_BY(mu_);
  int registered_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_STREAM_ADMISSION_H_
