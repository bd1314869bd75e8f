#include "tests/harness/stack.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "grpcpp/create_channel.h"
#include "lib/status/grpc_status.h"
#include "lib/status/status_macros.h"
#include "openssl/evp.h"
#include "tests/harness/gateway_service.h"
#include "tests/harness/image_service.h"
#include "tests/harness/probes.h"

namespace assisted::testing {
namespace {

// A file under the test's temporary folder holding `content`; its path.
std::string WriteTestFile(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// Lower-case hex SHA-256 of `data`, as --os-image-sha256 takes it.
std::string Sha256Hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), size));
}

std::shared_ptr<grpc::Channel> Plaintext(const std::string& target) {
  return grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
}

}  // namespace

absl::StatusOr<std::unique_ptr<Stack>> Stack::Start(const std::string& dsn,
                                                    const StackOptions& options) {
  std::unique_ptr<Stack> stack(new Stack());
  stack->options_ = options;
  stack->url_signing_key_file_ = WriteTestFile("stack-url.key", options.url_signing_key);
  stack->jwt_secret_file_ = WriteTestFile("stack-jwt.key", options.jwt_secret);

  std::vector<std::string> inventory_args = {"--postgres-dsn=" + dsn};
  inventory_args.insert(inventory_args.end(), options.inventory_flags.begin(),
                        options.inventory_flags.end());
  for (int replica = 0; replica < options.replicas; ++replica) {
    ASSIGN_OR_RETURN(std::unique_ptr<LaunchedService> inventory,
                     LaunchedService::Launch({.binary = "services/inventory/assisted-inventory",
                                              .args = inventory_args}));
    stack->inventories_.push_back(std::move(inventory));
  }

  if (options.authenticate_agents) {
    stack->orchestrator_args_.push_back("--url-signing-key-file=" + stack->url_signing_key_file_);
  }
  if (options.os_image_mib > 0) {
    // Noise, so that a digest mismatch cannot hide.
    std::string bytes(options.os_image_mib << 20, '\0');
    std::mt19937_64 noise(42);
    for (char& byte : bytes) byte = static_cast<char>(noise());
    stack->orchestrator_args_.push_back("--os-image-url=file://" +
                                        WriteTestFile("stack-os-image.raw", bytes));
    stack->os_image_sha256_ = Sha256Hex(bytes);
    stack->orchestrator_args_.push_back("--os-image-sha256=" + stack->os_image_sha256_);
  }
  stack->orchestrator_args_.insert(stack->orchestrator_args_.end(),
                                   options.orchestrator_flags.begin(),
                                   options.orchestrator_flags.end());
  for (int replica = 0; replica < options.replicas; ++replica) {
    RETURN_IF_ERROR(stack->StartOrchestrator(replica, /*grpc_port=*/0, /*internal_grpc_port=*/0));
  }
  if (options.image) RETURN_IF_ERROR(stack->StartImageServices());
  if (options.gateway) RETURN_IF_ERROR(stack->StartGateways());

  stack->inventory_stub_ = inventory::v1::InventoryService::NewStub(
      Plaintext(ReplicasTarget(stack->inventories_, /*first=*/0)));
  return stack;
}

absl::StatusOr<std::string> Stack::StartFront(std::unique_ptr<TcpFront>& front) {
  ASSIGN_OR_RETURN(front, TcpFront::Start());
  return absl::StrCat("http://127.0.0.1:", front->port());
}

absl::Status Stack::StartImageServices() {
  std::string public_url;
  if (options_.replicas > 1) {
    ASSIGN_OR_RETURN(public_url, StartFront(image_front_));
  }
  base_iso_ = options_.image_base_iso;  // empty: replica 0 builds a test ISO
  // Where the discovery images send agents: orchestrator replica 0, as machines outside the
  // loopback reach it when asked.
  const std::string agents_dial =
      options_.agents_dial_host.empty()
          ? orchestrator().grpc_target()
          : absl::StrCat(options_.agents_dial_host, ":", orchestrator().grpc_port());
  for (int replica = 0; replica < options_.replicas; ++replica) {
    const std::string dir = absl::StrCat(::testing::TempDir(), "/stack-image",
                                         replica == 0 ? "" : absl::StrCat("-", replica));
    std::filesystem::create_directories(dir);
    ASSIGN_OR_RETURN(std::string inventory_address, Address(inventories_, replica));
    ASSIGN_OR_RETURN(RunningImageService image,
                     LaunchImageService({.dir = dir,
                                         .inventory_address = inventory_address,
                                         .url_signing_key_file = url_signing_key_file_,
                                         .orchestrator_address = agents_dial,
                                         .base_iso = base_iso_,  // built once, by replica 0
                                         .public_url = public_url,
                                         .extra_args = options_.image_flags}));
    base_iso_ = image.base_iso;
    image_replica_http_.push_back(image.http_base);
    if (image_front_ != nullptr) image_front_->AddBackend(image.http_port);
    images_.push_back(std::move(image.service));
  }
  image_http_ = public_url.empty() ? image_replica_http_[0] : public_url;
  return absl::OkStatus();
}

