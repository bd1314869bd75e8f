#include "services/inventory/cluster_store.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/status/status_macros.h"
#include "services/inventory/resource_queries.h"
#include "services/inventory/resource_rows.h"
#include "services/inventory/transaction.h"

namespace assisted::inventory {
namespace {

using google::protobuf::FieldMask;
using resource_rows::Announce;
using resource_rows::AnyOf;
using resource_rows::AttachHosts;
using resource_rows::Bind;
using resource_rows::ChangeStatus;
using resource_rows::CountHosts;
using resource_rows::CountHostsOf;
using resource_rows::CreateWithPullSecret;
using resource_rows::Decode;
using resource_rows::FetchPage;
using resource_rows::Key;
using resource_rows::NotFound;
using resource_rows::Page;
using resource_rows::PageFrom;
using resource_rows::PullSecretOf;
using resource_rows::ReadRow;
using resource_rows::Remove;
using resource_rows::RemoveHostsWhere;
using resource_rows::SelectList;
using resource_rows::SelectRow;
using resource_rows::UpdateAndAnnounce;
using types::v1::Cluster;
using types::v1::Host;
namespace sql = resource_sql;

}  // namespace

absl::StatusOr<Cluster> ClusterStore::Create(const Caller& caller, Cluster cluster,
                                             const std::string& pull_secret, CreateMode mode) {
  if (cluster.status() == types::v1::CLUSTER_STATUS_UNSPECIFIED) {
    cluster.set_status(types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT);
  }
  return CreateWithPullSecret(pool_, caller, options_, std::move(cluster), pull_secret, mode);
}

absl::StatusOr<Cluster> ClusterStore::Get(const Caller& caller, const std::string& id,
                                          bool include_hosts, bool include_deleted) {
  const Key key{"", id};
  if (!include_hosts) {
    return ReadOnConnection(pool_, [&](pg::Connection& db) -> absl::StatusOr<Cluster> {
      ASSIGN_OR_RETURN(Cluster cluster,
                       ReadRow<Cluster>(db, caller, key, include_deleted, false, nullptr));
      RETURN_IF_ERROR(CountHostsOf(db, {&cluster}));
      return cluster;
    });
  }
  // One statement, so the cluster and its hosts come from one snapshot in one round trip. Both
  // select lists have the same column types; `part` (after them) tells the rows apart.
  Query q;
  const std::string cluster_row = SelectRow<Cluster>(q, caller, key, include_deleted);
  const std::string select =
      Bind(q, absl::StrFormat(sql::kClusterWithHosts, cluster_row, SelectList<Host>()), {id});
  return ReadOnConnection(pool_, [&](pg::Connection& db) -> absl::StatusOr<Cluster> {
    ASSIGN_OR_RETURN(pg::Result rows, db.Exec(select, q.params()));
    if (rows.rows() == 0) return NotFound<Cluster>(key);
    ASSIGN_OR_RETURN(Cluster cluster, Decode<Cluster>(rows, 0));
    for (int row = 1; row < rows.rows(); ++row) {
      ASSIGN_OR_RETURN(*cluster.add_hosts(), Decode<Host>(rows, row));
    }
    CountHosts(cluster);
    return cluster;
  });
}

absl::StatusOr<v1::ListClustersResponse> ClusterStore::List(const Caller& caller,
                                                            const ClusterQuery& query) {
  Query q;
  ASSIGN_OR_RETURN(Page page, PageFrom(q, query.page, options_.limits, {"created_at", "id"}));
  std::string select =
      absl::StrCat(absl::StrFormat(sql::kListClusters, SelectList<Cluster>()),
                   TenancyPredicate(caller, query.owner_scope, q.params()), page.where);
  if (!query.include_deleted) select += sql::kLive;
  if (!query.statuses.empty()) {
    select +=
        AnyOf(q, "status",
              EnumNames<types::v1::ClusterStatus>(query.statuses, types::v1::ClusterStatus_Name));
  }
  if (!query.kinds.empty()) {
    select += AnyOf(q, "kind",
                    EnumNames<types::v1::ClusterKind>(query.kinds, types::v1::ClusterKind_Name));
  }
  if (!query.openshift_cluster_id.empty()) {
    select += Bind(q, sql::kFilterOpenshiftClusterId, {query.openshift_cluster_id});
  }
  if (query.updated_before.has_value()) {
    select += Bind(q, sql::kFilterUpdatedBefore, {MicrosText(*query.updated_before)});
  }
  select += sql::kByCreation;
  return InTransaction(pool_, [&](pg::Transaction& tx) -> absl::StatusOr<v1::ListClustersResponse> {
    v1::ListClustersResponse response;
    ASSIGN_OR_RETURN(*response.mutable_next_page_token(),
                     FetchPage<Cluster>(
                         tx, select, q, page,
                         [](const Cluster& c) -> std::vector<std::string> {
                           return {MicrosText(c.created_at()), c.id()};
                         },
                         *response.mutable_clusters()));
    if (query.include_hosts) {
      RETURN_IF_ERROR(AttachHosts(tx, *response.mutable_clusters()));
    } else {
      std::vector<Cluster*> clusters;
      for (Cluster& cluster : *response.mutable_clusters()) clusters.push_back(&cluster);
      RETURN_IF_ERROR(CountHostsOf(tx, clusters));
    }
    return response;
  });
}

absl::StatusOr<Cluster> ClusterStore::Update(const Caller& caller, const Cluster& patch,
                                             const FieldMask& mask,
                                             const Precondition& precondition,
                                             const std::string& pull_secret) {
  return UpdateAndAnnounce(pool_, caller, options_, patch, mask, precondition, pull_secret);
}

absl::Status ClusterStore::Delete(const Caller& caller, const std::string& id,
                                  const Precondition& precondition, bool purge) {
  return InTransaction(
             pool_,
             [&](pg::Transaction& tx) -> absl::StatusOr<bool> {
               // The cluster's row is locked first, then its hosts': the fixed lock order.
               RETURN_IF_ERROR(Remove<Cluster>(tx, caller, {"", id}, precondition.resource_version,
                                               purge, precondition.fence)
                                   .status());
               RETURN_IF_ERROR(RemoveHostsWhere(tx, "cluster_id", id, purge));
               if (purge) {
                 RETURN_IF_ERROR(tx.Exec(sql::kPurgeArtifactsOfCluster, {id}).status());
               }
               return true;
             })
      .status();
}

absl::StatusOr<Cluster> ClusterStore::UpdateStatus(const Caller& caller, const std::string& id,
                                                   const ClusterStatusChange& change) {
  return Announce(
      options_.committed, v1::CHANGE_TYPE_UPDATED,
      ChangeStatus(pool_, caller, options_, {"", id}, change, types::v1::ClusterStatus_Name));
}

absl::StatusOr<std::string> ClusterStore::GetPullSecret(const Caller& caller,
                                                        const std::string& id) {
  return PullSecretOf<Cluster>(pool_, options_.sealer, caller, id);
}

}  // namespace assisted::inventory
