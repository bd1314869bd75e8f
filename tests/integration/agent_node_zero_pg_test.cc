// The agent-based installer's node 0, simulated on loopback (issue 17, item 5). The test builds
// the agent ISO from seed-like inputs (services/gateway/cli/agent/testdata: SNO and compact on
// the simulation profiles' network), takes the Ignition back out of the ISO, runs node 0's units
// (agent_ignition.h: NodeZeroUnitNames) as processes straight from that Ignition, boots
// simulated hosts (services/agent/fleet.h) whose MACs are the ones agent-config.yaml lists, and
// runs `aictl agent wait-for install-complete --dir DIR` until it returns 0. Nothing but the
// ISO tells node 0 what to do: the registration (`aictl agent run-node-zero`) creates the
// cluster, names the hosts and starts the install by itself.
//
// Running a unit here is a mapping, not systemd:
//
// | in the Ignition                                  | here                                     |
// |--------------------------------------------------|------------------------------------------|
// | storage.files                                    | written under the root folder, modes kept|
// | /etc/, /var/lib/, /run/, /root/, /usr/share/ ... | the same path under the root folder      |
// | /usr/local/bin/assisted-{inventory,orchestrator, | the bazel-built binaries                 |
// |   image,gateway}, /usr/local/bin/aictl           |                                          |
// | /usr/local/bin/<a script of the Ignition>        | that script, under the root folder       |
// | /usr/lib/postgresql/15/bin                       | this machine's PostgreSQL 15+ (harness)  |
// | 127.0.0.1:P and <rendezvousIP>:P                 | 127.0.0.1:<a free port>, one per P       |
// | Environment=, EnvironmentFile=                   | the child's environment (values mapped)  |
// | StateDirectory=, RuntimeDirectory=               | made under the root folder, for User=    |
// | User=postgres                                    | runuser -u postgres when the test is root|
// | ExecStartPre=, then ExecStart=                   | run to completion, then started          |
// | ConditionPathExists=/etc/assisted/node0          | true: the test writes the marker as      |
// |                                                  | assisted-node-zero.service would         |
// | Type=notify, ExecStartPost= (readiness), After=  | NodeZeroUnitNames' order; the next unit  |
// |                                                  | starts once the socket / gRPC health is  |
// |                                                  | up                                       |
// | /usr/share/assisted/node-zero-images.env         | written by the test (the live image's    |
// |   (the live image's, not the ISO's)              | OS image and base ISO: test ones)        |
//
// The state file's gateway_url (http://<rendezvousIP>:8080) is pointed at the mapped port, as a
// user's route to node 0 would be.
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/containers/registries_conf.h"
#include "lib/file/read_file.h"
#include "lib/ignition/config_builder.h"
#include "lib/ignition/discovery_layout.h"
#include "lib/iso/embed.h"
#include "lib/iso/iso9660.h"
#include "lib/iso/test_image.h"
#include "lib/log/log.h"
#include "lib/process/subprocess.h"
#include "lib/random/random.h"
#include "lib/status/status_macros.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"
#include "openssl/evp.h"
#include "services/agent/fleet.h"
#include "services/agent/steps/image_availability.h"
#include "services/gateway/cli/agent/agent_ignition.h"
#include "services/gateway/cli/agent/asset_dir.h"
#include "services/gateway/cli/commands.h"
#include "services/gateway/cli/rest_client.h"
#include "services/gateway/jwt.h"
#include "tests/harness/certificates.h"
#include "tests/harness/eventually.h"
#include "tests/harness/postgres_server.h"
#include "tests/harness/probes.h"

namespace assisted::testing {
namespace {

using cli::agent::NodeZeroUnitNames;
using nlohmann::json;

constexpr char kRendezvousIp[] = "192.168.122.10";

// The bazel-built binary of each /usr/local/bin name the units start.
const std::map<std::string, std::string>& Binaries() {
  static const auto* binaries = new std::map<std::string, std::string>{
      {"/usr/local/bin/assisted-inventory", "services/inventory/assisted-inventory"},
      {"/usr/local/bin/assisted-orchestrator", "services/orchestrator/assisted-orchestrator"},
      {"/usr/local/bin/assisted-image", "services/image/assisted-image"},
      {"/usr/local/bin/assisted-gateway", "services/gateway/assisted-gateway"},
      {"/usr/local/bin/assisted-agent", "services/agent/assisted-agent"},
      {"/usr/local/bin/aictl", "services/gateway/cli/aictl"}};
  return *binaries;
}

// One [Service] of a unit, its values mapped (the table above).
struct MappedService {
  std::vector<std::vector<std::string>> start_pre;
  std::vector<std::string> start;
  std::map<std::string, std::string> env;
  std::string user;
  std::vector<std::string> directories;  // StateDirectory= and RuntimeDirectory=, mapped
};

// Node 0 as processes under a root folder: the table above.
class NodeZero {
 public:
  // `root` must be reachable by the postgres user (the socket lives under it).
  NodeZero(std::string root, std::string pg_bindir)
      : root_(std::move(root)), pg_bindir_(std::move(pg_bindir)) {}

