#include "services/gateway/cli/views.h"

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::cli {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string WriteTemp(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << content;
  return path;
}

TEST(YamlToJson, KeepsTypesAndQuotedText) {
  auto parsed = YamlToJson(R"(
name: demo
control_plane_count: 3
user_managed_networking: false
openshift_version: "4.16"
ratio: 0.5
api_vips:
  - ip: 192.168.122.5
empty:
)");
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ((*parsed)["name"], "demo");
  EXPECT_EQ((*parsed)["control_plane_count"], 3);
  EXPECT_EQ((*parsed)["user_managed_networking"], false);
  EXPECT_EQ((*parsed)["openshift_version"], "4.16");  // quoted: stays text
  EXPECT_EQ((*parsed)["ratio"], 0.5);
  EXPECT_EQ((*parsed)["api_vips"][0]["ip"], "192.168.122.5");
  EXPECT_TRUE((*parsed)["empty"].is_null());
  EXPECT_THAT(YamlToJson("a: [1, 2"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ClusterCreateBody, FlagsOverrideTheFileAndFilesAreRead) {
  ClusterFlags flags;
  flags.file = WriteTemp("cluster.yaml",
                         "name: from-file\nbase_dns_domain: example.com\nopenshift_version: "
                         "\"4.16\"\n");
  flags.name = "demo";
  flags.pull_secret_file = WriteTemp("pull-secret", "{\"auths\":{}}\n");
  flags.ssh_key_file = WriteTemp("id.pub", "ssh-ed25519 AAAA demo\n");
  flags.control_plane_count = 3;
  flags.api_vips = "192.168.122.5";
  flags.ingress_vips = "192.168.122.6";
  flags.machine_networks = "192.168.122.0/24, 10.0.0.0/16";
  flags.cluster_network = "10.128.0.0/14/23";
  flags.service_network = "172.30.0.0/16";
  auto body = ClusterCreateBody(flags);
  ASSERT_THAT(body, IsOk());
  EXPECT_EQ((*body)["name"], "demo");
  EXPECT_EQ((*body)["base_dns_domain"], "example.com");
  EXPECT_EQ((*body)["openshift_version"], "4.16");
  EXPECT_EQ((*body)["pull_secret"], "{\"auths\":{}}");
  EXPECT_EQ((*body)["ssh_public_key"], "ssh-ed25519 AAAA demo");
  EXPECT_EQ((*body)["control_plane_count"], 3);
  EXPECT_EQ((*body)["api_vips"], json::parse(R"([{"ip":"192.168.122.5"}])"));
  EXPECT_EQ((*body)["machine_networks"][1]["cidr"], "10.0.0.0/16");
  EXPECT_EQ((*body)["cluster_networks"],
            json::parse(R"([{"cidr":"10.128.0.0/14","host_prefix":23}])"));
  EXPECT_EQ((*body)["service_networks"][0]["cidr"], "172.30.0.0/16");
  EXPECT_FALSE(body->contains("user_managed_networking"));
}

TEST(ClusterCreateBody, BadInputNamesTheFlagOrFile) {
  ClusterFlags missing;
  missing.pull_secret_file = "/nonexistent/pull-secret";
  EXPECT_THAT(ClusterCreateBody(missing).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--pull-secret-file")));
  ClusterFlags list;
  list.file = WriteTemp("list.yaml", "- a\n- b\n");
  EXPECT_THAT(ClusterCreateBody(list).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("list.yaml")));
  ClusterFlags network;
  network.cluster_network = "10.128.0.0/14";
  EXPECT_THAT(ClusterCreateBody(network).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--cluster-network")));
}

json Host(const std::string& id, const std::string& name, const std::string& status) {
  return {{"id", id},
          {"requested_hostname", name},
          {"status", status},
          {"role", "master"},
          {"validations_info",
           json{{"hardware",
                 {{{"id", "has-min-cpu-cores"}, {"status", "failure"}, {"message", "2 cores"}},
                  {{"id", "has-min-memory"}, {"status", "success"}, {"message", "ok"}}}},
                {"network", {{{"id", "ntp"}, {"status", "failure"}, {"message", "no NTP"}}}}}
               .dump()}};
}

TEST(HostViews, NamesFailingValidationsAndStages) {
  json host = Host("2b0c", "", "insufficient");
  host["inventory"] = json{{"hostname", "from-inventory"}}.dump();
  EXPECT_EQ(HostName(host), "from-inventory");
  host.erase("inventory");
  EXPECT_EQ(HostName(host), "2b0c");
  EXPECT_THAT(FailingValidations(host), ElementsAre("2 cores", "no NTP"));

  json installing = Host("aaaa", "master-0", "installing-in-progress");
  installing["progress"] = {{"current_stage", "Writing image to disk"}, {"progress_info", "45%"}};
  EXPECT_THAT(ProgressLine(installing), HasSubstr("Writing image to disk 45%"));
  const std::string table = HostTable(json::array({installing, Host("bbbb", "a-host", "known")}));
  EXPECT_THAT(table, HasSubstr("FAILING VALIDATIONS"));
  EXPECT_LT(table.find("a-host"), table.find("master-0"));  // sorted by name
  EXPECT_THAT(table, HasSubstr("2 cores; no NTP"));
}

TEST(ProgressBar, ShowsFractionAndSizes) {
  EXPECT_EQ(ProgressBar(512 << 10, 1 << 20, 10), "[#####-----]  50%  0.5/1.0 MiB");
  EXPECT_EQ(ProgressBar(3 << 20, -1), "3.0 MiB");
  EXPECT_EQ(ProgressBar(5, 4, 4), "[####] 100%  0.0/0.0 MiB");
}

TEST(JsonToYaml, ReadsBackAsTheSameJsonEvenForStringsThatLookLikeOtherTypes) {
  const nlohmann::json value = {
      {"name", "demo"},
      {"tricky", {"true", "1.0", "", "null", "a: b", "- x", "two\nlines", "#hash", "~"}},
      {"count", 3},
      {"ratio", 0.5},
      {"ok", false},
      {"nothing", nullptr},
      {"nested", {{"list", nlohmann::json::array()}, {"map", nlohmann::json::object()}}}};
  const std::string yaml = JsonToYaml(value);
  absl::StatusOr<nlohmann::json> back = YamlToJson(yaml);
  ASSERT_TRUE(back.ok()) << back.status() << "\n" << yaml;
  EXPECT_EQ(*back, value) << yaml;
  EXPECT_THAT(yaml, ::testing::HasSubstr("name: demo\n"));
}

TEST(Names, IdsElseNamesElsePathsOnePerLine) {
  EXPECT_EQ(Names(nlohmann::json::array(
                {{{"id", "a"}, {"name", "x"}}, {{"name", "b"}}, {{"path", "/c"}}, {{"size", 1}}})),
            "a\nb\n/c\n");
  EXPECT_EQ(Names({{"id", "only"}}), "only\n");
}

}  // namespace
}  // namespace assisted::cli
