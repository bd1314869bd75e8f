// File: services/inventory/resource_common.h
//
// What the stores of clusters, infra-envs and hosts (cluster_store.h, infra_env_store.h,
// host_store.h) and of signing keys (signing_key_store.h) share: their options, and the plain
// arguments of their calls that are alike for every kind. Rules that hold for every kind:
// - Every write bumps the resource's resource_version and appends to the change log in the same
//   transaction (change_log.h). An update that would change nothing writes nothing: same
//   version, no change-log entry.
// - A stale resource_version (≠ 0) fails with ABORTED; so does a lost status compare-and-set,
//   whose message names the actual status.
// - Another tenant's resource is NOT_FOUND.
// - Bad input is INVALID_ARGUMENT naming the field; nothing is written.
// - Lock order: a cluster's row before its hosts' rows (DeleteCluster), never the reverse.
// Their SQL, every statement named: resource_queries.h. Callers pass plain arguments; the gRPC
// edge (service.cc) converts requests into them.

#ifndef ASSISTED_SERVICES_INVENTORY_RESOURCE_COMMON_H_
#define ASSISTED_SERVICES_INVENTORY_RESOURCE_COMMON_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/infra_env.pb.h"
#include "google/protobuf/field_mask.pb.h"
#include "lib/crypto/sealed.h"
#include "services/inventory/change_log.h"
#include "services/inventory/group_commit.h"
#include "services/inventory/store_common.h"

namespace assisted::inventory {

// Input checks applied to a resource as it will be stored (after a field-mask merge).
// Any may be empty (no check). Each returns INVALID_ARGUMENT naming the field.
struct Validators {
  std::function<absl::Status(const types::v1::Cluster&)> cluster;
  std::function<absl::Status(const types::v1::InfraEnv&)> infra_env;
  std::function<absl::Status(const types::v1::Host&)> host;
  std::function<absl::Status(absl::string_view)> pull_secret;
};

struct PageLimits {
  int default_size = 100;
  int max_size = 1000;
};

// Told of each create or update of one resource once it has committed, on the writer's thread
// (the inventory hands it to its ChangeFeed as a hint). It must not block.
using CommitHook = std::function<void(const Change&)>;

// How a resource store is set up; the same for every kind.
struct ResourceStoreOptions {
  Validators validators;
  PageLimits limits;
  CommitHook committed;
  // Seals pull secrets and signing keys at rest (secret_columns.h); null stores them in plain
  // (development only). It must outlive the store.
  const crypto::Sealer* sealer = nullptr;
  // Where host registrations and status compare-and-sets of one statement go, to share their
  // commit with the writes arriving with them (group_commit.h); null: each commits alone. It
  // must outlive the store.
  GroupCommitter* group_commit = nullptr;
};

// Whether a create stores its resource or only checks it and answers what it would have
// stored (a request's validate_only, Google AIP-163).
enum class CreateMode { kStore, kValidateOnly };

// Where a list resumes (a next_page_token it returned, or "" for the first page) and how many
// rows it returns (0: PageLimits::default_size; capped at max_size; negative: INVALID_ARGUMENT).
struct PageRequest {
  std::string token;
  int size = 0;
};

// What a write must find to go ahead: the resource still at `resource_version` (0: any), and
// `fence` still held (empty: not fenced).
struct Precondition {
  int64_t resource_version = 0;
  Fence fence;
};

// A status compare-and-set: from `expected` to `next` with `info` as status_info, writing the
// fields of `patch` named in `patch_mask` with it. Status is a ClusterStatus or HostStatus, M
// the resource.
template <typename Status, typename M>
struct StatusChange {
  Status expected{};
  Status next{};  // required (not *_UNSPECIFIED)
  std::string info;
  M patch;
  google::protobuf::FieldMask patch_mask;
  Fence fence;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_RESOURCE_COMMON_H_