  // Stops the units in reverse order and deletes the root folder.
  ~NodeZero() {
    for (auto it = running_.rbegin(); it != running_.rend(); ++it)
      it->second->Stop(absl::Seconds(10));
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }

  // Writes every file of the Ignition under the root folder, and node 0's marker.
  absl::Status LayDown(const json& ignition) {
    for (const json& file : ignition["storage"]["files"]) {
      ASSIGN_OR_RETURN(std::string contents,
                       ignition::DecodeDataUrl(file["contents"]["source"].get<std::string>()));
      const std::string path = Under(file["path"].get<std::string>());
      RETURN_IF_ERROR(Write(path, contents, file.value("mode", 0644)));
    }
    for (const json& unit : ignition["systemd"]["units"]) {
      units_[unit["name"].get<std::string>()] = unit.value("contents", "");
    }
    return Write(Under(cli::agent::kNodeZeroMarkerPath), "BOOTSTRAP_HOST_MAC=02:00:c0:a8:7a:0a\n",
                 0644);
  }

  // A path of the host, under the root folder.
  std::string Under(const std::string& path) const { return absl::StrCat(root_, path); }

  // 127.0.0.1:<the free port standing for `port`>.
  std::string Address(int port) {
    auto [it, added] = ports_.emplace(port, 0);
    if (added) it->second = FreePort().value_or(0);
    return absl::StrCat("127.0.0.1:", it->second);
  }

  // Paths and addresses of `text` mapped.
  std::string Map(const std::string& text) {
    static const std::regex kAddress(
        absl::StrCat(R"((127\.0\.0\.1|)", absl::StrReplaceAll(kRendezvousIp, {{".", R"(\.)"}}),
                     R"():([0-9]+))"));
    std::string out;
    std::sregex_iterator it(text.begin(), text.end(), kAddress), end;
    size_t from = 0;
    for (; it != end; ++it) {
      out += text.substr(from, it->position() - from);
      out += Address(std::stoi((*it)[2]));
      from = it->position() + it->length();
    }
    out += text.substr(from);
    if (absl::StartsWith(out, "/usr/local/bin/") && Binaries().count(out)) {
      return RunfilePath(Binaries().at(out));
    }
    return absl::StrReplaceAll(out, {{"/usr/lib/postgresql/15/bin", pg_bindir_},
                                     {"/usr/local/bin/", Under("/usr/local/bin/")},
                                     {"/etc/", Under("/etc/")},
                                     {"/var/lib/", Under("/var/lib/")},
                                     {"/run/", Under("/run/")},
                                     {"/root/", Under("/root/")},
                                     {"/usr/share/", Under("/usr/share/")}});
  }

