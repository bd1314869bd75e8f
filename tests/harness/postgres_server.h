// File: tests/harness/postgres_server.h
//
// A throwaway PostgreSQL 15+ server for tests: initdb into a fresh folder under /tmp, started with
// pg_ctl on a unix socket only (no TCP port to collide on), fsync and synchronous commit on so a
// test sees the durability production has. Run as root, the server runs as the `postgres` user
// (initdb refuses root). Each test asks for its own database with CreateDatabase().

#ifndef ASSISTED_TESTS_HARNESS_POSTGRES_SERVER_H_
#define ASSISTED_TESTS_HARNESS_POSTGRES_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lib/process/subprocess.h"

namespace assisted::testing {

// The PostgreSQL server binaries' folder: ASSISTED_PG_BINDIR, else the newest
// /usr/lib/postgresql/N/bin with N >= 15. NOT_FOUND saying what to install when there is none.
absl::StatusOr<std::string> PostgresBinDir();

class PostgresServer {
 public:
  // Finds the server binaries (ASSISTED_PG_BINDIR, else the newest /usr/lib/postgresql/N/bin
  // with N >= 15), creates a cluster and starts it. Takes about a second.
  static absl::StatusOr<std::unique_ptr<PostgresServer>> Start();

  // Stops the server and deletes its folder.
  ~PostgresServer();

  // libpq connection string for `database` on this server.
  std::string Dsn(const std::string& database) const;

  // Creates an empty database with a fresh name and returns its connection string.
  absl::StatusOr<std::string> CreateDatabase();

  // Stops the server (fast shutdown); Dsn()s stay valid and work again after StartAgain().
  absl::Status StopServer();
  absl::Status StartAgain();

  // `pg_ctl restart -m immediate`: the server dies without a checkpoint (like a crash or power
  // loss) and comes back through crash recovery. Committed transactions must survive.
  absl::Status RestartImmediately();

  const std::string& folder() const { return folder_; }

 private:
  PostgresServer(std::string bindir, std::string folder)
      : bindir_(std::move(bindir)), folder_(std::move(folder)) {}

  // Runs a server binary, as the postgres user when we are root.
  absl::Status RunTool(const std::string& tool, std::vector<std::string> args);

  process::LocalProcessRunner runner_;
  std::string bindir_;
  std::string folder_;
  int next_database_ = 0;
  bool running_ = false;
};

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_POSTGRES_SERVER_H_
