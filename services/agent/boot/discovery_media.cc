#include "services/agent/boot/discovery_media.h"

#include <fcntl.h>
#include <unistd.h>

#include <optional>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/ignition/config_builder.h"
#include "lib/ignition/discovery_layout.h"
#include "lib/iso/embed.h"
#include "lib/iso/iso9660.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"

namespace assisted::agent::boot {
namespace {

using nlohmann::json;

absl::Status Missing(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("discovery Ignition: ", what));
}

// The decoded contents of the file at `path`, or nullopt when the config has no such file.
absl::StatusOr<std::optional<std::string>> FileContents(const json& config,
                                                        absl::string_view path) {
  const json* files = nullptr;
  if (auto storage = config.find("storage"); storage != config.end() && storage->is_object()) {
    if (auto found = storage->find("files"); found != storage->end() && found->is_array()) {
      files = &*found;
    }
  }
  if (files == nullptr) return std::nullopt;
  for (const json& file : *files) {
    if (!file.is_object() || file.value("path", "") != path) continue;
    const json contents = file.value("contents", json::object());
    if (!contents.is_object() || !contents.contains("source")) return std::string();
    if (!contents["source"].is_string()) return Missing(absl::StrCat(path, ": source"));
    ASSIGN_OR_RETURN(std::string bytes,
                     ignition::DecodeDataUrl(contents["source"].get<std::string>()));
    return std::optional<std::string>(std::move(bytes));
  }
  return std::nullopt;
}

absl::StatusOr<std::string> AgentCommandLine(const json& config) {
  const json systemd = config.value("systemd", json::object());
  const json units = systemd.is_object() ? systemd.value("units", json::array()) : json::array();
  for (const json& unit : units) {
    if (!unit.is_object() || unit.value("name", "") != discovery_layout::kAgentUnitName) continue;
    const json contents = unit.value("contents", json());
    if (!contents.is_string()) break;
    for (absl::string_view line : absl::StrSplit(contents.get<std::string>(), '\n')) {
      if (absl::ConsumePrefix(&line, "ExecStart=")) return std::string(line);
    }
    return Missing(absl::StrCat(discovery_layout::kAgentUnitName, " has no ExecStart"));
  }
  return Missing(absl::StrCat("no ", discovery_layout::kAgentUnitName, " unit"));
}

}  // namespace

absl::StatusOr<DiscoverySettings> SettingsFromIgnition(absl::string_view config_json) {
  const json config = json::parse(config_json, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object()) return Missing("not a JSON object");
  ASSIGN_OR_RETURN(std::string command_line, AgentCommandLine(config));
  DiscoverySettings settings;
  bool ca_bundle = false;
  for (absl::string_view word : absl::StrSplit(command_line, ' ', absl::SkipEmpty())) {
    if (absl::ConsumePrefix(&word, "--orchestrator-address=")) {
      settings.orchestrator_address = std::string(word);
    } else if (absl::ConsumePrefix(&word, "--infra-env-id=")) {
      settings.infra_env_id = std::string(word);
    } else if (word == "--tls") {
      settings.tls = true;
    } else if (absl::StartsWith(word, "--ca-bundle=")) {
      ca_bundle = true;
    }
  }
  if (settings.orchestrator_address.empty()) {
    return Missing("the agent's command line has no --orchestrator-address");
  }
  if (settings.infra_env_id.empty())
    return Missing("the agent's command line has no --infra-env-id");
  ASSIGN_OR_RETURN(std::optional<std::string> environment,
                   FileContents(config, discovery_layout::kAgentEnvPath));
  for (absl::string_view line : absl::StrSplit(environment.value_or(""), '\n')) {
    if (absl::ConsumePrefix(&line, "ASSISTED_AGENT_TOKEN="))
      settings.agent_token = std::string(line);
  }
  if (ca_bundle) {
    ASSIGN_OR_RETURN(std::optional<std::string> pem,
                     FileContents(config, discovery_layout::kAgentCaBundlePath));
    if (!pem.has_value() || pem->empty()) {
      return Missing(absl::StrCat("--ca-bundle is set but ", discovery_layout::kAgentCaBundlePath,
                                  " is not in the config"));
    }
    settings.ca_bundle_pem = *std::move(pem);
    settings.tls = true;
  }
  return settings;
}

absl::StatusOr<DiscoverySettings> SettingsFromIso(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  absl::StatusOr<std::string> ignition = [&]() -> absl::StatusOr<std::string> {
    ASSIGN_OR_RETURN(iso::IsoReader reader, iso::IsoReader::Open(fd, path));
    return iso::ReadEmbeddedIgnition(reader);
  }();
  close(fd);
  if (!ignition.ok()) {
    return absl::Status(ignition.status().code(),
                        absl::StrCat(path, ": ", ignition.status().message()));
  }
  return SettingsFromIgnition(*ignition);
}

}  // namespace assisted::agent::boot