  // The unit's [Service], mapped. INVALID_ARGUMENT for what the mapping does not handle.
  absl::StatusOr<MappedService> Read(const std::string& name) {
    if (!units_.count(name)) return absl::NotFoundError(absl::StrCat("no unit ", name));
    MappedService service;
    bool in_service = false;
    for (absl::string_view line : absl::StrSplit(units_[name], '\n')) {
      if (absl::StartsWith(line, "[")) in_service = line == "[Service]";
      const size_t eq = line.find('=');
      if (eq == absl::string_view::npos) continue;
      const std::string key(line.substr(0, eq));
      const std::string value(line.substr(eq + 1));
      if (!in_service) {
        if (key == "ConditionPathExists" && value != cli::agent::kNodeZeroMarkerPath) {
          return absl::InvalidArgumentError(absl::StrCat(name, ": unmapped condition ", value));
        }
        continue;
      }
      // Readiness (aictl health until SERVING): the test's own wait below stands for it.
      if (key == "ExecStartPost") continue;
      if (absl::StrContains(value, "\"") || absl::StrContains(value, "'")) {
        return absl::InvalidArgumentError(absl::StrCat(name, ": quoting is not mapped: ", line));
      }
      if (key == "ExecStart" || key == "ExecStartPre") {
        std::vector<std::string> argv;
        for (absl::string_view word : absl::StrSplit(value, ' ', absl::SkipEmpty())) {
          argv.push_back(Map(std::string(word)));
        }
        (key == "ExecStart" ? service.start : service.start_pre.emplace_back()) = argv;
      } else if (key == "Environment") {
        const size_t at = value.find('=');
        service.env[value.substr(0, at)] = Map(value.substr(at + 1));
      } else if (key == "EnvironmentFile") {
        ASSIGN_OR_RETURN(std::string file,
                         ReadFile(Under(std::string(absl::StripPrefix(value, "-"))), "env file"));
        for (absl::string_view env_line : absl::StrSplit(file, '\n', absl::SkipEmpty())) {
          const size_t at = env_line.find('=');
          absl::string_view env_value = env_line.substr(at + 1);
          if (absl::ConsumePrefix(&env_value, "'")) absl::ConsumeSuffix(&env_value, "'");
          service.env[std::string(env_line.substr(0, at))] = Map(std::string(env_value));
        }
      } else if (key == "User") {
        service.user = value;
      } else if (key == "StateDirectory") {
        service.directories.push_back(Under(absl::StrCat("/var/lib/", value)));
      } else if (key == "RuntimeDirectory") {
        service.directories.push_back(Under(absl::StrCat("/run/", value)));
      }
    }
    if (service.start.empty())
      return absl::InvalidArgumentError(absl::StrCat(name, ": no ExecStart"));
    return service;
  }

  // Runs the unit's ExecStartPre= lines, then starts its ExecStart= (logs under the root).
  absl::Status Start(const std::string& name) { return StartAs(name, name, {}); }

  // Start() of `unit` as the process `name` (its log's name), with `extra_args` after its
  // ExecStart= (what stands for the machine, e.g. a simulated host's --simulate).
  absl::Status StartAs(const std::string& unit, const std::string& name,
                       const std::vector<std::string>& extra_args) {
    ASSIGN_OR_RETURN(MappedService service, Read(unit));
    service.start.insert(service.start.end(), extra_args.begin(), extra_args.end());
    const passwd* account = service.user.empty() ? nullptr : getpwnam(service.user.c_str());
    for (const std::string& dir : service.directories) {
      std::filesystem::create_directories(dir);
      if (account != nullptr && chown(dir.c_str(), account->pw_uid, account->pw_gid) != 0) {
        return absl::InternalError(absl::StrCat("cannot chown ", dir));
      }
    }
    const auto as_user = [&](std::vector<std::string> argv) {
      if (service.user.empty() || geteuid() != 0) return argv;
      std::vector<std::string> wrapped = {"runuser", "-u", service.user, "--", "env"};
      for (const auto& [key, value] : service.env) wrapped.push_back(absl::StrCat(key, "=", value));
      wrapped.insert(wrapped.end(), argv.begin(), argv.end());
      return wrapped;
    };
    process::LocalProcessRunner runner;
    for (const std::vector<std::string>& pre : service.start_pre) {
      ASSIGN_OR_RETURN(process::CommandResult result,
                       runner.Run({.argv = as_user(pre), .env = service.env}));
      if (result.exit_code != 0) {
        return absl::InternalError(absl::StrCat(name, ": ExecStartPre ", pre[0], " exited ",
                                                result.exit_code, ": ", result.stderr_data));
      }
    }
    logs_[name] = Under(absl::StrCat("/log/", name, ".log"));
    std::filesystem::create_directories(Under("/log"));
    ASSIGN_OR_RETURN(running_.emplace_back(name, nullptr).second,
                     process::Subprocess::Start(as_user(service.start), service.env, logs_[name]));
    last_ = service;
    return absl::OkStatus();
  }

  // The value of `--flag=` in the ExecStart of the unit started last.
  std::string LastFlag(const std::string& flag) const {
    for (const std::string& arg : last_.start) {
      if (absl::StartsWith(arg, flag + "=")) return arg.substr(flag.size() + 1);
    }
    return "";
  }

  // The process of a started unit; nullptr for one not started.
  process::Subprocess* process(const std::string& name) {
    for (auto& [unit, child] : running_) {
      if (unit == name) return child.get();
    }
    return nullptr;
  }

  // What the process `name` wrote so far; empty for one not started.
  std::string Log(const std::string& name) const {
    auto it = logs_.find(name);
    return it == logs_.end() ? "" : ReadFile(it->second, "log").value_or("");
  }

