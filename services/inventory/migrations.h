// File: services/inventory/migrations.h
//
// The inventory's schema as an ordered list of versioned SQL migrations, applied at start-up.
// Migrations run under a PostgreSQL advisory lock, so replicas starting together apply each
// exactly once; every applied version is recorded in schema_migrations, so applying again is a
// no-op. A migration is never edited once released: changes go into a new, higher version.

#ifndef ASSISTED_SERVICES_INVENTORY_MIGRATIONS_H_
#define ASSISTED_SERVICES_INVENTORY_MIGRATIONS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "lib/pg/connection.h"

namespace assisted::inventory {

struct Migration {
  int version;
  const char* description;
  const char* sql;
};

// All migrations, in ascending version order.
const std::vector<Migration>& Migrations();

// Applies the migrations `connection`'s database lacks; returns how many it applied.
// FAILED_PRECONDITION when the database has a version this binary doesn't know (it is older
// than the schema: refusing beats corrupting).
absl::StatusOr<int> ApplyMigrations(pg::Connection& connection);

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_MIGRATIONS_H_
