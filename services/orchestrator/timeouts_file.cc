#include "services/orchestrator/timeouts_file.h"

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "google/protobuf/descriptor.h"
#include "lib/status/status_macros.h"
#include "services/orchestrator/core/names.h"
#include "yaml-cpp/yaml.h"

namespace assisted::orchestrator {
namespace {

using DurationFields = std::vector<std::pair<const char*, absl::Duration*>>;

absl::Status Invalid(absl::string_view key, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("timeouts: ", key, ": ", problem));
}

absl::StatusOr<absl::Duration> ParsePositiveDuration(const YAML::Node& node,
                                                     absl::string_view key) {
  if (!node.IsScalar()) return Invalid(key, "must be a duration such as 90s, 30m or 1h30m");
  absl::Duration duration;
  if (!absl::ParseDuration(node.Scalar(), &duration)) {
    return Invalid(
        key, absl::StrCat("\"", node.Scalar(), "\" is not a duration such as 90s, 30m or 1h30m"));
  }
  if (duration <= absl::ZeroDuration() || duration == absl::InfiniteDuration()) {
    return Invalid(key, absl::StrCat("\"", node.Scalar(), "\" must be positive and finite"));
  }
  return duration;
}

// The mapping `node` at `path` must name only keys of `fields` or `nested` (sections handled by
// their own callback).
absl::Status ApplySection(
    const YAML::Node& node, absl::string_view path, const DurationFields& fields,
    const std::map<std::string, std::function<absl::Status(const YAML::Node&, std::string)>>&
        nested) {
  if (!node.IsMap()) return Invalid(path.empty() ? "(document)" : path, "must be a mapping");
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    const std::string where = path.empty() ? key : absl::StrCat(path, ".", key);
    if (auto section = nested.find(key); section != nested.end()) {
      RETURN_IF_ERROR(section->second(entry.second, where));
      continue;
    }
    bool known = false;
    for (const auto& [name, target] : fields) {
      if (key != name) continue;
      ASSIGN_OR_RETURN(*target, ParsePositiveDuration(entry.second, where));
      known = true;
    }
    if (!known) {
      std::vector<std::string> keys;
      for (const auto& field : fields) keys.push_back(field.first);
      for (const auto& section : nested) keys.push_back(section.first);
      return Invalid(where, absl::StrCat("unknown key; known: ", absl::StrJoin(keys, ", ")));
    }
  }
  return absl::OkStatus();
}

// A mapping from the reference's display names of `Enum` (e.g. "Writing image to disk") to
// durations, merged into `limits`.
template <typename Enum>
std::function<absl::Status(const YAML::Node&, std::string)> StageTable(
    const google::protobuf::EnumDescriptor* descriptor, absl::string_view (*display_name)(Enum),
    std::map<Enum, absl::Duration>* limits) {
  return [descriptor, display_name, limits](const YAML::Node& node, std::string path) {
    if (!node.IsMap()) return Invalid(path, "must be a mapping of stage names to durations");
    std::map<std::string, Enum, std::less<>> by_name;
    for (int i = 0; i < descriptor->value_count(); ++i) {
      const Enum stage = static_cast<Enum>(descriptor->value(i)->number());
      if (!display_name(stage).empty()) by_name[std::string(display_name(stage))] = stage;
    }
    for (const auto& entry : node) {
      const std::string name = entry.first.as<std::string>();
      const std::string where = absl::StrCat(path, ".", name);
      auto stage = by_name.find(name);
      if (stage == by_name.end()) {
        std::vector<std::string> names;
        for (const auto& known : by_name) names.push_back(known.first);
        return Invalid(where, absl::StrCat("not a stage; stages: ", absl::StrJoin(names, ", ")));
      }
      ASSIGN_OR_RETURN((*limits)[stage->second], ParsePositiveDuration(entry.second, where));
    }
    return absl::OkStatus();
  };
}

}  // namespace

absl::StatusOr<core::Timeouts> ApplyTimeoutsYaml(absl::string_view yaml,
                                                 const core::Timeouts& defaults) {
  YAML::Node root;
  try {  // yaml-cpp reports syntax errors only by throwing; nothing escapes this function.
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& error) {
    return absl::InvalidArgumentError(absl::StrCat("timeouts: not YAML: ", error.what()));
  }
  core::Timeouts timeouts = defaults;
  if (root.IsNull()) return timeouts;
  core::HostTimeouts& host = timeouts.host;
  core::ClusterTimeouts& cluster = timeouts.cluster;
  const DurationFields host_fields = {
      {"disconnection", &host.disconnection},
      {"bootstrap_extra_disconnection", &host.bootstrap_extra_disconnection},
      {"prepare", &host.prepare},
      {"disk_speed_check", &host.disk_speed_check},
      {"image_availability", &host.image_availability},
      {"installing_without_progress", &host.installing_without_progress},
      {"pending_user_action", &host.pending_user_action},
      {"reclaim", &host.reclaim},
      {"log_pending", &host.log_pending},
      {"log_collection", &host.log_collection},
      {"other_stage", &host.other_stage},
      {"sno_rebooting", &host.sno_rebooting},
  };
  const DurationFields cluster_fields = {
      {"prepare", &cluster.prepare},
      {"installation", &cluster.installation},
      {"finalizing", &cluster.finalizing},
      {"log_pending", &cluster.log_pending},
      {"log_collection", &cluster.log_collection},
      {"other_finalizing_stage", &cluster.other_finalizing_stage},
  };
  const auto host_section = [&](const YAML::Node& node, std::string path) {
    return ApplySection(node, path, host_fields,
                        {{"stages", StageTable(types::v1::HostStage_descriptor(),
                                               &core::HostStageName, &host.stage)}});
  };
  const auto cluster_section = [&](const YAML::Node& node, std::string path) {
    return ApplySection(node, path, cluster_fields,
                        {{"finalizing_stages",
                          StageTable(types::v1::FinalizingStage_descriptor(),
                                     &core::FinalizingStageName, &cluster.finalizing_stage_hard)},
                         {"finalizing_stages_soft",
                          StageTable(types::v1::FinalizingStage_descriptor(),
                                     &core::FinalizingStageName, &cluster.finalizing_stage_soft)}});
  };
  absl::Status applied = absl::OkStatus();
  try {  // as<std::string>() on a non-scalar key throws
    applied = ApplySection(root, "", {}, {{"host", host_section}, {"cluster", cluster_section}});
  } catch (const YAML::Exception& error) {
    return absl::InvalidArgumentError(absl::StrCat("timeouts: ", error.what()));
  }
  RETURN_IF_ERROR(applied);
  return timeouts;
}

}  // namespace assisted::orchestrator
