// File: services/orchestrator/install/inventory_client.h
//
// The install logic's door to the inventory service: every unary call with a deadline, answers
// as absl::StatusOr (the inventory's codes kept: ABORTED for a lost compare-and-set, NOT_FOUND,
// ...), plus the few composite reads the install logic repeats (a cluster with its hosts, an
// artifact that may be absent).
//
//   InventoryClient inventory(channel, absl::Seconds(10));
//   ASSIGN_OR_RETURN(types::v1::Cluster cluster, inventory.Cluster(id));  // with hosts

#ifndef ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_INVENTORY_CLIENT_H_
#define ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_INVENTORY_CLIENT_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "lib/grpc/channel.h"
#include "lib/status/grpc_status.h"

namespace assisted::orchestrator::install {

class InventoryClient {
 public:
  using Stub = inventory::v1::InventoryService::Stub;

  InventoryClient(std::shared_ptr<grpc::Channel> channel, absl::Duration timeout)
      : stub_(inventory::v1::InventoryService::NewStub(std::move(channel))), timeout_(timeout) {}

  // Any unary call: Call(&Stub::GetHost, request).
  template <typename Request, typename Response>
  absl::StatusOr<Response> Call(grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&,
                                                             Response*),
                                const Request& request) const {
    Response response;
    const grpc::Status status =
        ((*stub_).*method)(grpcutil::ContextWithin(timeout_).get(), request, &response);
    if (!status.ok()) return FromGrpcStatus(status);
    return response;
  }

  // The cluster with its hosts.
  absl::StatusOr<types::v1::Cluster> Cluster(const std::string& id) const;
  absl::StatusOr<types::v1::Host> Host(const std::string& infra_env_id,
                                       const std::string& id) const;
  // The artifact's content, nullopt when it does not exist.
  absl::StatusOr<std::optional<std::string>> Artifact(const std::string& cluster_id,
                                                      const std::string& name) const;

 private:
  std::unique_ptr<Stub> stub_;
  absl::Duration timeout_;
};

}  // namespace assisted::orchestrator::install

#endif  // ASSISTED_SERVICES_ORCHESTRATOR_INSTALL_INVENTORY_CLIENT_H_
