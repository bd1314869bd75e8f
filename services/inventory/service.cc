#include "services/inventory/service.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/grpc/identity.h"
#include "lib/log/log.h"
#include "lib/status/grpc_status.h"
#include "lib/status/status_macros.h"
#include "services/inventory/input_checks.h"

namespace assisted::inventory {
namespace {

constexpr int kWatchBatch = 500;

Caller CallerOf(const grpc::ServerContext& context) {
  const grpcutil::Identity identity = grpcutil::GetIdentity(context);
  if (identity.system()) return Caller::System();
  return Caller::User(identity.user, identity.org);
}

// INVALID_ARGUMENT naming `field` unless `value` is a UUID (or empty and `optional`).
absl::Status CheckId(absl::string_view field, const std::string& value, bool optional = false) {
  if (optional && value.empty()) return absl::OkStatus();
  return ValidateUuid(value, field);
}

// Write-only fields: stored for the services that act on them, never shown in a read.
void Redact(types::v1::Host& host) {
  if (!host.has_fencing_credentials()) return;
  types::v1::FencingCredentials& fencing = *host.mutable_fencing_credentials();
  fencing.set_password_set(fencing.password_set() || !fencing.password().empty());
  fencing.clear_password();
}
void Redact(types::v1::Cluster& cluster) {
  for (types::v1::Host& host : *cluster.mutable_hosts()) Redact(host);
}
void Redact(v1::ListHostsResponse& response) {
  for (types::v1::Host& host : *response.mutable_hosts()) Redact(host);
}
void Redact(v1::ListClustersResponse& response) {
  for (types::v1::Cluster& cluster : *response.mutable_clusters()) Redact(cluster);
}
template <typename T>
void Redact(T&) {}

template <typename T>
grpc::Status Reply(absl::StatusOr<T> result, T* response) {
  if (!result.ok()) return ToGrpcStatus(result.status());
  *response = *std::move(result);
  Redact(*response);
  return grpc::Status::OK;
}

grpc::Status Reply(const absl::Status& status) { return ToGrpcStatus(status); }

// Runs the id checks, then `call`; answers with the first failure.
template <typename T, typename Call>
grpc::Status Checked(std::initializer_list<absl::Status> checks, Call call, T* response) {
  for (const absl::Status& check : checks) {
    if (!check.ok()) return ToGrpcStatus(check);
  }
  return Reply(call(), response);
}

template <typename Call>
grpc::Status CheckedEmpty(std::initializer_list<absl::Status> checks, Call call) {
  for (const absl::Status& check : checks) {
    if (!check.ok()) return ToGrpcStatus(check);
  }
  return Reply(call());
}

// The enum values of a repeated enum field.
template <typename Enum>
std::vector<Enum> EnumsOf(const google::protobuf::RepeatedField<int>& values) {
  std::vector<Enum> out;
  for (int value : values) out.push_back(static_cast<Enum>(value));
  return out;
}

// The artifacts a List or Delete request names.
template <typename Request>
ArtifactSelection SelectionOf(const Request& request) {
  return {.name_prefix = request.name_prefix(),
          .kinds = EnumsOf<v1::ArtifactKind>(request.kinds())};
}

// The status compare-and-set an Update*StatusRequest asks for.
template <typename Change, typename Request>
Change StatusChangeOf(const Request& request) {
  return {.expected = request.expected_status(),
          .next = request.new_status(),
          .info = request.status_info(),
          .patch = request.patch(),
          .patch_mask = request.patch_mask(),
          .fence = FenceOf(request.fence())};
}

// The precondition of a write request that may be fenced.
template <typename Request>
Precondition PreconditionOf(const Request& request) {
  return {.resource_version = request.resource_version(), .fence = FenceOf(request.fence())};
}

// What a Create*Request asks for: a stored resource, or only the checks and the answer.
template <typename Request>
CreateMode ModeOf(const Request& request) {
  return request.validate_only() ? CreateMode::kValidateOnly : CreateMode::kStore;
}

}  // namespace

grpc::Status InventoryServiceImpl::CreateCluster(grpc::ServerContext* context,
                                                 const v1::CreateClusterRequest* request,
                                                 types::v1::Cluster* response) {
  return Checked(
      {CheckId("cluster.id", request->cluster().id(), true),
       ValidateCreateClusterRequest(*request)},
      [&] {
        absl::StatusOr<types::v1::Cluster> created = stores_.clusters.Create(
            CallerOf(*context), request->cluster(), request->pull_secret(), ModeOf(*request));
        if (created.ok() && !request->validate_only() && metrics_ != nullptr) {
          metrics_->ClusterCreated();
        }
        return created;
      },
      response);
}

grpc::Status InventoryServiceImpl::GetCluster(grpc::ServerContext* context,
                                              const v1::GetClusterRequest* request,
                                              types::v1::Cluster* response) {
  return Checked(
      {CheckId("id", request->id())},
      [&] {
        return stores_.clusters.Get(CallerOf(*context), request->id(), request->include_hosts(),
                                    request->include_deleted());
      },
      response);
}

grpc::Status InventoryServiceImpl::ListClusters(grpc::ServerContext* context,
                                                const v1::ListClustersRequest* request,
                                                v1::ListClustersResponse* response) {
  ClusterQuery query{.page = {.token = request->page_token(), .size = request->page_size()},
                     .owner_scope = request->owner_scope(),
                     .statuses = EnumsOf<types::v1::ClusterStatus>(request->statuses()),
                     .kinds = EnumsOf<types::v1::ClusterKind>(request->kinds()),
                     .openshift_cluster_id = request->openshift_cluster_id(),
                     .include_deleted = request->include_deleted(),
                     .include_hosts = request->include_hosts()};
  if (request->has_updated_before()) query.updated_before = request->updated_before();
  return Reply(stores_.clusters.List(CallerOf(*context), query), response);
}

grpc::Status InventoryServiceImpl::UpdateCluster(grpc::ServerContext* context,
                                                 const v1::UpdateClusterRequest* request,
                                                 types::v1::Cluster* response) {
  return Checked(
      {CheckId("cluster.id", request->cluster().id()), ValidateUpdateClusterRequest(*request)},
      [&] {
        return stores_.clusters.Update(CallerOf(*context), request->cluster(),
                                       request->update_mask(), PreconditionOf(*request),
                                       request->pull_secret());
      },
      response);
}

grpc::Status InventoryServiceImpl::DeleteCluster(grpc::ServerContext* context,
                                                 const v1::DeleteClusterRequest* request,
                                                 google::protobuf::Empty*) {
  return CheckedEmpty({CheckId("id", request->id())}, [&] {
    return stores_.clusters.Delete(CallerOf(*context), request->id(), PreconditionOf(*request),
                                   request->purge());
  });
}

grpc::Status InventoryServiceImpl::UpdateClusterStatus(
    grpc::ServerContext* context, const v1::UpdateClusterStatusRequest* request,
    types::v1::Cluster* response) {
  return Checked(
      {CheckId("id", request->id())},
      [&] {
        return stores_.clusters.UpdateStatus(CallerOf(*context), request->id(),
                                             StatusChangeOf<ClusterStatusChange>(*request));
      },
      response);
}

grpc::Status InventoryServiceImpl::CreateInfraEnv(grpc::ServerContext* context,
                                                  const v1::CreateInfraEnvRequest* request,
                                                  types::v1::InfraEnv* response) {
  return Checked(
      {CheckId("infra_env.id", request->infra_env().id(), true),
       CheckId("infra_env.cluster_id", request->infra_env().cluster_id(), true),
       ValidateCreateInfraEnvRequest(*request)},
      [&] {
        return stores_.infra_envs.Create(CallerOf(*context), request->infra_env(),
                                         request->pull_secret(), ModeOf(*request));
      },
      response);
}

grpc::Status InventoryServiceImpl::GetInfraEnv(grpc::ServerContext* context,
                                               const v1::GetInfraEnvRequest* request,
                                               types::v1::InfraEnv* response) {
  return Checked(
      {CheckId("id", request->id())},
      [&] { return stores_.infra_envs.Get(CallerOf(*context), request->id()); }, response);
}

grpc::Status InventoryServiceImpl::ListInfraEnvs(grpc::ServerContext* context,
                                                 const v1::ListInfraEnvsRequest* request,
                                                 v1::ListInfraEnvsResponse* response) {
  return Checked(
      {CheckId("cluster_id", request->cluster_id(), true)},
      [&] {
        return stores_.infra_envs.List(CallerOf(*context), {.page = {.token = request->page_token(),
                                                                     .size = request->page_size()},
                                                            .owner_scope = request->owner_scope(),
                                                            .cluster_id = request->cluster_id()});
      },
      response);
}

grpc::Status InventoryServiceImpl::UpdateInfraEnv(grpc::ServerContext* context,
                                                  const v1::UpdateInfraEnvRequest* request,
                                                  types::v1::InfraEnv* response) {
  return Checked(
      {CheckId("infra_env.id", request->infra_env().id()),
       CheckId("infra_env.cluster_id", request->infra_env().cluster_id(), true),
       ValidateUpdateInfraEnvRequest(*request)},
      [&] {
        return stores_.infra_envs.Update(
            CallerOf(*context), request->infra_env(), request->update_mask(),
            {.resource_version = request->resource_version()}, request->pull_secret());
      },
      response);
}

grpc::Status InventoryServiceImpl::DeleteInfraEnv(grpc::ServerContext* context,
                                                  const v1::DeleteInfraEnvRequest* request,
                                                  google::protobuf::Empty*) {
  return CheckedEmpty({CheckId("id", request->id())}, [&] {
    return stores_.infra_envs.Delete(CallerOf(*context), request->id(), PreconditionOf(*request),
                                     request->force());
  });
}

grpc::Status InventoryServiceImpl::GetPullSecret(grpc::ServerContext* context,
                                                 const v1::GetPullSecretRequest* request,
                                                 v1::GetPullSecretResponse* response) {
  return Checked(
      {CheckId("cluster_id", request->cluster_id(), true),
       CheckId("infra_env_id", request->infra_env_id(), true)},
      [&]() -> absl::StatusOr<v1::GetPullSecretResponse> {
        absl::StatusOr<std::string> secret;
        switch (request->owner_case()) {
          case v1::GetPullSecretRequest::kClusterId:
            secret = stores_.clusters.GetPullSecret(CallerOf(*context), request->cluster_id());
            break;
          case v1::GetPullSecretRequest::kInfraEnvId:
            secret = stores_.infra_envs.GetPullSecret(CallerOf(*context), request->infra_env_id());
            break;
          default:
            return absl::InvalidArgumentError("owner: give cluster_id or infra_env_id");
        }
        if (!secret.ok()) return secret.status();
        v1::GetPullSecretResponse out;
        out.set_pull_secret(*std::move(secret));
        return out;
      },
      response);
}

grpc::Status InventoryServiceImpl::GetInfraEnvSigningKey(
    grpc::ServerContext* context, const v1::GetInfraEnvSigningKeyRequest* request,
    v1::GetInfraEnvSigningKeyResponse* response) {
  return Checked(
      {CheckId("infra_env_id", request->infra_env_id())},
      [&]() -> absl::StatusOr<v1::GetInfraEnvSigningKeyResponse> {
        absl::StatusOr<std::string> key =
            stores_.signing_keys.Get(CallerOf(*context), request->infra_env_id());
        if (!key.ok()) return key.status();
        v1::GetInfraEnvSigningKeyResponse out;
        out.set_signing_key(*std::move(key));
        return out;
      },
      response);
}

grpc::Status InventoryServiceImpl::RegenerateInfraEnvSigningKey(
    grpc::ServerContext* context, const v1::RegenerateInfraEnvSigningKeyRequest* request,
    google::protobuf::Empty*) {
  return CheckedEmpty({CheckId("infra_env_id", request->infra_env_id())}, [&] {
    return stores_.signing_keys.Regenerate(CallerOf(*context), request->infra_env_id()).status();
  });
}

grpc::Status InventoryServiceImpl::CreateHost(grpc::ServerContext* context,
                                              const v1::CreateHostRequest* request,
                                              types::v1::Host* response) {
  return Checked(
      {CheckId("host.id", request->host().id()),
       CheckId("host.infra_env_id", request->host().infra_env_id()),
       CheckId("host.cluster_id", request->host().cluster_id(), true),
       ValidateCreateHostRequest(*request)},
      [&] { return stores_.hosts.Create(CallerOf(*context), request->host()); }, response);
}

grpc::Status InventoryServiceImpl::GetHost(grpc::ServerContext* context,
                                           const v1::GetHostRequest* request,
                                           types::v1::Host* response) {
  return Checked(
      {CheckId("infra_env_id", request->infra_env_id()), CheckId("id", request->id())},
      [&] {
        return stores_.hosts.Get(CallerOf(*context), {request->infra_env_id(), request->id()},
                                 request->include_deleted());
      },
      response);
}

grpc::Status InventoryServiceImpl::ListHosts(grpc::ServerContext* context,
                                             const v1::ListHostsRequest* request,
                                             v1::ListHostsResponse* response) {
  return Checked(
      {CheckId("cluster_id", request->cluster_id(), true),
       CheckId("infra_env_id", request->infra_env_id(), true)},
      [&] {
        return stores_.hosts.List(
            CallerOf(*context),
            {.page = {.token = request->page_token(), .size = request->page_size()},
             .owner_scope = request->owner_scope(),
             .cluster_id = request->cluster_id(),
             .infra_env_id = request->infra_env_id(),
             .statuses = EnumsOf<types::v1::HostStatus>(request->statuses()),
             .roles = EnumsOf<types::v1::HostRole>(request->roles()),
             .include_deleted = request->include_deleted(),
             .unbound_only = request->unbound_only(),
             .omit_reports = request->omit_reports(),
             .held_by_other_than = request->held_by_other_than()});
      },
      response);
}

grpc::Status InventoryServiceImpl::UpdateHost(grpc::ServerContext* context,
                                              const v1::UpdateHostRequest* request,
                                              types::v1::Host* response) {
  return Checked(
      {CheckId("host.infra_env_id", request->host().infra_env_id()),
       CheckId("host.id", request->host().id()),
       CheckId("host.cluster_id", request->host().cluster_id(), true),
       ValidateUpdateHostRequest(*request)},
      [&] {
        return stores_.hosts.Update(CallerOf(*context), request->host(), request->update_mask(),
                                    PreconditionOf(*request));
      },
      response);
}

grpc::Status InventoryServiceImpl::DeleteHost(grpc::ServerContext* context,
                                              const v1::DeleteHostRequest* request,
                                              google::protobuf::Empty*) {
  return CheckedEmpty(
      {CheckId("infra_env_id", request->infra_env_id()), CheckId("id", request->id())}, [&] {
        return stores_.hosts.Delete(CallerOf(*context), {request->infra_env_id(), request->id()},
                                    PreconditionOf(*request), request->purge());
      });
}

grpc::Status InventoryServiceImpl::UpdateHostStatus(grpc::ServerContext* context,
                                                    const v1::UpdateHostStatusRequest* request,
                                                    types::v1::Host* response) {
  return Checked(
      {CheckId("infra_env_id", request->infra_env_id()), CheckId("id", request->id())},
      [&] {
        return stores_.hosts.UpdateStatus(CallerOf(*context),
                                          {request->infra_env_id(), request->id()},
                                          StatusChangeOf<HostStatusChange>(*request));
      },
      response);
}

grpc::Status InventoryServiceImpl::AppendEvent(grpc::ServerContext* context,
                                               const v1::AppendEventRequest* request,
                                               types::v1::Event* response) {
  types::v1::Event event = request->event();
  // An event a request caused names it (the appender's id, forwarded as x-request-id).
  if (event.request_id().empty()) event.set_request_id(std::string(log::CurrentRequestId()));
  return Checked(
      {CheckId("event.cluster_id", event.cluster_id(), true),
       CheckId("event.host_id", event.host_id(), true),
       CheckId("event.infra_env_id", event.infra_env_id(), true)},
      [&] { return stores_.events.Append(CallerOf(*context), event); }, response);
}

grpc::Status InventoryServiceImpl::ListEvents(grpc::ServerContext* context,
                                              const v1::ListEventsRequest* request,
                                              v1::ListEventsResponse* response) {
  for (int i = 0; i < request->host_ids_size(); ++i) {
    if (absl::Status status = CheckId(absl::StrCat("host_ids[", i, "]"), request->host_ids(i));
        !status.ok()) {
      return ToGrpcStatus(status);
    }
  }
  return Checked(
      {CheckId("cluster_id", request->cluster_id(), true),
       CheckId("host_id", request->host_id(), true),
       CheckId("infra_env_id", request->infra_env_id(), true)},
      [&] {
        return stores_.events.List(
            CallerOf(*context),
            {.owner_scope = request->owner_scope(),
             .cluster_id = request->cluster_id(),
             .host_id = request->host_id(),
             .infra_env_id = request->infra_env_id(),
             .host_ids = {request->host_ids().begin(), request->host_ids().end()},
             .cluster_level = request->cluster_level(),
             .severities = EnumsOf<types::v1::EventSeverity>(request->severities()),
             .categories = EnumsOf<types::v1::EventCategory>(request->categories()),
             .message = request->message(),
             .limit = request->limit(),
             .offset = request->offset(),
             .newest_first = request->order() == v1::SORT_ORDER_DESC});
      },
      response);
}

grpc::Status InventoryServiceImpl::PutArtifact(grpc::ServerContext* context,
                                               const v1::PutArtifactRequest* request,
                                               v1::ArtifactInfo* response) {
  return Checked(
      {CheckId("cluster_id", request->cluster_id())},
      [&] {
        return stores_.artifacts.Put(
            CallerOf(*context),
            {.cluster_id = request->cluster_id(),
             .name = request->name(),
             .kind = request->kind(),
             .content_type = request->content_type(),
             .content = request->content(),
             .offset = request->offset(),
             .partial = request->partial(),
             .if_absent = request->if_absent(),
             .cluster_status_in = EnumsOf<types::v1::ClusterStatus>(request->cluster_status_in())},
            FenceOf(request->fence()));
      },
      response);
}

grpc::Status InventoryServiceImpl::GetArtifact(grpc::ServerContext* context,
                                               const v1::GetArtifactRequest* request,
                                               v1::Artifact* response) {
  return Checked(
      {CheckId("cluster_id", request->cluster_id())},
      [&] {
        return stores_.artifacts.Get(CallerOf(*context), request->cluster_id(), request->name(),
                                     {.metadata_only = request->metadata_only(),
                                      .offset = request->offset(),
                                      .length = request->length()});
      },
      response);
}

grpc::Status InventoryServiceImpl::ListArtifacts(grpc::ServerContext* context,
                                                 const v1::ListArtifactsRequest* request,
                                                 v1::ListArtifactsResponse* response) {
  return Checked(
      {CheckId("cluster_id", request->cluster_id())},
      [&]() -> absl::StatusOr<v1::ListArtifactsResponse> {
        ASSIGN_OR_RETURN(std::vector<v1::ArtifactInfo> infos,
                         stores_.artifacts.List(CallerOf(*context), request->cluster_id(),
                                                SelectionOf(*request)));
        v1::ListArtifactsResponse out;
        for (v1::ArtifactInfo& info : infos) *out.add_artifacts() = std::move(info);
        return out;
      },
      response);
}

grpc::Status InventoryServiceImpl::DeleteArtifacts(grpc::ServerContext* context,
                                                   const v1::DeleteArtifactsRequest* request,
                                                   v1::DeleteArtifactsResponse* response) {
  return Checked(
      {CheckId("cluster_id", request->cluster_id())},
      [&]() -> absl::StatusOr<v1::DeleteArtifactsResponse> {
        ArtifactSelection selection = SelectionOf(*request);
        selection.name = request->name();
        selection.cluster_status_in =
            EnumsOf<types::v1::ClusterStatus>(request->cluster_status_in());
        ASSIGN_OR_RETURN(int64_t deleted,
                         stores_.artifacts.Delete(CallerOf(*context), request->cluster_id(),
                                                  selection, FenceOf(request->fence())));
        v1::DeleteArtifactsResponse out;
        out.set_deleted_count(deleted);
        return out;
      },
      response);
}

grpc::Status InventoryServiceImpl::Lease(grpc::ServerContext*, const v1::LeaseRequest* request,
                                         v1::LeaseResponse* response) {
  const absl::Duration ttl =
      absl::Seconds(request->ttl().seconds()) + absl::Nanoseconds(request->ttl().nanos());
  return Reply(stores_.leases.Lease(request->action(), request->name(), request->holder(), ttl),
               response);
}

grpc::Status InventoryServiceImpl::GetChangeLogHead(grpc::ServerContext* /*context*/,
                                                    const v1::GetChangeLogHeadRequest* /*request*/,
                                                    v1::GetChangeLogHeadResponse* response) {
  absl::StatusOr<int64_t> head = SyncedHead(stores_.pool);
  if (!head.ok()) return ToGrpcStatus(head.status());
  response->set_seq(*head);
  return grpc::Status::OK;
}

grpc::Status InventoryServiceImpl::Watch(grpc::ServerContext* context,
                                         const v1::WatchRequest* request,
                                         grpc::ServerWriter<v1::WatchEvent>* writer) {
  if (request->from_seq() < 0) {
    return ToGrpcStatus(absl::InvalidArgumentError("from_seq: must not be negative"));
  }
  if (request->from_beginning() && request->from_seq() != 0) {
    return ToGrpcStatus(
        absl::InvalidArgumentError("from_seq: must be 0 when from_beginning is set"));
  }
  absl::StatusOr<int64_t> purged = PurgedThrough(stores_.pool);
  if (!purged.ok()) return ToGrpcStatus(purged.status());
  absl::StatusOr<int64_t> head = HeadSeq(stores_.pool);
  if (!head.ok()) return ToGrpcStatus(head.status());
  if (request->from_seq() > 0 && request->from_seq() < *purged) {
    return ToGrpcStatus(absl::OutOfRangeError(
        absl::StrCat("from_seq ", request->from_seq(), " is older than the retained change log (",
                     "it starts after ", *purged, "); re-list and watch from a bookmark")));
  }
  if (request->from_seq() > *head) {
    return ToGrpcStatus(absl::OutOfRangeError(absl::StrCat(
        "from_seq ", request->from_seq(), " is ahead of the change log head ", *head)));
  }
  int64_t cursor = request->from_beginning()  ? *purged
                   : request->from_seq() == 0 ? *head
                                              : request->from_seq();
  auto bookmark = [&writer](int64_t seq) {
    v1::WatchEvent event;
    event.set_seq(seq);
    event.set_change_type(v1::CHANGE_TYPE_BOOKMARK);
    return writer->Write(event);
  };
  // Hints start from now; they are best effort, so none from before the stream is owed.
  uint64_t hint = request->hints() ? stores_.feed.last_hint() : ChangeFeed::kNoHints;
  if (!bookmark(cursor)) return grpc::Status::OK;
  absl::Time last_sent = absl::Now();
  while (!context->IsCancelled()) {
    if (hint != ChangeFeed::kNoHints) {
      for (const v1::WatchEvent& event : stores_.feed.HintsAfter(&hint, request->filter())) {
        if (!writer->Write(event)) return grpc::Status::OK;
      }
    }
    const int64_t upto = stores_.feed.head();
    if (upto > cursor) {
      absl::StatusOr<std::vector<v1::WatchEvent>> batch =
          ReadChanges(stores_.pool, cursor, upto, request->filter(), kWatchBatch);
      if (!batch.ok()) return ToGrpcStatus(batch.status());
      for (const v1::WatchEvent& event : *batch) {
        if (!writer->Write(event)) return grpc::Status::OK;  // the watcher went away
        last_sent = absl::Now();
      }
      // A short batch means everything up to `upto` was scanned (filtered rows included).
      cursor = batch->size() < static_cast<size_t>(kWatchBatch) ? upto : batch->back().seq();
      // Rows the filter left out still move the watcher's position: a reader waiting for it to
      // pass a GetChangeLogHead seq must not wait for the next idle bookmark.
      if (batch->empty() || batch->back().seq() < cursor) {
        if (!bookmark(cursor)) return grpc::Status::OK;
        last_sent = absl::Now();
      }
      continue;
    }
    // Wake at least every second to notice a cancelled stream.
    const absl::Time deadline =
        std::min(last_sent + bookmark_interval_, absl::Now() + absl::Seconds(1));
    stores_.feed.WaitBeyond(cursor, deadline, hint);
    if (stores_.feed.head() <= cursor && absl::Now() >= last_sent + bookmark_interval_) {
      if (!bookmark(cursor)) return grpc::Status::OK;
      last_sent = absl::Now();
    }
  }
  return grpc::Status::OK;
}

}  // namespace assisted::inventory
