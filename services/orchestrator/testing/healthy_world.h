// File: services/orchestrator/testing/healthy_world.h
//
// Hosts as a healthy fleet's agents leave them in the inventory, for tests of the orchestrator
// above the core (refresher, hub, user actions), with the core's fixtures
// (core/testing_fixtures.h: HealthyCluster, HealthyHost).

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_TESTING_HEALTHY_WORLD_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_TESTING_HEALTHY_WORLD_H_

#include <string>

#include "absl/time/time.h"
#include "assisted/types/v1/host.pb.h"
#include "services/orchestrator/testing/fake_inventory.h"

namespace assisted::orchestrator::testing {

// Host i's id: a lower-case UUID, as agents register with (i in 1..9).
std::string HostId(int i);

// What a healthy agent of host i (of n, ids HostId) reports, as the JSON the hub stores:
// full-mesh connectivity, a synced NTP source, DNS answers for c.example.com and quay.io, a
// reachable API VIP.
void AddHealthyReports(int i, int n, types::v1::Host& host);

// The infra-env of the healthy cluster's hosts.
inline constexpr char kInfraEnvId[] = "00000000-0000-4000-8000-0000000000e1";

// Stores in `inventory` the core's healthy cluster "c1" (insufficient, not refreshed yet), its
// infra-env kInfraEnvId, and `hosts` discovering hosts HostId(1..hosts) with a healthy agent's
// inventory and reports, auto-assign, checked in at `now`. A refresh makes them known and the
// cluster ready.
void AddHealthyCluster(FakeInventory& inventory, absl::Time now, int hosts = 3);

}  // namespace assisted::orchestrator::testing

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_TESTING_HEALTHY_WORLD_H_
