// aictl's commands that call the gateway's REST API (see command.h and commands.h).
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <map>
#include <ostream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "lib/file/read_file.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"
#include "services/gateway/cli/command.h"
#include "services/gateway/cli/rest_client.h"
#include "services/gateway/cli/views.h"

namespace assisted::cli {
namespace {

using nlohmann::json;

RestClient ClientFor(const GlobalOptions& global) {
  return RestClient({.server = global.server, .token = global.token, .ca_file = global.ca_file});
}

// Prints "aictl <command>: <message>" and returns the status's exit code.
int Fail(Io io, absl::string_view command, const absl::Status& status) {
  io.err << "aictl " << command << ": " << status.message() << "\n";
  return ExitCodeFor(status);
}

int Usage(Io io, absl::string_view command, absl::string_view problem) {
  io.err << "aictl " << command << ": " << problem << "\n";
  return kExitUsage;
}

int64_t Number(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_number_integer()
             ? object[key].get<int64_t>()
             : 0;
}

// With -o json, yaml or name, prints `value` so and returns true; the caller prints its table
// otherwise.
bool PrintedAsJson(const GlobalOptions& global, Io io, const json& value) {
  return PrintStructured(global.output, io.out, value);
}

// In table mode the new resource's id alone (ID=$(aictl clusters create ...)); otherwise the
// whole resource in the format asked for.
void PrintCreated(const GlobalOptions& global, Io io, absl::string_view kind, const json& created) {
  if (PrintedAsJson(global, io, created)) return;
  io.err << kind << " " << TextField(created, "name") << " created\n";
  io.out << TextField(created, "id") << "\n";
}

void BindClusterSelector(config::Parser& parser, CommandOptions& options) {
  parser.String("cluster", &options.cluster_id, "cluster id").Check(config::OptionalUuid);
  parser.String("infra-env", &options.infra_env_id, "infra-env id").Check(config::OptionalUuid);
}

// ---- clusters ----

int RunClustersCreate(const GlobalOptions& global, const CommandOptions& options,
                      const std::vector<std::string>&, Io io) {
  absl::StatusOr<json> body = ClusterCreateBody(options.cluster);
  if (!body.ok()) return Usage(io, "clusters create", body.status().message());
  RestClient client = ClientFor(global);
  absl::StatusOr<json> created = client.Call("POST", "/clusters", *body);
  if (!created.ok()) return Fail(io, "clusters create", created.status());
  PrintCreated(global, io, "cluster", *created);
  return kExitOk;
}

int RunClustersList(const GlobalOptions& global, const CommandOptions&,
                    const std::vector<std::string>&, Io io) {
  RestClient client = ClientFor(global);
  absl::StatusOr<json> clusters = client.Call("GET", "/clusters");
  if (!clusters.ok()) return Fail(io, "clusters list", clusters.status());
  if (PrintedAsJson(global, io, *clusters)) return kExitOk;
  io.out << absl::StrFormat("%-20s %-36s %-8s %-28s %s\n", "NAME", "ID", "VERSION", "STATUS",
                            "HOSTS");
  for (const json& cluster : *clusters) {
    io.out << absl::StrFormat("%-20s %-36s %-8s %-28s %d\n", TextField(cluster, "name"),
                              TextField(cluster, "id"), TextField(cluster, "openshift_version"),
                              TextField(cluster, "status"), Number(cluster, "total_host_count"));
  }
  return kExitOk;
}

void PrintClusterSummary(const json& cluster, std::ostream& out) {
  out << absl::StrFormat("name:     %s.%s\n", TextField(cluster, "name"),
                         TextField(cluster, "base_dns_domain"));
  out << absl::StrFormat("id:       %s\n", TextField(cluster, "id"));
  out << absl::StrFormat("version:  %s\n", TextField(cluster, "openshift_version"));
  out << absl::StrFormat("status:   %s (%s)\n", TextField(cluster, "status"),
                         TextField(cluster, "status_info"));
  out << absl::StrFormat("hosts:    %d ready of %d\n", Number(cluster, "ready_host_count"),
                         Number(cluster, "total_host_count"));
  if (cluster.contains("progress") && cluster["progress"].is_object()) {
    out << absl::StrFormat("progress: %d%%\n", Number(cluster["progress"], "total_percentage"));
  }
}

int RunClustersGet(const GlobalOptions& global, const CommandOptions&,
                   const std::vector<std::string>& args, Io io) {
  if (args.size() != 1) return Usage(io, "clusters get", "expected one CLUSTER_ID");
  RestClient client = ClientFor(global);
  absl::StatusOr<json> cluster = client.Call("GET", "/clusters/" + args[0]);
  if (!cluster.ok()) return Fail(io, "clusters get", cluster.status());
  if (!PrintedAsJson(global, io, *cluster)) {
    PrintClusterSummary(*cluster, io.out);
  }
  return kExitOk;
}

// clusters install / cancel / reset / allow-add-workers: POST .../actions/<action>.
std::function<int(const GlobalOptions&, const CommandOptions&, const std::vector<std::string>&, Io)>
ClusterAction(std::string action) {
  return [action](const GlobalOptions& global, const CommandOptions&,
                  const std::vector<std::string>& args, Io io) {
    const std::string command = "clusters " + action;
    if (args.size() != 1) return Usage(io, command, "expected one CLUSTER_ID");
    RestClient client = ClientFor(global);
    absl::StatusOr<json> cluster =
        client.Call("POST", absl::StrCat("/clusters/", args[0], "/actions/", action));
    if (!cluster.ok()) return Fail(io, command, cluster.status());
    if (!PrintedAsJson(global, io, *cluster)) {
      io.out << "cluster " << TextField(*cluster, "name") << ": " << TextField(*cluster, "status")
             << "\n";
    }
    return kExitOk;
  };
}

// clusters delete / infra-envs delete: DELETE /<collection>/ID.
std::function<int(const GlobalOptions&, const CommandOptions&, const std::vector<std::string>&, Io)>
Deleter(std::string collection, std::string kind, std::string id_name) {
  return [=](const GlobalOptions& global, const CommandOptions&,
             const std::vector<std::string>& args, Io io) {
    const std::string command = collection + " delete";
    if (args.size() != 1) return Usage(io, command, "expected one " + id_name);
    RestClient client = ClientFor(global);
    absl::StatusOr<json> deleted =
        client.Call("DELETE", absl::StrCat("/", collection, "/", args[0]));
    if (!deleted.ok()) return Fail(io, command, deleted.status());
    io.err << kind << " " << args[0] << " deleted\n";
    return kExitOk;
  };
}

// clusters update: the flags given (or --file's fields) as a PATCH.
int RunClustersUpdate(const GlobalOptions& global, const CommandOptions& options,
                      const std::vector<std::string>& args, Io io) {
  if (args.size() != 1) return Usage(io, "clusters update", "expected one CLUSTER_ID");
  absl::StatusOr<json> body = ClusterCreateBody(options.cluster);
  if (!body.ok()) return Usage(io, "clusters update", body.status().message());
  if (body->empty()) return Usage(io, "clusters update", "nothing to change: give flags or --file");
  RestClient client = ClientFor(global);
  absl::StatusOr<json> cluster = client.Call("PATCH", "/clusters/" + args[0], *body);
  if (!cluster.ok()) return Fail(io, "clusters update", cluster.status());
  if (!PrintedAsJson(global, io, *cluster)) PrintClusterSummary(*cluster, io.out);
  return kExitOk;
}

void BindClusterFlags(config::Parser& parser, CommandOptions& options) {
  ClusterFlags& c = options.cluster;
  parser.String("file", &c.file,
                "YAML file of cluster fields (the REST body's names); "
                "flags override it");
  parser.String("name", &c.name, "cluster name");
  parser.String("openshift-version", &c.openshift_version, "OpenShift version, e.g. 4.16");
  parser.String("base-domain", &c.base_domain, "base DNS domain, e.g. example.com");
  parser.String("pull-secret-file", &c.pull_secret_file, "file holding the pull secret");
  parser.String("ssh-key-file", &c.ssh_key_file, "public SSH key file for the core user");
  parser
      .Int("control-plane-count", &c.control_plane_count,
           "control-plane hosts: 1 (single node), 3, 4 or 5; 0 = server default")
      .Range(0, 5);
  parser.String("api-vips", &c.api_vips, "API virtual IPs, comma separated");
  parser.String("ingress-vips", &c.ingress_vips, "ingress virtual IPs, comma separated");
  parser.String("machine-networks", &c.machine_networks, "machine network CIDRs, comma separated");
  parser.String("cluster-network", &c.cluster_network,
                "pod network as CIDR/host-prefix, e.g. 10.128.0.0/14/23");
  parser.String("service-network", &c.service_network, "service network CIDR");
  parser.Bool("user-managed-networking", &c.user_managed_networking,
              "no VIPs: load balancing and DNS are the user's (platform none)");
}

// ---- infra-envs ----

int RunInfraEnvsCreate(const GlobalOptions& global, const CommandOptions& options,
                       const std::vector<std::string>&, Io io) {
  json body = {{"name", options.name.empty() ? std::string("discovery") : options.name},
               {"image_type", options.image_type}};
  if (!options.cluster_id.empty()) body["cluster_id"] = options.cluster_id;
  ClusterFlags files;
  files.pull_secret_file = options.cluster.pull_secret_file;
  files.ssh_key_file = options.cluster.ssh_key_file;
  absl::StatusOr<json> read = ClusterCreateBody(files);
  if (!read.ok()) return Usage(io, "infra-envs create", read.status().message());
  if (read->contains("pull_secret")) body["pull_secret"] = (*read)["pull_secret"];
  if (read->contains("ssh_public_key")) body["ssh_authorized_key"] = (*read)["ssh_public_key"];
  RestClient client = ClientFor(global);
  absl::StatusOr<json> created = client.Call("POST", "/infra-envs", body);
  if (!created.ok()) return Fail(io, "infra-envs create", created.status());
  PrintCreated(global, io, "infra-env", *created);
  return kExitOk;
}

int RunInfraEnvsGet(const GlobalOptions& global, const CommandOptions&,
                    const std::vector<std::string>& args, Io io) {
  if (args.size() != 1) return Usage(io, "infra-envs get", "expected one INFRA_ENV_ID");
  RestClient client = ClientFor(global);
  absl::StatusOr<json> infra_env = client.Call("GET", "/infra-envs/" + args[0]);
  if (!infra_env.ok()) return Fail(io, "infra-envs get", infra_env.status());
  if (!PrintedAsJson(global, io, *infra_env)) {
    io.out << absl::StrFormat("name:     %s\nid:       %s\ncluster:  %s\nimage:    %s\n",
                              TextField(*infra_env, "name"), TextField(*infra_env, "id"),
                              TextField(*infra_env, "cluster_id"), TextField(*infra_env, "type"));
  }
  return kExitOk;
}

// infra-envs update: --file's fields (the REST body's names) as a PATCH.
int RunInfraEnvsUpdate(const GlobalOptions& global, const CommandOptions& options,
                       const std::vector<std::string>& args, Io io) {
  if (args.size() != 1) return Usage(io, "infra-envs update", "expected one INFRA_ENV_ID");
  absl::StatusOr<std::string> text = ReadFile(options.body_file, "--file");
  if (!text.ok()) return Usage(io, "infra-envs update", text.status().message());
  absl::StatusOr<json> body = YamlToJson(*text);
  if (!body.ok() || !body->is_object()) {
    return Usage(io, "infra-envs update",
                 absl::StrCat(options.body_file, ": expected a mapping of infra-env fields"));
  }
  RestClient client = ClientFor(global);
  absl::StatusOr<json> updated = client.Call("PATCH", "/infra-envs/" + args[0], *body);
  if (!updated.ok()) return Fail(io, "infra-envs update", updated.status());
  if (!PrintedAsJson(global, io, *updated)) {
    io.out << "infra-env " << TextField(*updated, "name") << " updated\n";
  }
  return kExitOk;
}

int RunInfraEnvsList(const GlobalOptions& global, const CommandOptions& options,
                     const std::vector<std::string>&, Io io) {
  RestClient client = ClientFor(global);
  absl::StatusOr<json> list = client.Call(
      "GET",
      options.cluster_id.empty() ? "/infra-envs" : "/infra-envs?cluster_id=" + options.cluster_id);
  if (!list.ok()) return Fail(io, "infra-envs list", list.status());
  if (PrintedAsJson(global, io, *list)) return kExitOk;
  io.out << absl::StrFormat("%-20s %-36s %-36s %s\n", "NAME", "ID", "CLUSTER", "TYPE");
  for (const json& infra_env : *list) {
    io.out << absl::StrFormat("%-20s %-36s %-36s %s\n", TextField(infra_env, "name"),
                              TextField(infra_env, "id"), TextField(infra_env, "cluster_id"),
                              TextField(infra_env, "type"));
  }
  return kExitOk;
}

int RunInfraEnvsRegenerateSigningKey(const GlobalOptions& global, const CommandOptions&,
                                     const std::vector<std::string>& args, Io io) {
  const char* command = "infra-envs regenerate-signing-key";
  if (args.size() != 1) return Usage(io, command, "expected one INFRA_ENV_ID");
  RestClient client = ClientFor(global);
  absl::StatusOr<json> done =
      client.Call("POST", "/infra-envs/" + args[0] + "/regenerate-signing-key");
  if (!done.ok()) return Fail(io, command, done.status());
  io.err << "infra-env " << args[0]
         << ": signing key regenerated; agent tokens of images downloaded before are revoked "
            "(download the image again for hosts still to boot)\n";
  return kExitOk;
}

// ---- iso download ----

// Draws the bar on a terminal (one line, redrawn); elsewhere prints every 10 %.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(Io io) : io_(io) {}
  void operator()(int64_t received, int64_t total) {
    if (io_.terminal) {
      const absl::Time now = absl::Now();
      if (now - last_draw_ < absl::Milliseconds(100) && received != total) return;
      last_draw_ = now;
      io_.err << "\r" << ProgressBar(received, total) << std::flush;
      drawn_ = true;
      return;
    }
    if (total <= 0) return;
    const int decile = static_cast<int>(received * 10 / total);
    if (decile > printed_decile_) {
      printed_decile_ = decile;
      io_.err << ProgressBar(received, total) << "\n";
    }
  }
  void Finish() {
    if (drawn_) io_.err << "\n";
  }