  std::string Logs() const {
    std::string all;
    for (const auto& [name, path] : logs_) {
      absl::StrAppend(&all, "--- ", name, "\n", ReadFile(path, "log").value_or(""), "\n");
    }
    return all;
  }

 private:
  static absl::Status Write(const std::string& path, const std::string& contents, int mode) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << contents;
    if (chmod(path.c_str(), mode) != 0) return absl::InternalError(absl::StrCat("chmod ", path));
    return absl::OkStatus();
  }

  std::string root_, pg_bindir_;
  std::map<std::string, std::string> units_;
  std::map<int, int> ports_;
  std::vector<std::pair<std::string, std::unique_ptr<process::Subprocess>>> running_;
  std::map<std::string, std::string> logs_;
  MappedService last_;
};

std::string TestTmpDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string Sha256Hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), size));
}

class NodeZeroRunTest : public ::testing::TestWithParam<const char*> {
 protected:
  void TearDown() override {
    if (fleet_ != nullptr) fleet_->Stop();
    if (HasFailure() && node_zero_ != nullptr) std::cerr << node_zero_->Logs();
  }

  // Builds the agent ISO of GetParam()'s topology in dir_ (created_), lays node 0 down from the
  // ISO's own Ignition and starts its units, each once the one before it is up, except the
  // last: the registration (`aictl agent run-node-zero`), which creates the cluster and
  // infra-env (StartRegistration()).
  // `edit_install_config` changes the testdata's install-config.yaml; `release_image` is
  // `agent create image`'s --release-image.
  void StartNodeZeroServices(const std::function<void(std::string&)>& edit_install_config = nullptr,
                             const std::string& release_image = "") {
    const std::string topology = GetParam();
    work_ = absl::StrCat(TestTmpDir(), "/", topology);
    dir_ = work_ + "/assets";
    std::filesystem::create_directories(dir_);
    for (const std::string file : {"install-config.yaml", "agent-config.yaml"}) {
      absl::StatusOr<std::string> text = ReadFile(
          RunfilePath(absl::StrCat("services/gateway/cli/agent/testdata/", topology, "_", file)),
          "testdata");
      ASSERT_THAT(text, IsOk());
      if (file == "install-config.yaml" && edit_install_config) edit_install_config(*text);
      std::ofstream(absl::StrCat(dir_, "/", file)) << *text;
    }
    // The agent ISO, built on a small CoreOS-style live ISO.
    process::LocalProcessRunner runner;
    const std::string base_iso = work_ + "/base.iso";
    ASSERT_THAT(iso::BuildTestImage(runner, {}, work_ + "/base-tree", base_iso), IsOk());
    SystemRandom random;
    absl::StatusOr<cli::agent::CreatedImage> created =
        cli::agent::CreateImage(dir_, base_iso, absl::Now(), random, release_image);
    ASSERT_THAT(created, IsOk());
    created_ = *std::move(created);

    // The Ignition a host booting the ISO finds.
    const int fd = open(created_.iso_path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    absl::StatusOr<iso::IsoReader> reader = iso::IsoReader::Open(fd, created_.iso_path);
    ASSERT_THAT(reader, IsOk());
    absl::StatusOr<std::string> embedded = iso::ReadEmbeddedIgnition(*reader);
    close(fd);
    ASSERT_THAT(embedded, IsOk());
    const json ignition = json::parse(*embedded);

    // Node 0's root: under /tmp, short enough for PostgreSQL's socket path and reachable by the
    // postgres user.
    char root_template[] = "/tmp/assisted-node-zero-XXXXXX";
    ASSERT_NE(mkdtemp(root_template), nullptr);
    ASSERT_EQ(chmod(root_template, 0755), 0);
    absl::StatusOr<std::string> pg_bindir = PostgresBinDir();
    ASSERT_THAT(pg_bindir, IsOk());
    node_zero_ = std::make_unique<NodeZero>(root_template, *pg_bindir);
    ASSERT_THAT(node_zero_->LayDown(ignition), IsOk());

    // What the live image provides: the OS image node 0 hands out (noise, so a digest mismatch
    // cannot hide) and its image service's base ISO.
    std::string os_image(2 << 20, '\0');
    std::mt19937_64 noise(17);
    for (char& byte : os_image) byte = static_cast<char>(noise());
    const std::string os_image_path = node_zero_->Under("/usr/share/assisted/os-image.raw");
    std::filesystem::create_directories(node_zero_->Under("/usr/share/assisted"));
    std::filesystem::copy_file(base_iso, node_zero_->Under("/usr/share/assisted/live.iso"));
    std::ofstream(os_image_path, std::ios::binary) << os_image;
    std::ofstream(node_zero_->Under(cli::agent::kNodeZeroImagesEnvPath))
        << "ASSISTED_OS_IMAGE_URL=file:///usr/share/assisted/os-image.raw\n"
        << "ASSISTED_OS_IMAGE_SHA256=" << Sha256Hex(os_image) << "\n"
        << "ASSISTED_OS_IMAGES='[{\"openshift_version\":\"4.16\",\"cpu_architecture\":\"x86_64\","
        << "\"url\":\"file:///usr/share/assisted/live.iso\",\"version\":\"416.94.1\"}]'\n"
        << "ASSISTED_DEFAULT_OPENSHIFT_VERSION=4.16\n";

    for (const std::string& unit : NodeZeroUnitNames()) {
      if (unit == RegistrationUnit()) break;
      ASSERT_THAT(node_zero_->Start(unit), IsOk()) << node_zero_->Logs();
      if (unit == "assisted-postgres.service") {
        const std::string socket = node_zero_->Under("/run/assisted-postgres/.s.PGSQL.5432");
        ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(socket); }, absl::Seconds(60),
                               "PostgreSQL's socket"))
            << node_zero_->Logs();
      } else if (const std::string grpc = node_zero_->LastFlag("--grpc-listen"); !grpc.empty()) {
        // A health Watch ends at once while nothing listens yet: ask again until it answers.
        ASSERT_TRUE(Eventually([&] { return WaitServing(grpc, "", absl::Seconds(2)); },
                               absl::Seconds(60), unit))
            << node_zero_->Logs();
      }
    }

    // The user's side from now on: the state file `agent create image` wrote, its gateway_url
    // (http://<rendezvousIP>:8080) pointed where the test maps node 0's gateway.
    const std::string state_path = absl::StrCat(dir_, "/", cli::agent::kStateFileName);
    absl::StatusOr<std::string> state_text = ReadFile(state_path, "state");
    ASSERT_THAT(state_text, IsOk());
    state_ = json::parse(*state_text);
    state_["gateway_url"] = absl::StrCat("http://", node_zero_->Address(8080));
    std::ofstream(state_path, std::ios::trunc) << state_.dump();
  }

  // Every host boots the ISO: simulated hosts with agent-config's MACs (profile host #i has
  // 192.168.122.10+i, MAC 02:00:c0:a8:7a:0a+i), the agent pointed where the ISO says; returns
  // once all registered. `registry` replaces the profile's image-check answers when set.
  void BootHosts(
      std::function<agent::steps::RegistryAnswer(const std::string&)> registry = nullptr) {
    agent::Fleet::Options options;
    options.state_dir = work_ + "/hosts";
    options.registry = registry;
    ASSERT_THAT(agent::ApplyDiscoveryIso(created_.iso_path, options), IsOk());
    EXPECT_EQ(options.orchestrator_address, absl::StrCat(kRendezvousIp, ":9090"));
    EXPECT_EQ(options.infra_env_id, created_.infra_env_id);
    options.orchestrator_address = node_zero_->Address(9090);
    options.profile = RunfilePath("tests/fixtures/profiles/master.json");
    options.count = static_cast<int>(created_.expected_hosts);
    options.step_threads = 2;
    absl::StatusOr<std::unique_ptr<agent::Fleet>> fleet = agent::Fleet::Start(
        options,
        [this](const agent::FleetEvent& event) {
          if (event.kind != agent::FleetEvent::Kind::kRefused &&
              event.kind != agent::FleetEvent::Kind::kDisconnected &&
              event.kind != agent::FleetEvent::Kind::kRegistered) {
            return;
          }
          absl::MutexLock lock(&mu_);
          seen_.push_back(absl::StrCat("agent ", event.agent, " ", static_cast<int>(event.kind),
                                       " ", event.detail));
        },
        log::Logger::Discard());
    ASSERT_THAT(fleet, IsOk());
    fleet_ = *std::move(fleet);
    ASSERT_TRUE(Eventually(
        [&] {
          absl::MutexLock lock(&mu_);
          const size_t from = seen_.size() > 10 ? seen_.size() - 10 : 0;
          return Observed{fleet_->registered() == options.count,
                          absl::StrJoin(seen_.begin() + from, seen_.end(), "\n")};
        },
        absl::Seconds(60), "every host registered with node 0"))
        << node_zero_->Logs();
  }

  // `aictl agent wait-for install-complete` with the state file, node 0 reached where the test
  // maps it; exits 0.
  void WaitForInstallComplete() {
    std::ostringstream out, err;
    const int code = cli::Run({"agent", "wait-for", "install-complete", "--dir=" + dir_,
                               "--interval=500ms", "--timeout=5m"},
                              {}, {out, err});
    ASSERT_EQ(code, 0) << err.str() << "\n" << node_zero_->Logs();
    EXPECT_THAT(out.str() + err.str(), ::testing::HasSubstr("installed"));
  }

  // The last of node 0's units.
  static const std::string& RegistrationUnit() { return NodeZeroUnitNames().back(); }

  // Starts the registration and waits until it says the cluster and infra-env exist.
  void StartRegistration() {
    ASSERT_THAT(node_zero_->Start(RegistrationUnit()), IsOk()) << node_zero_->Logs();
    ASSERT_TRUE(Eventually(
        [&] {
          return absl::StrContains(node_zero_->Log(RegistrationUnit()),
                                   "the cluster and infra-env exist");
        },
        absl::Seconds(60), "node 0 created the cluster and infra-env"))
        << node_zero_->Logs();
  }

  // The REST API of node 0 as `wait-for` reaches it: the state file's gateway and JWT secret.
  std::unique_ptr<cli::RestClient> UserRest() {
    absl::StatusOr<std::string> token =
        gateway::SignHs256(state_["gateway_jwt_secret"].get<std::string>(),
                           {{"sub", "agent-installer"},
                            {"username", "agent-installer"},
                            {"org_id", "agent-installer"},
                            {"exp", absl::ToUnixSeconds(absl::Now() + absl::Hours(1))}});
    EXPECT_THAT(token, IsOk());
    return std::make_unique<cli::RestClient>(
        cli::RestClient::Options{.server = state_["gateway_url"], .token = token.value_or("")});
  }

  std::string work_, dir_;
  cli::agent::CreatedImage created_;
  json state_;
  absl::Mutex mu_;
  std::vector<std::string> seen_ ABSL_GUARDED_BY(mu_);  // the agents' registrations and ends
  std::unique_ptr<NodeZero> node_zero_;
  std::unique_ptr<agent::Fleet> fleet_;
};

