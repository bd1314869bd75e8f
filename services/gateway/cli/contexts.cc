#include "services/gateway/cli/contexts.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "absl/strings/str_cat.h"

namespace assisted::cli {
namespace {

constexpr const char* kContextKeys[] = {"name", "server", "token-file", "ca-file"};

// The scalar at `node[key]`, "" when absent; INVALID_ARGUMENT naming `where` when not a scalar.
absl::StatusOr<std::string> Scalar(const YAML::Node& node, const char* key,
                                   const std::string& where) {
  const YAML::Node value = node[key];
  if (!value) return std::string();
  if (!value.IsScalar()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ".", key, " is not a string"));
  }
  return value.as<std::string>();
}

absl::Status OnlyKeys(const YAML::Node& node, std::initializer_list<const char*> keys,
                      const std::string& where) {
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    bool known = false;
    for (const char* allowed : keys) known = known || key == allowed;
    if (!known)
      return absl::InvalidArgumentError(absl::StrCat(where, ": unknown key \"", key, "\""));
  }
  return absl::OkStatus();
}

// The file's contents; yaml-cpp may throw on any access, so the caller catches.
absl::StatusOr<ContextFile> ParseContextFile(const YAML::Node& root, const std::string& path) {
  ContextFile file;
  if (root.IsNull()) return file;
  if (!root.IsMap()) return absl::InvalidArgumentError(absl::StrCat(path, ": not a mapping"));
  if (absl::Status keys = OnlyKeys(root, {"current-context", "contexts"}, path); !keys.ok()) {
    return keys;
  }
  absl::StatusOr<std::string> current = Scalar(root, "current-context", path);
  if (!current.ok()) return current.status();
  file.current = *current;
  const YAML::Node contexts = root["contexts"];
  if (contexts && !contexts.IsNull() && !contexts.IsSequence()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": contexts is not a list"));
  }
  std::set<std::string> names;
  for (size_t i = 0; contexts && i < contexts.size(); ++i) {
    const std::string where = absl::StrCat(path, ": contexts[", i, "]");
    const YAML::Node entry = contexts[i];
    if (!entry.IsMap()) return absl::InvalidArgumentError(absl::StrCat(where, " is not a mapping"));
    if (absl::Status keys = OnlyKeys(entry, {"name", "server", "token-file", "ca-file"}, where);
        !keys.ok()) {
      return keys;
    }
    Context context;
    std::string* fields[] = {&context.name, &context.server, &context.token_file, &context.ca_file};
    for (size_t k = 0; k < 4; ++k) {
      absl::StatusOr<std::string> value = Scalar(entry, kContextKeys[k], where);
      if (!value.ok()) return value.status();
      *fields[k] = *value;
    }
    if (context.name.empty()) return absl::InvalidArgumentError(where + ": no name");
    if (!names.insert(context.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": a second context named \"", context.name, "\""));
    }
    file.contexts.push_back(std::move(context));
  }
  if (!file.current.empty() && file.Find(file.current) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": current-context \"", file.current, "\" names no context"));
  }
  return file;
}

}  // namespace

const Context* ContextFile::Find(const std::string& name) const {
  for (const Context& context : contexts) {
    if (context.name == name) return &context;
  }
  return nullptr;
}

Context* ContextFile::Find(const std::string& name) {
  return const_cast<Context*>(static_cast<const ContextFile*>(this)->Find(name));
}

std::string DefaultContextFilePath(const config::Environment& env) {
  auto value = [&env](const char* name) {
    auto it = env.find(name);
    return it == env.end() ? std::string() : it->second;
  };
  if (!value("AICTL_CONFIG").empty()) return value("AICTL_CONFIG");
  if (!value("XDG_CONFIG_HOME").empty()) return value("XDG_CONFIG_HOME") + "/aictl/config.yaml";
  if (!value("HOME").empty()) return value("HOME") + "/.config/aictl/config.yaml";
  return "";
}

absl::StatusOr<ContextFile> ReadContextFile(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return absl::NotFoundError(absl::StrCat(path, " does not exist"));
  }
  try {
    return ParseContextFile(YAML::LoadFile(path), path);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not valid: ", e.what()));
  }
}

absl::Status WriteContextFile(const std::string& path, const ContextFile& file) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  if (!file.current.empty()) out << YAML::Key << "current-context" << YAML::Value << file.current;
  out << YAML::Key << "contexts" << YAML::Value << YAML::BeginSeq;
  for (const Context& context : file.contexts) {
    out << YAML::BeginMap;
    const std::string* fields[] = {&context.name, &context.server, &context.token_file,
                                   &context.ca_file};
    for (size_t k = 0; k < 4; ++k) {
      if (!fields[k]->empty()) out << YAML::Key << kContextKeys[k] << YAML::Value << *fields[k];
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  std::error_code error;
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), error);
  const std::string temporary = path + ".new";
  {
    std::ofstream stream(temporary, std::ios::trunc);
    if (!stream) return absl::PermissionDeniedError(absl::StrCat("cannot write ", temporary));
    stream << out.c_str() << "\n";
    if (!stream.flush())
      return absl::ResourceExhaustedError(absl::StrCat("cannot write ", temporary));
  }
  if (chmod(temporary.c_str(), 0600) != 0) {
    return absl::PermissionDeniedError(absl::StrCat("cannot restrict ", temporary));
  }
  std::filesystem::rename(temporary, path, error);
  if (error) return absl::PermissionDeniedError(absl::StrCat("cannot replace ", path));
  return absl::OkStatus();
}

}  // namespace assisted::cli
