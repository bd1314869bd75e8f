#include "tests/harness/gateway_service.h"

#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "services/gateway/cli/commands.h"
#include "tests/harness/probes.h"

namespace assisted::testing {

absl::StatusOr<RunningGateway> LaunchGatewayService(const GatewayServiceOptions& options) {
  RunningGateway running;
  ASSIGN_OR_RETURN(running.http_port, FreePort());
  running.http_base = absl::StrCat("http://127.0.0.1:", running.http_port);
  std::vector<std::string> args = {absl::StrCat("--http-listen=127.0.0.1:", running.http_port),
                                   "--inventory-address=" + options.inventory_address,
                                   "--orchestrator-address=" + options.orchestrator_address,
                                   "--image-address=" + options.image_address,
                                   "--jwt-secret-file=" + options.jwt_secret_file,
                                   "--url-signing-key-file=" + options.url_signing_key_file};
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
  ASSIGN_OR_RETURN(running.service,
                   LaunchedService::Launch(
                       {.binary = "services/gateway/assisted-gateway", .args = std::move(args)}));
  return running;
}

std::string AictlOutcome::Trimmed() const { return std::string(absl::StripAsciiWhitespace(out)); }

AictlOutcome RunAictl(const std::string& server, const std::string& token,
                      const std::vector<std::string>& args) {
  config::Environment env = {{"AICTL_SERVER", server}};
  if (!token.empty()) env["AICTL_TOKEN"] = token;
  std::ostringstream out, err;
  AictlOutcome outcome;
  outcome.code = cli::Run(args, env, {out, err});
  outcome.out = out.str();
  outcome.err = err.str();
  return outcome;
}

}  // namespace assisted::testing
