// File: services/orchestrator/refresh_cause.h
//
// Who asked for a refresh (refresher.h): reported to the hub with every refresh, and counted
// by cause (hub_metrics.h), so the refreshes one user action costs can be seen.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_REFRESH_CAUSE_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_REFRESH_CAUSE_H_

#include "absl/strings/string_view.h"

namespace assisted::orchestrator {

enum class RefreshCause {
  kAgent,    // an agent's own registration, result or progress
  kWatch,    // a change the inventory's Watch reported
  kMonitor,  // the hub's monitor (a deadline) or a resync of the Watch
  kAction,   // an action of actions/ after its own write (a user's request, an install report)
};
inline constexpr int kRefreshCauses = 4;

// The cause's label value: "agent", "watch", "monitor", "action".
inline absl::string_view RefreshCauseName(RefreshCause cause) {
  switch (cause) {
    case RefreshCause::kAgent:
      return "agent";
    case RefreshCause::kWatch:
      return "watch";
    case RefreshCause::kMonitor:
      return "monitor";
    case RefreshCause::kAction:
      return "action";
  }
  return "action";
}

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_REFRESH_CAUSE_H_
