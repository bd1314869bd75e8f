// File: services/orchestrator/core/hw_requirements.cc

#include "services/orchestrator/core/hw_requirements.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/enums/spelling.h"
#include "lib/file/read_file.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"

namespace assisted::orchestrator::core {

namespace {

using nlohmann::json;

constexpr char kEmbedded[] =
#include "services/orchestrator/core/hw_requirements_json.inc"
    ;

constexpr int kSchemaVersion = 1;

constexpr RequirementRole kRoles[] = {RequirementRole::kMaster, RequirementRole::kArbiter,
                                      RequirementRole::kWorker, RequirementRole::kSno,
                                      RequirementRole::kEdgeWorker};

absl::Status Bad(absl::string_view where, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("hardware requirements: ", where, ": ", what));
}

absl::StatusOr<const json*> Member(const json& object, absl::string_view where,
                                   absl::string_view key) {
  auto it = object.find(std::string(key));
  if (it == object.end()) return Bad(where, absl::StrCat("\"", key, "\" is missing"));
  return &*it;
}

absl::StatusOr<double> Number(const json& object, absl::string_view where, absl::string_view key) {
  ASSIGN_OR_RETURN(const json* value, Member(object, where, key));
  if (!value->is_number()) return Bad(where, absl::StrCat("\"", key, "\" must be a number"));
  return value->get<double>();
}

absl::StatusOr<std::optional<double>> OptionalNumber(const json& object, absl::string_view where,
                                                     absl::string_view key) {
  if (!object.contains(std::string(key))) return std::optional<double>();
  ASSIGN_OR_RETURN(double value, Number(object, where, key));
  return std::optional<double>(value);
}

absl::StatusOr<std::optional<version::OcpVersion>> OptionalVersion(const json& object,
                                                                   absl::string_view where,
                                                                   absl::string_view key) {
  auto it = object.find(std::string(key));
  if (it == object.end()) return std::optional<version::OcpVersion>();
  if (!it->is_string()) return Bad(where, absl::StrCat("\"", key, "\" must be a string"));
  absl::StatusOr<version::OcpVersion> v = version::OcpVersion::Parse(it->get<std::string>());
  if (!v.ok()) return Bad(where, v.status().message());
  return std::optional<version::OcpVersion>(*v);
}

absl::StatusOr<RoleRequirements> ParseRole(const json& j, const std::string& where) {
  RoleRequirements r;
  ASSIGN_OR_RETURN(double cpu, Number(j, where, "cpu_cores"));
  ASSIGN_OR_RETURN(double ram, Number(j, where, "ram_mib"));
  ASSIGN_OR_RETURN(double disk, Number(j, where, "disk_size_gb"));
  ASSIGN_OR_RETURN(double speed, Number(j, where, "installation_disk_speed_threshold_ms"));
  ASSIGN_OR_RETURN(r.network_latency_threshold_ms,
                   OptionalNumber(j, where, "network_latency_threshold_ms"));
  ASSIGN_OR_RETURN(r.packet_loss_percentage, OptionalNumber(j, where, "packet_loss_percentage"));
  r.cpu_cores = static_cast<int64_t>(cpu);
  r.ram_mib = static_cast<int64_t>(ram);
  r.disk_size_gb = static_cast<int64_t>(disk);
  r.installation_disk_speed_threshold_ms = static_cast<int64_t>(speed);
  return r;
}

absl::StatusOr<ValidationLimits> ParseLimits(const json& j) {
  const std::string where = "limits";
  ValidationLimits l;
  ASSIGN_OR_RETURN(double tolerance, Number(j, where, "memory_tolerance_mib"));
  ASSIGN_OR_RETURN(l.meminfo_tolerance_percent, Number(j, where, "meminfo_tolerance_percent"));
  ASSIGN_OR_RETURN(double service_ahead, Number(j, where, "service_ahead_of_host_max_minutes"));
  ASSIGN_OR_RETURN(double host_ahead, Number(j, where, "host_ahead_of_service_max_minutes"));
  ASSIGN_OR_RETURN(double skew, Number(j, where, "cluster_clock_skew_max_minutes"));
  ASSIGN_OR_RETURN(l.min_image_download_rate_mbps,
                   Number(j, where, "min_image_download_rate_mbps"));
  ASSIGN_OR_RETURN(double min_hosts, Number(j, where, "majority_group_min_hosts"));
  ASSIGN_OR_RETURN(double v4, Number(j, where, "max_host_prefix_ipv4"));
  ASSIGN_OR_RETURN(double v6, Number(j, where, "max_host_prefix_ipv6"));
  l.memory_tolerance_mib = static_cast<int64_t>(tolerance);
  l.service_ahead_of_host_max = absl::Minutes(service_ahead);
  l.host_ahead_of_service_max = absl::Minutes(host_ahead);
  l.cluster_clock_skew_max = absl::Minutes(skew);
  l.majority_group_min_hosts = static_cast<int>(min_hosts);
  l.max_host_prefix_ipv4 = static_cast<int>(v4);
  l.max_host_prefix_ipv6 = static_cast<int>(v6);
  return l;
}

absl::StatusOr<std::vector<DriveTypeRule>> ParseDriveTypes(const json& j) {
  const std::string where = "installation_drive_types";
  if (!j.is_array()) return Bad(where, "must be an array");
  std::vector<DriveTypeRule> rules;
  for (const json& entry : j) {
    if (!entry.is_object() || !entry.contains("type") || !entry["type"].is_string()) {
      return Bad(where, "every entry needs a string \"type\"");
    }
    std::string name = entry["type"].get<std::string>();
    std::optional<types::v1::DriveType> type = ParseDriveType(name);
    if (!type) return Bad(where, absl::StrCat("unknown drive type \"", name, "\""));
    DriveTypeRule rule;
    rule.type = *type;
    ASSIGN_OR_RETURN(rule.min_version, OptionalVersion(entry, where, "min_version"));
    if (auto it = entry.find("architectures"); it != entry.end()) {
      if (!it->is_array()) return Bad(where, "\"architectures\" must be an array of strings");
      for (const json& arch : *it) {
        if (!arch.is_string()) return Bad(where, "\"architectures\" must be an array of strings");
        rule.architectures.push_back(arch.get<std::string>());
      }
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

// Converts one fully merged section ("default" plus overrides) into typed requirements.
absl::StatusOr<HwRequirements> Convert(const json& section, absl::string_view where) {
  HwRequirements out;
  ASSIGN_OR_RETURN(const json* roles, Member(section, where, "roles"));
  for (RequirementRole role : kRoles) {
    std::string key(RequirementRoleName(role));
    ASSIGN_OR_RETURN(const json* r, Member(*roles, absl::StrCat(where, ".roles"), key));
    ASSIGN_OR_RETURN(out.roles[role], ParseRole(*r, absl::StrCat(where, ".roles.", key)));
  }
  ASSIGN_OR_RETURN(const json* drives, Member(section, where, "installation_drive_types"));
  ASSIGN_OR_RETURN(out.installation_drive_types, ParseDriveTypes(*drives));
  ASSIGN_OR_RETURN(const json* limits, Member(section, where, "limits"));
  ASSIGN_OR_RETURN(out.limits, ParseLimits(*limits));
  return out;
}

}  // namespace

struct HwRequirementsCatalog::Document {
  struct Override {
    std::optional<version::OcpVersion> exact;  // matches its major.minor
    std::optional<version::OcpVersion> min;    // inclusive
    std::optional<version::OcpVersion> max;    // exclusive
    json patch;                                // merged over "default" (RFC 7396)

    bool Matches(const version::OcpVersion& v) const {
      if (exact && (exact->major != v.major || exact->minor != v.minor)) return false;
      if (min && v < *min) return false;
      if (max && !(v < *max)) return false;
      return true;
    }
  };
  json base;
  std::vector<Override> overrides;
};

absl::string_view RequirementRoleName(RequirementRole role) {
  switch (role) {
    case RequirementRole::kMaster:
      return "master";
    case RequirementRole::kArbiter:
      return "arbiter";
    case RequirementRole::kWorker:
      return "worker";
    case RequirementRole::kSno:
      return "sno";
    case RequirementRole::kEdgeWorker:
      return "edge-worker";
  }
  return "unknown";
}

absl::string_view DriveTypeName(types::v1::DriveType type) { return enums::EnumText(type); }

std::optional<types::v1::DriveType> ParseDriveType(absl::string_view name) {
  for (int t = types::v1::DriveType_MIN + 1; t <= types::v1::DriveType_MAX; ++t) {
    auto type = static_cast<types::v1::DriveType>(t);
    if (types::v1::DriveType_IsValid(t) && DriveTypeName(type) == name) return type;
  }
  return std::nullopt;
}

bool HwRequirements::DriveTypeAllowed(types::v1::DriveType type, const version::OcpVersion& version,
                                      absl::string_view architecture) const {
  for (const DriveTypeRule& rule : installation_drive_types) {
    if (rule.type != type) continue;
    if (rule.min_version && version < *rule.min_version) continue;
    if (!rule.architectures.empty() &&
        std::find(rule.architectures.begin(), rule.architectures.end(), architecture) ==
            rule.architectures.end()) {
      continue;
    }
    return true;
  }
  return false;
}

std::vector<std::string> HwRequirements::AllowedDriveTypeNames(
    const version::OcpVersion& version, absl::string_view architecture) const {
  std::vector<std::string> names;
  for (const DriveTypeRule& rule : installation_drive_types) {
    if (DriveTypeAllowed(rule.type, version, architecture)) {
      names.emplace_back(DriveTypeName(rule.type));
    }
  }
  return names;
}

absl::StatusOr<HwRequirementsCatalog> HwRequirementsCatalog::Parse(absl::string_view text) {
  json root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return Bad("document", "not a JSON object");
  }
  ASSIGN_OR_RETURN(double schema, Number(root, "document", "schema_version"));
  if (static_cast<int>(schema) != kSchemaVersion) {
    return Bad("schema_version",
               absl::StrCat(schema, " is not supported (this build reads ", kSchemaVersion, ")"));
  }
  auto doc = std::make_shared<Document>();
  ASSIGN_OR_RETURN(const json* base, Member(root, "document", "default"));
  doc->base = *base;
  RETURN_IF_ERROR(Convert(doc->base, "default").status());
  if (auto it = root.find("overrides"); it != root.end()) {
    if (!it->is_array()) return Bad("overrides", "must be an array");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& entry = (*it)[i];
      const std::string where = absl::StrCat("overrides[", i, "]");
      if (!entry.is_object()) return Bad(where, "must be an object");
      Document::Override o;
      ASSIGN_OR_RETURN(o.exact, OptionalVersion(entry, where, "version"));
      ASSIGN_OR_RETURN(o.min, OptionalVersion(entry, where, "min_version"));
      ASSIGN_OR_RETURN(o.max, OptionalVersion(entry, where, "max_version"));
      if (!o.exact && !o.min && !o.max) {
        return Bad(where, "needs \"version\", \"min_version\" or \"max_version\"");
      }
      o.patch = entry;
      for (const char* key : {"version", "min_version", "max_version"}) o.patch.erase(key);
      json merged = doc->base;
      merged.merge_patch(o.patch);
      RETURN_IF_ERROR(Convert(merged, where).status());
      doc->overrides.push_back(std::move(o));
    }
  }
  HwRequirementsCatalog catalog(std::move(doc));
  catalog.schema_version_ = kSchemaVersion;
  return catalog;
}

absl::StatusOr<HwRequirements> HwRequirementsCatalog::ForVersion(
    absl::string_view openshift_version) const {
  ASSIGN_OR_RETURN(version::OcpVersion version, version::OcpVersion::Parse(openshift_version));
  json merged = doc_->base;
  for (const Document::Override& o : doc_->overrides) {
    if (o.Matches(version)) merged.merge_patch(o.patch);
  }
  return Convert(merged, "merged");
}

HwRequirements HwRequirementsCatalog::Defaults() const {
  // "default" converted at Parse time already, so this cannot fail.
  absl::StatusOr<HwRequirements> r = Convert(doc_->base, "default");
  return r.ok() ? *std::move(r) : HwRequirements{};
}

const HwRequirementsCatalog& DefaultHwRequirements() {
  static const auto* const kCatalog = [] {
    absl::StatusOr<HwRequirementsCatalog> catalog = HwRequirementsCatalog::Parse(kEmbedded);
    // The embedded file is checked by hw_requirements_test; a broken one is a build defect.
    if (!catalog.ok()) std::abort();
    return new HwRequirementsCatalog(*std::move(catalog));
  }();
  return *kCatalog;
}

absl::StatusOr<HwRequirementsCatalog> LoadHwRequirements(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path, "hardware requirements file"));
  return HwRequirementsCatalog::Parse(text);
}

}  // namespace assisted::orchestrator::core
