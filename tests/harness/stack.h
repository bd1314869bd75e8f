// File: tests/harness/stack.h
//
// The services a test runs against, started as real processes on loopback: the inventory on
// the test's PostgreSQL database, the orchestrator (agent port and management port), and when
// asked the image service and the gateway; optionally two or more replicas of each, as the
// chart runs them. Every integration test that needs "the stack" uses this one fixture instead
// of starting the services itself.
//
//   class InstallTest : public StackTest {
//    protected:
//     StackOptions Options() const override {
//       return {.orchestrator_flags = {"--monitor-interval=200ms"}, .gateway = true};
//     }
//   };
//   TEST_F(InstallTest, …) { stack().inventory_stub().CreateCluster(…); }
//
// Contract: Start returns once every service asked for answers its health check SERVING (or
// an error carrying the failing service's log tail). The stack sets the flags that wire the
// services together (addresses, the DSN, key files); a test adds only what it is about, per
// service. Plaintext gRPC on loopback: tests of TLS between services set up their own. On a
// failed test, StackTest prints every service's log.

#ifndef ASSISTED_TESTS_HARNESS_STACK_H_
#define ASSISTED_TESTS_HARNESS_STACK_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "assisted/agent/v1/agent_service.grpc.pb.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "assisted/orchestrator/v1/orchestrator_service.grpc.pb.h"
#include "tests/harness/postgres_test.h"
#include "tests/harness/service_launcher.h"
#include "tests/harness/tcp_front.h"

namespace assisted::testing {

struct StackOptions {
  // Flags beyond those that wire the services together, per service.
  std::vector<std::string> inventory_flags;
  std::vector<std::string> orchestrator_flags;
  // Replicas of every service the stack starts, each with its own ports, all on the one
  // database, as the chart's Deployments run them. With more than one:
  //   - orchestrator replica i is named "orchestrator-<i>" (--replica-id);
  //   - each service's replica i reaches each peer through an address of its own that passes
  //     its connections to the peer's replica i, or the next one when that one is down
  //     (ReplicasAddress), so the calls spread and a caller whose peer dies falls over to the
  //     next; agents dial orchestrators_target() ("ipv4:///A,B", gRPC's pick_first);
  //   - the image service's downloads and the gateway's REST API sit behind one address each
  //     (TcpFront: each new connection goes to the next replica), which is image_http() and
  //     gateway_http() and the image services' --public-url.
  // The stubs talk to replica 0 (the inventory's falls over to the others).
  int replicas = 1;
  // With several replicas: each service names all replicas of a peer in one gRPC target
  // (ReplicasTarget, "ipv4:///A,B") and gRPC balances its calls over them (round_robin), as
  // with a headless Kubernetes Service and dns:///, instead of dialling a front.
  bool peers_by_grpc_target = false;
  // With an OS image of this many MiB of noise for the orchestrator to hand out
  // (--os-image-url=file://…, --os-image-sha256); 0: none (simulated installs need one).
  int os_image_mib = 0;
  // The orchestrator checks agents' (and controllers') tokens: it gets the URL signing key
  // those tokens are signed with. Off, it takes any agent, as a bare test harness needs.
  bool authenticate_agents = false;

  // The image service, with a test base ISO built into its own folder under the test's
  // temporary directory.
  bool image = false;
  std::vector<std::string> image_flags;
  // The base ISO it serves instead of the test ISO (e.g. ./dev os-images' live.iso, which real
  // machines boot).
  std::string image_base_iso;
  // The host that discovery images tell agents to dial, with orchestrator replica 0's agent
  // port: where machines outside the loopback reach it (e.g. a VM's forward to it); empty: its
  // loopback target.
  std::string agents_dial_host;

  // The gateway in front of them (JWT auth with `jwt_secret`). Without the image service its
  // image address is a loopback port where nothing listens.
  bool gateway = false;
  std::vector<std::string> gateway_flags;
  std::string jwt_secret = "stack-test-jwt-secret-0123456789abcdef0123456789";

  // The URL signing key shared by the orchestrator, the image service and the gateway.
  std::string url_signing_key = "stack-test-url-signing-key-0123456789abcdef0123";
};

class Stack {
 public:
  // Starts the services `options` asks for against the database at `dsn`.
  static absl::StatusOr<std::unique_ptr<Stack>> Start(const std::string& dsn,
                                                      const StackOptions& options);

