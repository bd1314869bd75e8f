// File: services/orchestrator/step_results.h
//
// Turns one agent step result into the host fields the orchestrator stores, in the shape the
// core's validations read (core/agent_reports.h). The agent sends some outputs wrapped or per
// call; this is the one place that knows it:
//
//   step type                      agent output                     stored as
//   inventory                      StepResult.inventory (proto)     Host.inventory
//   connectivity-check             {"remote_hosts": [...]}          connectivity, as is
//   free-network-addresses         [{"network", "free_addresses"}]  free_addresses, as is
//   ntp-synchronizer               {"ntp_sources": [...]}           ntp_sources = the array
//   domain-resolution              {"resolutions": [...]}           domain_name_resolutions
//   container-image-availability   {"images": [...]}, exit 0 or 2   images_status = the array
//   installation-disk-speed-check  {"io_sync_duration", "path"}     disks_info: the entry of that
//                                  (exit 1: {"path"} only)          path replaced, others kept
//   api-vip / tang connectivity    {"is_success", ...}              api_vip/tang_connectivity
//
// Every stored text is first parsed with the core's own parser, so what is written is what the
// validations can read. A failed step stores nothing, except the two whose failure is itself
// the finding (an image that could not be pulled, a disk that could not be measured).
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

// What one result may carry. The agent's largest real outputs are a few tens of kilobytes (a
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
// its disks_info). INVALID_ARGUMENT naming the step type when a successful result's output does
// not have the documented shape (the agent and the orchestrator disagree: nothing is stored),
// and naming the field when the output or inventory is larger or nests deeper than the limits
// above (checked before anything parses it).
absl::StatusOr<HostFieldsUpdate> NormalizeStepResult(const types::v1::StepResult& result,
                                                     const types::v1::Host& current);

}  // namespace assisted::orchestrator

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_STEP_RESULTS_H_
