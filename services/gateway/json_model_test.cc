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

TEST(ClusterModel, AFailingValidationCarriesItsFixHint) {
  types::Cluster cluster;
  types::ValidationResult* v = cluster.add_validations_info();
  v->set_id("api-vips-valid");
  v->set_status(types::VALIDATION_STATUS_FAILURE);
  v->set_category(types::VALIDATION_CATEGORY_NETWORK);
  v->set_message("api vip 10.0.0.5 does not belong to machine-network-cidr");
  v->set_hint("Choose a free API VIP inside the machine network");
  EXPECT_EQ(Json::parse(ToJson(ClusterModel(), cluster)["validations_info"].get<std::string>()),
            Json::parse(R"({"network":[{"id":"api-vips-valid","status":"failure",
                "message":"api vip 10.0.0.5 does not belong to machine-network-cidr",
                "hint":"Choose a free API VIP inside the machine network"}]})"));
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

// The agent-based installer's node 0 creates the cluster and infra-env its ISO names.
TEST(ClusterModel, CreateKeepsAGivenId) {
  Json body = Json::parse(R"({"id":"3f0c2a5e-2b8c-4c1e-9d3a-0f5b6f1e7a21","name":"c",
      "openshift_version":"4.16","pull_secret":"{}"})");
  types::Cluster cluster;
  ASSERT_THAT(FromJson(ClusterModel(), body, kCreate, &cluster), IsOk());
  EXPECT_EQ(cluster.id(), "3f0c2a5e-2b8c-4c1e-9d3a-0f5b6f1e7a21");
  types::InfraEnv infra_env;
  ASSERT_THAT(FromJson(InfraEnvModel(), body, kCreate, &infra_env), IsOk());
  EXPECT_EQ(infra_env.id(), "3f0c2a5e-2b8c-4c1e-9d3a-0f5b6f1e7a21");
  EXPECT_THAT(FromJson(ClusterModel(), Json::parse(R"({"id":"x"})"), kUpdate, &cluster),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("id: cannot be set")));
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
           {R"({"name":"c","openshift_version":"4.16","pull_secret":""})", kCreate,
            "pull_secret: must not be empty"},
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
  EXPECT_EQ(shown["node_labels"], R"({"zone":"a"})");
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

