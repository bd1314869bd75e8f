// File: services/orchestrator/core/hw_requirements.h
//
// Hardware requirements per role and topology, and the numeric limits of the validations, read
// from a versioned JSON document keyed by OpenShift version range (data/hw_requirements.json).
// The file in the source tree is embedded into the binary at build time and is the default; a
// deployment may replace it with its own file (LoadHwRequirements). No threshold lives in code.
//
//   const HwRequirementsCatalog& catalog = DefaultHwRequirements();
//   ASSIGN_OR_RETURN(HwRequirements req, catalog.ForVersion("4.16.3"));
//   int64_t cores = req.Role(RequirementRole::kMaster).cpu_cores;  // 4

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_HW_REQUIREMENTS_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_HW_REQUIREMENTS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "assisted/types/v1/hardware.pb.h"
#include "lib/version/ocp_version.h"

namespace assisted::orchestrator::core {

enum class RequirementRole { kMaster, kArbiter, kWorker, kSno, kEdgeWorker };

// "master", "arbiter", "worker", "sno", "edge-worker": the keys of the file.
absl::string_view RequirementRoleName(RequirementRole role);

struct RoleRequirements {
  int64_t cpu_cores = 0;
  int64_t ram_mib = 0;
  int64_t disk_size_gb = 0;
  int64_t installation_disk_speed_threshold_ms = 0;
  // Absent for roles the network checks skip (single-node, edge workers).
  std::optional<double> network_latency_threshold_ms;
  std::optional<double> packet_loss_percentage;
};

// A drive type allowed for the installation disk, optionally only from a version on or on some
// CPU architectures.
struct DriveTypeRule {
  types::v1::DriveType type = types::v1::DRIVE_TYPE_UNSPECIFIED;
  std::optional<version::OcpVersion> min_version;
  std::vector<std::string> architectures;  // empty: all
};

// Numeric limits of the validations.
struct ValidationLimits {
  int64_t memory_tolerance_mib = 0;      // memory below the requirement by this much still passes
  double meminfo_tolerance_percent = 0;  // more when measured via /proc/meminfo
  absl::Duration service_ahead_of_host_max;
  absl::Duration host_ahead_of_service_max;
  absl::Duration cluster_clock_skew_max;
  double min_image_download_rate_mbps = 0;
  int majority_group_min_hosts = 0;
  int max_host_prefix_ipv4 = 0;
  int max_host_prefix_ipv6 = 0;
};

// The requirements resolved for one OpenShift version.
struct HwRequirements {
  std::map<RequirementRole, RoleRequirements> roles;
  std::vector<DriveTypeRule> installation_drive_types;
  ValidationLimits limits;

  const RoleRequirements& Role(RequirementRole role) const { return roles.at(role); }
  // Whether `type` may hold the OS for `version` on `architecture` ("x86_64", ...).
  bool DriveTypeAllowed(types::v1::DriveType type, const version::OcpVersion& version,
                        absl::string_view architecture) const;
  // Canonical names of the drive types allowed for `version` and `architecture`.
  std::vector<std::string> AllowedDriveTypeNames(const version::OcpVersion& version,
                                                 absl::string_view architecture) const;
};

class HwRequirementsCatalog {
 public:
  // Parses a requirements document. INVALID_ARGUMENT naming the offending key when it is
  // malformed: not JSON, unknown schema_version, a role missing from "default", a non-numeric
  // value, a bad version range or drive type (every override is checked, not only the ones a
  // version would select).
  static absl::StatusOr<HwRequirementsCatalog> Parse(absl::string_view json);

  // The requirements for `openshift_version` ("4.16.3"): "default" with every matching override
  // applied in file order. INVALID_ARGUMENT when the version does not parse.
  absl::StatusOr<HwRequirements> ForVersion(absl::string_view openshift_version) const;

  // "default" alone: for hosts not bound to a cluster yet, whose version is unknown.
  HwRequirements Defaults() const;

  int schema_version() const { return schema_version_; }

 private:
  struct Document;  // the parsed JSON, kept to merge overrides per version
  explicit HwRequirementsCatalog(std::shared_ptr<const Document> doc) : doc_(std::move(doc)) {}

  int schema_version_ = 0;
  std::shared_ptr<const Document> doc_;
};

// The catalog embedded from data/hw_requirements.json (parsed once; the build fails its tests
// if the file does not parse).
const HwRequirementsCatalog& DefaultHwRequirements();

// Reads and parses a catalog from `path` (a deployment's replacement file).
absl::StatusOr<HwRequirementsCatalog> LoadHwRequirements(const std::string& path);

// Canonical drive type name ("HDD", "ECKD (ESE)", ...) and its inverse (nullopt if unknown).
absl::string_view DriveTypeName(types::v1::DriveType type);
std::optional<types::v1::DriveType> ParseDriveType(absl::string_view name);

}  // namespace assisted::orchestrator::core

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_HW_REQUIREMENTS_H_
