// File: fuzz/yaml_fuzzer.cc
//
// The YAML and JSON documents users and operators hand the services besides NMState (which has
// its own target): a first byte chooses
//   0  `aictl clusters create --file` (YamlToJson, services/gateway/cli/views.h);
//   1  the orchestrator's --timeouts-file (ApplyTimeoutsYaml, services/orchestrator);
//   2  a cluster's install_config_overrides, merged into install-config.yaml
//      (BuildInstallConfig, services/orchestrator/install).
// The rest is the document.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_input.h"
#include "services/gateway/cli/views.h"
#include "services/orchestrator/core/timeouts.h"
#include "services/orchestrator/install/install_config.h"
#include "services/orchestrator/timeouts_file.h"

namespace {

using assisted::types::v1::Cluster;

const Cluster& TheCluster() {
  static const Cluster* cluster = [] {
    auto* c = new Cluster();
    c->set_id("c1");
    c->set_name("c");
    c->set_base_dns_domain("example.com");
    c->set_openshift_version("4.16.3");
    c->set_control_plane_count(3);
    c->mutable_platform()->set_type(assisted::types::v1::PLATFORM_TYPE_BAREMETAL);
    c->add_machine_networks()->set_cidr("10.0.0.0/24");
    assisted::types::v1::ClusterNetwork* pods = c->add_cluster_networks();
    pods->set_cidr("10.128.0.0/14");
    pods->set_host_prefix(23);
    c->add_service_networks()->set_cidr("172.30.0.0/16");
    c->add_api_vips()->set_ip("10.0.0.5");
    c->add_ingress_vips()->set_ip("10.0.0.6");
    c->set_network_type(assisted::types::v1::NETWORK_TYPE_OVN_KUBERNETES);
    return c;
  }();
  return *cluster;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  assisted::fuzz::FuzzInput in(data, size);
  const uint8_t choice = in.Byte() % 3;
  const absl::string_view document = in.Rest();
  switch (choice) {
    case 0:
      (void)assisted::cli::YamlToJson(document);
      break;
    case 1:
      (void)assisted::orchestrator::ApplyTimeoutsYaml(document,
                                                      assisted::orchestrator::core::Timeouts{});
      break;
    case 2: {
      Cluster cluster = TheCluster();
      cluster.set_install_config_overrides(std::string(document));
      assisted::orchestrator::install::InstallConfigInput input{
          .cluster = cluster, .pull_secret = R"({"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}})"};
      (void)assisted::orchestrator::install::BuildInstallConfig(input);
      break;
    }
  }
  return 0;
}