TEST(ClusterModel, LegacySingleCidrFieldsFillTheNetworkListsAsUpstreamDid) {
  // Registering: the missing half of the pod network takes upstream's default.
  types::Cluster created;
  absl::StatusOr<Decoded> decoded = FromJson(
      ClusterModel(), Json::parse(R"({"name":"c","openshift_version":"4.16","pull_secret":"{}",
          "cluster_network_cidr":"10.132.0.0/14","service_network_cidr":"172.31.0.0/16",
          "machine_network_cidr":"192.168.7.0/24"})"),
      kCreate, &created);
  ASSERT_THAT(decoded, IsOk());
  ASSERT_EQ(created.cluster_networks_size(), 1);
  EXPECT_EQ(created.cluster_networks(0).cidr(), "10.132.0.0/14");
  EXPECT_EQ(created.cluster_networks(0).host_prefix(), 23);
  ASSERT_EQ(created.service_networks_size(), 1);
  EXPECT_EQ(created.service_networks(0).cidr(), "172.31.0.0/16");
  ASSERT_EQ(created.machine_networks_size(), 1);
  EXPECT_EQ(created.machine_networks(0).cidr(), "192.168.7.0/24");
  // And they are shown again, from the first entry of each list.
  Json shown = ToJson(ClusterModel(), created);
  EXPECT_EQ(shown["cluster_network_cidr"], "10.132.0.0/14");
  EXPECT_EQ(shown["cluster_network_host_prefix"], 23);
  EXPECT_EQ(shown["service_network_cidr"], "172.31.0.0/16");
  EXPECT_EQ(shown["machine_network_cidr"], "192.168.7.0/24");

  // Updating: the half not given is kept from the stored cluster; "" empties the list.
  types::Cluster stored;
  stored.add_cluster_networks()->set_cidr("10.128.0.0/14");
  stored.mutable_cluster_networks(0)->set_host_prefix(23);
  stored.add_machine_networks()->set_cidr("10.0.0.0/24");
  types::Cluster patch;
  decoded = FromJson(ClusterModel(),
                     Json::parse(R"({"cluster_network_host_prefix":25,"machine_network_cidr":""})"),
                     kUpdate, &patch, &stored);
  ASSERT_THAT(decoded, IsOk());
  ASSERT_EQ(patch.cluster_networks_size(), 1);
  EXPECT_EQ(patch.cluster_networks(0).cidr(), "10.128.0.0/14");
  EXPECT_EQ(patch.cluster_networks(0).host_prefix(), 25);
  EXPECT_EQ(patch.machine_networks_size(), 0);
  EXPECT_THAT(decoded->mask.paths(),
              ::testing::UnorderedElementsAre("cluster_networks", "machine_networks"));

  // Both spellings at once must agree.
  types::Cluster both;
  EXPECT_THAT(FromJson(ClusterModel(), Json::parse(R"({"service_network_cidr":"172.30.0.0/16",
                           "service_networks":[{"cidr":"172.31.0.0/16"}]})"),
                       kUpdate, &both),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("service_network_cidr: conflicts with service_networks")));
  types::Cluster agreeing;
  EXPECT_THAT(FromJson(ClusterModel(), Json::parse(R"({"service_network_cidr":"172.31.0.0/16",
                           "service_networks":[{"cidr":"172.31.0.0/16"}]})"),
                       kUpdate, &agreeing),
              IsOk());
  types::Cluster wrong_type;
  EXPECT_THAT(FromJson(ClusterModel(), Json::parse(R"({"cluster_network_host_prefix":"23"})"),
                       kUpdate, &wrong_type),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cluster_network_host_prefix: expected an integer")));
}

// Upstream's UI sends each network and VIP with its cluster_id; older clients send api_vip and
// ingress_vip, which upstream mapped to the lists before dropping them.
TEST(ClusterModel, AcceptsWhatUpstreamsUiSendsInNetworkEntries) {
  types::Cluster cluster;
  absl::StatusOr<Decoded> decoded = FromJson(
      ClusterModel(), Json::parse(R"({"cluster_networks":[{"cidr":"10.128.0.0/14","host_prefix":23,
              "cluster_id":"8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c"}],
          "service_networks":[{"cidr":"172.30.0.0/16","cluster_id":"8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c"}],
          "api_vips":[{"ip":"192.168.1.5","cluster_id":"8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c"}],
          "ingress_vip":"192.168.1.6"})"),
      kUpdate, &cluster);
  ASSERT_THAT(decoded, IsOk());
  EXPECT_EQ(cluster.cluster_networks(0).host_prefix(), 23);
  EXPECT_EQ(cluster.api_vips(0).ip(), "192.168.1.5");
  ASSERT_EQ(cluster.ingress_vips_size(), 1);
  EXPECT_EQ(cluster.ingress_vips(0).ip(), "192.168.1.6");
  types::Cluster cleared;
  decoded = FromJson(ClusterModel(), Json::parse(R"({"api_vip":""})"), kUpdate, &cleared);
  ASSERT_THAT(decoded, IsOk());
  EXPECT_THAT(decoded->mask.paths(), ::testing::ElementsAre("api_vips"));
  EXPECT_EQ(cleared.api_vips_size(), 0);
  types::Cluster wrong;
  EXPECT_THAT(
      FromJson(ClusterModel(), Json::parse(R"({"api_vips":[{"ip":"1.2.3.4","cluster_id":7}]})"),
               kUpdate, &wrong),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("api_vips[0].cluster_id")));
}

