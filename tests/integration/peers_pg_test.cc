// Who may call what (docs/security.md): the orchestrator's agent port serves the agents and the
// post-reboot reporter only, each with a token of its own kind and scope, and the internal
// services refuse peers without a client certificate of the internal CA.
#include <fstream>
#include <functional>
#include <map>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "assisted/image/v1/image_service.grpc.pb.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "assisted/orchestrator/v1/controller_service.grpc.pb.h"
#include "assisted/orchestrator/v1/orchestrator_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "lib/auth/token.h"
#include "lib/grpc/channel.h"
#include "lib/grpc/identity.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "services/agent/boot/discovery_media.h"
#include "services/orchestrator/controller_token.h"
#include "tests/harness/certificates.h"
#include "tests/harness/image_service.h"
#include "tests/harness/postgres_test.h"
#include "tests/harness/probes.h"
#include "tests/harness/service_launcher.h"
#include "tests/harness/stack.h"

namespace assisted::testing {
namespace {

namespace img = ::assisted::image::v1;
namespace inv = ::assisted::inventory::v1;
namespace orch = ::assisted::orchestrator::v1;

constexpr char kUrlKey[] = "peers-test-url-signing-key-0123456789abcdef";
constexpr char kPullSecret[] = R"({"auths":{"quay.io":{"auth":"eDp5"}}})";
// What org "victims" has to lose.
constexpr char kVictimCluster[] = "victims-cluster";
constexpr char kVictimPullSecret[] = R"({"auths":{"quay.io":{"auth":"dmljdGltOnNlY3JldA=="}}})";
constexpr char kVictimCaKey[] =
    "-----BEGIN PRIVATE KEY-----\nvictims-root-ca-key\n-----END PRIVATE KEY-----\n";

std::shared_ptr<grpc::Channel> Plaintext(const std::string& target) {
  return grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
}

std::unique_ptr<grpc::ClientContext> Context(const std::string& bearer = "") {
  auto context = grpcutil::ContextWithin(absl::Seconds(10));
  if (!bearer.empty()) context->AddMetadata("authorization", "Bearer " + bearer);
  return context;
}

std::string WriteTestFile(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << content;
  return path;
}

// A cluster and its infra-env, created over `inventory` on behalf of `owner` (the gateway's
// call for that user; none: a service's own call).
struct ClusterAndInfraEnv {
  std::string cluster_id, infra_env_id;
};
ClusterAndInfraEnv CreateClusterAndInfraEnv(inv::InventoryService::Stub& inventory,
                                            const std::string& name, const std::string& pull_secret,
                                            const grpcutil::Identity& owner = {}) {
  auto as_owner = [&] {
    auto context = Context();
    grpcutil::SetIdentity(*context, owner);
    return context;
  };
  inv::CreateClusterRequest create_cluster;
  create_cluster.mutable_cluster()->set_name(name);
  create_cluster.mutable_cluster()->set_openshift_version("4.16");
  create_cluster.mutable_cluster()->set_base_dns_domain("example.com");
  create_cluster.set_pull_secret(pull_secret);
  types::v1::Cluster cluster;
  EXPECT_TRUE(inventory.CreateCluster(as_owner().get(), create_cluster, &cluster).ok());
  inv::CreateInfraEnvRequest create_infra_env;
  create_infra_env.mutable_infra_env()->set_name(name);
  create_infra_env.mutable_infra_env()->set_cluster_id(cluster.id());
  create_infra_env.set_pull_secret(pull_secret);
  types::v1::InfraEnv infra_env;
  EXPECT_TRUE(inventory.CreateInfraEnv(as_owner().get(), create_infra_env, &infra_env).ok());
  return {cluster.id(), infra_env.id()};
}

// The inventory and an orchestrator that authenticates agents (and so controllers), on
// loopback without TLS as the harness runs them.
class AgentPortTest : public StackTest {
 protected:
  StackOptions Options() const override {
    return {.authenticate_agents = true, .url_signing_key = kUrlKey};
  }

