// File: services/orchestrator/hub_metrics.h
//
// Metrics of the AgentHub's refreshes, built once over the service's prometheus::Registry; the
// hub never touches prometheus-cpp types. They say where a slow push went: waiting for a worker
// (a busy work queue) or in the refresh itself (inventory reads, judging, writes, the push).
//   assisted_orchestrator_refresh_queue_seconds     how long a refresh waited for a worker
//   assisted_orchestrator_refresh_seconds           how long a refresh took once started
//   assisted_orchestrator_refreshes_total{cause}    refreshes run, whoever asked (refresh_cause.h):
//                                                   a user's PATCH costs one, of cause "action"
//   assisted_orchestrator_refreshes_joined_total    requests that joined a refresh already waiting
//   assisted_orchestrator_refreshes_skipped_total   waiting refreshes dropped at start: every
//                                                   change that asked for them had been judged
//   assisted_orchestrator_agent_messages_rejected_total  agent messages refused for good (a step
//                                                   never pushed, logs not asked for, an output
//                                                   over the limits or of the wrong shape)
//   assisted_orchestrator_registrations_abandoned_total  registrations dropped unhandled: the
//                                                   agent hung up while they waited for a worker

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_HUB_METRICS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_HUB_METRICS_H_

#include <array>

#include "absl/time/time.h"
#include "prometheus/counter.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "services/orchestrator/refresh_cause.h"

namespace assisted::orchestrator {

// Thread-safe.
class HubMetrics {
 public:
  explicit HubMetrics(prometheus::Registry& registry);

  void Waited(absl::Duration wait) { queue_.Observe(absl::ToDoubleSeconds(wait)); }
  void Refreshed(absl::Duration took) { refresh_.Observe(absl::ToDoubleSeconds(took)); }
  void Refreshing(RefreshCause cause) { refreshes_[static_cast<int>(cause)]->Increment(); }
  void Joined() { joined_.Increment(); }
  void Skipped() { skipped_.Increment(); }
  void Rejected() { rejected_.Increment(); }
  void Abandoned() { abandoned_.Increment(); }

 private:
  prometheus::Histogram& queue_;
  prometheus::Histogram& refresh_;
  std::array<prometheus::Counter*, kRefreshCauses> refreshes_;  // by RefreshCause
  prometheus::Counter& joined_;
  prometheus::Counter& skipped_;
  prometheus::Counter& rejected_;
  prometheus::Counter& abandoned_;
};

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_HUB_METRICS_H_