TEST(ClusterModel, AnEmptyPullSecretClearsAClustersButKeepsAnInfraEnvs) {
  // Upstream's V2UpdateCluster stores what it is given ("" unsets the secret); its
  // UpdateInfraEnv ignores "" (its documented example sends "").
  types::Cluster cluster;
  absl::StatusOr<Decoded> decoded =
      FromJson(ClusterModel(), Json::parse(R"({"pull_secret":""})"), kUpdate, &cluster);
  ASSERT_THAT(decoded, IsOk());
  EXPECT_TRUE(decoded->has_pull_secret);
  EXPECT_EQ(decoded->pull_secret, "");
  EXPECT_THAT(decoded->mask.paths(), ::testing::ElementsAre("pull_secret"));

  types::InfraEnv infra_env;
  decoded = FromJson(InfraEnvModel(), Json::parse(R"({"pull_secret":"","name":"n"})"), kUpdate,
                     &infra_env);
  ASSERT_THAT(decoded, IsOk());
  EXPECT_FALSE(decoded->has_pull_secret);
  EXPECT_THAT(decoded->mask.paths(), ::testing::ElementsAre("name"));
}

TEST(ClusterModel, UpstreamFieldsNotSupportedYetAreAcceptedEmptyAndRefusedOtherwise) {
  for (const char* empty :
       {R"({"operator_bundles":[]})", R"({"ntp_sources":""})", R"({"olm_operators":null})"}) {
    types::Cluster cluster;
    absl::StatusOr<Decoded> decoded =
        FromJson(ClusterModel(), Json::parse(empty), kUpdate, &cluster);
    ASSERT_THAT(decoded, IsOk()) << empty;
    EXPECT_TRUE(decoded->mask.paths().empty()) << empty;
  }
  {
    types::Cluster cluster;
    EXPECT_THAT(FromJson(ClusterModel(), Json::parse(R"({"ntp_sources":"ntp.example.com"})"),
                         kUpdate, &cluster),
                StatusIs(absl::StatusCode::kUnimplemented,
                         ::testing::AllOf(HasSubstr("ntp_sources"), HasSubstr("not supported"))));
  }
  // Selecting what this service cannot install is the client's mistake (operators.h).
  for (const auto& [body, field] : std::vector<std::pair<const char*, const char*>>{
           {R"({"olm_operators":[{"name":"odf"}]})",
            "olm_operators[0].name: \"odf\" is not supported by this service yet"},
           {R"({"operator_bundles":[{"id":"virtualization"}]})",
            "operator_bundles[0].id: \"virtualization\" cannot be selected"}}) {
    for (FieldUse use : {kCreate, kUpdate}) {
      types::Cluster cluster;
      EXPECT_THAT(FromJson(ClusterModel(), Json::parse(body), use, &cluster),
                  StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(field)))
          << body;
    }
  }
  types::Cluster wrong_type;
  EXPECT_THAT(
      FromJson(ClusterModel(), Json::parse(R"({"olm_operators":"lso"})"), kUpdate, &wrong_type),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("olm_operators")));
}

TEST(ClusterModel, AnOperatorSelectionIsKeptAsMonitoredOperators) {
  // [] is a selection too: it deselects every operator.
  for (const auto& [body, count] : std::vector<std::pair<const char*, int>>{
           {R"({"olm_operators":[{"name":"lvm"}]})", 1}, {R"({"olm_operators":[]})", 0}}) {
    types::Cluster cluster;
    absl::StatusOr<Decoded> decoded =
        FromJson(ClusterModel(), Json::parse(body), kUpdate, &cluster);
    ASSERT_THAT(decoded, IsOk()) << body;
    EXPECT_THAT(decoded->mask.paths(), ::testing::ElementsAre("monitored_operators")) << body;
    EXPECT_EQ(cluster.monitored_operators_size(), count) << body;
  }
}

TEST(ClusterModel, RegisteringAcceptsACustomReleaseImage) {
  types::Cluster cluster;
  ASSERT_THAT(FromJson(ClusterModel(),
                       Json::parse(R"({"name":"c","openshift_version":"4.16","pull_secret":"{}",
                           "ocp_release_image":"quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64"})"),
                       kCreate, &cluster),
              IsOk());
  EXPECT_EQ(cluster.ocp_release_image(), "quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64");
}

