// File: services/inventory/lease_queries.h
//
// Every SQL statement of the lease store (lease_store.cc), named. $1 is always the lease's
// name. Times come from the database clock, the one clock all replicas share.

#ifndef ASSISTED_SERVICES_INVENTORY_LEASE_QUERIES_H_
#define ASSISTED_SERVICES_INVENTORY_LEASE_QUERIES_H_

namespace assisted::inventory::lease_sql {

// Makes sure the lease has a row (free, epoch 0) to lock.
inline constexpr char kEnsure[] =
    "INSERT INTO leases (name, holder, epoch, expires_at) VALUES ($1, '', 0, now()) "
    "ON CONFLICT DO NOTHING";
// Its holder, epoch and whether it is unexpired, locked for the decision.
inline constexpr char kLock[] =
    "SELECT holder, epoch, expires_at > now() FROM leases WHERE name = $1 FOR UPDATE";
// The holder keeps it for $2 more milliseconds.
inline constexpr char kExtend[] =
    "UPDATE leases SET expires_at = now() + $2::bigint * interval '1 millisecond' "
    "WHERE name = $1";
// $3 takes it for $2 milliseconds, at the next epoch.
inline constexpr char kTake[] =
    "UPDATE leases SET holder = $3, epoch = epoch + 1, expires_at = now() + $2::bigint * "
    "interval '1 millisecond' WHERE name = $1";
inline constexpr char kFree[] = "UPDATE leases SET holder = '', expires_at = now() WHERE name = $1";
// After the decision: holder, epoch, expiry (microseconds since the epoch), unexpired.
inline constexpr char kRead[] =
    "SELECT holder, epoch, (extract(epoch from expires_at) * 1000000)::bigint, "
    "expires_at > now() FROM leases WHERE name = $1";

}  // namespace assisted::inventory::lease_sql

#endif  // ASSISTED_SERVICES_INVENTORY_LEASE_QUERIES_H_
