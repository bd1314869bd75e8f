// File: services/orchestrator/instructions.h
//
// Two small seams of the agent hub, so install work plugs in without touching the hub:
//
//   InstructionSource  which steps (with their arguments) a host's agent should run now, given
//                      the host, its cluster and the cluster's other hosts. The hub asks it after
//                      every change that may matter and pushes the answer when it differs from
//                      what that stream was last sent. The default, DefaultInstructions, is the
//                      core's next-step selection (core/next_steps.h) with the arguments the
//                      agent's executors expect; steps whose arguments it cannot build (install,
//                      DHCP, Tang, ...) are left out. An install-aware source can wrap it and
//                      expand STEP_TYPE_INSTALL with the host's Ignition.
//   ProgressSink       what to do with an agent's install progress report. The default logs it.
//
// Both are called on the hub's worker threads, never on gRPC threads; they may block on the
// inventory, and must be thread-safe.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_INSTRUCTIONS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_INSTRUCTIONS_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "assisted/agent/v1/agent_service.pb.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/step.pb.h"
#include "lib/log/log.h"
#include "lib/random/random.h"
#include "services/orchestrator/release_images.h"

namespace assisted::orchestrator {

// The connectivity-check targets of one cluster's hosts, each host's entry rendered once. A
// push to every host of a cluster of n hosts rendered n x (n - 1) entries before: most of a
// 100-host cluster's refresh went there.
class ConnectivityTargets {
 public:
  // From every host of the cluster; hosts without an inventory are nobody's target.
  explicit ConnectivityTargets(const std::vector<types::v1::Host>& cluster_hosts);
  // The connectivity-check argument of `host_id`: a JSON list of every other host with its
  // NICs ({"host_id", "nics": [{"name", "mac", "ip_addresses"}]}), by host id; "" when there
  // is no other host.
  std::string For(const std::string& host_id) const;

 private:
  std::vector<std::pair<std::string, std::string>> entries_;  // host id, its entry; by id
};

struct InstructionInput {
  const types::v1::Host& host;
  const types::v1::Cluster* cluster = nullptr;  // null for a host without a cluster
  // Every host of the cluster, this one included (just this one when unbound).
  const std::vector<types::v1::Host>& cluster_hosts;
  // cluster_hosts' targets when the caller asks for several hosts of one cluster; null: built
  // for this call.
  const ConnectivityTargets* connectivity = nullptr;
  // The release image the hosts check (container-image-availability); empty: the cluster's own
  // ocp_release_image. DefaultInstructions fills it from its catalog (release_images.h).
  std::string release_image = "";
};

class InstructionSource {
 public:
  virtual ~InstructionSource() = default;
  // The steps to run now, ids set; empty when the agent has nothing to do in this state.
  virtual absl::StatusOr<std::vector<types::v1::Step>> StepsFor(const InstructionInput& input) = 0;
};

// The core's next steps, with arguments. Step ids come from `random`.
class DefaultInstructions final : public InstructionSource {
 public:
  // `release_images`: the catalog that names the release image of clusters registered with a
  // version only.
  explicit DefaultInstructions(Random& random, std::vector<ReleaseImage> release_images = {})
      : random_(random), release_images_(std::move(release_images)) {}
  absl::StatusOr<std::vector<types::v1::Step>> StepsFor(const InstructionInput& input) override;

 private:
  absl::Mutex mu_;  // Random is not thread-safe
  Random& random_ ABSL_GUARDED_BY(mu_);
  const std::vector<ReleaseImage> release_images_;
};

// The arguments of a step of `type` for `input`, as the agent's executors read them; NOT_FOUND
// when they cannot be built (e.g. no installation disk chosen yet, a step the default source does
// not know). Exposed for tests and for sources that wrap the default.
absl::StatusOr<std::vector<std::string>> StepArgs(types::v1::StepType type,
                                                  const InstructionInput& input);

// What is remembered of a step sent to a stream: its type and a digest of its arguments, which
// is all NewWork compares. Not the step itself: its arguments are JSON documents (image lists,
// peers' addresses), and the hub holds the last steps of every stream it serves.
struct SentStep {
  types::v1::StepType type = types::v1::STEP_TYPE_UNSPECIFIED;
  // absl::Hash of the arguments: seeded per process, so an agent cannot choose arguments that
  // collide with work it has not been given; only ever compared within this process.
  size_t args_digest = 0;

  friend bool operator==(const SentStep& a, const SentStep& b) {
    return a.type == b.type && a.args_digest == b.args_digest;
  }
};
SentStep Sent(const types::v1::Step& step);
template <typename Steps>
std::vector<SentStep> SentSteps(const Steps& steps) {
  std::vector<SentStep> sent;
  sent.reserve(steps.size());
  for (const types::v1::Step& step : steps) sent.push_back(Sent(step));
  return sent;
}

// The steps of `now` that `before` did not already ask for (no step of the same type with the
// same arguments), in order. An agent keeps the results of work it did, so only these need
// running: a cluster change that alters one step's arguments re-runs that step, not all.
std::vector<types::v1::Step> NewWork(const std::vector<SentStep>& before,
                                     const std::vector<types::v1::Step>& now);

// What a new agent process on a known host means for the host's state: the machine booted the
// discovery image again, so the state machine's register event fires (resetting-pending-user-
// action -> discovering, Rebooting -> installing-pending-user-action, installing -> error, ...).
// Without one, the hub only records the registration.
class RegistrationSink {
 public:
  virtual ~RegistrationSink() = default;
  // `host` as stored with the new agent instance; returns the host as it is afterwards.
  virtual absl::StatusOr<types::v1::Host> OnNewAgent(const types::v1::Host& host) = 0;
};

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // `host` (as stored) reported `progress`. OK acknowledges the report to the agent; an error
  // leaves it unacknowledged, so the agent sends it again after a reconnect.
  virtual absl::Status OnProgress(const types::v1::Host& host,
                                  const agent::v1::Progress& progress) = 0;
};

// Logs each report and acknowledges it.
class LoggingProgressSink final : public ProgressSink {
 public:
  explicit LoggingProgressSink(log::Logger log) : log_(std::move(log)) {}
  absl::Status OnProgress(const types::v1::Host& host,
                          const agent::v1::Progress& progress) override;

 private:
  log::Logger log_;
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_INSTRUCTIONS_H_
