// File: services/gateway/backends.h
//
// The gateway's clients of the other services: inventory (reads and CRUD), orchestrator
// (state-machine actions) and image (URLs, Ignition, iPXE, static networking). Every call carries
// a deadline and, for users, their identity as metadata; a failure comes back as an absl::Status
// whose message names the backend when it could not be reached.

#ifndef ASSISTED_SERVICES_GATEWAY_BACKENDS_H_
#define ASSISTED_SERVICES_GATEWAY_BACKENDS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "assisted/image/v1/image_service.grpc.pb.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "assisted/orchestrator/v1/orchestrator_service.grpc.pb.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "lib/grpc/channel.h"
#include "lib/grpc/identity.h"
#include "lib/status/grpc_status.h"

namespace assisted::gateway {

struct BackendAddresses {
  std::string inventory;
  std::string orchestrator;
  std::string image;
  absl::Duration deadline = absl::Seconds(10);
  // How the three channels authenticate (the internal mutual TLS; plaintext by default).
  grpcutil::ChannelOptions channel;
};

class Backends {
 public:
  // Opens the three channels (connections are made lazily, so a backend that is down does not
  // stop the gateway from starting; /ready reports it).
  static absl::StatusOr<std::unique_ptr<Backends>> Connect(const BackendAddresses& addresses);

  // Calls `method` of `stub` ("inventory", "orchestrator" or "image" in `backend`) with
  // `identity` forwarded. A backend that cannot be reached within kConnectWait (or the deadline,
  // if shorter) is UNAVAILABLE at once, so a user learns of an outage in seconds while a
  // restarting backend is still waited for. UNAVAILABLE/DEADLINE_EXCEEDED messages name the
  // backend.
  template <typename Stub, typename Request, typename Response>
  absl::StatusOr<Response> Call(const char* backend, Stub& stub,
                                grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&,
                                                             Response*),
                                const Request& request, const grpcutil::Identity& identity) const {
    if (absl::Status reachable = AwaitReachable(backend); !reachable.ok()) return reachable;
    std::unique_ptr<grpc::ClientContext> context = grpcutil::ContextWithin(deadline_);
    grpcutil::SetIdentity(*context, identity);
    Response response;
    grpc::Status status = (stub.*method)(context.get(), request, &response);
    if (status.ok()) return response;
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
        status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      return FromGrpcStatus(grpc::Status(
          status.error_code(), absl::StrCat(backend, " unavailable: ", status.error_message())));
    }
    if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      return FromGrpcStatus(grpc::Status(
          status.error_code(), absl::StrCat(backend, " does not implement this action yet")));
    }
    return FromGrpcStatus(status);
  }

  inventory::v1::InventoryService::Stub& inventory() const { return *inventory_; }
  orchestrator::v1::OrchestratorService::Stub& orchestrator() const { return *orchestrator_; }
  image::v1::ImageService::Stub& image() const { return *image_; }

  // "SERVING" or why not, for each backend, checked in parallel within `timeout`.
  struct Readiness {
    bool ready = false;
    std::string inventory, orchestrator, image;
  };
  Readiness CheckReady(absl::Duration timeout) const;

  // How long a call waits for a backend it is not connected to. Longer than the channels'
  // longest reconnect backoff (grpcutil::ChannelOptions), so a backend that is up is found.
  static constexpr absl::Duration kConnectWait = absl::Seconds(3);

 private:
  // OK once the channel of `backend` is connected; UNAVAILABLE naming the backend when it is
  // not within kConnectWait (or the call deadline, if shorter).
  absl::Status AwaitReachable(absl::string_view backend) const;

  Backends() = default;
  absl::Duration deadline_;
  std::shared_ptr<grpc::Channel> inventory_channel_, orchestrator_channel_, image_channel_;
  std::unique_ptr<inventory::v1::InventoryService::Stub> inventory_;
  std::unique_ptr<orchestrator::v1::OrchestratorService::Stub> orchestrator_;
  std::unique_ptr<image::v1::ImageService::Stub> image_;
};

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_BACKENDS_H_
