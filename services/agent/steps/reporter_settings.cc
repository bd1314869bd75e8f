// File: services/agent/steps/reporter_settings.cc

#include "services/agent/steps/reporter_settings.h"

#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"
#include "services/agent/steps/json_args.h"

namespace assisted::agent::steps {

std::string ReporterSettingsJson(const ReporterSettings& settings) {
  return DumpJson({{"orchestrator_address", settings.access.orchestrator_address},
                   {"tls", settings.access.tls},
                   {"ca_bundle", settings.access.ca_bundle_pem},
                   {"controller_token", settings.access.controller_token},
                   {"infra_env_id", settings.access.infra_env_id},
                   {"cluster_id", settings.cluster_id},
                   {"host_id", settings.host_id},
                   {"role", settings.role},
                   {"bootstrap", settings.bootstrap},
                   {"high_availability_mode", settings.sno ? "None" : "Full"},
                   {"olm_operators", settings.olm_operators}});
}

absl::StatusOr<ReporterSettings> ParseReporterSettings(absl::string_view text) {
  const nlohmann::json object = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!object.is_object()) {
    return absl::InvalidArgumentError("reporter settings are not a JSON object");
  }
  ReporterSettings s;
  ASSIGN_OR_RETURN(s.access.orchestrator_address,
                   StringField(object, "orchestrator_address", Need::kRequired, 1024));
  if (s.access.orchestrator_address.empty()) {
    return absl::InvalidArgumentError("orchestrator_address must not be empty");
  }
  ASSIGN_OR_RETURN(s.access.tls, BoolField(object, "tls", Need::kOptional));
  ASSIGN_OR_RETURN(s.access.ca_bundle_pem,
                   StringField(object, "ca_bundle", Need::kOptional, 1 << 20));
  ASSIGN_OR_RETURN(s.access.controller_token,
                   StringField(object, "controller_token", Need::kOptional, 8192));
  ASSIGN_OR_RETURN(s.access.infra_env_id, StringField(object, "infra_env_id", Need::kRequired, 64));
  RETURN_IF_ERROR(CheckId(s.access.infra_env_id, "infra_env_id"));
  ASSIGN_OR_RETURN(s.cluster_id, StringField(object, "cluster_id", Need::kRequired, 64));
  RETURN_IF_ERROR(CheckId(s.cluster_id, "cluster_id"));
  ASSIGN_OR_RETURN(s.host_id, StringField(object, "host_id", Need::kRequired, 64));
  RETURN_IF_ERROR(CheckId(s.host_id, "host_id"));
  ASSIGN_OR_RETURN(s.role, StringField(object, "role", Need::kRequired, 32));
  if (s.role != "master" && s.role != "worker") {
    return absl::InvalidArgumentError(
        absl::StrCat("role \"", s.role, "\" is not master or worker"));
  }
  ASSIGN_OR_RETURN(s.bootstrap, BoolField(object, "bootstrap", Need::kOptional));
  ASSIGN_OR_RETURN(const std::string mode,
                   StringField(object, "high_availability_mode", Need::kOptional, 16));
  if (!mode.empty() && mode != "Full" && mode != "None") {
    return absl::InvalidArgumentError(
        absl::StrCat("high_availability_mode \"", mode, "\" is not Full or None"));
  }
  s.sno = mode == "None";
  ASSIGN_OR_RETURN(const nlohmann::json operators,
                   ArrayField(object, "olm_operators", Need::kOptional, 32));
  ASSIGN_OR_RETURN(s.olm_operators, StringList(operators, "olm_operators", 32, 64));
  return s;
}

}  // namespace assisted::agent::steps