TEST_P(NodeZeroRunTest, InstallsFromTheIsosOwnIgnitionUntilWaitForReturnsZero) {
  const std::string topology = GetParam();
  StartNodeZeroServices();
  if (HasFatalFailure()) return;
  // The fleet's agents do not retry a refusal for good (the real agent does: the next test),
  // so the hosts boot once the registration says the infra-env exists.
  StartRegistration();
  if (HasFatalFailure()) return;

  BootHosts();
  if (HasFatalFailure()) return;

  // The user's side: wait-for with the state file, node 0 reached where the test maps it.
  WaitForInstallComplete();
  if (HasFatalFailure()) return;

  // The registration ended by itself once the install started.
  process::Subprocess* registration = node_zero_->process("assisted-node-zero-register.service");
  ASSERT_NE(registration, nullptr);
  absl::StatusOr<int> registered = registration->Wait(absl::Seconds(30));
  EXPECT_THAT(registered, IsOkAndHolds(0));

  // Node 0 was the bootstrap host; the hosts carry agent-config's names; the cluster's
  // credentials are the ones `agent create image` wrote to DIR/auth.
  std::unique_ptr<cli::RestClient> rest = UserRest();
  absl::StatusOr<json> cluster = rest->Call("GET", absl::StrCat("/clusters/", created_.cluster_id));
  ASSERT_THAT(cluster, IsOk());
  std::map<std::string, bool> bootstrap_by_name;
  for (const json& host : (*cluster)["hosts"]) {
    bootstrap_by_name[host.value("requested_hostname", "")] = host.value("bootstrap", false);
  }
  const std::string node_zero_name = topology == "sno" ? "sno" : "master-0";
  EXPECT_EQ(bootstrap_by_name.size(), static_cast<size_t>(created_.expected_hosts));
  EXPECT_TRUE(bootstrap_by_name[node_zero_name]) << cluster->dump();
  absl::StatusOr<json> credentials =
      rest->Call("GET", absl::StrCat("/clusters/", created_.cluster_id, "/credentials"));
  ASSERT_THAT(credentials, IsOk());
  absl::StatusOr<std::string> password =
      ReadFile(absl::StrCat(dir_, "/", cli::agent::kKubeadminPasswordName), "password");
  ASSERT_THAT(password, IsOk());
  EXPECT_EQ((*credentials)["password"], *password);
}

