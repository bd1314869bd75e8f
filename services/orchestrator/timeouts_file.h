// File: services/orchestrator/timeouts_file.h
//
// Operators tune the state machines' time limits (core/timeouts.h) with one YAML document, so a
// lab with slow disks or a fleet behind a slow mirror needs no rebuild and no forest of flags:
//
//   host:
//     disconnection: 3m             # any duration absl::ParseDuration takes: 90s, 1h30m, ...
//     prepare: 8m
//     stages:
//       Writing image to disk: 45m  # the reference's stage strings
//   cluster:
//     installation: 24h
//     finalizing_stages:
//       Waiting for cluster operators: 10h
//
// Every key is optional; what is not named keeps its value in `defaults`. Unknown keys, stage
// names that are not the reference's, and durations that do not parse or are not positive are
// errors naming the key, so a typo never silently keeps a default.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_TIMEOUTS_FILE_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_TIMEOUTS_FILE_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "services/orchestrator/core/timeouts.h"

namespace assisted::orchestrator {

// `defaults` with the limits `yaml` names replaced. An empty document changes nothing.
absl::StatusOr<core::Timeouts> ApplyTimeoutsYaml(absl::string_view yaml,
                                                 const core::Timeouts& defaults);

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_TIMEOUTS_FILE_H_
