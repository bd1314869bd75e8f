// File: services/orchestrator/step_results.h
//
// Turns one agent step result into the host fields the orchestrator stores. The agent sends each
// report typed, in the StepResult member of its step type; an agent from before typed reports
// sent the reference's JSON in `output`, which is parsed here, once (lib/step_reports):
//
//   step type                      StepResult member     stored in Host
//   inventory                      inventory             inventory
//   connectivity-check             connectivity          connectivity_report
//   free-network-addresses         free_addresses        free_addresses_report
//   ntp-synchronizer               ntp_synchronization   ntp_sources_report
//   domain-resolution              domain_resolution     domain_name_resolutions_report
//   container-image-availability   image_availability    images_status_report (also on exit 2)
//   installation-disk-speed-check  disk_speed            disks_info_report: the entry of that
//                                  (exit 1: path only)   path replaced, others kept
//   api-vip / tang connectivity    api_vip_connectivity  api_vip / tang_connectivity_report
//                                  tang_connectivity
//
// A failed step stores nothing, except the two whose failure is itself the finding (an image
// that could not be pulled, a disk that could not be measured).
//
//   ASSIGN_OR_RETURN(HostFieldsUpdate update, NormalizeStepResult(result, host));
//   for (const std::string& path : update.paths) mask.add_paths(path);

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_STEP_RESULTS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_STEP_RESULTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/step.pb.h"
#include "services/orchestrator/core/fields_update.h"

namespace assisted::orchestrator {

// What one result may carry (the output text, and each typed report but the inventory, are
// held to kMaxStepOutputBytes). The agent's largest real outputs are a few tens of kilobytes (a
// host with hundreds of disks or interfaces), so 1 MiB is generous and still keeps a hostile
// agent from making the orchestrator parse and store megabytes per message. No agent output
// nests more than about eight levels; 64 leaves room and is far from what overflows a stack.
inline constexpr size_t kMaxStepOutputBytes = 1 << 20;
inline constexpr size_t kMaxInventoryBytes = 1 << 20;
inline constexpr int kMaxStepOutputDepth = 64;

// Host fields to write (core/fields_update.h). Empty `paths`: the result changes nothing on the
// host (logs-gather, stop, a failed check).
using core::HostFieldsUpdate;

// OK when `inventory` serialises to at most kMaxInventoryBytes; INVALID_ARGUMENT naming `field`
// (e.g. "register.inventory") otherwise. Inventories arrive as protos, parsed by gRPC already;
// this keeps an oversized one from being stored and re-read with every refresh of its cluster.
absl::Status CheckInventorySize(const types::v1::Inventory& inventory, absl::string_view field);

// The host fields `result` sets, given the host as stored (`current`: disk speeds merge into
// its disks_info_report). INVALID_ARGUMENT naming the step type and the field when the result
// carries the report member of another step type (or one where its type has none), when a
// successful result has no report or its text output does not have the documented shape (the
// agent and the orchestrator disagree: nothing is stored), and when the output, the report or
// the inventory is larger (or the output nests deeper) than the limits above, checked before
// anything parses it.
absl::StatusOr<HostFieldsUpdate> NormalizeStepResult(const types::v1::StepResult& result,
                                                     const types::v1::Host& current);

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_STEP_RESULTS_H_
