// File: services/orchestrator/hub_metrics.cc

#include "services/orchestrator/hub_metrics.h"

#include <string>

#include "lib/metrics/unlabelled.h"
#include "prometheus/counter.h"

namespace assisted::orchestrator {
namespace {

// From a millisecond (a quiet refresh) to a minute (a fleet registering at once).
const prometheus::Histogram::BucketBoundaries& Buckets() {
  static const auto* const kBuckets = new prometheus::Histogram::BucketBoundaries{
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
  return *kBuckets;
}

}  // namespace

HubMetrics::HubMetrics(prometheus::Registry& registry)
    : queue_(metrics::UnlabelledHistogram(registry, "assisted_orchestrator_refresh_queue_seconds",
                                          "How long a host or cluster refresh waited for a worker.",
                                          Buckets())),
      refresh_(metrics::UnlabelledHistogram(
          registry, "assisted_orchestrator_refresh_seconds",
          "How long a host or cluster refresh took once started: inventory "
          "reads, judging, writes and the push of new instructions.",
          Buckets())),
      joined_(metrics::UnlabelledCounter(
          registry, "assisted_orchestrator_refreshes_joined_total",
          "Refresh requests that joined a refresh of the same target already "
          "waiting for a worker.")),
      skipped_(metrics::UnlabelledCounter(
          registry, "assisted_orchestrator_refreshes_skipped_total",
          "Waiting refreshes dropped when a worker took them, because every "
          "change that asked for them had already been judged.")),
      rejected_(metrics::UnlabelledCounter(
          registry, "assisted_orchestrator_agent_messages_rejected_total",
          "Agent messages refused for good: results of steps never pushed to the stream, log "
          "chunks nobody asked for, outputs over the size or depth limits or of the wrong "
          "shape.")),
      abandoned_(metrics::UnlabelledCounter(
          registry, "assisted_orchestrator_registrations_abandoned_total",
          "Registrations dropped without being handled because the agent hung up (gave up "
          "waiting, or its connection broke) while they waited for a worker.")) {
  auto& refreshes = prometheus::BuildCounter()
                        .Name("assisted_orchestrator_refreshes_total")
                        .Help(
                            "Host and cluster refreshes run, by who asked: an agent's message, "
                            "a Watch event, the monitor, or an action after its own write.")
                        .Register(registry);
  for (int cause = 0; cause < kRefreshCauses; ++cause) {
    refreshes_[cause] = &refreshes.Add(
        {{"cause", std::string(RefreshCauseName(static_cast<RefreshCause>(cause)))}});
  }
}

}  // namespace assisted::orchestrator
