// File: services/gateway/cli/agent/yaml_reader.h
//
// Reading the user's YAML files (install-config.yaml, agent-config.yaml) so that every problem
// names its file and field path, e.g.
//   agent-config.yaml: spec.hosts[1].interfaces[0].macAddress: "52:54:00:zz" is not a MAC address
// and no input can crash or stall the reader: a file is bounded in size before it is parsed,
// and in depth and node count (YAML aliases can make a small file a huge tree) before it is
// walked. Problems are collected rather than returned one at a time, so a user fixes a file in
// one pass.
//
//   Problems problems;
//   std::optional<YamlNode> root = LoadYaml("install-config.yaml", text, &problems);
//   if (root && root->ExpectMap({"apiVersion", ...})) name = root->Field("metadata")...;
//   RETURN_IF_ERROR(problems.ToStatus());

#ifndef ASSISTED_SERVICES_GATEWAY_CLI_AGENT_YAML_READER_H_
#define ASSISTED_SERVICES_GATEWAY_CLI_AGENT_YAML_READER_H_

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace assisted::cli::agent {

inline constexpr size_t kMaxYamlBytes = 1 << 20;  // far above any real config with its CAs
inline constexpr int kMaxYamlDepth = 64;
inline constexpr int kMaxYamlNodes = 100000;
inline constexpr size_t kMaxYamlDocuments = 200;  // per file of several (NMStateConfigs)

// A user's value in a message: quoted, escaped, cut after 64 bytes.
std::string Quoted(absl::string_view text);

// "file: path: problem" lines, in the order found.
class Problems {
 public:
  // Problems kept; a file of thousands of unknown keys is reported as the first of them and a
  // count, not as megabytes of messages.
  static constexpr size_t kMaxLines = 50;

  // `path` may be empty for a problem with the file as a whole.
  void Add(absl::string_view file, absl::string_view path, absl::string_view problem);
  bool empty() const { return lines_.empty(); }
  // OK when there are none; else INVALID_ARGUMENT with one line per problem (at most
  // kMaxLines, then a line saying how many more there were).
  absl::Status ToStatus() const;

 private:
  std::vector<std::string> lines_;
  size_t dropped_ = 0;
};

// A node of a loaded document with its place ("networking.machineNetwork[0].cidr"). Accessors
// never throw: a value of the wrong kind records a problem and yields nothing.
class YamlNode {
 public:
  YamlNode(YAML::Node node, std::string file, std::string path, Problems* problems)
      : node_(std::move(node)),
        file_(std::move(file)),
        path_(std::move(path)),
        problems_(problems) {}

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  // Defined and not null.
  bool present() const { return node_.IsDefined() && !node_.IsNull(); }
  // Records a problem with this node, or with another place in the same file (a value read
  // earlier and checked against this one).
  void Error(absl::string_view problem) const;
  void ErrorAt(absl::string_view path, absl::string_view problem) const;
  // The path of a child key, for problems found while checking a value read from it.
  std::string ChildPath(absl::string_view key) const;

  // A mapping with text keys, each in `allowed` and given once; records each offender. False
  // when this is not a mapping (recorded too).
  bool ExpectMap(std::initializer_list<absl::string_view> allowed) const;
  // The value at `key` (not present when absent); call after ExpectMap.
  YamlNode Field(absl::string_view key) const;
  // Items of a sequence; records a problem (and returns none) for anything else but absent.
  std::vector<YamlNode> Items() const;

  // Scalars; nullopt when absent (no problem recorded) or of the wrong kind (recorded).
  std::optional<std::string> Text() const;
  std::optional<int64_t> Integer(int64_t min, int64_t max) const;
  std::optional<bool> Boolean() const;
  // A mapping of text keys to text values (labels); problems recorded for anything else.
  std::map<std::string, std::string> TextMap() const;
  // This node's place holding `value` instead (a value decoded from this one, e.g. base64).
  YamlNode WithValue(std::string value) const;

  // This subtree written back as YAML (for NMState documents handed to lib/nmstate).
  std::string Dump() const;

 private:
  YAML::Node node_;
  std::string file_;
  std::string path_;
  Problems* problems_;
};

// Parses `text`, the contents of `file`, within the bounds above. nullopt (with the problem
// recorded: size, syntax with line and column, depth, node count, not a mapping) when it cannot
// be read as a mapping.
std::optional<YamlNode> LoadYaml(absl::string_view file, absl::string_view text,
                                 Problems* problems);

// The documents of a file of several ("---" between them; Kubernetes manifests), each a
// mapping within the bounds above, at paths "[0]", "[1]", ...; the ones that are not are
// recorded and left out. LoadYaml refuses a file of more than one document.
std::vector<YamlNode> LoadYamlDocuments(absl::string_view file, absl::string_view text,
                                        Problems* problems);

}  // namespace assisted::cli::agent

#endif  // ASSISTED_SERVICES_GATEWAY_CLI_AGENT_YAML_READER_H_
