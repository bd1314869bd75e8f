#include "tests/harness/stack.h"

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
  ASSIGN_OR_RETURN(stack->inventory_,
                   LaunchedService::Launch({.binary = "services/inventory/assisted-inventory",
                                            .args = std::move(inventory_args)}));
  const std::string inventory_address = stack->inventory_->grpc_target();

  stack->orchestrator_args_ = {"--inventory-address=" + inventory_address};
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
  for (int replica = 0; replica < options.orchestrator_replicas; ++replica) {
    RETURN_IF_ERROR(stack->StartOrchestrator(replica, /*grpc_port=*/0, /*internal_grpc_port=*/0));
  }

  std::string image_address;
  if (options.image) {
    ASSIGN_OR_RETURN(RunningImageService image,
                     LaunchImageService({.dir = ::testing::TempDir() + "/stack-image",
                                         .inventory_address = inventory_address,
                                         .url_signing_key_file = stack->url_signing_key_file_,
                                         .orchestrator_address =
                                             options.agents_dial_host.empty()
                                                 ? stack->orchestrator().grpc_target()
                                                 : absl::StrCat(options.agents_dial_host, ":",
                                                                stack->orchestrator().grpc_port()),
                                         .base_iso = options.image_base_iso,
                                         .extra_args = options.image_flags}));
    stack->image_ = std::move(image.service);
    stack->image_http_ = image.http_base;
    stack->base_iso_ = image.base_iso;
    image_address = stack->image_->grpc_target();
  } else {
    ASSIGN_OR_RETURN(int nothing_listens, FreePort());
    image_address = absl::StrCat("127.0.0.1:", nothing_listens);
  }

  if (options.gateway) {
    ASSIGN_OR_RETURN(
        RunningGateway gateway,
        LaunchGatewayService({.inventory_address = inventory_address,
                              .orchestrator_address = stack->orchestrator().internal_grpc_target(),
                              .image_address = image_address,
                              .jwt_secret_file = stack->jwt_secret_file_,
                              .url_signing_key_file = stack->url_signing_key_file_,
                              .extra_args = options.gateway_flags}));
    stack->gateway_ = std::move(gateway.service);
    stack->gateway_http_ = gateway.http_base;
  }

  stack->inventory_stub_ = inventory::v1::InventoryService::NewStub(Plaintext(inventory_address));
  return stack;
}

absl::Status Stack::StartOrchestrator(size_t replica, int grpc_port, int internal_grpc_port) {
  std::vector<std::string> args = orchestrator_args_;
  // Named when there are several, so a test can tell from Host.agent_stream_holder which one
  // holds a host; a single one keeps its random name, new at each restart, as a new pod's.
  if (options_.orchestrator_replicas > 1) {
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

std::string Stack::orchestrators_target(int first) const {
  std::vector<std::string> addresses;
  for (size_t i = 0; i < orchestrators_.size(); ++i) {
    const LaunchedService& replica = *orchestrators_[(first + i) % orchestrators_.size()];
    addresses.push_back(absl::StrCat("127.0.0.1:", replica.grpc_port()));
  }
  return absl::StrCat("ipv4:", absl::StrJoin(addresses, ","));
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
  std::vector<std::pair<std::string, const LaunchedService*>> services = {
      {"inventory", inventory_.get()}, {"image", image_.get()}, {"gateway", gateway_.get()}};
  for (size_t i = 0; i < orchestrators_.size(); ++i) {
    services.emplace_back(i == 0 ? std::string("orchestrator") : absl::StrCat("orchestrator-", i),
                          orchestrators_[i].get());
  }
  std::string logs;
  for (const auto& [name, service] : services) {
    if (service != nullptr) absl::StrAppend(&logs, "--- ", name, " log\n", service->Log());
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