 private:
  Io io_;
  absl::Time last_draw_ = absl::InfinitePast();
  bool drawn_ = false;
  int printed_decile_ = 0;
};

int RunIsoDownload(const GlobalOptions& global, const CommandOptions& options,
                   const std::vector<std::string>& args, Io io) {
  if (args.size() != 1) return Usage(io, "iso download", "expected one INFRA_ENV_ID");
  RestClient client = ClientFor(global);
  absl::StatusOr<json> url = client.Call("GET", "/infra-envs/" + args[0] + "/downloads/image-url");
  if (!url.ok()) return Fail(io, "iso download", url.status());
  const std::string link = TextField(*url, "url");
  if (link.empty()) {
    return Fail(io, "iso download", absl::DataLossError("the server sent no download URL"));
  }
  const std::string output = options.output_file.empty()
                                 ? absl::StrCat("discovery-", args[0].substr(0, 8), ".iso")
                                 : options.output_file;
  io.err << "downloading the discovery ISO to " << output << "\n";
  ProgressPrinter printer(io);
  absl::StatusOr<int64_t> bytes = client.Download(
      link, output, [&](int64_t received, int64_t total) { printer(received, total); });
  printer.Finish();
  if (!bytes.ok()) return Fail(io, "iso download", bytes.status());
  if (!PrintedAsJson(global, io, json{{"path", output}, {"size_bytes", *bytes}})) {
    io.out << output << "\n";
  }
  return kExitOk;
}

// ---- hosts ----

absl::StatusOr<json> ListHosts(RestClient& client, const CommandOptions& options) {
  if (!options.cluster_id.empty()) {
    return client.Call("GET", "/clusters/" + options.cluster_id + "/hosts");
  }
  if (!options.infra_env_id.empty()) {
    return client.Call("GET", "/infra-envs/" + options.infra_env_id + "/hosts");
  }
  return absl::InvalidArgumentError("give --cluster or --infra-env");
}

int RunHostsList(const GlobalOptions& global, const CommandOptions& options,
                 const std::vector<std::string>&, Io io) {
  if (options.cluster_id.empty() == options.infra_env_id.empty()) {
    return Usage(io, "hosts list", "give exactly one of --cluster or --infra-env");
  }
  RestClient client = ClientFor(global);
  absl::StatusOr<json> hosts = ListHosts(client, options);
  if (!hosts.ok()) return Fail(io, "hosts list", hosts.status());
  if (!PrintedAsJson(global, io, *hosts)) {
    io.out << HostTable(*hosts);
  }
  return kExitOk;
}

// The host whose id or name is `wanted` among `hosts`; NOT_FOUND, or INVALID_ARGUMENT when a
// name matches more than one.
absl::StatusOr<json> FindHost(const json& hosts, const std::string& wanted) {
  std::vector<json> matches;
  for (const json& host : hosts) {
    if (TextField(host, "id") == wanted) return host;
    if (HostName(host) == wanted) matches.push_back(host);
  }
  if (matches.size() == 1) return matches[0];
  if (matches.empty()) return absl::NotFoundError(absl::StrCat("no host \"", wanted, "\""));
  return absl::InvalidArgumentError(
      absl::StrCat(matches.size(), " hosts are named \"", wanted, "\": give the id"));
}

// The host named or numbered `wanted` among those of --cluster or --infra-env.
absl::StatusOr<json> SelectedHost(RestClient& client, const CommandOptions& options,
                                  const std::string& wanted) {
  if (options.cluster_id.empty() == options.infra_env_id.empty()) {
    return absl::InvalidArgumentError("give exactly one of --cluster or --infra-env");
  }
  ASSIGN_OR_RETURN(json hosts, ListHosts(client, options));
  return FindHost(hosts, wanted);
}

std::string HostPath(const json& host) {
  return absl::StrCat("/infra-envs/", TextField(host, "infra_env_id"), "/hosts/",
                      TextField(host, "id"));
}

// A host command: finds the host of args[0] (`arguments` of them in all), then `call` makes the
// request whose answer is printed (as `line` says, or whole with -o json/yaml/name).
int OnHost(const GlobalOptions& global, const CommandOptions& options,
           const std::vector<std::string>& args, Io io, const char* command, size_t arguments,
           const char* expected,
           const std::function<absl::StatusOr<json>(RestClient&, const json& host)>& call,
           const std::function<std::string(const json& answer)>& line) {
  if (args.size() != arguments) return Usage(io, command, absl::StrCat("expected ", expected));
  RestClient client = ClientFor(global);
  absl::StatusOr<json> host = SelectedHost(client, options, args[0]);
  if (absl::IsInvalidArgument(host.status()) && absl::StrContains(host.status().message(), "--")) {
    return Usage(io, command, host.status().message());
  }
  if (!host.ok()) return Fail(io, command, host.status());
  absl::StatusOr<json> answer = call(client, *host);
  if (!answer.ok()) return Fail(io, command, answer.status());
  if (!PrintedAsJson(global, io, *answer)) io.out << line(*answer);
  return kExitOk;
}

int RunHostsSetRole(const GlobalOptions& global, const CommandOptions& options,
                    const std::vector<std::string>& args, Io io) {
  return OnHost(
      global, options, args, io, "hosts set-role", 2, "HOST ROLE",
      [&](RestClient& client, const json& host) {
        return client.Call("PATCH", HostPath(host), json{{"host_role", args[1]}});
      },
      [](const json& updated) {
        return absl::StrCat(HostName(updated), ": role ", TextField(updated, "role"), "\n");
      });
}

// hosts reset-validation: the agent measures the validation's input again.
int RunHostsResetValidation(const GlobalOptions& global, const CommandOptions& options,
                            const std::vector<std::string>& args, Io io) {
  return OnHost(
      global, options, args, io, "hosts reset-validation", 2, "HOST VALIDATION_ID",
      [&](RestClient& client, const json& host) {
        return client.Call("PATCH", HostPath(host) + "/actions/reset-validation/" + args.at(1));
      },
      [&](const json& reset) {
        return absl::StrCat(HostName(reset), ": ", args.at(1), " will be measured again\n");
      });
}

int RunHostsGet(const GlobalOptions& global, const CommandOptions& options,
                const std::vector<std::string>& args, Io io) {
  return OnHost(
      global, options, args, io, "hosts get", 1, "HOST",
      [](RestClient&, const json& host) -> absl::StatusOr<json> { return host; },
      [](const json& host) { return HostTable(json::array({host})); });
}

// hosts update: name, role and installation disk, the ones given.
int RunHostsUpdate(const GlobalOptions& global, const CommandOptions& options,
                   const std::vector<std::string>& args, Io io) {
  json body = json::object();
  if (!options.name.empty()) body["host_name"] = options.name;
  if (!options.role.empty()) body["host_role"] = options.role;
  if (!options.disk_id.empty()) {
    body["disks_selected_config"] = json::array({{{"id", options.disk_id}, {"role", "install"}}});
  }
  if (body.empty()) return Usage(io, "hosts update", "give --name, --role or --disk");
  return OnHost(
      global, options, args, io, "hosts update", 1, "HOST",
      [&](RestClient& client, const json& host) {
        return client.Call("PATCH", HostPath(host), body);
      },
      [](const json& updated) { return HostTable(json::array({updated})); });
}

int RunHostsDelete(const GlobalOptions& global, const CommandOptions& options,
                   const std::vector<std::string>& args, Io io) {
  return OnHost(
      global, options, args, io, "hosts delete", 1, "HOST",
      [](RestClient& client, const json& host) -> absl::StatusOr<json> {
        RETURN_IF_ERROR(client.Call("DELETE", HostPath(host)).status());
        return host;
      },
      [](const json& host) { return absl::StrCat(HostName(host), ": deregistered\n"); });
}

// hosts bind HOST CLUSTER_ID: an unbound host (late binding) joins the cluster.
int RunHostsBind(const GlobalOptions& global, const CommandOptions& options,
                 const std::vector<std::string>& args, Io io) {
  return OnHost(
      global, options, args, io, "hosts bind", 2, "HOST CLUSTER_ID",
      [&](RestClient& client, const json& host) {
        return client.Call("POST", HostPath(host) + "/actions/bind",
                           json{{"cluster_id", args.at(1)}});
      },
      [](const json& bound) {
        return absl::StrCat(HostName(bound), ": bound to cluster ", TextField(bound, "cluster_id"),
                            " (", TextField(bound, "status"), ")\n");
      });
}

int RunHostsUnbind(const GlobalOptions& global, const CommandOptions& options,
                   const std::vector<std::string>& args, Io io) {
  return OnHost(
      global, options, args, io, "hosts unbind", 1, "HOST",
      [](RestClient& client, const json& host) {
        return client.Call("POST", HostPath(host) + "/actions/unbind");
      },
      [](const json& unbound) {
        return absl::StrCat(HostName(unbound), ": unbound (", TextField(unbound, "status"), ")\n");
      });
}

// ---- downloads ----

// GETs `path` and prints the file, or writes it to --output-file.
int Downloaded(const GlobalOptions& global, const CommandOptions& options, Io io,
               absl::string_view command, const std::string& path) {
  RestClient client = ClientFor(global);
  absl::StatusOr<std::string> content = client.GetText(path);
  if (!content.ok()) return Fail(io, command, content.status());
  if (options.output_file.empty()) {
    io.out << *content;
    return kExitOk;
  }
  std::ofstream out(options.output_file, std::ios::binary | std::ios::trunc);
  out << *content;
  if (!out.flush()) {
    return Fail(io, command,
                absl::PermissionDeniedError(absl::StrCat("cannot write ", options.output_file)));
  }
  return kExitOk;
}

void BindOutputFile(config::Parser& parser, CommandOptions& options) {
  parser.String("output-file", &options.output_file, "file to write (default stdout)");
}

// clusters download / infra-envs download: one of downloads/files' names.
int RunClustersDownload(const GlobalOptions& global, const CommandOptions& options,
                        const std::vector<std::string>& args, Io io) {
  if (args.size() != 2) return Usage(io, "clusters download", "expected CLUSTER_ID FILE_NAME");
  return Downloaded(global, options, io, "clusters download",
                    absl::StrCat("/clusters/", args[0], "/downloads/files?file_name=", args[1]));
}

int RunInfraEnvsDownload(const GlobalOptions& global, const CommandOptions& options,
                         const std::vector<std::string>& args, Io io) {
  if (args.size() != 2) return Usage(io, "infra-envs download", "expected INFRA_ENV_ID FILE_NAME");
  // The minimal initrd has a route of its own (empty when there is nothing to add).
  const std::string path =
      args[1] == "minimal-initrd"
          ? absl::StrCat("/infra-envs/", args[0], "/downloads/minimal-initrd")
          : absl::StrCat("/infra-envs/", args[0], "/downloads/files?file_name=", args[1]);
  return Downloaded(global, options, io, "infra-envs download", path);
}

// ---- manifests ----

void BindManifestFlags(config::Parser& parser, CommandOptions& options) {
  parser.String("folder", &options.folder, "manifests (the default) or openshift");
}

// "?folder=F&file_name=N" for a manifest named on the command line.
std::string ManifestQuery(const CommandOptions& options, const std::string& file_name) {
  return absl::StrCat("?folder=", options.folder, "&file_name=", file_name);
}

int RunManifestsList(const GlobalOptions& global, const CommandOptions&,
                     const std::vector<std::string>& args, Io io) {
  if (args.size() != 1) return Usage(io, "manifests list", "expected one CLUSTER_ID");
  RestClient client = ClientFor(global);
  absl::StatusOr<json> manifests = client.Call("GET", "/clusters/" + args[0] + "/manifests");
  if (!manifests.ok()) return Fail(io, "manifests list", manifests.status());
  if (PrintedAsJson(global, io, *manifests)) return kExitOk;
  io.out << absl::StrFormat("%-10s %s\n", "FOLDER", "FILE");
  for (const json& manifest : *manifests) {
    io.out << absl::StrFormat("%-10s %s\n", TextField(manifest, "folder"),
                              TextField(manifest, "file_name"));
  }
  return kExitOk;
}

int RunManifestsCreate(const GlobalOptions& global, const CommandOptions& options,
                       const std::vector<std::string>& args, Io io) {
  constexpr char kCommand[] = "manifests create";
  if (args.size() != 2) return Usage(io, kCommand, "expected CLUSTER_ID FILE");
  std::ifstream in(args[1], std::ios::binary);
  if (!in) return Usage(io, kCommand, absl::StrCat("cannot read ", args[1]));
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t slash = args[1].rfind('/');
  const std::string file_name = slash == std::string::npos ? args[1] : args[1].substr(slash + 1);
  RestClient client = ClientFor(global);
  absl::StatusOr<json> created = client.Call("POST", "/clusters/" + args[0] + "/manifests",
                                             json{{"folder", options.folder},
                                                  {"file_name", file_name},
                                                  {"content", absl::Base64Escape(content)}});
  if (!created.ok()) return Fail(io, kCommand, created.status());
  if (!PrintedAsJson(global, io, *created)) {
    io.out << TextField(*created, "folder") << "/" << TextField(*created, "file_name") << "\n";
  }
  return kExitOk;
}

int RunManifestsDownload(const GlobalOptions& global, const CommandOptions& options,
                         const std::vector<std::string>& args, Io io) {
  if (args.size() != 2) return Usage(io, "manifests download", "expected CLUSTER_ID FILE_NAME");
  return Downloaded(
      global, options, io, "manifests download",
      absl::StrCat("/clusters/", args[0], "/manifests/files", ManifestQuery(options, args[1])));
}

int RunManifestsDelete(const GlobalOptions& global, const CommandOptions& options,
                       const std::vector<std::string>& args, Io io) {
  constexpr char kCommand[] = "manifests delete";
  if (args.size() != 2) return Usage(io, kCommand, "expected CLUSTER_ID FILE_NAME");
  RestClient client = ClientFor(global);
  absl::StatusOr<json> deleted = client.Call(
      "DELETE", absl::StrCat("/clusters/", args[0], "/manifests", ManifestQuery(options, args[1])));
  if (!deleted.ok()) return Fail(io, kCommand, deleted.status());
  return kExitOk;
}

// ---- wait ----

// Polls the cluster and its hosts, printing each host's line when it changes and the cluster's
// status when it changes, until the awaited state, a failure, or the timeout.
int RunWait(const GlobalOptions& global, const CommandOptions& options,
            const std::vector<std::string>& args, Io io) {
  if (args.size() != 1) return Usage(io, "wait", "expected one CLUSTER_ID");
  const std::string& id = args[0];
  std::ostream& progress = global.output == "table" ? io.out : io.err;
  RestClient client = ClientFor(global);
  const absl::Time deadline = absl::Now() + options.timeout;
  std::map<std::string, std::string> last_lines;
  std::string last_cluster_line;
  absl::Status last_error;
  for (;;) {
    absl::StatusOr<json> cluster = client.Call("GET", "/clusters/" + id);
    absl::StatusOr<json> hosts =
        cluster.ok() ? client.Call("GET", "/clusters/" + id + "/hosts") : cluster.status();
    if (!hosts.ok()) {
      const absl::Status failed = hosts.status();
      // Only an unreachable gateway is worth waiting out; anything else will not change.
      if (failed.code() != absl::StatusCode::kUnavailable) return Fail(io, "wait", failed);
      if (failed.message() != last_error.message())
        io.err << "aictl wait: " << failed.message() << " (retrying)\n";
      last_error = failed;
    } else {
      last_error = absl::OkStatus();
      const std::string stamp = absl::FormatTime("%H:%M:%S", absl::Now(), absl::LocalTimeZone());
      for (const json& host : *hosts) {
        const std::string line = ProgressLine(host);
        std::string& last = last_lines[TextField(host, "id")];
        if (line != last) progress << stamp << "  " << line << "\n";
        last = line;
      }
      const std::string status = TextField(*cluster, "status");
      int percent = 0;
      if ((*cluster).contains("progress")) {
        percent = static_cast<int>(Number((*cluster)["progress"], "total_percentage"));
      }
      const std::string cluster_line =
          absl::StrFormat("cluster %s: %s %d%% (%s)", TextField(*cluster, "name"), status, percent,
                          TextField(*cluster, "status_info"));
      if (cluster_line != last_cluster_line) progress << stamp << "  " << cluster_line << "\n";
      last_cluster_line = cluster_line;
      progress.flush();
      const bool enough_hosts = static_cast<int>(hosts->size()) >= options.hosts;
      bool reached = false;
      if (options.wait_for == "ready") {
        reached = enough_hosts && status == "ready";
      } else if (options.wait_for == "finalizing") {
        // The control plane is up (agent wait-for bootstrap-complete).
        reached = status == "finalizing" || status == "installed";
      } else {
        reached = status == "installed";
      }
      if (reached) {
        PrintedAsJson(global, io, *cluster);
        return kExitOk;
      }
      if (status == "error" || status == "cancelled") {
        io.err << "aictl wait: cluster " << TextField(*cluster, "name") << " is " << status << ": "
               << TextField(*cluster, "status_info") << "\n";
        PrintedAsJson(global, io, *cluster);
        return kExitFailed;
      }
    }
    if (absl::Now() + options.interval > deadline) {
      io.err << "aictl wait: cluster " << id << " did not become " << options.wait_for << " within "
             << absl::FormatDuration(options.timeout) << "\n";
      return kExitTimedOut;
    }
    absl::SleepFor(options.interval);
  }
}

// ---- credentials ----

absl::Status WriteSecretFile(const std::string& path, const std::string& content) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out.flush()) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  }
  if (chmod(path.c_str(), 0600) != 0) {
    return absl::PermissionDeniedError(absl::StrCat("cannot restrict ", path));
  }
  return absl::OkStatus();
}