TEST(ClusterModel, AlwaysShowsTheRequiredFieldsListsAndFalseOrZeroValues) {
  types::Cluster cluster;
  cluster.set_id("8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c");
  cluster.set_status(types::CLUSTER_STATUS_INSUFFICIENT);
  Json json = ToJson(ClusterModel(), cluster);
  EXPECT_EQ(json["status_info"], "");
  EXPECT_TRUE(json["image_info"].is_object()) << json.dump();
  for (const char* flag :
       {"schedulable_masters", "schedulable_masters_forced_true", "vip_dhcp_allocation",
        "user_managed_networking", "pull_secret_set", "imported", "org_soft_timeouts_enabled"}) {
    EXPECT_EQ(json[flag], false) << flag;
  }
  for (const char* count : {"ready_host_count", "enabled_host_count", "total_host_count"}) {
    EXPECT_EQ(json[count], 0) << count;
  }
  for (const char* list : {"api_vips", "ingress_vips", "cluster_networks", "service_networks",
                           "machine_networks", "monitored_operators", "hosts"}) {
    EXPECT_EQ(json[list], Json::array()) << list;
  }
}

TEST(ClusterModel, DiskEncryptionUsesUpstreamStrings) {
  Json body = Json::parse(R"({"disk_encryption":{"enable_on":"masters,workers","mode":"tang",
      "tang_servers":"[{\"url\":\"http://tang.example.com:7500\",\"thumbprint\":\"abc\"}]"}})");
  types::Cluster cluster;
  ASSERT_THAT(FromJson(ClusterModel(), body, kUpdate, &cluster), IsOk());
  EXPECT_THAT(cluster.disk_encryption().enable_on(),
              ::testing::ElementsAre(types::HOST_ROLE_MASTER, types::HOST_ROLE_WORKER));
  EXPECT_EQ(cluster.disk_encryption().mode(), types::DISK_ENCRYPTION_MODE_TANG);
  ASSERT_EQ(cluster.disk_encryption().tang_servers_size(), 1);
  EXPECT_EQ(cluster.disk_encryption().tang_servers(0).thumbprint(), "abc");
  Json shown = ToJson(ClusterModel(), cluster)["disk_encryption"];
  EXPECT_EQ(shown["enable_on"], "masters,workers");
  EXPECT_EQ(shown["mode"], "tang");
  EXPECT_EQ(Json::parse(shown["tang_servers"].get<std::string>()),
            Json::parse(R"([{"url":"http://tang.example.com:7500","thumbprint":"abc"}])"));

  // JSON text inside a string is bounded like a body: deep nesting is refused, not recursed.
  types::Cluster deep;
  Json nested = {
      {"disk_encryption", {{"tang_servers", std::string(200000, '[') + std::string(200000, ']')}}}};
  EXPECT_THAT(FromJson(ClusterModel(), nested, kUpdate, &deep),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::AllOf(HasSubstr("disk_encryption.tang_servers"),
                                        HasSubstr("nested deeper"))));

  cluster.mutable_disk_encryption()->add_enable_on(types::HOST_ROLE_ARBITER);
  EXPECT_EQ(ToJson(ClusterModel(), cluster)["disk_encryption"]["enable_on"], "all");
  for (const char* bad : {R"({"disk_encryption":{"enable_on":"bootstrap"}})",
                          R"({"disk_encryption":{"enable_on":["masters"]}})",
                          R"({"disk_encryption":{"tang_servers":"[{\"url\":1}]"}})",
                          R"({"disk_encryption":{"tang_servers":"not json"}})"}) {
    types::Cluster other;
    EXPECT_THAT(FromJson(ClusterModel(), Json::parse(bad), kUpdate, &other),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("disk_encryption")))
        << bad;
  }
}