  // A cluster, its infra-env and one host of it: {cluster id, infra-env id, host id}.
  struct ClusterWithHost {
    std::string cluster_id, infra_env_id, host_id;
  };
  ClusterWithHost MakeCluster(const std::string& name, const std::string& host_id) {
    const ClusterAndInfraEnv made =
        CreateClusterAndInfraEnv(stack().inventory_stub(), name, kPullSecret);
    inv::CreateHostRequest create_host;
    create_host.mutable_host()->set_id(host_id);
    create_host.mutable_host()->set_infra_env_id(made.infra_env_id);
    create_host.mutable_host()->set_cluster_id(made.cluster_id);
    create_host.mutable_host()->set_status(types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS);
    types::v1::Host host;
    EXPECT_TRUE(stack().inventory_stub().CreateHost(Context().get(), create_host, &host).ok());
    return {made.cluster_id, made.infra_env_id, host_id};
  }
};

// Attack: a host on the agents' network calls the management API (install, reset, host edits
// with Ignition overrides, ingress CA upload...) on the agent port, with no credential at all.
TEST_F(AgentPortTest, TheManagementApiIsNotServedOnTheAgentPort) {
  const ClusterWithHost victim = MakeCluster("victim", "6f1c3b4e-2a9d-4c1e-9b7a-0d2e5f8a1c01");
  auto on_agent_port = orch::OrchestratorService::NewStub(Plaintext(orchestrator().grpc_target()));
  orch::InstallClusterRequest install;
  install.set_cluster_id(victim.cluster_id);
  types::v1::Cluster cluster;
  EXPECT_EQ(on_agent_port->InstallCluster(Context().get(), install, &cluster).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
  orch::UpdateFinalizingProgressRequest finalizing;
  finalizing.set_cluster_id(victim.cluster_id);
  finalizing.set_finalizing_stage(types::v1::FINALIZING_STAGE_DONE);
  EXPECT_EQ(
      on_agent_port->UpdateFinalizingProgress(Context().get(), finalizing, &cluster).error_code(),
      grpc::StatusCode::UNIMPLEMENTED);

  // The internal listener serves it (the state machine answers: the cluster is not ready).
  auto internal =
      orch::OrchestratorService::NewStub(Plaintext(orchestrator().internal_grpc_target()));
  EXPECT_EQ(internal->InstallCluster(Context().get(), install, &cluster).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

// Attack: the post-reboot reporter's calls, made by anyone on the agents' network: with no
// token, with an agent token (from any discovery ISO), with another cluster's controller token.
TEST_F(AgentPortTest, ControllerCallsNeedAControllerTokenOfTheirOwnCluster) {
  const ClusterWithHost mine = MakeCluster("mine", "6f1c3b4e-2a9d-4c1e-9b7a-0d2e5f8a1c02");
  const ClusterWithHost other = MakeCluster("other", "6f1c3b4e-2a9d-4c1e-9b7a-0d2e5f8a1c03");
  const orchestrator::ControllerTokens tokens(kUrlKey);
  const std::string my_token = *tokens.Issue(mine.cluster_id, absl::Now());
  const std::string other_token = *tokens.Issue(other.cluster_id, absl::Now());
  // An agent token of the cluster's infra-env (its infra-env key does not matter: no agent
  // token is a controller token).
  const std::string agent_token =
      *auth::SignToken({.service = kUrlKey, .infra_env = "some infra-env signing key"},
                       auth::TokenPurpose::kAgent, mine.infra_env_id, absl::Now() + absl::Hours(1));

  auto controller = orch::ControllerService::NewStub(Plaintext(orchestrator().grpc_target()));
  auto finalize = [&](const std::string& bearer) {
    orch::UpdateFinalizingProgressRequest request;
    request.set_cluster_id(mine.cluster_id);
    request.set_finalizing_stage(types::v1::FINALIZING_STAGE_DONE);
    types::v1::Cluster cluster;
    return controller->UpdateFinalizingProgress(Context(bearer).get(), request, &cluster)
        .error_code();
  };
  auto complete = [&](const std::string& bearer) {
    orch::CompleteInstallationRequest request;
    request.set_cluster_id(mine.cluster_id);
    request.set_is_success(true);
    types::v1::Cluster cluster;
    return controller->CompleteInstallation(Context(bearer).get(), request, &cluster).error_code();
  };
  auto host_done = [&](const std::string& bearer) {
    orch::UpdateHostProgressRequest request;
    request.set_infra_env_id(mine.infra_env_id);
    request.set_host_id(mine.host_id);
    request.set_current_stage(types::v1::HOST_STAGE_DONE);
    types::v1::Host host;
    return controller->UpdateHostProgress(Context(bearer).get(), request, &host).error_code();
  };
  for (const auto& call : {std::function<grpc::StatusCode(const std::string&)>(finalize),
                           std::function<grpc::StatusCode(const std::string&)>(complete),
                           std::function<grpc::StatusCode(const std::string&)>(host_done)}) {
    EXPECT_EQ(call(""), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(call(agent_token), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(call("not-a-token"), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(call(other_token), grpc::StatusCode::PERMISSION_DENIED);
  }
  // With its own token the call reaches the state machine, which judges it (the cluster is
  // not finalizing, so it refuses it for that reason alone).
  EXPECT_EQ(finalize(my_token), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(complete(my_token), grpc::StatusCode::FAILED_PRECONDITION);
  // The host is installing: its stage is recorded.
  EXPECT_EQ(host_done(my_token), grpc::StatusCode::OK);
}

// An internal deployment: every internal listener checks client certificates of the internal
// CA, every internal channel presents one.
class MutualTlsTest : public PostgresTest {
 protected:
  void SetUp() override {
    PostgresTest::SetUp();
    auto ca = TestCa::Create(::testing::TempDir() + "/internal-pki", "internal");
    ASSERT_THAT(ca, IsOk());
    ca_file_ = ca->ca_file();
    for (const std::string name : {"inventory", "orchestrator", "image", "gateway"}) {
      auto issued = ca->Issue("assisted-" + name);
      ASSERT_THAT(issued, IsOk());
      certs_[name] = *issued;
    }
    auto rogue_ca = TestCa::Create(::testing::TempDir() + "/rogue-pki", "rogue");
    ASSERT_THAT(rogue_ca, IsOk());
    auto rogue = rogue_ca->Issue("assisted-gateway");  // the right name, the wrong CA
    ASSERT_THAT(rogue, IsOk());
    rogue_ = *rogue;

    auto inventory = LaunchedService::Launch(
        {.binary = "services/inventory/assisted-inventory",
         .args = {"--postgres-dsn=" + dsn(), "--tls-cert=" + certs_["inventory"].cert,
                  "--tls-key=" + certs_["inventory"].key, "--tls-client-ca=" + ca_file_},
         .probe_channel = ServiceChannel("gateway")});
    ASSERT_THAT(inventory, IsOk());
    inventory_ = *std::move(inventory);
  }

  // What an internal service's channel uses: the internal CA and its own certificate.
  grpcutil::ChannelOptions ServiceChannel(const std::string& name) {
    return {.ca_bundle_file = ca_file_,
            .client_cert_file = certs_[name].cert,
            .client_key_file = certs_[name].key};
  }

  std::unique_ptr<inv::InventoryService::Stub> InventoryAs(
      const grpcutil::ChannelOptions& options) {
    return inv::InventoryService::NewStub(
        *grpcutil::MakeChannel(inventory_->grpc_target(), options));
  }

  // What org "victims" owns, made as the gateway makes it for their user "alice": a cluster
  // with its pull secret and an infra-env; and the cluster's root CA key, which the
  // orchestrator stores as an artifact.
  using Victims = ClusterAndInfraEnv;
  Victims SeedVictims() {
    const Victims victims =
        CreateClusterAndInfraEnv(*InventoryAs(ServiceChannel("gateway")), kVictimCluster,
                                 kVictimPullSecret, {.user = "alice", .org = "victims"});
    inv::PutArtifactRequest put;
    put.set_cluster_id(victims.cluster_id);
    put.set_name("tls/root-ca.key");
    put.set_kind(inv::ARTIFACT_KIND_CREDENTIALS);
    put.set_content_type("application/x-pem-file");
    put.set_content(kVictimCaKey);
    inv::ArtifactInfo info;
    EXPECT_TRUE(
        InventoryAs(ServiceChannel("orchestrator"))->PutArtifact(Context().get(), put, &info).ok());
    return victims;
  }

  // One read an attacker tries: the call, its answer, and the victims' data it returned (empty
  // unless it answered OK).
  struct Read {
    std::string call;
    grpc::Status status;
    std::string victim_data;
    // Only the services themselves may make it: even the gateway's certificate gets
    // PERMISSION_DENIED when the call carries a user's identity.
    bool services_only = false;
  };
  using Reads = std::function<std::vector<Read>(const grpcutil::ChannelOptions& channel,
                                                const grpcutil::Identity& identity)>;

  // Makes `reads` over every channel an outsider on the internal network can open (no TLS,
  // TLS without a client certificate, a certificate of a rogue CA), claiming to be user
  // "mallory" of org "victims" and claiming no identity at all (every tenant's): each one is
  // refused. Then with the gateway's certificate and the same claims: each one answers (but
  // for a user's claim to a services-only read).
  void ExpectOnlyTheInternalCaOpens(const Reads& reads) {
    const std::vector<std::pair<std::string, grpcutil::Identity>> claims = {
        {"mallory/victims", {.user = "mallory", .org = "victims"}}, {"no identity", {}}};
    const std::vector<std::pair<std::string, grpcutil::ChannelOptions>> outsiders = {
        {"plaintext", {}},
        {"TLS without a client certificate", {.ca_bundle_file = ca_file_}},
        {"a certificate of a rogue CA",
         {.ca_bundle_file = ca_file_,
          .client_cert_file = rogue_.cert,
          .client_key_file = rogue_.key}}};
    for (const auto& [how, channel] : outsiders) {
      for (const auto& [who, identity] : claims) {
        for (const Read& read : reads(channel, identity)) {
          EXPECT_FALSE(read.status.ok()) << read.call << " as " << who << " over " << how
                                         << " returned OK with \"" << read.victim_data << "\"";
        }
      }
    }
    for (const auto& [who, identity] : claims) {
      for (const Read& read : reads(ServiceChannel("gateway"), identity)) {
        if (read.services_only && !identity.system()) {
          EXPECT_EQ(read.status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << read.call;
          continue;
        }
        EXPECT_TRUE(read.status.ok()) << read.call << " as " << who << " with the gateway's "
                                      << "certificate: " << read.status.error_message();
        EXPECT_NE(read.victim_data, "") << read.call << " as " << who;
      }
    }
  }

  // A context for one attempt: an outsider's call fails at once instead of waiting for a
  // connection its credentials cannot make.
  static std::unique_ptr<grpc::ClientContext> AttemptAs(const grpcutil::Identity& identity) {
    auto context = grpcutil::ProbeContextWithin(absl::Seconds(10));
    grpcutil::SetIdentity(*context, identity);
    return context;
  }

  // One unary `method` of `stub` with `request`, claiming `identity`, as a Read; `pick` says
  // what of the victims' data its response holds.
  template <typename Stub, typename Request, typename Response, typename Pick>
  static Read Attempt(std::string call, Stub& stub,
                      grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&, Response*),
                      const Request& request, const grpcutil::Identity& identity, Pick pick) {
    Response response;
    Read read{.call = std::move(call),
              .status = (stub.*method)(AttemptAs(identity).get(), request, &response)};
    read.victim_data = pick(response);
    return read;
  }

  // The inventory's reads of the victims' data: their clusters, their cluster, its pull
  // secret, its root CA key, and the key that signs their infra-env's agent tokens.
  std::vector<Read> ReadFromInventory(const Victims& victims,
                                      const grpcutil::ChannelOptions& channel,
                                      const grpcutil::Identity& identity) {
    using Stub = inv::InventoryService::Stub;
    auto stub = InventoryAs(channel);
    std::vector<Read> reads;
    reads.push_back(Attempt("ListClusters", *stub, &Stub::ListClusters, inv::ListClustersRequest(),
                            identity, [&](const inv::ListClustersResponse& response) {
                              for (const types::v1::Cluster& cluster : response.clusters()) {
                                if (cluster.id() == victims.cluster_id) return cluster.name();
                              }
                              return std::string();
                            }));
    inv::GetClusterRequest get_cluster;
    get_cluster.set_id(victims.cluster_id);
    reads.push_back(Attempt("GetCluster", *stub, &Stub::GetCluster, get_cluster, identity,
                            [](const types::v1::Cluster& cluster) { return cluster.name(); }));
    inv::GetPullSecretRequest get_pull_secret;
    get_pull_secret.set_cluster_id(victims.cluster_id);
    reads.push_back(
        Attempt("GetPullSecret", *stub, &Stub::GetPullSecret, get_pull_secret, identity,
                [](const inv::GetPullSecretResponse& response) { return response.pull_secret(); }));
    inv::GetArtifactRequest get_artifact;
    get_artifact.set_cluster_id(victims.cluster_id);
    get_artifact.set_name("tls/root-ca.key");
    reads.push_back(Attempt("GetArtifact(tls/root-ca.key)", *stub, &Stub::GetArtifact, get_artifact,
                            identity,
                            [](const inv::Artifact& artifact) { return artifact.content(); }));
    inv::GetInfraEnvSigningKeyRequest get_signing_key;
    get_signing_key.set_infra_env_id(victims.infra_env_id);
    reads.push_back(Attempt(
        "GetInfraEnvSigningKey", *stub, &Stub::GetInfraEnvSigningKey, get_signing_key, identity,
        [](const inv::GetInfraEnvSigningKeyResponse& response) { return response.signing_key(); }));
    reads.back().services_only = true;
    return reads;
  }

  // The image service's answers about the victims' infra-env: its discovery Ignition (the
  // agent token in it), the signed links that download it (ISO, iPXE script).
  static std::vector<Read> ReadFromImageService(const std::string& target, const Victims& victims,
                                                const grpcutil::ChannelOptions& channel,
                                                const grpcutil::Identity& identity) {
    using Stub = img::ImageService::Stub;
    auto stub = img::ImageService::NewStub(*grpcutil::MakeChannel(target, channel));
    std::vector<Read> reads;
    img::GetDiscoveryIgnitionRequest get_ignition;
    get_ignition.set_infra_env_id(victims.infra_env_id);
    reads.push_back(
        Attempt("GetDiscoveryIgnition", *stub, &Stub::GetDiscoveryIgnition, get_ignition, identity,
                [](const img::GetDiscoveryIgnitionResponse& response) {
                  // What a host would boot with: the agent token is the prize.
                  auto settings = agent::boot::SettingsFromIgnition(response.ignition_json());
                  return settings.ok() ? settings->agent_token : response.ignition_json();
                }));
    img::GetImageUrlRequest get_url;
    get_url.set_infra_env_id(victims.infra_env_id);
    reads.push_back(
        Attempt("GetImageUrl", *stub, &Stub::GetImageUrl, get_url, identity,
                [](const img::GetImageUrlResponse& response) { return response.url(); }));
    img::GetIpxeScriptRequest get_ipxe;
    get_ipxe.set_infra_env_id(victims.infra_env_id);
    reads.push_back(
        Attempt("GetIpxeScript", *stub, &Stub::GetIpxeScript, get_ipxe, identity,
                [](const img::GetIpxeScriptResponse& response) { return response.url(); }));
    return reads;
  }

  std::string ca_file_;
  std::map<std::string, CertificateFiles> certs_;
  CertificateFiles rogue_;
  std::unique_ptr<LaunchedService> inventory_;
};

// Attack: a caller that can reach the inventory's port claims a tenant's identity (or none,
// which is every tenant's) without being one of the project's services, and reads the
// tenant's clusters, pull secret, root CA key and agent-token signing key.
TEST_F(MutualTlsTest, OnlyCallersWithACertificateOfTheInternalCaReadATenantsDataFromTheInventory) {
  const Victims victims = SeedVictims();
  ExpectOnlyTheInternalCaOpens(
      [&](const grpcutil::ChannelOptions& channel, const grpcutil::Identity& identity) {
        return ReadFromInventory(victims, channel, identity);
      });
}

// `aictl health` probes an internal port as the services call it (the chart's helm test and an
// operator's shell): before, it spoke plaintext only, so a port under mutual TLS read UNAVAILABLE.
TEST_F(MutualTlsTest, AictlHealthProbesAnInternalPortWithAClientCertificate) {
  const auto aictl = [&](std::vector<std::string> flags) {
    std::vector<std::string> argv = {RunfilePath("services/gateway/cli/aictl"), "health",
                                     "--timeout=5s"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back(inventory_->grpc_target());
    process::LocalProcessRunner runner;
    return runner.Run({.argv = argv});
  };
  absl::StatusOr<process::CommandResult> plaintext = aictl({"--timeout=1s"});
  ASSERT_THAT(plaintext, IsOk());
  EXPECT_EQ(plaintext->exit_code, 1) << plaintext->stdout_data;
  absl::StatusOr<process::CommandResult> no_certificate = aictl({"--internal-ca=" + ca_file_});
  ASSERT_THAT(no_certificate, IsOk());
  EXPECT_EQ(no_certificate->exit_code, 1) << no_certificate->stdout_data;
  absl::StatusOr<process::CommandResult> rogue =
      aictl({"--internal-ca=" + ca_file_, "--internal-client-cert=" + rogue_.cert,
             "--internal-client-key=" + rogue_.key});
  ASSERT_THAT(rogue, IsOk());
  EXPECT_EQ(rogue->exit_code, 1) << rogue->stdout_data;
  absl::StatusOr<process::CommandResult> mutual =
      aictl({"--internal-ca=" + ca_file_, "--internal-client-cert=" + certs_["gateway"].cert,
             "--internal-client-key=" + certs_["gateway"].key});
  ASSERT_THAT(mutual, IsOk());
  EXPECT_EQ(mutual->exit_code, 0) << mutual->stdout_data << mutual->stderr_data;
  EXPECT_THAT(mutual->stdout_data, ::testing::HasSubstr("SERVING"));
}

// Attack: a caller that can reach the image service's gRPC port asks for an infra-env's
// discovery Ignition, which carries an agent token valid for ten years, or for the signed
// links that download it (the ISO and the iPXE script).
TEST_F(MutualTlsTest,
       OnlyCallersWithACertificateOfTheInternalCaGetDiscoveryMediaFromTheImageService) {
  const Victims victims = SeedVictims();
  auto image = LaunchImageService(
      {.dir = ::testing::TempDir() + "/image",
       .inventory_address = inventory_->grpc_target(),
       .url_signing_key_file = WriteTestFile("url.key", kUrlKey),
       .extra_args = {"--tls-cert=" + certs_["image"].cert, "--tls-key=" + certs_["image"].key,
                      "--tls-client-ca=" + ca_file_, "--internal-ca=" + ca_file_,
                      "--internal-client-cert=" + certs_["image"].cert,
                      "--internal-client-key=" + certs_["image"].key},
       .probe_channel = ServiceChannel("gateway")});
  ASSERT_THAT(image, IsOk());
  auto cleanup = absl::Cleanup([&] {
    if (HasFailure()) std::cerr << image->service->Log();
  });
  ExpectOnlyTheInternalCaOpens(
      [&](const grpcutil::ChannelOptions& channel, const grpcutil::Identity& identity) {
        return ReadFromImageService(image->service->grpc_target(), victims, channel, identity);
      });
}

// The real services talk to each other over mutual TLS: the orchestrator reaches the inventory
// with its certificate, and serves its management API only to callers with one.
TEST_F(MutualTlsTest, TheServicesCallEachOtherWithTheirCertificates) {
  auto orchestrator = LaunchedService::Launch(
      {.binary = "services/orchestrator/assisted-orchestrator",
       .args = {"--inventory-address=" + inventory_->grpc_target(), "--internal-ca=" + ca_file_,
                "--internal-client-cert=" + certs_["orchestrator"].cert,
                "--internal-client-key=" + certs_["orchestrator"].key,
                "--internal-tls-cert=" + certs_["orchestrator"].cert,
                "--internal-tls-key=" + certs_["orchestrator"].key,
                "--internal-tls-client-ca=" + ca_file_},
       .internal_grpc = true,
       .internal_probe_channel = ServiceChannel("gateway")});
  ASSERT_THAT(orchestrator, IsOk());
  auto cleanup = absl::Cleanup([&] {
    if (HasFailure()) std::cerr << (*orchestrator)->Log();
  });

  inv::CreateClusterRequest create;
  create.mutable_cluster()->set_name("mtls");
  create.mutable_cluster()->set_openshift_version("4.16");
  create.mutable_cluster()->set_base_dns_domain("example.com");
  create.set_pull_secret(kPullSecret);
  types::v1::Cluster cluster;
  ASSERT_TRUE(InventoryAs(ServiceChannel("gateway"))
                  ->CreateCluster(Context().get(), create, &cluster)
                  .ok());

  orch::InstallClusterRequest install;
  install.set_cluster_id(cluster.id());
  auto without_certificate = orch::OrchestratorService::NewStub(*grpcutil::MakeChannel(
      (*orchestrator)->internal_grpc_target(), {.ca_bundle_file = ca_file_}));
  auto probe = grpcutil::ProbeContextWithin(absl::Seconds(5));
  EXPECT_EQ(without_certificate->InstallCluster(probe.get(), install, &cluster).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  // The gateway's certificate opens it; the orchestrator reads the cluster from the inventory
  // with its own, and its state machine refuses to install a cluster without hosts.
  auto as_gateway = orch::OrchestratorService::NewStub(
      *grpcutil::MakeChannel((*orchestrator)->internal_grpc_target(), ServiceChannel("gateway")));
  EXPECT_EQ(as_gateway->InstallCluster(Context().get(), install, &cluster).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

}  // namespace
}  // namespace assisted::testing
