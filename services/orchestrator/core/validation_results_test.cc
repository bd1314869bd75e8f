#include "services/orchestrator/core/validation_results.h"

#include <algorithm>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/orchestrator/core/validation_ids.h"

namespace assisted::orchestrator::core {
namespace {

using namespace types::v1;  // NOLINT

ValidationOutcome Outcome(std::string id, ValidationStatus status, std::string message = "") {
  return {std::move(id), status, VALIDATION_CATEGORY_HARDWARE, std::move(message)};
}

TEST(ValidationResults, StatusesAndGates) {
  ValidationResults r;
  r.Set(Outcome("a", VALIDATION_STATUS_SUCCESS));
  r.Set(Outcome("b", VALIDATION_STATUS_FAILURE, "b is broken"));
  r.Set(Outcome("c", VALIDATION_STATUS_PENDING, "c is waiting"));
  r.Set(Outcome("d", VALIDATION_STATUS_DISABLED));
  r.Set(Outcome("e", VALIDATION_STATUS_ERROR, "e crashed"));
  EXPECT_TRUE(r.Passed("a"));
  EXPECT_TRUE(r.Passed("d"));
  EXPECT_FALSE(r.Passed("b"));
  EXPECT_FALSE(r.Passed("missing"));
  EXPECT_TRUE(r.Failed("b"));
  EXPECT_TRUE(r.Failed("e"));
  EXPECT_TRUE(r.Pending("c"));
  EXPECT_TRUE(r.Pending("missing"));
  EXPECT_TRUE(r.PassedOrPending("c"));
  EXPECT_TRUE(r.AllPassed({"a", "d"}));
  EXPECT_FALSE(r.AllPassed({"a", "c"}));
  EXPECT_TRUE(r.AllPassed({"a", "c"}, /*pending_ok=*/true));
  EXPECT_EQ(r.Blocking({"a", "b", "c", "e"}), "b is broken ; c is waiting ; e crashed");
  EXPECT_EQ(r.Blocking({"a", "b", "c"}, true), "b is broken");
  EXPECT_EQ(r.Blocking({"missing"}), "missing");
}

TEST(ValidationResults, SetReplacesByIdAndKeepsOrder) {
  ValidationResults r;
  r.Set(Outcome("a", VALIDATION_STATUS_FAILURE));
  r.Set(Outcome("b", VALIDATION_STATUS_FAILURE));
  r.Set(Outcome("a", VALIDATION_STATUS_SUCCESS));
  ASSERT_EQ(r.outcomes().size(), 2u);
  EXPECT_EQ(r.outcomes()[0].id, "a");
  EXPECT_EQ(r.StatusOf("a"), VALIDATION_STATUS_SUCCESS);
  google::protobuf::RepeatedPtrField<ValidationResult> proto;
  r.ToProto(&proto);
  ASSERT_EQ(proto.size(), 2);
  EXPECT_EQ(proto[1].id(), "b");
  EXPECT_EQ(proto[1].status(), VALIDATION_STATUS_FAILURE);
}

TEST(ValidationResults, IgnoredFailuresPassGatesButStayVisible) {
  ValidationResults r;
  r.Set(Outcome("a", VALIDATION_STATUS_FAILURE));
  r.Set(Outcome("b", VALIDATION_STATUS_FAILURE));
  r.Ignore({"a"});
  EXPECT_TRUE(r.Passed("a"));
  EXPECT_FALSE(r.Failed("a"));
  EXPECT_EQ(r.StatusOf("a"), VALIDATION_STATUS_FAILURE);
  EXPECT_FALSE(r.Passed("b"));
  r.Ignore({"all"});
  EXPECT_TRUE(r.Passed("b"));
}

TEST(ValidationResults, NonIgnorableIdsBlockEvenUnderAll) {
  ValidationResults r;
  r.Set(Outcome("connected", VALIDATION_STATUS_FAILURE));
  r.Set(Outcome("b", VALIDATION_STATUS_FAILURE));
  r.Ignore({"all", "connected"}, NonIgnorableHostValidationIds());
  EXPECT_TRUE(r.Failed("connected"));
  EXPECT_TRUE(r.Passed("b"));
}

TEST(ValidationIds, OnlyKnownIgnorableIdsMayBeIgnored) {
  const std::vector<absl::string_view> known = CoreHostValidationIds();
  const std::vector<absl::string_view>& never = NonIgnorableHostValidationIds();
  EXPECT_TRUE(CheckIgnorable("f", {"all", "has-min-cpu-cores", "ntp-synced"}, known, never).ok());
  EXPECT_TRUE(CheckIgnorable("f", {}, known, never).ok());
  const absl::Status unknown = CheckIgnorable("f", {"ntp-synced", "no-such-check"}, known, never);
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.message(), "f: \"no-such-check\" is not a known validation id");
  const absl::Status fixed = CheckIgnorable("f", {"hostname-unique"}, known, never);
  EXPECT_EQ(fixed.message(), "f: \"hostname-unique\" cannot be ignored");
  for (absl::string_view id : never) {
    EXPECT_NE(std::find(known.begin(), known.end(), id), known.end()) << id;
  }
  for (absl::string_view id : NonIgnorableClusterValidationIds()) {
    const std::vector<absl::string_view> cluster = CoreClusterValidationIds();
    EXPECT_NE(std::find(cluster.begin(), cluster.end(), id), cluster.end()) << id;
  }
}

// Upstream's lists (internal/common: NonIgnorableHostValidations, NonIgnorableClusterValidations,
// with inventory-not-fully-truncated since the inventory truncation enhancement): a host whose
// inventory was dropped has nothing the other checks could judge.
TEST(ValidationIds, NonIgnorableIdsAreUpstreamsLists) {
  EXPECT_THAT(
      NonIgnorableHostValidationIds(),
      testing::UnorderedElementsAre("connected", "has-inventory", "inventory-not-fully-truncated",
                                    "machine-cidr-defined", "hostname-unique", "hostname-valid"));
  EXPECT_THAT(NonIgnorableClusterValidationIds(),
              testing::UnorderedElementsAre("api-vips-defined", "ingress-vips-defined",
                                            "all-hosts-are-ready-to-install",
                                            "sufficient-masters-count", "pull-secret-set"));
  const absl::Status truncated =
      CheckIgnorable("ignored_host_validations", {"inventory-not-fully-truncated"},
                     CoreHostValidationIds(), NonIgnorableHostValidationIds());
  EXPECT_EQ(truncated.message(),
            "ignored_host_validations: \"inventory-not-fully-truncated\" cannot be ignored");
}

TEST(ValidationIds, FortyOneHostIdsEachInExactlyOneGroup) {
  std::vector<absl::string_view> ids = CoreHostValidationIds();
  EXPECT_EQ(ids.size(), 41u);
  EXPECT_EQ(std::set<absl::string_view>(ids.begin(), ids.end()).size(), 41u);
}

TEST(ValidationIds, TwentyOneClusterIdsEachInExactlyOneGroup) {
  std::vector<absl::string_view> ids = CoreClusterValidationIds();
  EXPECT_EQ(ids.size(), 21u);
  EXPECT_EQ(std::set<absl::string_view>(ids.begin(), ids.end()).size(), 21u);
}

}  // namespace
}  // namespace assisted::orchestrator::core
