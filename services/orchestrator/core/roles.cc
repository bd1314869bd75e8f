// File: services/orchestrator/core/roles.cc

#include "services/orchestrator/core/roles.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "services/orchestrator/core/disk_eligibility.h"
#include "services/orchestrator/core/host_validations.h"
#include "services/orchestrator/core/inventory_util.h"

namespace assisted::orchestrator::core {

namespace {

using types::v1::HostRole;

// The reference's weighting formula (internal/host/hostutil), not thresholds: the constants
// centre a typical master (4 cores, 16 GiB, 100 GiB disk) on zero.
constexpr double kBaseCores = 4, kBaseRamGib = 16, kBaseDiskGib = 100;
constexpr double kRamWeight = 0.1, kDiskWeight = 0.004;
constexpr double kGiB = 1024.0 * 1024 * 1024;

bool IsMaster(HostRole r) {
  return r == types::v1::HOST_ROLE_MASTER || r == types::v1::HOST_ROLE_BOOTSTRAP;
}

bool IsAuto(HostRole r) {
  return r == types::v1::HOST_ROLE_AUTO_ASSIGN || r == types::v1::HOST_ROLE_UNSPECIFIED;
}

int64_t LargestEligibleDiskBytes(const types::v1::Host& host, const ClusterFacts& facts,
                                 int64_t min_size_gb) {
  DiskPolicy policy{min_size_gb, &facts.requirements, facts.version, facts.architecture};
  int64_t largest = 0;
  for (const types::v1::Disk& d : host.inventory().disks()) {
    if (DiskEligible(d, host.inventory(), policy)) largest = std::max(largest, d.size_bytes());
  }
  return largest;
}

// Meets the requirement row: cores, memory (with tolerance) and an eligible disk.
bool Fits(const types::v1::Host& host, const ClusterFacts& facts, RequirementRole role) {
  const RoleRequirements& r = facts.requirements.Role(role);
  return host.inventory().cpu().count() >= r.cpu_cores &&
         MemoryMeets(host.inventory(), r.ram_mib, facts.requirements.limits) &&
         LargestEligibleDiskBytes(host, facts, r.disk_size_gb) > 0;
}

}  // namespace

double RoleWeight(const types::v1::Host& host, const ClusterFacts& facts) {
  const types::v1::Inventory& inv = host.inventory();
  const double disk_gib = static_cast<double>(LargestEligibleDiskBytes(host, facts, 0)) / kGiB;
  return (static_cast<double>(inv.cpu().count()) - kBaseCores) +
         kRamWeight * (static_cast<double>(inv.memory().physical_bytes()) / kGiB - kBaseRamGib) +
         kDiskWeight * (disk_gib - kBaseDiskGib);
}

std::vector<RoleAssignment> AssignRoles(const std::vector<const types::v1::Host*>& hosts,
                                        const ClusterFacts& facts) {
  int masters = 0, arbiters = 0;
  std::vector<const types::v1::Host*> candidates;
  for (const types::v1::Host* h : hosts) {
    if (IsMaster(h->role())) ++masters;
    if (h->role() == types::v1::HOST_ROLE_ARBITER) ++arbiters;
    if (IsAuto(h->role()) && h->has_inventory()) candidates.push_back(h);
  }
  auto key = [&facts](const types::v1::Host* h) {
    return std::make_tuple(h->inventory().gpus_size() > 0, RoleWeight(*h, facts), h->id());
  };
  std::sort(candidates.begin(), candidates.end(),
            [&key](const types::v1::Host* a, const types::v1::Host* b) { return key(a) < key(b); });
  const RequirementRole master_row = facts.sno ? RequirementRole::kSno : RequirementRole::kMaster;
  std::vector<RoleAssignment> out;
  for (const types::v1::Host* h : candidates) {
    HostRole role = types::v1::HOST_ROLE_WORKER;
    if (masters < facts.control_plane_count && Fits(*h, facts, master_row)) {
      role = types::v1::HOST_ROLE_MASTER;
      ++masters;
    } else if (facts.control_plane_count == 2 && arbiters == 0 &&
               Fits(*h, facts, RequirementRole::kArbiter)) {
      role = types::v1::HOST_ROLE_ARBITER;
      ++arbiters;
    }
    out.push_back({h->id(), role});
  }
  return out;
}

absl::StatusOr<std::string> ChooseBootstrap(const std::vector<const types::v1::Host*>& hosts,
                                            const ClusterFacts& facts,
                                            std::optional<std::string> rendezvous_ip) {
  for (const types::v1::Host* h : hosts) {
    if (h->bootstrap()) return h->id();
  }
  if (rendezvous_ip) {
    for (const types::v1::Host* h : hosts) {
      for (const InterfaceAddress& a : Addresses(h->inventory())) {
        if (a.ip.ToString() != *rendezvous_ip) continue;
        if (!IsMaster(h->role())) {
          return absl::FailedPreconditionError(
              absl::StrCat("The rendezvous host ", *rendezvous_ip, " (", h->id(),
                           ") must be a control plane host: give it the master role"));
        }
        return h->id();
      }
    }
    return absl::FailedPreconditionError(absl::StrCat("No host has the rendezvous address ",
                                                      *rendezvous_ip,
                                                      ": check rendezvousIP in agent-config.yaml"));
  }
  const types::v1::Host* chosen = nullptr;
  for (const types::v1::Host* h : hosts) {
    const bool ready = h->status() == types::v1::HOST_STATUS_KNOWN ||
                       h->status() == types::v1::HOST_STATUS_PREPARING_FOR_INSTALLATION ||
                       h->status() == types::v1::HOST_STATUS_PREPARING_SUCCESSFUL;
    if (IsMaster(h->role()) && (ready || facts.sno) && (!chosen || h->id() > chosen->id())) {
      chosen = h;
    }
  }
  if (chosen == nullptr) {
    return absl::FailedPreconditionError(
        "No control plane host is ready to run the bootstrap control plane");
  }
  return chosen->id();
}

}  // namespace assisted::orchestrator::core