// Hosts boot at their own pace: real agents (assisted-agent on simulated hardware, started from
// the ISO's own assisted-agent.service) reach node 0 before its registration has created the
// infra-env, are refused for good ("infra-env ... not found"), keep retrying with backoff, and
// register once it exists. Before the agent retried such a refusal it sat idle for ever.
TEST_P(NodeZeroRunTest, AgentsThatComeBeforeTheInfraEnvExistsRegisterOnceItDoes) {
  StartNodeZeroServices();
  if (HasFatalFailure()) return;
  const int hosts = static_cast<int>(created_.expected_hosts);
  std::vector<std::string> agents;
  for (int i = 0; i < hosts; ++i) {
    agents.push_back(absl::StrCat(discovery_layout::kAgentUnitName, "#", i));
    ASSERT_THAT(
        node_zero_->StartAs(discovery_layout::kAgentUnitName, agents.back(),
                            {"--simulate=" + RunfilePath("tests/fixtures/profiles/master.json"),
                             absl::StrCat("--simulate-index=", i),
                             absl::StrCat("--state-dir=", work_, "/agent-", i)}),
        IsOk());
  }
  ASSERT_TRUE(Eventually(
      [&] {
        int refused = 0;
        for (const std::string& agent : agents) {
          const std::string log = node_zero_->Log(agent);
          if (absl::StrContains(log, "registration refused") &&
              absl::StrContains(log, "not found")) {
            ++refused;
          }
        }
        return Observed{refused == hosts, absl::StrCat(refused, " of ", hosts, " refused")};
      },
      absl::Seconds(60), "every agent refused before the infra-env exists"))
      << node_zero_->Logs();

  StartRegistration();
  if (HasFatalFailure()) return;
  std::unique_ptr<cli::RestClient> rest = UserRest();
  EXPECT_TRUE(Eventually(
      [&] {
        absl::StatusOr<json> cluster =
            rest->Call("GET", absl::StrCat("/clusters/", created_.cluster_id));
        if (!cluster.ok()) return Observed{false, cluster.status().ToString()};
        const size_t registered = cluster->value("hosts", json::array()).size();
        return Observed{registered == static_cast<size_t>(hosts),
                        absl::StrCat(registered, " of ", hosts, " registered")};
      },
      // The agents' backoff reaches tens of seconds while they wait for the infra-env.
      absl::Minutes(3), "every early agent registered"))
      << node_zero_->Logs();
  for (const std::string& agent : agents) {
    EXPECT_EQ(node_zero_->process(agent)->Poll(), std::nullopt) << agent << " exited";
  }
}

