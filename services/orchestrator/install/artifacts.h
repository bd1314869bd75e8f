// File: services/orchestrator/install/artifacts.h
//
// Generates a cluster's installation files ONCE and stores them as inventory artifacts under
// fixed names (install-config.yaml, kubeconfig, kubeconfig-noingress, kubeadmin-password,
// bootstrap.ign, master.ign, worker.ign, host-<id>.ign, and the root CA it all derives from,
// tls/root-ca.crt and tls/root-ca.key).
//
// Idempotent and safe with several orchestrator replicas:
// - an inventory Lease named "install-artifacts-<cluster id>" lets one replica generate at a
//   time (ABORTED for the others, which retry on their next refresh), and every write carries
//   its fence, so a replica that lost the lease cannot write;
// - every file is written with if_absent and read back when it already exists, and everything
//   is derived from the stored root CA, so a generation interrupted midway (a crash, a restart)
//   resumes with the same CA and ends with one consistent set.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_ARTIFACTS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_ARTIFACTS_H_

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/infra_env.pb.h"
#include "lib/random/random.h"
#include "lib/time/clock.h"
#include "services/orchestrator/inventory_port.h"
#include "services/orchestrator/refresher.h"

namespace assisted::orchestrator::install {

inline constexpr char kInstallConfigName[] = "install-config.yaml";
inline constexpr char kKubeconfigName[] = "kubeconfig";
inline constexpr char kKubeconfigNoIngressName[] = "kubeconfig-noingress";
inline constexpr char kKubeadminPasswordName[] = "kubeadmin-password";
inline constexpr char kBootstrapIgnitionName[] = "bootstrap.ign";
inline constexpr char kMasterIgnitionName[] = "master.ign";
inline constexpr char kWorkerIgnitionName[] = "worker.ign";
inline constexpr char kRootCaCertName[] = "tls/root-ca.crt";
inline constexpr char kRootCaKeyName[] = "tls/root-ca.key";

// The refresher's InstallationFiles (refresher.h): a preparing cluster's files are generated
// by whichever refresh first sees the cluster preparing without them.
// install-config.yaml of `cluster` (read with its hosts) with `pull_secret`, and the mirrors and
// trusted CAs of its `infra_envs` (each once), the user's overrides applied.
absl::StatusOr<std::string> InstallConfigOf(const types::v1::Cluster& cluster,
                                            const std::string& pull_secret,
                                            const std::vector<types::v1::InfraEnv>& infra_envs);

class ArtifactGenerator final : public InstallationFiles {
 public:
  // `holder` names this replica in leases (unique per process).
  ArtifactGenerator(InventoryPort& inventory, const Clock& clock, Random& random,
                    std::string holder)
      : inventory_(inventory), clock_(clock), random_(random), holder_(std::move(holder)) {}

  // Generates what is missing for `cluster` (read with its hosts); waits while another thread
  // of this replica generates them. ABORTED while another replica holds the generation lease;
  // INVALID_ARGUMENT naming the field for input the files cannot be made from (e.g. a forbidden
  // install-config override); other inventory errors as they come.
  absl::Status Generate(const types::v1::Cluster& cluster) override;

  // install-config.yaml of `cluster` (read with its hosts) as Generate writes it: from the
  // stored pull secret and the mirrors and CAs of the cluster's infra-envs, with the user's
  // overrides. INVALID_ARGUMENT naming what the document cannot be made without.
  absl::StatusOr<std::string> InstallConfig(const types::v1::Cluster& cluster);

  // (Re)writes host-<id>.ign for one host of an installed cluster (day-2), from the stored root
  // CA, or for an imported cluster from its ignition_endpoint.ca_certificate; FAILED_PRECONDITION
  // when it has neither.
  absl::Status GenerateHostIgnition(const types::v1::Cluster& cluster, const types::v1::Host& host);

 private:
  absl::Status GenerateUnderLease(const types::v1::Cluster& cluster);

  InventoryPort& inventory_;
  const Clock& clock_;
  Random& random_;
  const std::string holder_;
  absl::Mutex mu_;
  // Clusters whose files a thread of this replica is generating (refreshes run on many).
  absl::flat_hash_set<std::string> generating_ ABSL_GUARDED_BY(mu_);
};

}  // namespace assisted::orchestrator::install

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_ARTIFACTS_H_