absl::Status Stack::StartGateways() {
  if (options_.replicas > 1) {
    ASSIGN_OR_RETURN(gateway_http_, StartFront(gateway_front_));
  }
  for (int replica = 0; replica < options_.replicas; ++replica) {
    std::string image_address;
    if (options_.image) {
      ASSIGN_OR_RETURN(image_address, Address(images_, replica));
    } else {
      ASSIGN_OR_RETURN(int nothing_listens, FreePort());
      image_address = absl::StrCat("127.0.0.1:", nothing_listens);
    }
    ASSIGN_OR_RETURN(std::string inventory_address, Address(inventories_, replica));
    ASSIGN_OR_RETURN(std::string orchestrator_address,
                     Address(orchestrators_, replica, /*internal=*/true));
    ASSIGN_OR_RETURN(RunningGateway gateway,
                     LaunchGatewayService({.inventory_address = inventory_address,
                                           .orchestrator_address = orchestrator_address,
                                           .image_address = image_address,
                                           .jwt_secret_file = jwt_secret_file_,
                                           .url_signing_key_file = url_signing_key_file_,
                                           .extra_args = options_.gateway_flags}));
    gateway_replica_http_.push_back(gateway.http_base);
    if (gateway_front_ != nullptr) gateway_front_->AddBackend(gateway.http_port);
    gateways_.push_back(std::move(gateway.service));
  }
  if (gateway_front_ == nullptr) gateway_http_ = gateway_replica_http_[0];
  return absl::OkStatus();
}

absl::Status Stack::StartOrchestrator(size_t replica, int grpc_port, int internal_grpc_port) {
  ASSIGN_OR_RETURN(std::string inventory_address, Address(inventories_, static_cast<int>(replica)));
  std::vector<std::string> args = {"--inventory-address=" + inventory_address};
  args.insert(args.end(), orchestrator_args_.begin(), orchestrator_args_.end());
  // Named when there are several, so a test can tell from Host.agent_stream_holder which one
  // holds a host; a single one keeps its random name, new at each restart, as a new pod's.
  if (options_.replicas > 1) {
    args.push_back(absl::StrCat("--replica-id=orchestrator-", replica));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<LaunchedService> started,
                   LaunchedService::Launch({.binary = "services/orchestrator/assisted-orchestrator",
                                            .args = std::move(args),
                                            .grpc_port = grpc_port,
                                            .internal_grpc = true,
                                            .internal_grpc_port = internal_grpc_port}));
  if (replica == orchestrators_.size()) orchestrators_.emplace_back();
  orchestrators_[replica] = std::move(started);
  if (replica == 0) {
    agent_stub_ = agent::v1::AgentService::NewStub(Plaintext(orchestrator().grpc_target()));
    orchestrator_stub_ = orchestrator::v1::OrchestratorService::NewStub(
        Plaintext(orchestrator().internal_grpc_target()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Stack::Address(
    const std::vector<std::unique_ptr<LaunchedService>>& replicas, int first, bool internal) {
  if (options_.peers_by_grpc_target) return ReplicasTarget(replicas, first, internal);
  return ReplicasAddress(replicas, first, internal, internal_fronts_);
}

std::string Stack::orchestrators_target(int first) const {
  return ReplicasTarget(orchestrators_, first);
}

absl::StatusOr<types::v1::InfraEnv> Stack::CreateInfraEnv(const std::string& name) const {
  inventory::v1::CreateInfraEnvRequest create;
  create.mutable_infra_env()->set_name(name);
  types::v1::InfraEnv infra_env;
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  const grpc::Status status = inventory_stub_->CreateInfraEnv(&context, create, &infra_env);
  if (!status.ok()) return FromGrpcStatus(status);
  return infra_env;
}

absl::Status Stack::RestartOrchestrator() {
  return StartOrchestrator(0, orchestrator().grpc_port(), orchestrator().internal_grpc_port());
}

std::string Stack::Logs() const {
  std::string logs;
  for (const auto& [name, service] :
       std::vector<std::pair<std::string, const std::vector<std::unique_ptr<LaunchedService>>*>>{
           {"inventory", &inventories_},
           {"orchestrator", &orchestrators_},
           {"image", &images_},
           {"gateway", &gateways_}}) {
    for (size_t i = 0; i < service->size(); ++i) {
      absl::StrAppend(&logs, "--- ", name, i == 0 ? "" : absl::StrCat("-", i), " log\n",
                      (*service)[i]->Log());
    }
  }
  return logs;
}

void StackTest::SetUp() {
  PostgresTest::SetUp();
  if (HasFatalFailure()) return;
  absl::StatusOr<std::unique_ptr<Stack>> stack = Stack::Start(dsn(), Options());
  ASSERT_TRUE(stack.ok()) << stack.status();
  stack_ = *std::move(stack);
}

void StackTest::TearDown() {
  if (HasFailure() && stack_ != nullptr) std::cerr << stack_->Logs();
}

}  // namespace assisted::testing
