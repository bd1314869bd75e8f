// File: lib/ignition/config_builder.h
//
// Building Ignition configs (spec 3.2.0, or 3.3.0 when kernel arguments are needed) as canonical
// JSON: keys sorted, no insignificant whitespace, files/directories/links sorted by path and
// units by name, so equal content always gives equal bytes (and equal digests for ETags).
//
//   ConfigBuilder builder;
//   builder.AddFile({.path = "/etc/motd", .mode = 0644, .contents = "hello\n"});
//   builder.AddUnit({.name = "agent.service", .contents = unit_text, .enabled = true});
//   ASSIGN_OR_RETURN(std::string json, builder.Build());
//
// The builder only adds; it does not parse or merge configs. Build() checks what Ignition itself
// would reject (relative or unsimplified paths, duplicate nodes, file modes outside 0..07777,
// unit names without a unit suffix, non-http(s) proxies, keys the chosen spec lacks) and answers
// INVALID_ARGUMENT naming the offending entry, so a bad config never reaches a host.

#ifndef ASSISTED_LIB_IGNITION_CONFIG_BUILDER_H_
#define ASSISTED_LIB_IGNITION_CONFIG_BUILDER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::ignition {

enum class SpecVersion {
  kV3_2_0,  // RHCOS for OpenShift 4.8 and later
  kV3_3_0,  // adds kernelArguments
};

// "3.2.0" or "3.3.0".
absl::string_view SpecVersionString(SpecVersion version);

// An RFC 2397 data URL holding `bytes`: "data:," when empty, else
// "data:text/plain;charset=utf-8;base64,<standard base64>".
std::string DataUrl(absl::string_view bytes);

// The bytes of a data URL as DataUrl() writes them ("data:," or base64 with any media type), so
// tools can read a generated config back. INVALID_ARGUMENT for anything else.
absl::StatusOr<std::string> DecodeDataUrl(absl::string_view url);

// Something Ignition fetches: config merge/replace entries, certificate authorities.
struct Resource {
  std::string source;  // URL: data, http, https, tftp, s3, gs
  // "gzip" when `source` yields gzip-compressed bytes; empty for none.
  std::string compression;
  // "sha512-<hex>" or "sha256-<hex>" of the fetched (compressed) bytes; empty for none.
  std::string verification_hash;
};

// A Resource whose source is DataUrl(bytes).
Resource InlineResource(absl::string_view bytes);

// Checks a config a user gives to be merged over a generated one (an infra-env's
// ignition_config_override, a host's ignition_config_overrides): a JSON object whose
// ignition.version is 3.0.0 to 3.3.0 (what RHCOS's Ignition merges) and whose other top-level
// keys are Ignition's own (storage, systemd, passwd, kernelArguments). INVALID_ARGUMENT
// "<field>: <problem>" otherwise.
absl::Status CheckMergeConfig(absl::string_view text, absl::string_view field);

struct File {
  std::string path;  // absolute and simplified
  int mode = 0644;   // permission bits, 0 to 07777
  bool overwrite = true;
  std::string contents;  // raw bytes; emitted as a base64 data URL
};

struct Directory {
  std::string path;
  int mode = 0755;
};

struct Link {
  std::string path;
  std::string target;
  bool hard = false;
  bool overwrite = true;
};

struct Dropin {
  std::string name;  // must end in ".conf"
  std::string contents;
};

struct Unit {
  std::string name;      // with its suffix: .service, .socket, .target, .timer, .path, .mount ...
  std::string contents;  // full unit text; empty leaves the unit's contents alone
  std::optional<bool> enabled;
  bool mask = false;
  std::vector<Dropin> dropins;
};

struct User {
  std::string name;
  std::vector<std::string> ssh_authorized_keys;  // one key per entry
};

struct Proxy {
  std::string http_proxy;   // http:// or https:// URL; empty for none
  std::string https_proxy;  // idem
  std::vector<std::string> no_proxy;
};

class ConfigBuilder {
 public:
  explicit ConfigBuilder(SpecVersion version = SpecVersion::kV3_2_0) : version_(version) {}

  // ignition.proxy (replaces any earlier proxy).
  ConfigBuilder& SetProxy(Proxy proxy);
  // ignition.security.tls.certificateAuthorities: trusted when Ignition fetches resources.
  ConfigBuilder& AddCertificateAuthority(Resource ca);
  // ignition.config.merge: a config fetched and merged over this one.
  ConfigBuilder& AddMergeConfig(Resource config);
  // ignition.config.replace: a config fetched instead of this one.
  ConfigBuilder& SetReplaceConfig(Resource config);

  ConfigBuilder& AddUser(User user);
  ConfigBuilder& AddFile(File file);
  ConfigBuilder& AddDirectory(Directory directory);
  ConfigBuilder& AddLink(Link link);
  ConfigBuilder& AddUnit(Unit unit);

  // kernelArguments.shouldExist / shouldNotExist; Build() requires spec 3.3.0 for them.
  ConfigBuilder& AddKernelArgument(std::string argument);
  ConfigBuilder& RemoveKernelArgument(std::string argument);

  // The config as canonical JSON, or INVALID_ARGUMENT naming the first invalid entry.
  absl::StatusOr<std::string> Build() const;

 private:
  absl::Status Validate() const;

  SpecVersion version_;
  std::optional<Proxy> proxy_;
  std::vector<Resource> certificate_authorities_;
  std::vector<Resource> merge_;
  std::optional<Resource> replace_;
  std::vector<User> users_;
  std::vector<File> files_;
  std::vector<Directory> directories_;
  std::vector<Link> links_;
  std::vector<Unit> units_;
  std::vector<std::string> kargs_should_exist_;
  std::vector<std::string> kargs_should_not_exist_;
};

}  // namespace assisted::ignition

#endif  // ASSISTED_LIB_IGNITION_CONFIG_BUILDER_H_
