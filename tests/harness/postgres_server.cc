#include "tests/harness/postgres_server.h"

#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/pg/connection.h"
#include "lib/status/status_macros.h"

namespace assisted::testing {
namespace {

constexpr int kMinMajor = 15;
constexpr char kUser[] = "app";
constexpr char kPort[] = "5432";  // only names the socket file; no TCP listener

}  // namespace

absl::StatusOr<std::string> PostgresBinDir() {
  if (const char* dir = std::getenv("ASSISTED_PG_BINDIR"); dir != nullptr && *dir != '\0') {
    return std::string(dir);
  }
  int best = 0;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ignored)) {
    int major = 0;
    if (absl::SimpleAtoi(entry.path().filename().string(), &major) && major >= kMinMajor &&
        major > best && std::filesystem::exists(entry.path() / "bin" / "initdb")) {
      best = major;
    }
  }
  if (best == 0) {
    return absl::NotFoundError(
        "no PostgreSQL 15+ server under /usr/lib/postgresql (apt-get install postgresql, "
        "or set ASSISTED_PG_BINDIR)");
  }
  return absl::StrCat("/usr/lib/postgresql/", best, "/bin");
}

absl::StatusOr<std::unique_ptr<PostgresServer>> PostgresServer::Start() {
  ASSIGN_OR_RETURN(std::string bindir, PostgresBinDir());
  // Under /tmp, not the test's TMPDIR: the socket path must stay short (< 108 bytes) and the
  // postgres user must be able to reach it.
  char folder_template[] = "/tmp/assisted-pg-XXXXXX";
  if (mkdtemp(folder_template) == nullptr) {
    return absl::InternalError("cannot create a folder for PostgreSQL under /tmp");
  }
  std::unique_ptr<PostgresServer> server(new PostgresServer(bindir, folder_template));
  if (geteuid() == 0) {
    const passwd* postgres = getpwnam("postgres");
    if (postgres == nullptr) {
      return absl::FailedPreconditionError("running as root but there is no postgres user");
    }
    if (chown(server->folder_.c_str(), postgres->pw_uid, postgres->pw_gid) != 0) {
      return absl::InternalError(absl::StrCat("cannot chown ", server->folder_));
    }
  }
  RETURN_IF_ERROR(server->RunTool("initdb", {"-D", server->folder_ + "/data", "-A", "trust", "-U",
                                             kUser, "-E", "UTF8", "--locale=C", "--no-sync"}));
  RETURN_IF_ERROR(server->StartAgain());
  return server;
}

PostgresServer::~PostgresServer() {
  if (running_) (void)StopServer();
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

absl::Status PostgresServer::RunTool(const std::string& tool, std::vector<std::string> args) {
  std::vector<std::string> argv;
  if (geteuid() == 0) argv = {"runuser", "-u", "postgres", "--"};
  argv.push_back(bindir_ + "/" + tool);
  argv.insert(argv.end(), args.begin(), args.end());
  ASSIGN_OR_RETURN(process::CommandResult result,
                   runner_.Run({.argv = argv, .timeout = absl::Minutes(2)}));
  if (!result.ok()) {
    return absl::InternalError(absl::StrCat(tool, " failed (exit ", result.exit_code,
                                            "): ", result.stderr_data, result.stdout_data));
  }
  return absl::OkStatus();
}

std::string PostgresServer::Dsn(const std::string& database) const {
  return absl::StrCat("host=", folder_, " port=", kPort, " user=", kUser, " dbname=", database);
}

absl::StatusOr<std::string> PostgresServer::CreateDatabase() {
  const std::string name = absl::StrCat("test_", getpid(), "_", next_database_++);
  ASSIGN_OR_RETURN(std::unique_ptr<pg::Connection> admin, pg::Connection::Open(Dsn("postgres")));
  RETURN_IF_ERROR(
      admin->Exec(absl::StrCat("CREATE DATABASE ", pg::QuoteIdentifier(name))).status());
  return Dsn(name);
}

absl::Status PostgresServer::StopServer() {
  RETURN_IF_ERROR(RunTool("pg_ctl", {"-D", folder_ + "/data", "-m", "fast", "-w", "stop"}));
  running_ = false;
  return absl::OkStatus();
}

absl::Status PostgresServer::RestartImmediately() {
  return RunTool("pg_ctl", {"-D", folder_ + "/data", "-m", "immediate", "-w", "-t", "60", "-l",
                            folder_ + "/server.log", "restart"});
}

absl::Status PostgresServer::StartAgain() {
  const std::string options = absl::StrJoin(
      {absl::StrCat("-k ", folder_), absl::StrCat("-p ", kPort),
       std::string("-c listen_addresses=''"), std::string("-c fsync=on"),
       std::string("-c synchronous_commit=on"), std::string("-c max_connections=200")},
      " ");
  RETURN_IF_ERROR(RunTool("pg_ctl", {"-D", folder_ + "/data", "-o", options, "-l",
                                     folder_ + "/server.log", "-w", "-t", "60", "start"}));
  running_ = true;
  return absl::OkStatus();
}

}  // namespace assisted::testing
