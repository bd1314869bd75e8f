#include "lib/ignition/config_builder.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "lib/status/status_macros.h"
#include "lib/text/utf8.h"
#include "nlohmann/json.hpp"

namespace assisted::ignition {
namespace {

using Json = nlohmann::json;

absl::Status Invalid(absl::string_view what, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("ignition: ", what, ": ", problem));
}

absl::Status CheckText(absl::string_view what, absl::string_view text) {
  // nlohmann::json throws on invalid UTF-8 when dumping, so every string is checked first.
  if (!text::IsValidUtf8(text)) return Invalid(what, "is not valid UTF-8");
  return absl::OkStatus();
}

// Absolute, no empty, "." or ".." segments, no trailing slash: what Ignition calls "fully
// simplified".
absl::Status CheckPath(absl::string_view what, absl::string_view path) {
  RETURN_IF_ERROR(CheckText(what, path));
  if (!absl::StartsWith(path, "/")) {
    return Invalid(what, absl::StrCat("path \"", path, "\" is not absolute"));
  }
  if (path == "/") return Invalid(what, "path \"/\" cannot be written");
  for (absl::string_view segment : absl::StrSplit(path.substr(1), '/')) {
    if (segment.empty() || segment == "." || segment == "..") {
      return Invalid(what, absl::StrCat("path \"", path, "\" is not simplified"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckMode(absl::string_view what, int mode) {
  if (mode < 0 || mode > 07777) {
    return Invalid(what,
                   absl::StrCat("mode 0", absl::StrFormat("%o", mode), " is outside 0 to 07777"));
  }
  return absl::OkStatus();
}

absl::Status CheckHash(absl::string_view what, absl::string_view hash) {
  for (const auto& [prefix, hex_digits] :
       {std::pair<absl::string_view, size_t>{"sha512-", 128}, {"sha256-", 64}}) {
    if (!absl::StartsWith(hash, prefix)) continue;
    absl::string_view hex = hash.substr(prefix.size());
    const bool all_hex =
        std::all_of(hex.begin(), hex.end(), [](char c) { return absl::ascii_isxdigit(c); });
    if (hex.size() == hex_digits && all_hex) return absl::OkStatus();
  }
  return Invalid(what, absl::StrCat("verification hash \"", hash,
                                    "\" is not sha512-<128 hex> or sha256-<64 hex>"));
}

absl::Status CheckResource(absl::string_view what, const Resource& resource) {
  RETURN_IF_ERROR(CheckText(what, resource.source));
  static constexpr absl::string_view kSchemes[] = {"data:",   "http://", "https://",
                                                   "tftp://", "s3://",   "gs://"};
  const bool known = std::any_of(std::begin(kSchemes), std::end(kSchemes), [&](auto scheme) {
    return absl::StartsWith(resource.source, scheme);
  });
  if (!known) {
    return Invalid(what, absl::StrCat("source \"", resource.source.substr(0, 64),
                                      "\" is not a data, http(s), tftp, s3 or gs URL"));
  }
  if (!resource.compression.empty() && resource.compression != "gzip") {
    return Invalid(what,
                   absl::StrCat("compression \"", resource.compression, "\" is not gzip or none"));
  }
  if (!resource.verification_hash.empty())
    RETURN_IF_ERROR(CheckHash(what, resource.verification_hash));
  return absl::OkStatus();
}

absl::Status CheckProxyUrl(absl::string_view what, absl::string_view url) {
  RETURN_IF_ERROR(CheckText(what, url));
  if (url.empty() || absl::StartsWith(url, "http://") || absl::StartsWith(url, "https://")) {
    return absl::OkStatus();
  }
  return Invalid(what, absl::StrCat("proxy \"", url, "\" is not an http:// or https:// URL"));
}

bool HasUnitSuffix(absl::string_view name) {
  static constexpr absl::string_view kSuffixes[] = {".service",   ".socket", ".device", ".mount",
                                                    ".automount", ".swap",   ".target", ".path",
                                                    ".timer",     ".slice",  ".scope"};
  return std::any_of(std::begin(kSuffixes), std::end(kSuffixes), [&](absl::string_view suffix) {
    return name.size() > suffix.size() && absl::EndsWith(name, suffix);
  });
}

absl::Status CheckUnit(const Unit& unit) {
  const std::string what = absl::StrCat("unit \"", unit.name, "\"");
  RETURN_IF_ERROR(CheckText("unit name", unit.name));
  if (!HasUnitSuffix(unit.name) || absl::StrContains(unit.name, '/')) {
    return Invalid(what, "name needs a unit suffix (.service, .target, ...) and no '/'");
  }
  RETURN_IF_ERROR(CheckText(what, unit.contents));
  std::set<std::string> dropin_names;
  for (const Dropin& dropin : unit.dropins) {
    const std::string dropin_what = absl::StrCat(what, " drop-in \"", dropin.name, "\"");
    RETURN_IF_ERROR(CheckText(dropin_what, dropin.name));
    RETURN_IF_ERROR(CheckText(dropin_what, dropin.contents));
    if (!absl::EndsWith(dropin.name, ".conf") || dropin.name.size() <= 5 ||
        absl::StrContains(dropin.name, '/')) {
      return Invalid(dropin_what, "name must end in .conf and have no '/'");
    }
    if (!dropin_names.insert(dropin.name).second) return Invalid(dropin_what, "is duplicated");
  }
  return absl::OkStatus();
}

template <typename T, typename Key>
std::vector<T> SortedBy(std::vector<T> items, Key key) {
  std::stable_sort(items.begin(), items.end(),
                   [&](const T& a, const T& b) { return key(a) < key(b); });
  return items;
}

Json ResourceJson(const Resource& resource) {
  Json json = {{"source", resource.source}};
  if (!resource.compression.empty()) json["compression"] = resource.compression;
  if (!resource.verification_hash.empty()) {
    json["verification"] = {{"hash", resource.verification_hash}};
  }
  return json;
}

Json UnitJson(const Unit& unit) {
  Json json = {{"name", unit.name}};
  if (!unit.contents.empty()) json["contents"] = unit.contents;
  if (unit.enabled.has_value()) json["enabled"] = *unit.enabled;
  if (unit.mask) json["mask"] = true;
  for (const Dropin& dropin : SortedBy(unit.dropins, [](const Dropin& d) { return d.name; })) {
    json["dropins"].push_back({{"name", dropin.name}, {"contents", dropin.contents}});
  }
  return json;
}

}  // namespace

absl::Status CheckMergeConfig(absl::string_view text, absl::string_view field) {
  auto invalid = [&](absl::string_view problem) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": ", problem));
  };
  if (!text::IsValidUtf8(text)) return invalid("is not valid UTF-8");
  const Json parsed = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return invalid("is not a JSON object");
  std::string version;
  if (const auto ignition = parsed.find("ignition");
      ignition != parsed.end() && ignition->is_object()) {
    if (const auto value = ignition->find("version");
        value != ignition->end() && value->is_string()) {
      version = value->get<std::string>();
    }
  }
  static constexpr absl::string_view kVersions[] = {"3.0.0", "3.1.0", "3.2.0", "3.3.0"};
  if (std::find(std::begin(kVersions), std::end(kVersions), version) == std::end(kVersions)) {
    return invalid("needs ignition.version 3.0.0, 3.1.0, 3.2.0 or 3.3.0");
  }
  static constexpr absl::string_view kSections[] = {"ignition", "storage", "systemd", "passwd",
                                                    "kernelArguments"};
  for (const auto& [key, value] : parsed.items()) {
    if (std::find(std::begin(kSections), std::end(kSections), key) == std::end(kSections)) {
      return invalid(absl::StrCat("\"", key, "\" is not a section of an Ignition config"));
    }
    if (!value.is_object()) return invalid(absl::StrCat("\"", key, "\" must be a JSON object"));
  }
  return absl::OkStatus();
}

absl::string_view SpecVersionString(SpecVersion version) {
  switch (version) {
    case SpecVersion::kV3_2_0:
      return "3.2.0";
    case SpecVersion::kV3_3_0:
      return "3.3.0";
  }
  return "3.2.0";
}

std::string DataUrl(absl::string_view bytes) {
  if (bytes.empty()) return "data:,";
  return absl::StrCat("data:text/plain;charset=utf-8;base64,", absl::Base64Escape(bytes));
}

absl::StatusOr<std::string> DecodeDataUrl(absl::string_view url) {
  if (url == "data:,") return std::string();
  const size_t comma = url.find(',');
  std::string bytes;
  if (!absl::StartsWith(url, "data:") || comma == absl::string_view::npos ||
      !absl::EndsWith(url.substr(0, comma), ";base64") ||
      !absl::Base64Unescape(url.substr(comma + 1), &bytes)) {
    return absl::InvalidArgumentError(absl::StrCat("not a base64 data URL: ", url.substr(0, 64)));
  }
  return bytes;
}

Resource InlineResource(absl::string_view bytes) { return Resource{.source = DataUrl(bytes)}; }

ConfigBuilder& ConfigBuilder::SetProxy(Proxy proxy) {
  proxy_ = std::move(proxy);
  return *this;
}

ConfigBuilder& ConfigBuilder::AddCertificateAuthority(Resource ca) {
  certificate_authorities_.push_back(std::move(ca));
  return *this;
}

ConfigBuilder& ConfigBuilder::AddMergeConfig(Resource config) {
  merge_.push_back(std::move(config));
  return *this;
}

ConfigBuilder& ConfigBuilder::SetReplaceConfig(Resource config) {
  replace_ = std::move(config);
  return *this;
}

ConfigBuilder& ConfigBuilder::AddUser(User user) {
  users_.push_back(std::move(user));
  return *this;
}

ConfigBuilder& ConfigBuilder::AddFile(File file) {
  files_.push_back(std::move(file));
  return *this;
}

ConfigBuilder& ConfigBuilder::AddDirectory(Directory directory) {
  directories_.push_back(std::move(directory));
  return *this;
}

ConfigBuilder& ConfigBuilder::AddLink(Link link) {
  links_.push_back(std::move(link));
  return *this;
}

ConfigBuilder& ConfigBuilder::AddUnit(Unit unit) {
  units_.push_back(std::move(unit));
  return *this;
}

ConfigBuilder& ConfigBuilder::AddKernelArgument(std::string argument) {
  kargs_should_exist_.push_back(std::move(argument));
  return *this;
}

ConfigBuilder& ConfigBuilder::RemoveKernelArgument(std::string argument) {
  kargs_should_not_exist_.push_back(std::move(argument));
  return *this;
}

absl::Status ConfigBuilder::Validate() const {
  if (proxy_.has_value()) {
    RETURN_IF_ERROR(CheckProxyUrl("proxy httpProxy", proxy_->http_proxy));
    RETURN_IF_ERROR(CheckProxyUrl("proxy httpsProxy", proxy_->https_proxy));
    for (const std::string& entry : proxy_->no_proxy) {
      RETURN_IF_ERROR(CheckText("proxy noProxy", entry));
    }
  }
  for (const Resource& ca : certificate_authorities_) {
    RETURN_IF_ERROR(CheckResource("certificate authority", ca));
  }
  for (const Resource& config : merge_) RETURN_IF_ERROR(CheckResource("merged config", config));
  if (replace_.has_value()) RETURN_IF_ERROR(CheckResource("replacing config", *replace_));

  std::set<std::string> user_names;
  for (const User& user : users_) {
    RETURN_IF_ERROR(CheckText("user name", user.name));
    if (user.name.empty()) return Invalid("user", "name is empty");
    if (!user_names.insert(user.name).second) {
      return Invalid(absl::StrCat("user \"", user.name, "\""), "is duplicated");
    }
    for (const std::string& key : user.ssh_authorized_keys) {
      RETURN_IF_ERROR(CheckText(absl::StrCat("user \"", user.name, "\" SSH key"), key));
    }
  }

  // Every node path, and which of them cannot have children (files and links).
  std::map<std::string, bool> nodes;  // path -> is a leaf
  auto add_node = [&](absl::string_view kind, const std::string& path, bool leaf) {
    const std::string what = absl::StrCat(kind, " \"", path, "\"");
    RETURN_IF_ERROR(CheckPath(what, path));
    if (!nodes.emplace(path, leaf).second) {
      return Invalid(what,
                     "is duplicated (each path may appear once across files, directories "
                     "and links)");
    }
    return absl::OkStatus();
  };
  for (const File& file : files_) {
    RETURN_IF_ERROR(add_node("file", file.path, true));
    RETURN_IF_ERROR(CheckMode(absl::StrCat("file \"", file.path, "\""), file.mode));
  }
  for (const Directory& directory : directories_) {
    RETURN_IF_ERROR(add_node("directory", directory.path, false));
    RETURN_IF_ERROR(CheckMode(absl::StrCat("directory \"", directory.path, "\""), directory.mode));
  }
  for (const Link& link : links_) {
    RETURN_IF_ERROR(add_node("link", link.path, true));
    RETURN_IF_ERROR(CheckText(absl::StrCat("link \"", link.path, "\""), link.target));
    if (link.target.empty()) return Invalid(absl::StrCat("link \"", link.path, "\""), "no target");
  }
  for (const auto& [path, leaf] : nodes) {
    for (size_t slash = path.find('/', 1); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      auto parent = nodes.find(path.substr(0, slash));
      if (parent != nodes.end() && parent->second) {
        return Invalid(absl::StrCat("\"", path, "\""),
                       absl::StrCat("lies under \"", parent->first, "\", a file or link"));
      }
    }
  }

  std::set<std::string> unit_names;
  for (const Unit& unit : units_) {
    RETURN_IF_ERROR(CheckUnit(unit));
    if (!unit_names.insert(unit.name).second) {
      return Invalid(absl::StrCat("unit \"", unit.name, "\""), "is duplicated");
    }
  }

  if ((!kargs_should_exist_.empty() || !kargs_should_not_exist_.empty()) &&
      version_ == SpecVersion::kV3_2_0) {
    return Invalid("kernelArguments", "need spec 3.3.0 or later (the config is 3.2.0)");
  }
  for (const auto* list : {&kargs_should_exist_, &kargs_should_not_exist_}) {
    for (const std::string& argument : *list) {
      RETURN_IF_ERROR(CheckText("kernel argument", argument));
      if (argument.empty()) return Invalid("kernel argument", "is empty");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ConfigBuilder::Build() const {
  RETURN_IF_ERROR(Validate());

  Json ignition = {{"version", std::string(SpecVersionString(version_))}};
  for (const Resource& config : merge_) {
    ignition["config"]["merge"].push_back(ResourceJson(config));
  }
  if (replace_.has_value()) ignition["config"]["replace"] = ResourceJson(*replace_);
  for (const Resource& ca : certificate_authorities_) {
    ignition["security"]["tls"]["certificateAuthorities"].push_back(ResourceJson(ca));
  }
  if (proxy_.has_value()) {
    Json proxy = Json::object();
    if (!proxy_->http_proxy.empty()) proxy["httpProxy"] = proxy_->http_proxy;
    if (!proxy_->https_proxy.empty()) proxy["httpsProxy"] = proxy_->https_proxy;
    if (!proxy_->no_proxy.empty()) proxy["noProxy"] = proxy_->no_proxy;
    if (!proxy.empty()) ignition["proxy"] = std::move(proxy);
  }
  Json config = {{"ignition", std::move(ignition)}};

  for (const User& user : SortedBy(users_, [](const User& u) { return u.name; })) {
    Json json = {{"name", user.name}};
    if (!user.ssh_authorized_keys.empty()) json["sshAuthorizedKeys"] = user.ssh_authorized_keys;
    config["passwd"]["users"].push_back(std::move(json));
  }

  auto by_path = [](const auto& node) { return node.path; };
  for (const File& file : SortedBy(files_, by_path)) {
    config["storage"]["files"].push_back({{"path", file.path},
                                          {"mode", file.mode},
                                          {"overwrite", file.overwrite},
                                          {"contents", {{"source", DataUrl(file.contents)}}}});
  }
  for (const Directory& directory : SortedBy(directories_, by_path)) {
    config["storage"]["directories"].push_back(
        {{"path", directory.path}, {"mode", directory.mode}});
  }
  for (const Link& link : SortedBy(links_, by_path)) {
    config["storage"]["links"].push_back({{"path", link.path},
                                          {"target", link.target},
                                          {"hard", link.hard},
                                          {"overwrite", link.overwrite}});
  }
  for (const Unit& unit : SortedBy(units_, [](const Unit& u) { return u.name; })) {
    config["systemd"]["units"].push_back(UnitJson(unit));
  }
  if (!kargs_should_exist_.empty()) {
    config["kernelArguments"]["shouldExist"] = kargs_should_exist_;
  }
  if (!kargs_should_not_exist_.empty()) {
    config["kernelArguments"]["shouldNotExist"] = kargs_should_not_exist_;
  }
  return config.dump();
}

}  // namespace assisted::ignition