TEST(HostModel, ShowsUpstreamJsonTypes) {
  types::Host host;
  host.set_id("8d0f2b1a-3c4e-4f5a-9b6c-7d8e9f0a1b2c");
  host.set_status(types::HOST_STATUS_KNOWN);
  host.mutable_timestamp()->set_seconds(1700000000);
  (*host.mutable_node_labels())["zone"] = "a";
  host.add_skip_formatting_disks("/dev/sdb");
  host.add_skip_formatting_disks("/dev/sdc");
  host.add_disks_to_be_formatted("/dev/sdd");
  host.mutable_progress()->mutable_stage_started_at()->set_seconds(1700000000);
  host.mutable_progress()->mutable_stage_updated_at()->set_seconds(1700000060);
  host.mutable_fencing_credentials()->set_address("https://bmc.example.com");
  host.mutable_fencing_credentials()->set_password_set(true);
  Json json = ToJson(HostModel(), host);
  EXPECT_EQ(json["timestamp"], 1700000000);
  EXPECT_EQ(json["node_labels"], R"({"zone":"a"})");
  EXPECT_EQ(json["skip_formatting_disks"], "/dev/sdb,/dev/sdc");
  EXPECT_EQ(json["disks_to_be_formatted"], "/dev/sdd");
  EXPECT_EQ(json["stage_started_at"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(json["stage_updated_at"], "2023-11-14T22:14:20Z");
  EXPECT_EQ(json["status_info"], "");
  EXPECT_EQ(json["bootstrap"], false);
  EXPECT_EQ(json["progress_stages"], Json::array());
  ASSERT_TRUE(json["fencing_credentials"].is_string()) << json.dump();
  EXPECT_EQ(Json::parse(json["fencing_credentials"].get<std::string>())["address"],
            "https://bmc.example.com");
}

TEST(HostModel, ShowsTheTypedReportsAsTheReferencesJsonStrings) {
  types::Host host;
  types::NtpSource* ntp = host.mutable_ntp_sources_report()->add_ntp_sources();
  ntp->set_source_name("clock");
  ntp->set_source_state("synced");
  host.mutable_connectivity_report()->add_remote_hosts()->set_host_id("h2");
  types::DiskInfo* disk = host.mutable_disks_info_report()->add_disks();
  disk->set_path("/dev/sda");
  disk->mutable_disk_speed()->set_tested(true);
  disk->mutable_disk_speed()->set_speed_ms(3);
  host.mutable_api_vip_connectivity_report()->set_is_success(true);
  Json json = ToJson(HostModel(), host);
  // Strings, as upstream shows them; lists bare where upstream stores a list.
  EXPECT_EQ(json["ntp_sources"], R"([{"source_name":"clock","source_state":"synced"}])");
  ASSERT_TRUE(json["connectivity"].is_string()) << json.dump();
  EXPECT_EQ(Json::parse(json["connectivity"].get<std::string>()),
            Json::parse(R"({"remote_hosts":[{"host_id":"h2","l2_connectivity":[],
                "l3_connectivity":[],"mtu_report":[]}]})"));
  ASSERT_TRUE(json["disks_info"].is_string()) << json.dump();
  EXPECT_EQ(Json::parse(json["disks_info"].get<std::string>())[0]["disk_speed"]["speed_ms"], 3);
  EXPECT_EQ(Json::parse(json["api_vip_connectivity"].get<std::string>())["is_success"], true);
  // Not reported: not shown, as before.
  EXPECT_FALSE(json.contains("images_status"));
  EXPECT_FALSE(json.contains("free_addresses"));
  EXPECT_FALSE(json.contains("ntp_sources_report"));
}

