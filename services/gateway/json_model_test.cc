#include "services/gateway/json_model.h"

#include "absl/strings/str_cat.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/infra_env.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::gateway {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;

namespace types = ::assisted::types::v1;
using ::testing::HasSubstr;

TEST(EnumText, FollowsTheReferenceSpelling) {
  EXPECT_EQ(EnumText(types::CLUSTER_STATUS_PENDING_FOR_INPUT), "pending-for-input");
  EXPECT_EQ(EnumText(types::HOST_STATUS_INSTALLING_IN_PROGRESS), "installing-in-progress");
  EXPECT_EQ(EnumText(types::HOST_ROLE_AUTO_ASSIGN), "auto-assign");
  EXPECT_EQ(EnumText(types::NETWORK_TYPE_OVN_KUBERNETES), "OVNKubernetes");
  EXPECT_EQ(EnumText(types::CLUSTER_KIND_ADD_HOSTS_CLUSTER), "AddHostsCluster");
  EXPECT_EQ(EnumText(types::CPU_ARCHITECTURE_X86_64), "x86_64");
  EXPECT_EQ(EnumText(types::IMAGE_TYPE_MINIMAL_ISO), "minimal-iso");
  EXPECT_EQ(EnumText(types::HOST_STAGE_WRITING_IMAGE_TO_DISK), "Writing image to disk");
  EXPECT_EQ(EnumText(types::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATOR_SETUP_JOBS),
            "Waiting for OLM operator setup jobs");
  EXPECT_EQ(EnumText(types::INSTALLATION_PREPARATION_STATUS_NOT_STARTED), "not_started");
  EXPECT_EQ(EnumText(types::CLUSTER_STATUS_UNSPECIFIED), "");
}

TEST(EnumText, EveryValueRoundTripsAndIsUnique) {
  for (const google::protobuf::EnumDescriptor* type :
       {types::ClusterStatus_descriptor(), types::HostStatus_descriptor(),
        types::HostRole_descriptor(), types::NetworkType_descriptor(),
        types::HostStage_descriptor(), types::CpuArchitecture_descriptor()}) {
    for (int i = 1; i < type->value_count(); ++i) {
      const std::string text = EnumText(*type->value(i));
      EXPECT_THAT(EnumFromText(*type, text, "f"), IsOkAndHolds(type->value(i)->number())) << text;
    }
  }
  EXPECT_THAT(EnumFromText(*types::HostRole_descriptor(), "captain", "host_role"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("host_role: must be one of \"auto-assign\"")));
}

TEST(ClusterModel, ShowsFlattenedProxyOwnerAndValidationsText) {
  types::Cluster cluster;
  cluster.set_id("8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c");
  cluster.set_status(types::CLUSTER_STATUS_READY);
  cluster.mutable_proxy()->set_http_proxy("http://p:3128");
  cluster.mutable_owner()->set_user_name("alice");
  cluster.set_pull_secret_set(true);
  types::ValidationResult* v = cluster.add_validations_info();
  v->set_id("api-vips-defined");
  v->set_status(types::VALIDATION_STATUS_SUCCESS);
  v->set_category(types::VALIDATION_CATEGORY_NETWORK);
  v->set_message("ok");
  cluster.mutable_status_updated_at()->set_seconds(1700000000);
  Json json = ToJson(ClusterModel(), cluster);
  EXPECT_EQ(json["kind"], "Cluster");
  EXPECT_EQ(json["status"], "ready");
  EXPECT_EQ(json["http_proxy"], "http://p:3128");
  EXPECT_EQ(json["user_name"], "alice");
  EXPECT_EQ(json["pull_secret_set"], true);
  EXPECT_EQ(json["status_updated_at"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(json["validations_info"],
            R"({"network":[{"id":"api-vips-defined","message":"ok","status":"success"}]})");
  EXPECT_FALSE(json.contains("proxy"));
  EXPECT_FALSE(json.contains("owner"));
}

TEST(ClusterModel, CreateReadsFieldsAndTheSecretApart) {
  Json body = Json::parse(R"({"name":"c","openshift_version":"4.16","pull_secret":"{}",
      "no_proxy":"x","cluster_networks":[{"cidr":"10.0.0.0/8","host_prefix":23}],
      "platform":{"type":"none"},"high_availability_mode":"None"})");
  types::Cluster cluster;
  absl::StatusOr<Decoded> decoded = FromJson(ClusterModel(), body, kCreate, &cluster);
  ASSERT_THAT(decoded, IsOk());
  EXPECT_EQ(decoded->pull_secret, "{}");
  EXPECT_EQ(cluster.proxy().no_proxy(), "x");
  EXPECT_EQ(cluster.cluster_networks(0).host_prefix(), 23);
  EXPECT_EQ(cluster.platform().type(), types::PLATFORM_TYPE_NONE);
  EXPECT_EQ(cluster.high_availability_mode(), types::HIGH_AVAILABILITY_MODE_NONE);
  EXPECT_THAT(decoded->mask.paths(), ::testing::Contains("proxy.no_proxy"));
  EXPECT_THAT(decoded->mask.paths(), ::testing::Contains("pull_secret"));
}

TEST(ClusterModel, RejectsWhatIsNotAcceptedNamingTheField) {
  struct Case {
    const char* body;
    FieldUse use;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"openshift_version":"4.16","pull_secret":"x"})", kCreate,
            "name: required when registering"},
           {R"({"name":"c","openshift_version":"4.16","pull_secret":"x","bogus":1})", kCreate,
            "bogus: unknown field of cluster"},
           {R"({"status":"ready"})", kUpdate, "status: cannot be set when updating"},
           {R"({"openshift_version":"4.17"})", kUpdate, "openshift_version: cannot be set"},
           {R"({"cluster_networks":[{"cidr":"x","host_prefix":"23"}]})", kUpdate,
            "cluster_networks[0].host_prefix: expected an integer, got string"},
           {R"({"cluster_networks":[{"cidr":"x","extra":1}]})", kUpdate,
            "cluster_networks[0].extra: unknown field"},
           {R"({"control_plane_count":4294967296})", kUpdate,
            "control_plane_count: number out of range"},
           {R"({"api_vips":[{"ip":"1.2.3.4","verification":"maybe"}]})", kUpdate,
            "api_vips[0].verification: must be one of"},
           {R"({"schedulable_masters":"yes"})", kUpdate, "expected a boolean"},
           {R"({"pull_secret":""})", kUpdate, "pull_secret: must not be empty"},
       }) {
    types::Cluster cluster;
    EXPECT_THAT(FromJson(ClusterModel(), Json::parse(c.body), c.use, &cluster),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.error)))
        << c.body;
  }
}

