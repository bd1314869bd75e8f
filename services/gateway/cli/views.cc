#include "services/gateway/cli/views.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "assisted/types/v1/host.pb.h"
#include "lib/enums/spelling.h"
#include "lib/file/read_file.h"
#include "lib/status/status_macros.h"

namespace assisted::cli {
namespace {

using nlohmann::json;

absl::StatusOr<json> NodeToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return json();
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const YAML::Node& item : node) {
        ASSIGN_OR_RETURN(json value, NodeToJson(item));
        out.push_back(std::move(value));
      }
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& item : node) {
        if (!item.first.IsScalar()) return absl::InvalidArgumentError("a mapping key is not text");
        ASSIGN_OR_RETURN(out[item.first.Scalar()], NodeToJson(item.second));
      }
      return out;
    }
    case YAML::NodeType::Scalar:
      break;
  }
  const std::string& text = node.Scalar();
  if (node.Tag() != "?") return text;  // quoted or explicitly tagged: text as written
  if (text == "true" || text == "True") return true;
  if (text == "false" || text == "False") return false;
  if (text == "null" || text == "~") return json();
  int64_t integer = 0;
  if (absl::SimpleAtoi(text, &integer)) return integer;
  double real = 0;
  if (text.find_first_of(".eE") != std::string::npos && absl::SimpleAtod(text, &real) &&
      std::isfinite(real)) {
    return real;
  }
  return text;
}

std::vector<std::string> SplitList(absl::string_view text) {
  std::vector<std::string> out;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    out.emplace_back(absl::StripAsciiWhitespace(part));
  }
  return out;
}

json ObjectsOf(absl::string_view list, const char* key) {
  json out = json::array();
  for (const std::string& item : SplitList(list)) out.push_back({{key, item}});
  return out;
}

absl::StatusOr<std::string> ReadTrimmed(const std::string& path, absl::string_view flag) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path, flag));
  return std::string(absl::StripAsciiWhitespace(text));
}

std::string Truncate(absl::string_view text, size_t width) {
  if (text.size() <= width) return std::string(text);
  return absl::StrCat(text.substr(0, width - 3), "...");
}

}  // namespace

absl::StatusOr<json> YamlToJson(absl::string_view yaml) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& error) {
    return absl::InvalidArgumentError(absl::StrCat("not YAML: ", error.what()));
  }
  return NodeToJson(root);
}

namespace {

void EmitYaml(const json& value, YAML::Emitter& out) {
  if (value.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [key, item] : value.items()) {
      out << YAML::Key << key << YAML::Value;
      EmitYaml(item, out);
    }
    out << YAML::EndMap;
  } else if (value.is_array()) {
    out << YAML::BeginSeq;
    for (const json& item : value) EmitYaml(item, out);
    out << YAML::EndSeq;
  } else if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    // A string that would read back as anything else (another type, a mapping, nothing) is
    // written quoted.
    bool plain = false;
    try {
      const absl::StatusOr<json> reread = NodeToJson(YAML::Load(text));
      plain = !text.empty() && reread.ok() && reread->is_string() && *reread == text;
    } catch (const YAML::Exception&) {
    }
    if (plain) {
      out << text;
    } else {
      out << YAML::DoubleQuoted << text;
    }
  } else if (value.is_null()) {
    out << YAML::Null;
  } else {
    out << value.dump();  // numbers and booleans as JSON spells them
  }
}

std::string NameOf(const json& object) {
  for (const char* key : {"id", "name", "path"}) {
    const std::string text = TextField(object, key);
    if (!text.empty()) return text;
  }
  return "";
}

}  // namespace

std::string JsonToYaml(const json& value) {
  YAML::Emitter out;
  EmitYaml(value, out);
  return std::string(out.c_str()) + "\n";
}

std::string Names(const json& value) {
  std::string names;
  for (const json& item : value.is_array() ? value : json::array({value})) {
    const std::string name = NameOf(item);
    if (!name.empty()) absl::StrAppend(&names, name, "\n");
  }
  return names;
}

bool PrintStructured(const std::string& output, std::ostream& out, const json& value) {
  if (output == "json") {
    out << value.dump(2) << "\n";
  } else if (output == "yaml") {
    out << JsonToYaml(value);
  } else if (output == "name") {
    out << Names(value);
  } else {
    return false;
  }
  return true;
}

