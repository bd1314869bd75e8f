#include "services/orchestrator/instructions.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"
#include "nlohmann/json.hpp"

namespace assisted::orchestrator {
namespace {

using ::assisted::testing::IsOk;
using types::v1::Step;

Step MakeStep(types::v1::StepType type, std::vector<std::string> args, std::string id = "x") {
  Step step;
  step.set_step_type(type);
  step.set_step_id(std::move(id));
  for (std::string& arg : args) step.add_args(std::move(arg));
  return step;
}

TEST(NewWork, OnlyStepsWithNewTypesOrArgumentsAreNew) {
  const std::vector<SentStep> before = SentSteps(std::vector<Step>{
      MakeStep(types::v1::STEP_TYPE_INVENTORY, {"h"}),
      MakeStep(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, {R"({"ntp_source":"a"})"})});
  // The same work under new ids: nothing new.
  EXPECT_TRUE(NewWork(before, {MakeStep(types::v1::STEP_TYPE_INVENTORY, {"h"}, "y"),
                               MakeStep(types::v1::STEP_TYPE_NTP_SYNCHRONIZER,
                                        {R"({"ntp_source":"a"})"}, "z")})
                  .empty());
  // One argument changed and one type added: just those two, in order.
  const std::vector<Step> fresh =
      NewWork(before, {MakeStep(types::v1::STEP_TYPE_INVENTORY, {"h"}),
                       MakeStep(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, {R"({"ntp_source":"b"})"}),
                       MakeStep(types::v1::STEP_TYPE_DOMAIN_RESOLUTION, {"{}"})});
  ASSERT_EQ(fresh.size(), 2u);
  EXPECT_EQ(fresh[0].step_type(), types::v1::STEP_TYPE_NTP_SYNCHRONIZER);
  EXPECT_EQ(fresh[1].step_type(), types::v1::STEP_TYPE_DOMAIN_RESOLUTION);
  // Nothing before (a new stream): everything.
  EXPECT_EQ(NewWork({}, {MakeStep(types::v1::STEP_TYPE_INVENTORY, {"h"}),
                         MakeStep(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, {"{}"})})
                .size(),
            2u);
}

// What a stream remembers of its steps is their type and a digest of the arguments, not the
// arguments: a step whose arguments are kilobytes of JSON costs the hub the same as an empty one.
TEST(SentStep, RemembersTypeAndArgumentsDigestNotTheArguments) {
  const std::string big(64 << 10, 'x');
  const SentStep sent = Sent(MakeStep(types::v1::STEP_TYPE_DOMAIN_RESOLUTION, {big}));
  static_assert(sizeof(SentStep) <= 16, "a type and a digest, nothing of the arguments");
  EXPECT_EQ(sent, Sent(MakeStep(types::v1::STEP_TYPE_DOMAIN_RESOLUTION, {big}, "another-id")));
  EXPECT_FALSE(sent == Sent(MakeStep(types::v1::STEP_TYPE_DOMAIN_RESOLUTION, {big + "y"})));
  EXPECT_FALSE(sent == Sent(MakeStep(types::v1::STEP_TYPE_NTP_SYNCHRONIZER, {big})));
  // The argument boundaries count: {"ab"} is other work than {"a", "b"}.
  EXPECT_FALSE(Sent(MakeStep(types::v1::STEP_TYPE_INVENTORY, {"ab"})) ==
               Sent(MakeStep(types::v1::STEP_TYPE_INVENTORY, {"a", "b"})));
}

types::v1::Host HostWithNic(const std::string& id, const std::string& address) {
  types::v1::Host host;
  host.set_id(id);
  types::v1::Interface& nic = *host.mutable_inventory()->add_interfaces();
  nic.set_name("eth0");
  nic.set_mac_address("52:54:00:00:00:0" + id);
  if (!address.empty()) nic.add_ipv4_addresses(address);
  return host;
}

// Every other host with an inventory, by id, with the NICs that have addresses; rendered once
// per cluster (ConnectivityTargets) or per call, the same text.
TEST(StepArgs, ConnectivityCheckTargetsEveryOtherHostsAddressedNics) {
  types::v1::Cluster cluster;
  types::v1::Host no_inventory;
  no_inventory.set_id("4");
  const std::vector<types::v1::Host> hosts = {HostWithNic("3", "10.0.0.3/24"),
                                              HostWithNic("1", "10.0.0.1/24"), no_inventory,
                                              HostWithNic("2", "")};
  auto args = StepArgs(types::v1::STEP_TYPE_CONNECTIVITY_CHECK, {hosts[1], &cluster, hosts});
  ASSERT_THAT(args, IsOk());
  EXPECT_EQ(args->at(0),
            R"([{"host_id":"2","nics":[]},)"
            R"({"host_id":"3","nics":[{"ip_addresses":["10.0.0.3/24"],"mac":"52:54:00:00:00:03",)"
            R"("name":"eth0"}]}])");
  const ConnectivityTargets once(hosts);
  for (const types::v1::Host& host : hosts) {
    auto per_call = StepArgs(types::v1::STEP_TYPE_CONNECTIVITY_CHECK, {host, &cluster, hosts});
    auto shared = StepArgs(
        types::v1::STEP_TYPE_CONNECTIVITY_CHECK,
        {.host = host, .cluster = &cluster, .cluster_hosts = hosts, .connectivity = &once});
    ASSERT_THAT(per_call, IsOk());
    ASSERT_THAT(shared, IsOk());
    EXPECT_EQ(*shared, *per_call) << host.id();
  }
  // Alone, a host has no one to check.
  EXPECT_FALSE(
      StepArgs(types::v1::STEP_TYPE_CONNECTIVITY_CHECK, {hosts[1], &cluster, {hosts[1]}}).ok());
}

TEST(StepArgs, Day2HostsFetchTheirPoolFromTheClustersMachineConfigServer) {
  types::v1::Cluster cluster;
  cluster.set_name("demo");
  cluster.set_base_dns_domain("example.com");
  types::v1::Host host;
  host.set_id("h");
  const std::vector<types::v1::Host> hosts = {host};
  auto args = StepArgs(types::v1::STEP_TYPE_API_VIP_CONNECTIVITY_CHECK, {host, &cluster, hosts});
  ASSERT_THAT(args, IsOk());
  ASSERT_EQ(args->size(), 1u);
  EXPECT_EQ(nlohmann::json::parse((*args)[0])["url"],
            "http://api.demo.example.com:22623/config/worker");

  cluster.mutable_ignition_endpoint()->set_url("https://mcs.example.com/config/");
  cluster.mutable_ignition_endpoint()->set_ca_certificate("PEM");
  host.set_machine_config_pool_name("infra");
  args = StepArgs(types::v1::STEP_TYPE_API_VIP_CONNECTIVITY_CHECK, {host, &cluster, hosts});
  ASSERT_THAT(args, IsOk());
  const nlohmann::json parsed = nlohmann::json::parse((*args)[0]);
  EXPECT_EQ(parsed["url"], "https://mcs.example.com/config/infra");
  EXPECT_EQ(parsed["ca_certificate"], "UEVN");  // base64 of "PEM"

  EXPECT_FALSE(
      StepArgs(types::v1::STEP_TYPE_API_VIP_CONNECTIVITY_CHECK, {host, nullptr, hosts}).ok());
}

}  // namespace
}  // namespace assisted::orchestrator