TEST(HostModel, UpdateMapsTheReferenceNames) {
  Json body = Json::parse(R"({"host_role":"master","host_name":"h1",
      "disks_selected_config":[{"id":"/dev/sdb","role":"install"},{"id":"/dev/sda"}],
      "node_labels":[{"key":"zone","value":"a"}]})");
  types::Host host;
  absl::StatusOr<Decoded> decoded = FromJson(HostModel(), body, kUpdate, &host);
  ASSERT_THAT(decoded, IsOk());
  EXPECT_EQ(host.role(), types::HOST_ROLE_MASTER);
  EXPECT_EQ(host.requested_hostname(), "h1");
  EXPECT_EQ(host.installation_disk_id(), "/dev/sdb");
  EXPECT_EQ(host.node_labels().at("zone"), "a");
  EXPECT_THAT(decoded->mask.paths(),
              ::testing::UnorderedElementsAre("role", "requested_hostname", "installation_disk_id",
                                              "node_labels"));
  Json shown = ToJson(HostModel(), host);
  EXPECT_EQ(shown["node_labels"], Json::parse(R"([{"key":"zone","value":"a"}])"));
  EXPECT_EQ(shown["role"], "master");

  types::Host other;
  EXPECT_THAT(
      FromJson(HostModel(), Json::parse(R"({"disks_selected_config":[{"id":"a","role":"install"},
                                     {"id":"b","role":"install"}]})"),
               kUpdate, &other),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than one")));
}

TEST(InfraEnvModel, CommaListsAndImageType) {
  Json body = Json::parse(
      R"({"name":"d","pull_secret":"{}","additional_ntp_sources":"a, b,,c","image_type":"minimal-iso"})");
  types::InfraEnv infra_env;
  ASSERT_THAT(FromJson(InfraEnvModel(), body, kCreate, &infra_env), IsOk());
  EXPECT_THAT(infra_env.additional_ntp_sources(), ::testing::ElementsAre("a", "b", "c"));
  EXPECT_EQ(infra_env.type(), types::IMAGE_TYPE_MINIMAL_ISO);
  Json shown = ToJson(InfraEnvModel(), infra_env);
  EXPECT_EQ(shown["additional_ntp_sources"], "a,b,c");
  EXPECT_EQ(shown["type"], "minimal-iso");
  EXPECT_EQ(shown["kind"], "InfraEnv");
}

TEST(ParseObject, RefusesMalformedDocuments) {
  EXPECT_THAT(ParseObject(R"({"a":1})"), IsOk());
  for (const std::string bad : {"", "{", "[]", "1", "null", "{\"a\":\"\xff\"}"}) {
    EXPECT_THAT(ParseObject(bad), StatusIs(absl::StatusCode::kInvalidArgument)) << bad;
  }
  EXPECT_THAT(ParseObject(std::string(100000, '[')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nested deeper")));
  // Brackets inside strings do not count.
  EXPECT_THAT(ParseObject(absl::StrCat("{\"a\":\"", std::string(1000, '['), "\"}")), IsOk());
}

}  // namespace
}  // namespace assisted::gateway
