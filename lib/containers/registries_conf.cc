// File: lib/containers/registries_conf.cc

#include "lib/containers/registries_conf.h"

#include "lib/containers/image_reference.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace assisted::containers {
namespace {

std::string Quoted(absl::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

absl::Status LineError(int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("registries.conf line ", line, ": ", what));
}

// A TOML value of the kinds the mirror keys take: a basic ("…", with \" and \\ escapes) or
// literal ('…') string, or a boolean. Anything else (numbers, arrays, inline tables) is
// returned as nullopt and skipped by the caller, since no key it reads takes it.
struct Value {
  std::optional<std::string> text;
  std::optional<bool> boolean;
};

absl::StatusOr<Value> ParseValue(absl::string_view raw, int line) {
  Value value;
  if (absl::ConsumePrefix(&raw, "\"")) {
    std::string text;
    bool escaped = false;
    for (size_t i = 0; i < raw.size(); ++i) {
      const char c = raw[i];
      if (escaped) {
        text.push_back(c == 'n' ? '\n' : c == 't' ? '\t' : c);
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        const absl::string_view rest = absl::StripAsciiWhitespace(raw.substr(i + 1));
        if (!rest.empty() && rest[0] != '#') return LineError(line, "text after a string");
        value.text = std::move(text);
        return value;
      } else {
        text.push_back(c);
      }
    }
    return LineError(line, "unterminated string");
  }
  if (absl::ConsumePrefix(&raw, "'")) {
    const size_t close = raw.find('\'');
    if (close == absl::string_view::npos) return LineError(line, "unterminated string");
    value.text = std::string(raw.substr(0, close));
    return value;
  }
  absl::string_view word = raw.substr(0, raw.find('#'));
  word = absl::StripAsciiWhitespace(word);
  if (word == "true" || word == "false") value.boolean = word == "true";
  return value;
}

// Whether `image` is `prefix` or continues it at a component, tag or digest boundary.
bool Takes(absl::string_view prefix, absl::string_view image) {
  if (prefix.empty() || !absl::StartsWith(image, prefix)) return false;
  if (image.size() == prefix.size()) return true;
  const char next = image[prefix.size()];
  return next == '/' || next == ':' || next == '@';
}

}  // namespace

std::string RenderRegistriesConf(const std::vector<MirrorRule>& rules) {
  std::string conf =
      "# Written by assisted: image pulls of the discovery host go through these mirrors.\n"
      "unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]\n";
  for (const MirrorRule& rule : rules) {
    const bool moved = !rule.location.empty() && rule.location != rule.source;
    absl::StrAppend(&conf, "\n[[registry]]\n  prefix = ", Quoted(moved ? rule.source : ""),
                    "\n  location = ", Quoted(moved ? rule.location : rule.source),
                    "\n  mirror-by-digest-only = ", rule.mirror_by_digest_only ? "true" : "false",
                    "\n");
    if (rule.blocked) absl::StrAppend(&conf, "  blocked = true\n");
    for (const std::string& mirror : rule.mirrors) {
      absl::StrAppend(&conf, "\n  [[registry.mirror]]\n    location = ", Quoted(mirror), "\n");
    }
  }
  return conf;
}

absl::StatusOr<std::vector<MirrorRule>> ParseRegistriesConf(absl::string_view text) {
  if (text.size() > kMaxRegistriesConfBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("registries.conf is larger than ", kMaxRegistriesConfBytes, " bytes"));
  }
  enum class Table { kOther, kRegistry, kMirror };
  Table table = Table::kOther;
  std::vector<MirrorRule> rules;
  std::vector<std::string> prefixes;  // the `prefix` key of each rule, "" when absent
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      const absl::string_view header = absl::StripAsciiWhitespace(line.substr(0, line.find('#')));
      if (header == "[[registry]]") {
        table = Table::kRegistry;
        rules.emplace_back();
        prefixes.emplace_back();
      } else if (header == "[[registry.mirror]]") {
        if (rules.empty()) return LineError(line_number, "[[registry.mirror]] outside a registry");
        table = Table::kMirror;
        rules.back().mirrors.emplace_back();
      } else {
        table = Table::kOther;
      }
      continue;
    }
    const size_t equals = line.find('=');
    if (equals == absl::string_view::npos) return LineError(line_number, "no '=' after the key");
    const absl::string_view key = absl::StripAsciiWhitespace(line.substr(0, equals));
    if (table == Table::kOther) continue;
    absl::StatusOr<Value> value =
        ParseValue(absl::StripAsciiWhitespace(line.substr(equals + 1)), line_number);
    if (!value.ok()) return value.status();
    MirrorRule& rule = rules.back();
    auto text_of = [&](std::string& into) -> absl::Status {
      if (!value->text) return LineError(line_number, absl::StrCat(key, " is not a string"));
      into = *value->text;
      return absl::OkStatus();
    };
    auto boolean_of = [&](bool& into) -> absl::Status {
      if (!value->boolean) return LineError(line_number, absl::StrCat(key, " is not true/false"));
      into = *value->boolean;
      return absl::OkStatus();
    };
    absl::Status read = absl::OkStatus();
    if (table == Table::kMirror) {
      if (key == "location") read = text_of(rule.mirrors.back());
    } else if (key == "prefix") {
      read = text_of(prefixes.back());
    } else if (key == "location") {
      read = text_of(rule.location);
    } else if (key == "mirror-by-digest-only") {
      read = boolean_of(rule.mirror_by_digest_only);
    } else if (key == "blocked") {
      read = boolean_of(rule.blocked);
    }
    if (!read.ok()) return read;
  }
  for (size_t i = 0; i < rules.size(); ++i) {
    MirrorRule& rule = rules[i];
    // registries.conf: the prefix defaults to the location; a rule naming where the source
    // lives under another name keeps both.
    rule.source = prefixes[i].empty() ? rule.location : prefixes[i];
    if (rule.location == rule.source) rule.location.clear();
    rule.mirrors.erase(std::remove(rule.mirrors.begin(), rule.mirrors.end(), std::string()),
                       rule.mirrors.end());
  }
  rules.erase(std::remove_if(rules.begin(), rules.end(),
                             [](const MirrorRule& rule) {
                               return rule.source.empty() || absl::StartsWith(rule.source, "*.");
                             }),
              rules.end());
  return rules;
}

const MirrorRule* RuleFor(absl::string_view image, const std::vector<MirrorRule>& rules) {
  const MirrorRule* best = nullptr;
  for (const MirrorRule& rule : rules) {
    if (Takes(rule.source, image) &&
        (best == nullptr || rule.source.size() > best->source.size())) {
      best = &rule;
    }
  }
  return best;
}

std::vector<std::string> PullReferences(absl::string_view image,
                                        const std::vector<MirrorRule>& rules) {
  const MirrorRule* best = RuleFor(image, rules);
  if (best == nullptr) return {std::string(image)};
  const absl::string_view rest = image.substr(best->source.size());
  std::vector<std::string> references;
  if (!best->mirror_by_digest_only || PullsByDigest(image)) {
    for (const std::string& mirror : best->mirrors)
      references.push_back(absl::StrCat(mirror, rest));
  }
  if (!best->blocked) {
    references.push_back(
        absl::StrCat(best->location.empty() ? best->source : best->location, rest));
  }
  return references;
}

}  // namespace assisted::containers
