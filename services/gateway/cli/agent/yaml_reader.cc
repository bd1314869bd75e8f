#include "services/gateway/cli/agent/yaml_reader.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/text/utf8.h"

namespace assisted::cli::agent {
namespace {

// Visits every node (an alias once per reference: that is what a reader of the tree would pay)
// and stops at the first bound crossed. Iterative, so depth costs no stack.
absl::Status CheckBounds(const YAML::Node& root) {
  std::vector<std::pair<YAML::Node, int>> pending = {{root, 1}};
  int visited = 0;
  while (!pending.empty()) {
    auto [node, depth] = std::move(pending.back());
    pending.pop_back();
    if (++visited > kMaxYamlNodes) {
      return absl::InvalidArgumentError(
          absl::StrCat("holds more than ", kMaxYamlNodes, " values (counting aliases)"));
    }
    if (depth > kMaxYamlDepth) {
      return absl::InvalidArgumentError(
          absl::StrCat("is nested deeper than ", kMaxYamlDepth, " levels"));
    }
    if (node.IsSequence()) {
      for (const YAML::Node& item : node) pending.emplace_back(item, depth + 1);
    } else if (node.IsMap()) {
      for (const auto& entry : node) {
        pending.emplace_back(entry.first, depth + 1);
        pending.emplace_back(entry.second, depth + 1);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string Quoted(absl::string_view text) {
  return absl::StrCat("\"", absl::CHexEscape(text.substr(0, 64)), text.size() > 64 ? "..." : "",
                      "\"");
}

void Problems::Add(absl::string_view file, absl::string_view path, absl::string_view problem) {
  const std::string line = path.empty() ? absl::StrCat(file, ": ", problem)
                                        : absl::StrCat(file, ": ", path, ": ", problem);
  // Paths and problems can hold the user's keys and values: control characters are written
  // as \xNN, so each problem stays one line that names its file.
  std::string escaped;
  for (const char c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      absl::StrAppend(&escaped, "\\x", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
    } else {
      escaped.push_back(c);
    }
  }
  if (lines_.size() == kMaxLines) {
    ++dropped_;
    return;
  }
  lines_.push_back(std::move(escaped));
}

absl::Status Problems::ToStatus() const {
  if (lines_.empty()) return absl::OkStatus();
  std::string message = absl::StrJoin(lines_, "\n");
  if (dropped_ > 0) {
    // Names a file like every other line: the one the last kept problem is in.
    const std::string& last = lines_.back();
    absl::StrAppend(&message, "\n", last.substr(0, last.find(": ")), ": and ", dropped_,
                    " more problems");
  }
  return absl::InvalidArgumentError(message);
}

void YamlNode::Error(absl::string_view problem) const { problems_->Add(file_, path_, problem); }

void YamlNode::ErrorAt(absl::string_view path, absl::string_view problem) const {
  problems_->Add(file_, path, problem);
}

std::string YamlNode::ChildPath(absl::string_view key) const {
  return path_.empty() ? std::string(key) : absl::StrCat(path_, ".", key);
}

bool YamlNode::ExpectMap(std::initializer_list<absl::string_view> allowed) const {
  if (!node_.IsMap()) {
    Error("must be a mapping");
    return false;
  }
  std::set<std::string> seen;
  for (const auto& entry : node_) {
    if (!entry.first.IsScalar()) {
      Error("has a key that is not text");
      continue;
    }
    const std::string& key = entry.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      problems_->Add(file_, ChildPath(key),
                     absl::StrCat("is not a field the agent-based installer reads (fields here: ",
                                  absl::StrJoin(allowed, ", "), ")"));
    } else if (!seen.insert(key).second) {
      problems_->Add(file_, ChildPath(key), "is given twice");
    }
  }
  return true;
}

YamlNode YamlNode::Field(absl::string_view key) const {
  YAML::Node found;
  if (node_.IsMap()) {
    for (const auto& entry : node_) {
      if (entry.first.IsScalar() && entry.first.Scalar() == key) {
        found = entry.second;
        break;
      }
    }
  }
  return YamlNode(found, file_, ChildPath(key), problems_);
}

std::vector<YamlNode> YamlNode::Items() const {
  std::vector<YamlNode> items;
  if (!present()) return items;
  if (!node_.IsSequence()) {
    Error("must be a list");
    return items;
  }
  for (const YAML::Node& item : node_) {
    items.emplace_back(item, file_, absl::StrCat(path_, "[", items.size(), "]"), problems_);
  }
  return items;
}

std::map<std::string, std::string> YamlNode::TextMap() const {
  std::map<std::string, std::string> entries;
  if (!present()) return entries;
  if (!node_.IsMap()) {
    Error("must be a mapping");
    return entries;
  }
  for (const auto& entry : node_) {
    const YamlNode value(entry.second, file_,
                         ChildPath(entry.first.IsScalar() ? entry.first.Scalar() : "?"), problems_);
    if (!entry.first.IsScalar()) {
      Error("has a key that is not a single value");
      continue;
    }
    if (std::optional<std::string> text = value.Text()) entries[entry.first.Scalar()] = *text;
  }
  return entries;
}

YamlNode YamlNode::WithValue(std::string value) const {
  return YamlNode(YAML::Node(std::move(value)), file_, path_, problems_);
}

std::optional<std::string> YamlNode::Text() const {
  if (!present()) return std::nullopt;
  if (!node_.IsScalar()) {
    Error("must be a single value, not a mapping or a list");
    return std::nullopt;
  }
  // Values end up in JSON (cluster.json, the Ignition), which holds only UTF-8.
  if (!text::IsValidUtf8(node_.Scalar())) {
    Error("is not UTF-8 text");
    return std::nullopt;
  }
  return node_.Scalar();
}

std::optional<int64_t> YamlNode::Integer(int64_t min, int64_t max) const {
  std::optional<std::string> text = Text();
  if (!text) return std::nullopt;
  int64_t value = 0;
  if (!absl::SimpleAtoi(*text, &value) || value < min || value > max) {
    Error(absl::StrCat(Quoted(*text), " is not a whole number from ", min, " to ", max));
    return std::nullopt;
  }
  return value;
}

std::optional<bool> YamlNode::Boolean() const {
  std::optional<std::string> text = Text();
  if (!text) return std::nullopt;
  const std::string lower = absl::AsciiStrToLower(*text);
  if (lower == "true") return true;
  if (lower == "false") return false;
  Error(absl::StrCat(Quoted(*text), " is not true or false"));
  return std::nullopt;
}

std::string YamlNode::Dump() const {
  try {
    return YAML::Dump(node_);
  } catch (const YAML::Exception& error) {  // the emitter is not documented as non-throwing
    Error(absl::StrCat("cannot be written back as YAML: ", error.msg));
    return "";
  }
}

namespace {

// The documents of `text`, or nullopt with the problem recorded (size, syntax).
std::optional<std::vector<YAML::Node>> ParseDocuments(absl::string_view file,
                                                      absl::string_view text, Problems* problems) {
  if (text.size() > kMaxYamlBytes) {
    problems->Add(file, "",
                  absl::StrCat("is ", text.size(), " bytes; at most ", kMaxYamlBytes, " are read"));
    return std::nullopt;
  }
  try {
    return YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& error) {
    // yaml-cpp reports nesting beyond its own limit as "bad file" at the innermost mark.
    problems->Add(file, "",
                  error.mark.is_null()
                      ? absl::StrCat("not valid YAML: ", error.msg)
                      : absl::StrCat("not valid YAML at line ", error.mark.line + 1, " column ",
                                     error.mark.column + 1, ": ", error.msg));
    return std::nullopt;
  }
}

// `root` as a YamlNode at `path` when within bounds and a mapping (else recorded).
std::optional<YamlNode> MappingWithinBounds(absl::string_view file, const YAML::Node& root,
                                            const std::string& path, Problems* problems) {
  if (absl::Status bounds = CheckBounds(root); !bounds.ok()) {
    problems->Add(file, path, bounds.message());
    return std::nullopt;
  }
  if (!root.IsMap()) {
    problems->Add(file, path, "must be a YAML mapping (key: value lines)");
    return std::nullopt;
  }
  return YamlNode(root, std::string(file), path, problems);
}

}  // namespace

std::optional<YamlNode> LoadYaml(absl::string_view file, absl::string_view text,
                                 Problems* problems) {
  std::optional<std::vector<YAML::Node>> documents = ParseDocuments(file, text, problems);
  if (!documents) return std::nullopt;
  if (documents->size() > 1) {
    problems->Add(file, "",
                  absl::StrCat("holds ", documents->size(), " YAML documents; one is read"));
    return std::nullopt;
  }
  return MappingWithinBounds(file, documents->empty() ? YAML::Node() : documents->front(), "",
                             problems);
}

std::vector<YamlNode> LoadYamlDocuments(absl::string_view file, absl::string_view text,
                                        Problems* problems) {
  std::vector<YamlNode> result;
  std::optional<std::vector<YAML::Node>> documents = ParseDocuments(file, text, problems);
  if (!documents) return result;
  // Each document is bounded on its own; their number bounds the file's walk.
  if (documents->size() > kMaxYamlDocuments) {
    problems->Add(file, "",
                  absl::StrCat("holds ", documents->size(), " YAML documents; at most ",
                               kMaxYamlDocuments, " are read"));
    return result;
  }
  for (size_t i = 0; i < documents->size(); ++i) {
    std::optional<YamlNode> document =
        MappingWithinBounds(file, (*documents)[i], absl::StrCat("[", i, "]"), problems);
    if (document) result.push_back(*std::move(document));
  }
  return result;
}

}  // namespace assisted::cli::agent
