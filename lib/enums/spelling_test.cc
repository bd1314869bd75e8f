#include "lib/enums/spelling.h"

#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/common.pb.h"
#include "assisted/types/v1/hardware.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/step.pb.h"
#include "assisted/types/v1/validation.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace assisted::enums {
namespace {

namespace types = ::assisted::types::v1;
using ::testing::HasSubstr;

TEST(EnumTextTest, DerivesKebabCaseFromTheValueName) {
  EXPECT_EQ(EnumText(types::HOST_STATUS_PENDING_FOR_INPUT), "pending-for-input");
  EXPECT_EQ(EnumText(types::CLUSTER_STATUS_INSTALLING_PENDING_USER_ACTION),
            "installing-pending-user-action");
  EXPECT_EQ(EnumText(types::HOST_ROLE_AUTO_ASSIGN), "auto-assign");
  EXPECT_EQ(EnumText(types::STEP_TYPE_CONNECTIVITY_CHECK), "connectivity-check");
  EXPECT_EQ(EnumText(types::VALIDATION_STATUS_SUCCESS_SUPPRESS_OUTPUT), "success-suppress-output");
}

TEST(EnumTextTest, StagesReadAsSentences) {
  EXPECT_EQ(EnumText(types::HOST_STAGE_WRITING_IMAGE_TO_DISK), "Writing image to disk");
  EXPECT_EQ(EnumText(types::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS),
            "Waiting for cluster operators");
}

TEST(EnumTextTest, ReferenceSpellingsOverrideTheRule) {
  EXPECT_EQ(EnumText(types::NETWORK_TYPE_OVN_KUBERNETES), "OVNKubernetes");
  EXPECT_EQ(EnumText(types::CLUSTER_KIND_ADD_HOSTS_CLUSTER), "AddHostsCluster");
  EXPECT_EQ(EnumText(types::CPU_ARCHITECTURE_X86_64), "x86_64");
  EXPECT_EQ(EnumText(types::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATOR_SETUP_JOBS),
            "Waiting for OLM operator setup jobs");
}

TEST(EnumTextTest, DriveTypesReadAsTheInventoryReportsThem) {
  EXPECT_EQ(EnumText(types::DRIVE_TYPE_HDD), "HDD");
  EXPECT_EQ(EnumText(types::DRIVE_TYPE_ISCSI), "iSCSI");
  EXPECT_EQ(EnumText(types::DRIVE_TYPE_ECKD_ESE), "ECKD (ESE)");
  EXPECT_EQ(EnumText(types::DRIVE_TYPE_VIRTUAL), "virtual");
}

TEST(EnumTextTest, RestArchitecturesKeepArm64AndAarch64Apart) {
  EXPECT_EQ(EnumText(types::CPU_ARCHITECTURE_AARCH64), "aarch64");
  EXPECT_EQ(EnumText(types::CPU_ARCHITECTURE_ARM64), "arm64");
}

TEST(EnumTextTest, UnspecifiedAndUnnamedNumbersAreEmpty) {
  EXPECT_EQ(EnumText(types::HOST_STATUS_UNSPECIFIED), "");
  EXPECT_EQ(EnumText(static_cast<types::HostStatus>(999)), "");
}

TEST(EnumTextOrUnknownTest, UnnamedNumbersReadUnknown) {
  EXPECT_EQ(EnumTextOrUnknown(static_cast<types::HostStatus>(999)), "unknown");
  EXPECT_EQ(EnumTextOrUnknown(types::HOST_STATUS_KNOWN), "known");
  EXPECT_EQ(EnumTextOrUnknown(types::HOST_STATUS_UNSPECIFIED), "");
}

TEST(EnumTextTest, ReturnsTheSameStorageEveryTime) {
  EXPECT_EQ(&EnumText(types::HOST_STATUS_KNOWN), &EnumText(types::HOST_STATUS_KNOWN));
}

TEST(EnumFromTextTest, EveryNamedValueRoundTrips) {
  const google::protobuf::EnumDescriptor& type = *types::HostStatus_descriptor();
  for (int i = 0; i < type.value_count(); ++i) {
    const int number = type.value(i)->number();
    if (number == 0) continue;
    absl::StatusOr<int> parsed = EnumFromText(type, EnumText(*type.value(i)), "status");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, number);
  }
}

TEST(EnumFromTextTest, UnknownTextNamesTheFieldAndTheChoices) {
  absl::StatusOr<int> parsed = EnumFromText(*types::HostRole_descriptor(), "boss", "role");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), HasSubstr("role: must be one of "));
  EXPECT_THAT(parsed.status().message(), HasSubstr("\"auto-assign\""));
}

TEST(EnumFromTextTest, EmptyTextIsNotUnspecified) {
  EXPECT_FALSE(EnumFromText(*types::HostRole_descriptor(), "", "role").ok());
}

}  // namespace
}  // namespace assisted::enums
