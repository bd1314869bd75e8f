// File: services/gateway/cli/views.h
//
// What aictl sends and shows, kept apart from the commands so it is testable without a server:
// the cluster and infra-env bodies built from flags or a YAML file, the host table, the progress
// lines `aictl wait` prints, and the download progress bar. Everything works on the gateway's
// JSON (snake_case, assisted-service v2 field names).

#ifndef ASSISTED_SERVICES_GATEWAY_CLI_VIEWS_H_
#define ASSISTED_SERVICES_GATEWAY_CLI_VIEWS_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace assisted::cli {

// `aictl clusters create` settings. Empty strings and zero counts mean "not given": the YAML
// file's value (when --file is given) or the server's default stands.
struct ClusterFlags {
  std::string file;  // YAML (or JSON) with the REST body's fields, e.g. name: demo
  std::string name;
  std::string openshift_version;
  std::string base_domain;
  std::string pull_secret_file;
  std::string ssh_key_file;
  int control_plane_count = 0;
  std::string api_vips;          // comma separated
  std::string ingress_vips;      // comma separated
  std::string machine_networks;  // comma separated CIDRs
  std::string cluster_network;   // CIDR/host-prefix, e.g. 10.128.0.0/14/23
  std::string service_network;   // CIDR
  bool user_managed_networking = false;
};

// The body of POST /clusters: the file's fields, then the flags over them (files read here).
// INVALID_ARGUMENT naming the flag or the file for what cannot be read or parsed. The server
// checks the values themselves.
absl::StatusOr<nlohmann::json> ClusterCreateBody(const ClusterFlags& flags);

// A YAML document as JSON: mappings, sequences, and scalars (unquoted true/false and numbers
// become booleans and numbers; everything else, and anything quoted, a string).
absl::StatusOr<nlohmann::json> YamlToJson(absl::string_view yaml);

// JSON as a YAML document: mappings in their order, strings quoted where YAML would read them
// as something else (true, 1.0, null), so YamlToJson gives the same JSON back.
std::string JsonToYaml(const nlohmann::json& value);

// The names scripts want from `-o name`: each object's id (else its name, else its path), one
// per line, for an object or a list of them; "" when there is none.
std::string Names(const nlohmann::json& value);

// Prints `value` in `output` format ("json", "yaml" or "name") and returns true; false for
// "table", which each command prints its own way.
bool PrintStructured(const std::string& output, std::ostream& out, const nlohmann::json& value);

// object[key] when it is a string, else "" (also when `object` is not an object).
std::string TextField(const nlohmann::json& object, const char* key);

// The host's name for people: requested_hostname, else the inventory's hostname, else the
// first 8 characters of its id.
std::string HostName(const nlohmann::json& host);

// Messages of the host's failing validations (validations_info with status "failure").
std::vector<std::string> FailingValidations(const nlohmann::json& host);

// The host table of `aictl hosts list`: NAME ID ROLE STATUS STAGE VALIDATIONS, one line per host,
// sorted by name.
std::string HostTable(const nlohmann::json& hosts);

// One line of `aictl wait`: name, role, status, and the stage with its percentage while
// installing (e.g. "master-0  master  installing  Writing image to disk 45%").
std::string ProgressLine(const nlohmann::json& host);

// A progress bar for `received` of `total` bytes (total < 0: unknown), `width` characters of
// bar: "[#######-------------]  35%  96.0/274.0 MiB".
std::string ProgressBar(int64_t received, int64_t total, int width = 30);

}  // namespace assisted::cli

#endif  // ASSISTED_SERVICES_GATEWAY_CLI_VIEWS_H_
