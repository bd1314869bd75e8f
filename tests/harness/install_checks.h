// File: tests/harness/install_checks.h
//
// What every finished install must leave in the inventory, checked the way a user would:
// each Ignition artifact passes the system's `ignition-validate`, and the kubeconfig's client
// certificate passes `openssl verify` against the CA the kubeconfig itself carries. Shared by
// the install tests that drive the orchestrator directly and those that run simulated agents.

#ifndef ASSISTED_TESTS_HARNESS_INSTALL_CHECKS_H_
#define ASSISTED_TESTS_HARNESS_INSTALL_CHECKS_H_

#include <optional>
#include <string>
#include <vector>

#include "assisted/inventory/v1/inventory_service.grpc.pb.h"

namespace assisted::testing {

// The artifact's content, or nullopt when the inventory has none by that name.
std::optional<std::string> GetArtifact(inventory::v1::InventoryService::Stub& stub,
                                       const std::string& cluster_id, const std::string& name);

// Adds a test failure for each of `names` that is missing or that ignition-validate refuses.
void ExpectValidIgnition(inventory::v1::InventoryService::Stub& stub, const std::string& cluster_id,
                         const std::vector<std::string>& names);

// Checks the "kubeconfig" artifact: its client certificate verifies against its CA. Returns the
// CA (PEM), "" after a failure.
std::string ExpectVerifiableKubeconfig(inventory::v1::InventoryService::Stub& stub,
                                       const std::string& cluster_id);

// The same check on kubeconfig text (e.g. downloaded over REST); `scratch` names the test
// folder the certificates are written to.
std::string ExpectKubeconfigVerifies(const std::string& kubeconfig, const std::string& scratch);

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_INSTALL_CHECKS_H_