// A disconnected install (seed 002's case): install-config.yaml names a mirror registry with its
// CA (imageContentSources, additionalTrustBundle) and the release by digest; the release's
// source is never reachable. The hosts' image check, here the agent's own look-up
// (image_availability.h: LookUpImage over the ISO's registries.conf, TLS verified with the
// ISO's trust bundle) in place of the profile's canned answer, must find the release the
// orchestrator asks for on the mirror this test starts, and the install then completes; node
// 0's infra-env and the installed cluster's install-config carry the mirrors.
// One topology is enough for the mirror path.
class DisconnectedNodeZeroTest : public NodeZeroRunTest {};

TEST_P(DisconnectedNodeZeroTest, ADisconnectedInstallChecksTheReleaseOnTheMirror) {
  // The mirror: `openssl s_server -www` answers every GET (the check's /v2/) with 200 over TLS,
  // with a certificate for 127.0.0.1 from a CA only the install-config names.
  const std::string pki = absl::StrCat(TestTmpDir(), "/mirror-pki");
  absl::StatusOr<TestCa> ca = TestCa::Create(pki, "mirror-ca");
  ASSERT_THAT(ca, IsOk());
  absl::StatusOr<CertificateFiles> cert = ca->Issue("mirror");
  ASSERT_THAT(cert, IsOk());
  absl::StatusOr<int> port = FreePort();
  ASSERT_THAT(port, IsOk());
  absl::StatusOr<std::unique_ptr<process::Subprocess>> mirror = process::Subprocess::Start(
      {"openssl", "s_server", "-quiet", "-www", "-accept", absl::StrCat("127.0.0.1:", *port),
       "-cert", cert->cert, "-key", cert->key},
      {}, pki + "/mirror.log");
  ASSERT_THAT(mirror, IsOk());
  absl::StatusOr<std::string> ca_pem = ReadFile(ca->ca_file(), "CA");
  ASSERT_THAT(ca_pem, IsOk());
  const std::string registry = absl::StrCat("127.0.0.1:", *port);
  // Nothing routes to the source: the name is reserved (RFC 2606) and never resolves.
  constexpr char kSource[] = "quay.invalid/openshift-release-dev/ocp-release";
  const std::string digest = "@sha256:" + std::string(64, 'c');
  const std::string release = kSource + digest;
  StartNodeZeroServices(
      [&](std::string& install_config) {
        absl::StrAppend(&install_config, "imageContentSources:\n- source: ", kSource,
                        "\n  mirrors:\n  - ", registry, "/ocp/release\nadditionalTrustBundle: |\n");
        for (absl::string_view line :
             absl::StrSplit(absl::StripTrailingAsciiWhitespace(*ca_pem), '\n')) {
          absl::StrAppend(&install_config, "  ", line, "\n");
        }
        // The mirror's registry needs credentials in the pull secret.
        install_config = absl::StrReplaceAll(
            install_config,
            {{R"({"auths":{"quay.io":)",
              absl::StrCat(R"({"auths":{")", registry, R"(":{"auth":"eDp5"},"quay.io":)")}});
      },
      release);
  if (HasFatalFailure()) return;
  StartRegistration();
  if (HasFatalFailure()) return;

  struct Lookup {
    std::string image, reference;
    long status;
  };
  absl::Mutex lookups_mu;
  std::vector<Lookup> lookups;
  const std::string registries_conf = node_zero_->Under(discovery_layout::kRegistriesConfPath);
  const std::string trust_bundle =
      node_zero_->Under("/etc/pki/ca-trust/source/anchors/assisted-additional-trust-bundle.pem");
  BootHosts([&](const std::string& image) {
    absl::StatusOr<std::vector<containers::MirrorRule>> rules =
        agent::steps::ReadMirrorRules(registries_conf);
    if (!rules.ok()) return agent::steps::RegistryAnswer{.error = rules.status().ToString()};
    agent::steps::Cancellation never;
    agent::steps::ImageLookUp found = agent::steps::LookUpImage(
        image, *rules, {.ca_bundle = trust_bundle}, [] { return absl::Seconds(10); }, never);
    absl::MutexLock lock(&lookups_mu);
    lookups.push_back({image, found.reference, found.answer.http_status});
    return found.answer;
  });
  if (HasFatalFailure()) return;
  WaitForInstallComplete();
  if (HasFatalFailure()) return;

  {
    absl::MutexLock lock(&lookups_mu);
    ASSERT_FALSE(lookups.empty()) << "the install never checked an image";
    for (const Lookup& lookup : lookups) {
      EXPECT_EQ(lookup.image, release);  // node 0's orchestrator names --release-image
      EXPECT_EQ(lookup.reference, absl::StrCat(registry, "/ocp/release", digest));
      EXPECT_EQ(lookup.status, 200);
    }
  }
  std::unique_ptr<cli::RestClient> rest = UserRest();
  absl::StatusOr<json> infra_env =
      rest->Call("GET", absl::StrCat("/infra-envs/", created_.infra_env_id));
  ASSERT_THAT(infra_env, IsOk());
  EXPECT_EQ((*infra_env)["mirror_registries"]["mirrors"][0]["source"], kSource)
      << infra_env->dump();
  EXPECT_THAT((*infra_env)["additional_trust_bundle"].get<std::string>(),
              ::testing::HasSubstr("BEGIN CERTIFICATE"));
  absl::StatusOr<json> install_config =
      rest->Call("GET", absl::StrCat("/clusters/", created_.cluster_id, "/install-config"));
  ASSERT_THAT(install_config, IsOk());
  const std::string text =
      install_config->is_string() ? install_config->get<std::string>() : install_config->dump();
  EXPECT_THAT(text, ::testing::HasSubstr(kSource));
  EXPECT_THAT(text, ::testing::HasSubstr(registry + "/ocp/release"));
  EXPECT_THAT(text, ::testing::HasSubstr("additionalTrustBundle"));
}

INSTANTIATE_TEST_SUITE_P(Topologies, NodeZeroRunTest, ::testing::Values("sno", "compact"));
INSTANTIATE_TEST_SUITE_P(Sno, DisconnectedNodeZeroTest, ::testing::Values("sno"));

}  // namespace
}  // namespace assisted::testing
