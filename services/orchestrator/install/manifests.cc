#include "services/orchestrator/install/manifests.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "nlohmann/json.hpp"
#include "yaml-cpp/yaml.h"

namespace assisted::orchestrator::install {
namespace {

constexpr const char* kFolders[] = {"manifests", "openshift"};
constexpr const char* kExtensions[] = {".yaml", ".yml", ".json"};
constexpr size_t kMaxFileNameBytes = 200;

bool KnownFolder(absl::string_view folder) {
  for (const char* known : kFolders) {
    if (folder == known) return true;
  }
  return false;
}

absl::Status Invalid(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", problem));
}

}  // namespace

std::string ManifestArtifactName(const ManifestName& name) {
  return absl::StrCat(kManifestArtifactPrefix, name.folder, "/", name.file_name);
}

std::optional<ManifestName> ParseManifestArtifactName(absl::string_view artifact_name) {
  if (!absl::ConsumePrefix(&artifact_name, kManifestArtifactPrefix)) return std::nullopt;
  const size_t slash = artifact_name.find('/');
  if (slash == absl::string_view::npos) return std::nullopt;
  ManifestName name{std::string(artifact_name.substr(0, slash)),
                    std::string(artifact_name.substr(slash + 1))};
  if (!KnownFolder(name.folder) || name.file_name.empty() ||
      absl::StrContains(name.file_name, '/')) {
    return std::nullopt;
  }
  return name;
}

std::string ManifestBootstrapPath(const ManifestName& name) {
  return absl::StrCat("/opt/openshift/", name.folder, "/", name.file_name);
}

absl::Status CheckManifestName(const ManifestName& name, absl::string_view folder_field,
                               absl::string_view file_field) {
  if (!KnownFolder(name.folder)) {
    return Invalid(folder_field,
                   absl::StrCat("\"", name.folder, "\" is not a folder: manifests or openshift"));
  }
  const std::string& file = name.file_name;
  if (file.empty()) return Invalid(file_field, "required");
  if (file.size() > kMaxFileNameBytes) {
    return Invalid(file_field, absl::StrCat("at most ", kMaxFileNameBytes, " bytes"));
  }
  // Letters, digits, ".", "_" and "-": a name that needs no quoting in a path, a query or a
  // Content-Disposition header.
  for (char c : file) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return Invalid(file_field, "a plain file name: letters, digits, \".\", \"_\" and \"-\"");
    }
  }
  if (file.front() == '.') return Invalid(file_field, "must not start with \".\"");
  bool known_extension = false;
  for (const char* extension : kExtensions) {
    known_extension = known_extension || (absl::EndsWith(file, extension) &&
                                          file.size() > std::char_traits<char>::length(extension));
  }
  if (!known_extension) return Invalid(file_field, "must end in .yaml, .yml or .json");
  return absl::OkStatus();
}

absl::Status CheckManifestContent(absl::string_view file_name, absl::string_view content,
                                  absl::string_view field) {
  if (absl::StripAsciiWhitespace(content).empty()) return Invalid(field, "must not be empty");
  if (content.size() > kMaxManifestBytes) {
    return Invalid(field, absl::StrCat("at most ", kMaxManifestBytes, " bytes"));
  }
  if (absl::EndsWith(file_name, ".json")) {
    const nlohmann::json parsed =
        nlohmann::json::parse(content, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) return Invalid(field, "not JSON (the file is .json)");
    if (!parsed.is_object()) return Invalid(field, "must be a JSON object (a Kubernetes object)");
    return absl::OkStatus();
  }
  int objects = 0;
  try {  // yaml-cpp reports syntax errors only by throwing; nothing escapes this function.
    for (const YAML::Node& document : YAML::LoadAll(std::string(content))) {
      if (document.IsNull()) continue;  // an empty document between "---" lines
      if (!document.IsMap()) {
        return Invalid(field, "every YAML document must be a mapping (a Kubernetes object)");
      }
      ++objects;
    }
  } catch (const YAML::Exception& error) {
    return Invalid(field, absl::StrCat("not YAML: ", error.what()));
  }
  if (objects == 0) return Invalid(field, "holds no YAML document");
  return absl::OkStatus();
}

}  // namespace assisted::orchestrator::install
