// File: services/agent/steps/ntp_synchronizer.h
//
// ntp-synchronizer: make the requested NTP sources known and report every source's state.
//   args:   [] or [{"ntp_source": "a.example.com,10.0.0.1"}] (comma separated, may be empty)
//   output: {"ntp_sources": [{"source_name", "source_state"}]}, state one of synced, combined,
//           not_combined, unreachable, error, variable.
// With chrony (`chronyc` runs through the ProcessRunner and its daemon answers): sources not yet
// listed (by literal or resolved address) are added with `chronyc add server <s> iburst`, then
// `chronyc -c -n sources` is reported, state from its second column (* + - ? x ~).
// Without chrony: one SNTP query per requested source (or per configured default server when
// none is requested): synced when it answers and this host's clock is within max_offset of it,
// not_combined when it answers with a larger offset, unreachable when it does not answer.

#ifndef ASSISTED_SERVICES_AGENT_STEPS_NTP_SYNCHRONIZER_H_
#define ASSISTED_SERVICES_AGENT_STEPS_NTP_SYNCHRONIZER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/sntp.h"
#include "services/agent/steps/step_executor.h"

namespace assisted::agent::steps {

struct NtpSynchronizerOptions {
  std::string chronyc = "chronyc";
  absl::Duration command_timeout = absl::Seconds(30);
  int sntp_port = kNtpPort;
  absl::Duration sntp_timeout = absl::Seconds(5);
  absl::Duration max_offset = absl::Seconds(1);  // SNTP: beyond this the clock is not in sync
  std::vector<std::string> default_servers;      // SNTP when no source is requested
  size_t max_sources = 16;
};

// Parses `chronyc -c sources` output into sources and states; malformed lines are skipped.
std::vector<NtpSourceState> ParseChronySources(absl::string_view csv);

class NtpSynchronizer final : public StepExecutor {
 public:
  explicit NtpSynchronizer(NtpSynchronizerOptions options) : options_(std::move(options)) {}

  StepType type() const override { return types::v1::STEP_TYPE_NTP_SYNCHRONIZER; }
  absl::Duration default_timeout() const override { return absl::Minutes(2); }
  StepResult Run(const Step& step, StepContext& context) override;

 private:
  // The sources as chrony sees them after adding `requested`; an error when chrony is absent
  // or its daemon does not answer.
  absl::StatusOr<std::vector<NtpSourceState>> FromChrony(const std::vector<std::string>& requested,
                                                         StepContext& context) const;
  std::vector<NtpSourceState> FromSntp(const std::vector<std::string>& requested,
                                       StepContext& context) const;

  const NtpSynchronizerOptions options_;
};

}  // namespace assisted::agent::steps

#endif  // ASSISTED_SERVICES_AGENT_STEPS_NTP_SYNCHRONIZER_H_