absl::StatusOr<json> ClusterCreateBody(const ClusterFlags& flags) {
  json body = json::object();
  if (!flags.file.empty()) {
    ASSIGN_OR_RETURN(std::string text, ReadFile(flags.file, "--file"));
    absl::StatusOr<json> parsed = YamlToJson(text);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(flags.file, ": ", parsed.status().message()));
    }
    if (!parsed->is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat(flags.file, ": expected a mapping of cluster fields (name: ...)"));
    }
    body = *std::move(parsed);
  }
  auto set_text = [&](const char* key, const std::string& value) {
    if (!value.empty()) body[key] = value;
  };
  set_text("name", flags.name);
  set_text("openshift_version", flags.openshift_version);
  set_text("base_dns_domain", flags.base_domain);
  if (!flags.pull_secret_file.empty()) {
    ASSIGN_OR_RETURN(body["pull_secret"],
                     ReadTrimmed(flags.pull_secret_file, "--pull-secret-file"));
  }
  if (!flags.ssh_key_file.empty()) {
    ASSIGN_OR_RETURN(body["ssh_public_key"], ReadTrimmed(flags.ssh_key_file, "--ssh-key-file"));
  }
  if (flags.control_plane_count > 0) body["control_plane_count"] = flags.control_plane_count;
  if (!flags.api_vips.empty()) body["api_vips"] = ObjectsOf(flags.api_vips, "ip");
  if (!flags.ingress_vips.empty()) body["ingress_vips"] = ObjectsOf(flags.ingress_vips, "ip");
  if (!flags.machine_networks.empty()) {
    body["machine_networks"] = ObjectsOf(flags.machine_networks, "cidr");
  }
  if (!flags.service_network.empty()) {
    body["service_networks"] = ObjectsOf(flags.service_network, "cidr");
  }
  if (!flags.cluster_network.empty()) {
    // CIDR/host-prefix: the last "/" separates the host prefix.
    const size_t last = flags.cluster_network.rfind('/');
    int host_prefix = 0;
    if (last == std::string::npos || flags.cluster_network.find('/') == last ||
        !absl::SimpleAtoi(flags.cluster_network.substr(last + 1), &host_prefix)) {
      return absl::InvalidArgumentError(
          "--cluster-network must be CIDR/host-prefix, e.g. 10.128.0.0/14/23");
    }
    body["cluster_networks"] = json::array(
        {{{"cidr", flags.cluster_network.substr(0, last)}, {"host_prefix", host_prefix}}});
  }
  if (flags.user_managed_networking) body["user_managed_networking"] = true;
  return body;
}

std::string TextField(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string()
             ? object[key].get<std::string>()
             : "";
}

std::string HostName(const json& host) {
  if (std::string name = TextField(host, "requested_hostname"); !name.empty()) return name;
  const json inventory = json::parse(TextField(host, "inventory"), nullptr,
                                     /*allow_exceptions=*/false);
  if (std::string name = TextField(inventory, "hostname"); !name.empty()) return name;
  return TextField(host, "id").substr(0, 8);
}

std::vector<std::string> FailingValidations(const json& host) {
  std::vector<std::string> failing;
  if (!host.contains("validations_info") || !host["validations_info"].is_string()) return failing;
  const json groups = json::parse(host["validations_info"].get<std::string>(), nullptr,
                                  /*allow_exceptions=*/false);
  if (!groups.is_object()) return failing;
  for (const auto& group : groups.items()) {
    if (!group.value().is_array()) continue;
    for (const json& result : group.value()) {
      if (result.is_object() && result.value("status", std::string()) == "failure") {
        failing.push_back(result.value("message", result.value("id", std::string("?"))));
      }
    }
  }
  return failing;
}

namespace {

// "Writing image to disk 45%" while a stage is reported, else "".
std::string StageText(const json& host) {
  if (!host.contains("progress") || !host["progress"].is_object()) return "";
  const json& progress = host["progress"];
  std::string stage = TextField(progress, "current_stage");
  const std::string info = TextField(progress, "progress_info");
  if (!info.empty()) absl::StrAppend(&stage, stage.empty() ? "" : " ", info);
  return stage;
}

}  // namespace

std::string HostTable(const json& hosts) {
  std::vector<json> sorted;
  if (hosts.is_array()) sorted.assign(hosts.begin(), hosts.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const json& a, const json& b) { return HostName(a) < HostName(b); });
  std::string out = absl::StrFormat("%-16s %-36s %-8s %-28s %-24s %s\n", "NAME", "ID", "ROLE",
                                    "STATUS", "STAGE", "FAILING VALIDATIONS");
  for (const json& host : sorted) {
    const std::vector<std::string> failing = FailingValidations(host);
    std::string role = TextField(host, "role");
    if (role.empty() || role == enums::EnumText(types::v1::HOST_ROLE_AUTO_ASSIGN)) {
      const std::string suggested = TextField(host, "suggested_role");
      role = suggested.empty() ? "auto" : absl::StrCat("(", suggested, ")");
    }
    absl::StrAppend(&out, absl::StrFormat("%-16s %-36s %-8s %-28s %-24s %s\n",
                                          Truncate(HostName(host), 16), TextField(host, "id"), role,
                                          TextField(host, "status"), Truncate(StageText(host), 24),
                                          failing.empty() ? "-" : absl::StrJoin(failing, "; ")));
  }
  return out;
}

std::string ProgressLine(const json& host) {
  std::string role = TextField(host, "role");
  if (role.empty()) role = "auto";
  return absl::StrFormat("%-16s %-8s %-28s %s", Truncate(HostName(host), 16), role,
                         TextField(host, "status"), StageText(host));
}

std::string ProgressBar(int64_t received, int64_t total, int width) {
  constexpr double kMiB = 1024.0 * 1024.0;
  if (total <= 0) return absl::StrFormat("%.1f MiB", received / kMiB);
  const double fraction = std::clamp(static_cast<double>(received) / total, 0.0, 1.0);
  const int filled = static_cast<int>(fraction * width);
  return absl::StrFormat("[%s%s] %3d%%  %.1f/%.1f MiB", std::string(filled, '#'),
                         std::string(width - filled, '-'), static_cast<int>(fraction * 100),
                         received / kMiB, total / kMiB);
}

}  // namespace assisted::cli
