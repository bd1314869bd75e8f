#include "services/gateway/backends.h"

#include <algorithm>
#include <future>

#include "lib/grpc/channel.h"
#include "lib/grpc/health_client.h"
#include "lib/status/status_macros.h"

namespace assisted::gateway {
namespace {

std::string HealthOf(const std::shared_ptr<grpc::Channel>& channel, absl::Duration timeout) {
  absl::StatusOr<std::string> health = grpcutil::CheckHealth(channel, "", timeout);
  return health.ok() ? *health : std::string(health.status().message());
}

}  // namespace

absl::StatusOr<std::unique_ptr<Backends>> Backends::Connect(const BackendAddresses& addresses) {
  std::unique_ptr<Backends> backends(new Backends());
  backends->deadline_ = addresses.deadline;
  const grpcutil::ChannelOptions& options = addresses.channel;
  ASSIGN_OR_RETURN(backends->inventory_channel_,
                   grpcutil::MakeChannel(addresses.inventory, options));
  ASSIGN_OR_RETURN(backends->orchestrator_channel_,
                   grpcutil::MakeChannel(addresses.orchestrator, options));
  ASSIGN_OR_RETURN(backends->image_channel_, grpcutil::MakeChannel(addresses.image, options));
  backends->inventory_ = inventory::v1::InventoryService::NewStub(backends->inventory_channel_);
  backends->orchestrator_ =
      orchestrator::v1::OrchestratorService::NewStub(backends->orchestrator_channel_);
  backends->image_ = image::v1::ImageService::NewStub(backends->image_channel_);
  return backends;
}

absl::Status Backends::AwaitReachable(absl::string_view backend) const {
  const std::shared_ptr<grpc::Channel>& channel = backend == "inventory" ? inventory_channel_
                                                  : backend == "orchestrator"
                                                      ? orchestrator_channel_
                                                      : image_channel_;
  if (channel->GetState(/*try_to_connect=*/true) == GRPC_CHANNEL_READY) return absl::OkStatus();
  const absl::Duration wait = std::min(deadline_, kConnectWait);
  if (channel->WaitForConnected(absl::ToChronoTime(absl::Now() + wait))) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat(backend, " unavailable: not reachable within ", absl::FormatDuration(wait)));
}

Backends::Readiness Backends::CheckReady(absl::Duration timeout) const {
  auto inventory = std::async(std::launch::async, HealthOf, inventory_channel_, timeout);
  auto orchestrator = std::async(std::launch::async, HealthOf, orchestrator_channel_, timeout);
  Readiness readiness;
  readiness.image = HealthOf(image_channel_, timeout);
  readiness.inventory = inventory.get();
  readiness.orchestrator = orchestrator.get();
  readiness.ready = readiness.inventory == "SERVING" && readiness.orchestrator == "SERVING" &&
                    readiness.image == "SERVING";
  return readiness;
}

}  // namespace assisted::gateway
