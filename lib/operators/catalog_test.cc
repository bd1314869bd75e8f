#include "lib/operators/catalog.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "yaml-cpp/yaml.h"

namespace assisted::operators {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

TEST(OperatorCatalog, InstallsLsoAndLvmAndNamesUpstreamsOthersAsNotSupported) {
  ASSERT_NE(FindOperator("lso"), nullptr);
  ASSERT_NE(FindOperator("lvm"), nullptr);
  EXPECT_EQ(FindOperator("odf"), nullptr);
  for (absl::string_view name : UnsupportedOperators()) EXPECT_EQ(FindOperator(name), nullptr);
}

TEST(OperatorCatalog, ASelectionResolvesInTableOrderEachOnce) {
  auto resolved = ResolveSelection({"lvm", "lso", "lvm"}, "olm_operators");
  ASSERT_THAT(resolved, IsOk());
  ASSERT_EQ(resolved->size(), 2u);
  EXPECT_EQ((*resolved)[0]->name, "lso");
  EXPECT_EQ((*resolved)[1]->name, "lvm");
}

TEST(OperatorCatalog, ASelectionOfWhatIsNotInstalledHereIsRefusedNamingTheEntry) {
  EXPECT_THAT(ResolveSelection({"lvm", "odf"}, "olm_operators"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("olm_operators[1].name: \"odf\" is not supported by this "
                                 "service yet")));
  EXPECT_THAT(ResolveSelection({"bogus"}, "olm_operators"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("olm_operators[0].name: \"bogus\" is not a known operator")));
  EXPECT_THAT(ResolveSelection({""}, "olm_operators"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("[0].name: required")));
}

TEST(OperatorCatalog, TheSelectionIsKeptAsOlmMonitoredOperators) {
  types::v1::Cluster cluster;
  *cluster.add_monitored_operators() = MonitoredOperatorOf(*FindOperator("lvm"));
  cluster.add_monitored_operators()->set_name("console");  // builtin: not a selection
  const types::v1::MonitoredOperator& lvm = cluster.monitored_operators(0);
  EXPECT_EQ(lvm.operator_type(), types::v1::OPERATOR_TYPE_OLM);
  EXPECT_EQ(lvm.namespace_(), "openshift-storage");
  EXPECT_EQ(lvm.subscription_name(), "lvms-operator");
  EXPECT_EQ(lvm.timeout_seconds(), 30 * 60);
  std::vector<const OperatorSpec*> selected = SelectedOperators(cluster);
  ASSERT_EQ(selected.size(), 1u);
  EXPECT_EQ(selected[0]->name, "lvm");
}

TEST(OperatorCatalog, LvmManifestsAreNamespaceOperatorGroupSubscriptionAndLvmCluster) {
  std::vector<OperatorManifest> files = ManifestsOf(*FindOperator("lvm"));
  ASSERT_EQ(files.size(), 4u);
  const char* kinds[] = {"Namespace", "OperatorGroup", "Subscription", "LVMCluster"};
  const char* names[] = {"50_openshift-lvm_ns.yaml", "50_openshift-lvm_operator_group.yaml",
                         "50_openshift-lvm_subscription.yaml", "50_openshift-lvm_lvmcluster.yaml"};
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(files[i].file_name, names[i]);
    YAML::Node doc = YAML::Load(files[i].content);
    EXPECT_EQ(doc["kind"].as<std::string>(), kinds[i]) << files[i].content;
    if (i > 0) {
      EXPECT_EQ(doc["metadata"]["namespace"].as<std::string>(), "openshift-storage");
    }
  }
  EXPECT_EQ(YAML::Load(files[2].content)["spec"]["name"].as<std::string>(), "lvms-operator");
}

TEST(OperatorCatalog, LsoManifestsEndWithItsLocalVolumeSet) {
  std::vector<OperatorManifest> files = ManifestsOf(*FindOperator("lso"));
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(YAML::Load(files[3].content)["kind"].as<std::string>(), "LocalVolumeSet");
  EXPECT_EQ(YAML::Load(files[0].content)["metadata"]["name"].as<std::string>(),
            "openshift-local-storage");
}

}  // namespace
}  // namespace assisted::operators
