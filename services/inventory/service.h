// File: services/inventory/service.h
//
// The gRPC face of the inventory: turns each InventoryService request into a store call with
// plain arguments and the caller's identity (lib/grpc/identity.h), and the result into a gRPC
// status. No business logic lives here. Handlers are synchronous: each is one short transaction,
// and the server's bounded thread pool (--grpc-max-threads) is the back-pressure.

#ifndef ASSISTED_SERVICES_INVENTORY_SERVICE_H_
#define ASSISTED_SERVICES_INVENTORY_SERVICE_H_

#include "absl/time/time.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "services/inventory/artifact_store.h"
#include "services/inventory/change_feed.h"
#include "services/inventory/cluster_store.h"
#include "services/inventory/event_store.h"
#include "services/inventory/host_store.h"
#include "services/inventory/infra_env_store.h"
#include "services/inventory/inventory_metrics.h"
#include "services/inventory/lease_store.h"
#include "services/inventory/signing_key_store.h"

namespace assisted::inventory {

struct Stores {
  ClusterStore& clusters;
  InfraEnvStore& infra_envs;
  HostStore& hosts;
  SigningKeyStore& signing_keys;
  EventStore& events;
  ArtifactStore& artifacts;
  LeaseStore& leases;
  pg::Pool& pool;
  const ChangeFeed& feed;
};

class InventoryServiceImpl final : public v1::InventoryService::Service {
 public:
  // `bookmark_interval`: how long a quiet Watch stream goes before a BOOKMARK.
  // `metrics` (may be null) counts what the handlers do.
  InventoryServiceImpl(Stores stores, absl::Duration bookmark_interval = absl::Seconds(10),
                       InventoryMetrics* metrics = nullptr)
      : stores_(stores), bookmark_interval_(bookmark_interval), metrics_(metrics) {}

  grpc::Status CreateCluster(grpc::ServerContext* context, const v1::CreateClusterRequest* request,
                             types::v1::Cluster* response) override;
  grpc::Status GetCluster(grpc::ServerContext* context, const v1::GetClusterRequest* request,
                          types::v1::Cluster* response) override;
  grpc::Status ListClusters(grpc::ServerContext* context, const v1::ListClustersRequest* request,
                            v1::ListClustersResponse* response) override;
  grpc::Status UpdateCluster(grpc::ServerContext* context, const v1::UpdateClusterRequest* request,
                             types::v1::Cluster* response) override;
  grpc::Status DeleteCluster(grpc::ServerContext* context, const v1::DeleteClusterRequest* request,
                             google::protobuf::Empty* response) override;
  grpc::Status UpdateClusterStatus(grpc::ServerContext* context,
                                   const v1::UpdateClusterStatusRequest* request,
                                   types::v1::Cluster* response) override;

  grpc::Status CreateInfraEnv(grpc::ServerContext* context,
                              const v1::CreateInfraEnvRequest* request,
                              types::v1::InfraEnv* response) override;
  grpc::Status GetInfraEnv(grpc::ServerContext* context, const v1::GetInfraEnvRequest* request,
                           types::v1::InfraEnv* response) override;
  grpc::Status ListInfraEnvs(grpc::ServerContext* context, const v1::ListInfraEnvsRequest* request,
                             v1::ListInfraEnvsResponse* response) override;
  grpc::Status UpdateInfraEnv(grpc::ServerContext* context,
                              const v1::UpdateInfraEnvRequest* request,
                              types::v1::InfraEnv* response) override;
  grpc::Status DeleteInfraEnv(grpc::ServerContext* context,
                              const v1::DeleteInfraEnvRequest* request,
                              google::protobuf::Empty* response) override;
  grpc::Status GetPullSecret(grpc::ServerContext* context, const v1::GetPullSecretRequest* request,
                             v1::GetPullSecretResponse* response) override;
  grpc::Status GetInfraEnvSigningKey(grpc::ServerContext* context,
                                     const v1::GetInfraEnvSigningKeyRequest* request,
                                     v1::GetInfraEnvSigningKeyResponse* response) override;
  grpc::Status RegenerateInfraEnvSigningKey(grpc::ServerContext* context,
                                            const v1::RegenerateInfraEnvSigningKeyRequest* request,
                                            google::protobuf::Empty* response) override;

  grpc::Status CreateHost(grpc::ServerContext* context, const v1::CreateHostRequest* request,
                          types::v1::Host* response) override;
  grpc::Status GetHost(grpc::ServerContext* context, const v1::GetHostRequest* request,
                       types::v1::Host* response) override;
  grpc::Status ListHosts(grpc::ServerContext* context, const v1::ListHostsRequest* request,
                         v1::ListHostsResponse* response) override;
  grpc::Status UpdateHost(grpc::ServerContext* context, const v1::UpdateHostRequest* request,
                          types::v1::Host* response) override;
  grpc::Status DeleteHost(grpc::ServerContext* context, const v1::DeleteHostRequest* request,
                          google::protobuf::Empty* response) override;
  grpc::Status UpdateHostStatus(grpc::ServerContext* context,
                                const v1::UpdateHostStatusRequest* request,
                                types::v1::Host* response) override;

  grpc::Status AppendEvent(grpc::ServerContext* context, const v1::AppendEventRequest* request,
                           types::v1::Event* response) override;
  grpc::Status ListEvents(grpc::ServerContext* context, const v1::ListEventsRequest* request,
                          v1::ListEventsResponse* response) override;

  grpc::Status PutArtifact(grpc::ServerContext* context, const v1::PutArtifactRequest* request,
                           v1::ArtifactInfo* response) override;
  grpc::Status GetArtifact(grpc::ServerContext* context, const v1::GetArtifactRequest* request,
                           v1::Artifact* response) override;
  grpc::Status ListArtifacts(grpc::ServerContext* context, const v1::ListArtifactsRequest* request,
                             v1::ListArtifactsResponse* response) override;
  grpc::Status DeleteArtifacts(grpc::ServerContext* context,
                               const v1::DeleteArtifactsRequest* request,
                               v1::DeleteArtifactsResponse* response) override;

  grpc::Status Watch(grpc::ServerContext* context, const v1::WatchRequest* request,
                     grpc::ServerWriter<v1::WatchEvent>* writer) override;
  grpc::Status GetChangeLogHead(grpc::ServerContext* context,
                                const v1::GetChangeLogHeadRequest* request,
                                v1::GetChangeLogHeadResponse* response) override;

  grpc::Status Lease(grpc::ServerContext* context, const v1::LeaseRequest* request,
                     v1::LeaseResponse* response) override;

 private:
  Stores stores_;
  const absl::Duration bookmark_interval_;
  InventoryMetrics* const metrics_;
};

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_SERVICE_H_
