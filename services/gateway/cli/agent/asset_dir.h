// File: services/gateway/cli/agent/asset_dir.h
//
// The asset folder of `aictl agent ...` (openshift-install's --dir): what it reads and writes.
//
//   DIR/install-config.yaml, DIR/agent-config.yaml   read, never changed
//   DIR/agent.x86_64.iso                             CreateImage: the base ISO with the
//                                                    agent Ignition in its embed area
//   DIR/auth/kubeconfig, DIR/auth/kubeadmin-password CreateImage (0600)
//   DIR/.assisted-agent-state.json                   CreateImage (0600): what wait-for needs
//   DIR/boot-artifacts/agent.x86_64{-vmlinuz,        CreatePxeFiles: the same Ignition in the
//     -initrd.img,-rootfs.img,.ipxe}                 initrd, for network boot
//   DIR/cluster-manifests/*.yaml                     CreateClusterManifests (ZTP manifests);
//                                                    read instead of install-config.yaml when
//                                                    that is absent
//
// Files are written to a temporary name and renamed, so an interrupted run leaves either the
// old file or the new one. Nothing is written when the inputs have a problem.

#ifndef ASSISTED_SERVICES_GATEWAY_CLI_AGENT_ASSET_DIR_H_
#define ASSISTED_SERVICES_GATEWAY_CLI_AGENT_ASSET_DIR_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/random/random.h"
#include "services/gateway/cli/agent/cluster_definition.h"

namespace assisted::cli::agent {

inline constexpr char kIsoName[] = "agent.x86_64.iso";
inline constexpr char kKubeconfigName[] = "auth/kubeconfig";
inline constexpr char kKubeadminPasswordName[] = "auth/kubeadmin-password";
inline constexpr char kStateFileName[] = ".assisted-agent-state.json";
inline constexpr char kClusterManifestsDir[] = "cluster-manifests";
inline constexpr char kBootArtifactsDir[] = "boot-artifacts";
inline constexpr char kIpxeScriptName[] = "agent.x86_64.ipxe";
// The other files of DIR/boot-artifacts/, named as openshift-install names them.
inline constexpr char kPxeKernelName[] = "agent.x86_64-vmlinuz";
inline constexpr char kPxeInitrdName[] = "agent.x86_64-initrd.img";
inline constexpr char kPxeRootfsName[] = "agent.x86_64-rootfs.img";

// Reads and checks DIR/install-config.yaml and DIR/agent-config.yaml (each at most
// kMaxYamlBytes). INVALID_ARGUMENT naming the file when one is missing or has problems.
absl::StatusOr<ClusterDefinition> ReadClusterDefinition(const std::string& dir);

struct CreatedImage {
  std::string iso_path;
  std::string cluster_id;
  std::string infra_env_id;
  std::string rendezvous_ip;
  int64_t expected_hosts = 0;
  // What the user should know before booting the hosts, one sentence each (e.g. mirrors without
  // a release image named: node 0 would check its default release at its source).
  std::vector<std::string> warnings;
};

// DIR/.assisted-agent-state.json: what `wait-for` needs to follow node 0.
struct AgentState {
  std::string cluster_name;
  std::string cluster_id;
  std::string gateway_url;  // http://<rendezvousIP>:8080
  std::string gateway_jwt_secret;
  int64_t expected_hosts = 0;
};

// INVALID_ARGUMENT naming the file when it is missing (run `agent create image` first) or
// malformed.
absl::StatusOr<AgentState> ReadState(const std::string& dir);

// Writes the ISO, auth/ and the state file (see the file comment). `base_iso` must be a
// CoreOS-style live ISO with an Ignition embed area large enough for the config
// (RESOURCE_EXHAUSTED naming both sizes otherwise). `release_image` (empty: node 0's default)
// is checked with WithReleaseImage.
absl::StatusOr<CreatedImage> CreateImage(const std::string& dir, const std::string& base_iso,
                                         absl::Time now, Random& random,
                                         const std::string& release_image = "");

struct CreatedPxeFiles {
  CreatedImage image;  // iso_path empty
  // The kernel, initrd, rootfs and iPXE script written, in that order.
  std::vector<std::string> paths;
};

// CreateImage for network boot: writes DIR/boot-artifacts/ (the base ISO's kernel and rootfs,
// its initrd followed by the agent Ignition as the image service's PXE initrd, and an iPXE
// script booting them from `base_url`, where the user serves that folder), auth/ and the state
// file. `base_url` must be an absolute http(s) URL (the kernel fetches the rootfs from it);
// INVALID_ARGUMENT naming --boot-artifacts-base-url otherwise.
absl::StatusOr<CreatedPxeFiles> CreatePxeFiles(const std::string& dir, const std::string& base_iso,
                                               const std::string& base_url, absl::Time now,
                                               Random& random,
                                               const std::string& release_image = "");

// Writes DIR/cluster-manifests/ (ztp_manifests.h; pull-secret.yaml 0600) and returns the
// paths written.
absl::StatusOr<std::vector<std::string>> CreateClusterManifests(const std::string& dir);

}  // namespace assisted::cli::agent

#endif  // ASSISTED_SERVICES_GATEWAY_CLI_AGENT_ASSET_DIR_H_
