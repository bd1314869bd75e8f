// File: services/orchestrator/core/testing_fixtures.h
//
// Test helpers shared by the core's tests: validation results where everything passes (tests
// then flip the one id they are about) and a row-coverage recorder that names the table rows a
// table-driven test never exercised.

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_CORE_TESTING_FIXTURES_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_CORE_TESTING_FIXTURES_H_

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "gmock/gmock.h"
#include "google/protobuf/timestamp.pb.h"
#include "gtest/gtest.h"
#include "services/orchestrator/core/agent_reports.h"
#include "services/orchestrator/core/engine.h"
#include "services/orchestrator/core/validation_results.h"

namespace assisted::orchestrator::core::testing {

inline const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

google::protobuf::Timestamp Ts(absl::Time t);

// 10.0.0.<10+i>: host i's address in the healthy cluster's machine network 10.0.0.0/24.
std::string Ip(int i);

// Host "h<i>": a known master of cluster "c1" with 8 cores, 32 GiB, a 200 GB SSD /dev/sda
// (id wwn-sda), eth0 at Ip(i)/24 with a default route, TPM 2.0, checked in at kNow.
types::v1::Host HealthyHost(int i);

// Everything a healthy host i of n reports: full-mesh L2/L3/MTU connectivity, a synced NTP
// source, pulled images, a 3 ms install disk, DNS answers for c.example.com and quay.io, a
// reachable API VIP and Tang server.
HostReports HealthyReports(int i, int n);

// The preparation checks' results as the orchestrator stores them from a healthy agent
// (Host.images_status_report, Host.disks_info_report): the release image pulled, /dev/sda
// measured at 3 ms.
types::v1::ContainerImageAvailabilityResponse PulledImagesStatus();
types::v1::DisksInfo FastDisksInfo();

// Cluster "c1" ("c.example.com", 4.16.3, three masters, baremetal) with machine network
// 10.0.0.0/24, cluster network 10.128.0.0/14 (/23), service network 172.30.0.0/16, API VIP
// 10.0.0.5, Ingress VIP 10.0.0.6, pull secret set.
types::v1::Cluster HealthyCluster();

// Every core host (cluster) validation with status success.
ValidationResults PassingHostValidations();
ValidationResults PassingClusterValidations();

// Sets one id's status (and message) in `results`.
void SetStatus(ValidationResults* results, absl::string_view id, types::v1::ValidationStatus status,
               std::string message = "");

// A validation test case: `setup` changes one thing in a healthy World (which has
// `ValidationResults Validate()`); the validation `id` must then report `status` with a message
// containing `message`.
template <typename World>
struct ValidationCase {
  absl::string_view id;
  std::string name;
  std::function<void(World&)> setup;
  types::v1::ValidationStatus status;
  std::string message;
};

template <typename World>
void ExpectValidationCases(const std::vector<ValidationCase<World>>& cases) {
  for (const ValidationCase<World>& c : cases) {
    SCOPED_TRACE(absl::StrCat(c.id, ": ", c.name));
    World w;
    c.setup(w);
    ValidationResults results = w.Validate();
    const ValidationOutcome* o = results.Find(c.id);
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(static_cast<int>(o->status), static_cast<int>(c.status)) << o->message;
    EXPECT_THAT(o->message, ::testing::HasSubstr(c.message));
  }
}

// Every id of `ids` has a passing case, a failing one unless listed in `never_failing` (checks
// whose rule has nothing to refuse, as upstream's lso-requirements-satisfied), and a pending one
// unless listed in `never_pending` (ids decided from data that is always there).
template <typename World>
void ExpectEveryIdCovered(const std::vector<ValidationCase<World>>& cases,
                          const std::vector<absl::string_view>& ids,
                          const std::set<absl::string_view>& never_pending,
                          const std::set<absl::string_view>& never_failing = {}) {
  std::map<absl::string_view, std::set<types::v1::ValidationStatus>> seen;
  for (const ValidationCase<World>& c : cases) seen[c.id].insert(c.status);
  for (absl::string_view id : ids) {
    EXPECT_TRUE(seen[id].count(types::v1::VALIDATION_STATUS_SUCCESS)) << id << ": no passing case";
    if (!never_failing.count(id)) {
      EXPECT_TRUE(seen[id].count(types::v1::VALIDATION_STATUS_FAILURE))
          << id << ": no failing case";
    }
    if (!never_pending.count(id)) {
      EXPECT_TRUE(seen[id].count(types::v1::VALIDATION_STATUS_PENDING))
          << id << ": no pending case";
    }
  }
}

// Records which rows of a machine fired and lists the ones that never did.
template <typename Machine>
class RowCoverage {
 public:
  explicit RowCoverage(const Machine& machine) : machine_(machine) {}

  void Record(std::size_t row) { fired_.insert(row); }

  // "row 12 (RefreshHost from known: <guard> -> <to>): <doc>" for every row never fired.
  std::vector<std::string> Unexercised() const {
    std::vector<std::string> out;
    const auto& rows = machine_.rows();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (fired_.count(i)) continue;
      std::vector<std::string> from;
      for (auto s : rows[i].from) from.emplace_back(machine_.naming().state(s));
      out.push_back(absl::StrCat("row ", i, " (", machine_.naming().event(rows[i].event), " from {",
                                 absl::StrJoin(from, ", "), "} when ", rows[i].guard.name, " -> ",
                                 rows[i].to ? machine_.naming().state(*rows[i].to) : "same",
                                 "): ", rows[i].doc));
    }
    return out;
  }

 private:
  const Machine& machine_;
  std::set<std::size_t> fired_;
};

}  // namespace assisted::orchestrator::core::testing

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_CORE_TESTING_FIXTURES_H_