  int replicas() const { return options_.replicas; }
  LaunchedService& inventory(int replica = 0) const { return *inventories_[replica]; }
  LaunchedService& orchestrator(int replica = 0) const { return *orchestrators_[replica]; }
  // gRPC target of every replica's agent port: "ipv4:127.0.0.1:P0,127.0.0.1:P1,…" from
  // replica `first` round, as a DNS name with one address per replica resolves. With gRPC's
  // pick_first an agent dials replica `first` and, when it goes away, the next that answers.
  std::string orchestrators_target(int first) const;
  // Only with StackOptions::image / ::gateway.
  LaunchedService& image(int replica = 0) const { return *images_[replica]; }
  LaunchedService& gateway(int replica = 0) const { return *gateways_[replica]; }
  // "http://127.0.0.1:PORT" of the image service's downloads and of the gateway's REST API:
  // the one address in front of the replicas (the replica itself when there is one).
  const std::string& image_http() const { return image_http_; }
  const std::string& gateway_http() const { return gateway_http_; }
  // The same of one replica, bypassing the front.
  const std::string& image_replica_http(int replica) const { return image_replica_http_[replica]; }
  const std::string& gateway_replica_http(int replica) const {
    return gateway_replica_http_[replica];
  }
  // The base ISO the image service serves.
  const std::string& base_iso() const { return base_iso_; }
  // The hex SHA-256 of the OS image (StackOptions::os_image_mib), as hosts must verify it.
  const std::string& os_image_sha256() const { return os_image_sha256_; }
  // Files holding the keys (for a test that signs tokens the way a service does).
  const std::string& url_signing_key_file() const { return url_signing_key_file_; }
  const std::string& jwt_secret_file() const { return jwt_secret_file_; }

  // Plaintext stubs on the inventory (every replica, replica 0 first: a test's calls and
  // watches outlive the death of one), the orchestrator's agent port and its management port
  // (replica 0's).
  ::assisted::inventory::v1::InventoryService::Stub& inventory_stub() const {
    return *inventory_stub_;
  }
  ::assisted::agent::v1::AgentService::Stub& agent_stub() const { return *agent_stub_; }
  ::assisted::orchestrator::v1::OrchestratorService::Stub& orchestrator_stub() const {
    return *orchestrator_stub_;
  }

  // An infra-env named `name` without a cluster (where a test's hosts register).
  absl::StatusOr<::assisted::types::v1::InfraEnv> CreateInfraEnv(const std::string& name) const;

  // Starts orchestrator replica 0 again on the same ports with the same flags, after the test
  // has killed or stopped it (a crash and a restart, as a supervisor would do).
  absl::Status RestartOrchestrator();

  // Every running service's log, each under a "--- name log" line.
  std::string Logs() const;

 private:
  Stack() = default;
  // Starts replica `replica` (one past the last: a new one) on these ports (0: free ones).
  absl::Status StartOrchestrator(size_t replica, int grpc_port, int internal_grpc_port);
  absl::Status StartImageServices();
  absl::Status StartGateways();
  // When there are several replicas: a TcpFront, in `front`; its "http://127.0.0.1:PORT".
  absl::StatusOr<std::string> StartFront(std::unique_ptr<TcpFront>& front);
  // What replica `first` of a caller dials to reach `replicas` (ReplicasAddress, or
  // ReplicasTarget with peers_by_grpc_target).
  absl::StatusOr<std::string> Address(const std::vector<std::unique_ptr<LaunchedService>>& replicas,
                                      int first, bool internal = false);

  StackOptions options_;
  std::vector<std::string> orchestrator_args_;
  std::string url_signing_key_file_, jwt_secret_file_, os_image_sha256_, base_iso_, image_http_,
      gateway_http_;
  std::vector<std::string> image_replica_http_, gateway_replica_http_;
  std::vector<std::unique_ptr<LaunchedService>> inventories_, orchestrators_, images_, gateways_;
  // In front of the image services' and the gateways' HTTP ports (several replicas only), and
  // of each caller's peers (ReplicasAddress).
  std::unique_ptr<TcpFront> image_front_, gateway_front_;
  std::vector<std::unique_ptr<TcpFront>> internal_fronts_;
  std::unique_ptr<::assisted::inventory::v1::InventoryService::Stub> inventory_stub_;
  std::unique_ptr<::assisted::agent::v1::AgentService::Stub> agent_stub_;
  std::unique_ptr<::assisted::orchestrator::v1::OrchestratorService::Stub> orchestrator_stub_;
};

// A gtest fixture: a fresh database and a started stack per test, its logs printed when the
// test failed. Override Options() to say which services and flags.
class StackTest : public PostgresTest {
 protected:
  virtual StackOptions Options() const { return {}; }

  void SetUp() override;
  void TearDown() override;

  Stack& stack() const { return *stack_; }
  LaunchedService& inventory() const { return stack_->inventory(); }
  LaunchedService& orchestrator() const { return stack_->orchestrator(); }

 private:
  std::unique_ptr<Stack> stack_;
};

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_STACK_H_