int RunCredentials(const GlobalOptions& global, const CommandOptions& options,
                   const std::vector<std::string>& args, Io io) {
  if (args.size() != 1) return Usage(io, "credentials", "expected one CLUSTER_ID");
  RestClient client = ClientFor(global);
  json written = json::object();
  for (const char* file : {"kubeconfig", "kubeadmin-password"}) {
    absl::StatusOr<std::string> content = client.GetText(
        absl::StrCat("/clusters/", args[0], "/downloads/credentials?file_name=", file));
    if (!content.ok()) return Fail(io, "credentials", content.status());
    const std::string path = absl::StrCat(options.output_dir, "/", file);
    if (absl::Status saved = WriteSecretFile(path, *content); !saved.ok()) {
      return Fail(io, "credentials", saved);
    }
    written[file] = path;
  }
  if (!PrintedAsJson(global, io, written)) {
    io.out << "kubeconfig:         " << written["kubeconfig"].get<std::string>() << "\n";
    io.out << "kubeadmin-password: " << written["kubeadmin-password"].get<std::string>() << "\n";
  }
  return kExitOk;
}

// ---- events ----

int RunEvents(const GlobalOptions& global, const CommandOptions& options,
              const std::vector<std::string>& args, Io io) {
  if (args.size() != 1) return Usage(io, "events", "expected one CLUSTER_ID");
  RestClient client = ClientFor(global);
  absl::StatusOr<json> events = client.Call("GET", "/events?cluster_id=" + args[0]);
  if (!events.ok()) return Fail(io, "events", events.status());
  if (PrintedAsJson(global, io, *events)) return kExitOk;
  const size_t first =
      events->size() > static_cast<size_t>(options.limit) ? events->size() - options.limit : 0;
  for (size_t i = first; i < events->size(); ++i) {
    const json& event = (*events)[i];
    io.out << absl::StrFormat("%-24s %-8s %s\n", TextField(event, "event_time"),
                              TextField(event, "severity"), TextField(event, "message"));
  }
  return kExitOk;
}

}  // namespace

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kPermissionDenied:
      return kExitDenied;
    case absl::StatusCode::kUnavailable:
      return kExitUnreachable;
    case absl::StatusCode::kDeadlineExceeded:
      return kExitTimedOut;
    default:
      return kExitFailed;
  }
}