TEST(HostModel, InventoryDriveTypesUseTheReferenceSpelling) {
  // aictl's rootDeviceHints and the orchestrator's messages read "HDD", "ECKD (ESE)", as the
  // reference inventory spells them.
  types::Host host;
  host.mutable_inventory()->add_disks()->set_drive_type(types::DRIVE_TYPE_HDD);
  host.mutable_inventory()->add_disks()->set_drive_type(types::DRIVE_TYPE_ECKD_ESE);
  host.mutable_inventory()->add_disks()->set_drive_type(types::DRIVE_TYPE_VIRTUAL);
  Json json = ToJson(HostModel(), host);
  ASSERT_TRUE(json["inventory"].is_string()) << json.dump();
  const Json disks = Json::parse(json["inventory"].get<std::string>())["disks"];
  ASSERT_EQ(disks.size(), 3u) << disks.dump();
  EXPECT_EQ(disks[0]["drive_type"], "HDD");
  EXPECT_EQ(disks[1]["drive_type"], "ECKD (ESE)");
  EXPECT_EQ(disks[2]["drive_type"], "virtual");
}

TEST(HostModel, UpdateReadsSkipFormattingAndFencing) {
  types::Host host;
  absl::StatusOr<Decoded> decoded = FromJson(
      HostModel(),
      Json::parse(R"({"disks_skip_formatting":[{"disk_id":"/dev/sdb","skip_formatting":true},
          {"disk_id":"/dev/sdc","skip_formatting":false}],
          "fencing_credentials":{"address":"https://bmc","username":"u","password":"p",
          "certificate_verification":"Disabled"},"ignition_endpoint_http_headers":[]})"),
      kUpdate, &host);
  ASSERT_THAT(decoded, IsOk());
  EXPECT_THAT(decoded->skip_formatting, ::testing::ElementsAre(::testing::Pair("/dev/sdb", true),
                                                               ::testing::Pair("/dev/sdc", false)));
  EXPECT_EQ(host.fencing_credentials().password(), "p");
  EXPECT_THAT(decoded->mask.paths(), ::testing::UnorderedElementsAre("fencing_credentials"));
  types::Host other;
  EXPECT_THAT(FromJson(HostModel(), Json::parse(R"({"disks_skip_formatting":[{"disk_id":"a"}]})"),
                       kUpdate, &other),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("disks_skip_formatting[0].skip_formatting: required")));
  EXPECT_THAT(FromJson(HostModel(), Json::parse(R"({"ignition_endpoint_token":"secret"})"), kUpdate,
                       &other),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("ignition_endpoint_token")));
}

TEST(InfraEnvModel, ShowsListsAsJsonTextAndAcceptsTheRendezvousIp) {
  Json body = Json::parse(R"({"name":"d","pull_secret":"{}","rendezvous_ip":"192.168.1.10",
      "kernel_arguments":[{"operation":"append","value":"console=ttyS0"}],
      "static_network_config":[{"network_yaml":"interfaces: []",
          "mac_interface_map":[{"mac_address":"52:54:00:00:00:01","logical_nic_name":"eth0"}]}],
      "network_discovery_delay_seconds":0,"ntp_sources":""})");
  types::InfraEnv infra_env;
  ASSERT_THAT(FromJson(InfraEnvModel(), body, kCreate, &infra_env), IsOk());
  EXPECT_EQ(infra_env.rendezvous_ip(), "192.168.1.10");
  Json shown = ToJson(InfraEnvModel(), infra_env);
  EXPECT_EQ(shown["rendezvous_ip"], "192.168.1.10");
  ASSERT_TRUE(shown["kernel_arguments"].is_string()) << shown.dump();
  EXPECT_EQ(Json::parse(shown["kernel_arguments"].get<std::string>()),
            Json::parse(R"([{"operation":"append","value":"console=ttyS0"}])"));
  ASSERT_TRUE(shown["static_network_config"].is_string()) << shown.dump();
  EXPECT_EQ(Json::parse(shown["static_network_config"].get<std::string>())[0]["network_yaml"],
            "interfaces: []");
  types::InfraEnv delayed;
  EXPECT_THAT(
      FromJson(InfraEnvModel(), Json::parse(R"({"network_discovery_delay_seconds":30})"), kUpdate,
               &delayed),
      StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("network_discovery_delay_seconds")));
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
