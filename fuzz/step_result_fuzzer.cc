// File: fuzz/step_result_fuzzer.cc
//
// What an agent may send as a step result, through the orchestrator's normalisation
// (services/orchestrator/step_results.h), and the JSON bounds gate in front of it
// (lib/json/bounded.h). Input: one byte choosing the step type, one the exit code, one whether
// the host already has disks_info (the disk-speed merge reads it), then the output text.
// An input starting with 0xff is a whole binary StepResult instead, inventory included.
//
// Besides "no crash", it checks the gate's promise: text CheckJsonBounds accepts at depth d
// never takes nlohmann::json deeper than d.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>

#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/step.pb.h"
#include "fuzz/fuzz_input.h"
#include "lib/json/bounded.h"
#include "nlohmann/json.hpp"
#include "services/orchestrator/step_results.h"

namespace {

using assisted::fuzz::FuzzInput;
using assisted::types::v1::Host;
using assisted::types::v1::StepResult;
using assisted::types::v1::StepType;

constexpr int kExitCodes[] = {0, 1, 2, -1, 256};

void CheckBoundsAgreeWithParser(absl::string_view text) {
  constexpr int kDepth = 8;
  if (!assisted::untrusted::CheckJsonBounds(text, "fuzz",
                                            {.max_bytes = 1 << 20, .max_depth = kDepth})
           .ok()) {
    return;
  }
  int depth = 0;
  int deepest = 0;
  nlohmann::json::parser_callback_t track = [&](int, nlohmann::json::parse_event_t event,
                                                nlohmann::json&) {
    if (event == nlohmann::json::parse_event_t::object_start ||
        event == nlohmann::json::parse_event_t::array_start) {
      deepest = std::max(deepest, ++depth);
    } else if (event == nlohmann::json::parse_event_t::object_end ||
               event == nlohmann::json::parse_event_t::array_end) {
      --depth;
    }
    return true;
  };
  // Kept in a variable: GCC's warn_unused_result ignores a (void) cast.
  [[maybe_unused]] const nlohmann::json parsed =
      nlohmann::json::parse(text, track, /*allow_exceptions=*/false);
  if (deepest > kDepth) std::abort();  // the gate let through what it promised to stop
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzInput in(data, size);
  StepResult result;
  Host host;
  host.set_id("0a8c8a6e-0c55-4c3b-9d9a-7d5b1e0f2a11");
  const uint8_t type = in.Byte();
  if (type == 0xff) {
    absl::string_view bytes = in.Rest();
    if (!result.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return 0;
  } else {
    result.set_step_id("fuzz-00000000");
    result.set_step_type(static_cast<StepType>(type % (assisted::types::v1::StepType_MAX + 1)));
    result.set_exit_code(kExitCodes[in.Byte() % std::size(kExitCodes)]);
    if (in.Byte() % 2 == 1) {
      assisted::types::v1::DiskInfo* disk = host.mutable_disks_info_report()->add_disks();
      disk->set_path("/dev/sda");
      disk->mutable_disk_speed()->set_tested(true);
      disk->mutable_disk_speed()->set_speed_ms(9);
      host.mutable_disks_info_report()->add_disks()->set_path("/dev/sdb");
    }
    result.set_output(std::string(in.Rest()));
  }
  CheckBoundsAgreeWithParser(result.output());
  (void)assisted::orchestrator::NormalizeStepResult(result, host);
  return 0;
}