std::vector<Command> RestCommands() {
  auto no_flags = [](config::Parser&, CommandOptions&) {};
  return {
      {"clusters create", "register a cluster (flags, or --file with a YAML body)", nullptr,
       BindClusterFlags, RunClustersCreate},
      {"clusters list", "list your clusters", nullptr, no_flags, RunClustersList},
      {"clusters get", "show a cluster", "CLUSTER_ID", no_flags, RunClustersGet},
      {"clusters install", "start installing a ready cluster", "CLUSTER_ID", no_flags,
       ClusterAction("install")},
      {"clusters cancel", "cancel an installation", "CLUSTER_ID", no_flags,
       ClusterAction("cancel")},
      {"clusters reset", "reset a cancelled or failed installation", "CLUSTER_ID", no_flags,
       ClusterAction("reset")},
      {"clusters update", "change a cluster (flags, or --file with a YAML body)", "CLUSTER_ID",
       BindClusterFlags, RunClustersUpdate},
      {"clusters delete", "deregister a cluster", "CLUSTER_ID", no_flags,
       Deleter("clusters", "cluster", "CLUSTER_ID")},
      {"clusters allow-add-workers", "open an installed cluster for day-2 hosts", "CLUSTER_ID",
       no_flags, ClusterAction("allow-add-workers")},
      {"infra-envs create", "register an infra-env (a discovery image) for a cluster", nullptr,
       [](config::Parser& parser, CommandOptions& options) {
         BindClusterSelector(parser, options);
         parser.String("name", &options.name, "infra-env name (default discovery)");
         parser
             .String("pull-secret-file", &options.cluster.pull_secret_file,
                     "file holding the pull secret")
             .Required();
         parser.String("ssh-key-file", &options.cluster.ssh_key_file,
                       "public SSH key file for the discovery image's core user");
         parser.String("image-type", &options.image_type, "full-iso or minimal-iso")
             .Check([](const std::string& type) {
               return type == "full-iso" || type == "minimal-iso"
                          ? absl::OkStatus()
                          : absl::InvalidArgumentError("expected full-iso or minimal-iso");
             });
       },
       RunInfraEnvsCreate},
      {"infra-envs list", "list infra-envs (--cluster narrows)", nullptr, BindClusterSelector,
       RunInfraEnvsList},
      {"infra-envs get", "show an infra-env", "INFRA_ENV_ID", no_flags, RunInfraEnvsGet},
      {"infra-envs update", "change an infra-env from --file (YAML of the REST body's fields)",
       "INFRA_ENV_ID",
       [](config::Parser& parser, CommandOptions& options) {
         parser.String("file", &options.body_file, "YAML file of the fields to change").Required();
       },
       RunInfraEnvsUpdate},
      {"infra-envs delete", "deregister an infra-env", "INFRA_ENV_ID", no_flags,
       Deleter("infra-envs", "infra-env", "INFRA_ENV_ID")},
      {"infra-envs regenerate-signing-key",
       "revoke the agent tokens of every image of an infra-env downloaded so far", "INFRA_ENV_ID",
       no_flags, RunInfraEnvsRegenerateSigningKey},
      {"iso download", "download an infra-env's discovery ISO, with progress", "INFRA_ENV_ID",
       [](config::Parser& parser, CommandOptions& options) {
         parser.String("output-file", &options.output_file,
                       "file to write (default discovery-<id>.iso)");
       },
       RunIsoDownload},
      {"hosts list", "hosts with role, status, stage and failing validations", nullptr,
       BindClusterSelector, RunHostsList},
      {"hosts set-role", "set a host's role (master, worker, auto-assign)", "HOST ROLE",
       BindClusterSelector, RunHostsSetRole},
      {"hosts get", "show a host (HOST: its id or name)", "HOST", BindClusterSelector, RunHostsGet},
      {"hosts update", "change a host's name, role or installation disk", "HOST",
       [](config::Parser& parser, CommandOptions& options) {
         BindClusterSelector(parser, options);
         parser.String("name", &options.name, "the host name to give it");
         parser.String("role", &options.role, "master, worker or auto-assign");
         parser.String("disk", &options.disk_id,
                       "installation disk: its id (e.g. /dev/disk/by-id/...) from hosts get");
       },
       RunHostsUpdate},
      {"hosts delete", "deregister a host", "HOST", BindClusterSelector, RunHostsDelete},
      {"hosts bind", "bind an unbound host (found with --infra-env) to a cluster",
       "HOST CLUSTER_ID", BindClusterSelector, RunHostsBind},
      {"hosts unbind", "return a host to its infra-env, unbound", "HOST", BindClusterSelector,
       RunHostsUnbind},
      {"hosts reset-validation",
       "measure a host's disk speed (sufficient-installation-disk-speed) or image pulls "
       "(container-images-available) again",
       "HOST VALIDATION_ID", BindClusterSelector, RunHostsResetValidation},
      {"manifests list", "a cluster's custom manifests", "CLUSTER_ID", no_flags, RunManifestsList},
      {"manifests create", "add a YAML or JSON file to a cluster's installation (--folder)",
       "CLUSTER_ID FILE", BindManifestFlags, RunManifestsCreate},
      {"manifests download", "print (or --output-file) a custom manifest", "CLUSTER_ID FILE_NAME",
       [](config::Parser& parser, CommandOptions& options) {
         BindManifestFlags(parser, options);
         BindOutputFile(parser, options);
       },
       RunManifestsDownload},
      {"clusters download",
       "print (or --output-file) install-config.yaml, metadata.json or an Ignition file",
       "CLUSTER_ID FILE_NAME", BindOutputFile, RunClustersDownload},
      {"infra-envs download",
       "print (or --output-file) discovery.ign, ipxe-script, static-network-config or "
       "minimal-initrd",
       "INFRA_ENV_ID FILE_NAME", BindOutputFile, RunInfraEnvsDownload},
      {"manifests delete", "remove a custom manifest", "CLUSTER_ID FILE_NAME", BindManifestFlags,
       RunManifestsDelete},
      {"wait", "follow a cluster until ready or installed, printing per-host progress",
       "CLUSTER_ID",
       [](config::Parser& parser, CommandOptions& options) {
         options.timeout = absl::Hours(2);
         parser.String("for", &options.wait_for, "ready, finalizing or installed")
             .Check([](const std::string& state) {
               return state == "ready" || state == "finalizing" || state == "installed"
                          ? absl::OkStatus()
                          : absl::InvalidArgumentError("expected ready, finalizing or installed");
             });
         parser.Int("hosts", &options.hosts, "with --for=ready: at least this many hosts")
             .Range(0, 100000);
         parser.Duration("timeout", &options.timeout, "give up (exit 3) after this long")
             .Range(absl::Seconds(1), absl::Hours(48));
         parser.Duration("interval", &options.interval, "how often to look")
             .Range(absl::Milliseconds(100), absl::Minutes(10));
       },
       RunWait},
      {"credentials", "download the kubeconfig and kubeadmin password of an installed cluster",
       "CLUSTER_ID",
       [](config::Parser& parser, CommandOptions& options) {
         parser.String("output-dir", &options.output_dir, "folder to write them to");
       },
       RunCredentials},
      {"events", "a cluster's latest events", "CLUSTER_ID",
       [](config::Parser& parser, CommandOptions& options) {
         parser.Int("limit", &options.limit, "how many of the latest to show").Range(1, 100000);
       },
       RunEvents},
  };
}

}  // namespace assisted::cli
