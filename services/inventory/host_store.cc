#include "services/inventory/host_store.h"

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
using resource_rows::AnnounceWritten;
using resource_rows::AnyOf;
using resource_rows::Bind;
using resource_rows::ChangeStatus;
using resource_rows::FetchPage;
using resource_rows::Insert;
using resource_rows::OmitReports;
using resource_rows::OwnerSource;
using resource_rows::Page;
using resource_rows::PageFrom;
using resource_rows::ReadRow;
using resource_rows::Remove;
using resource_rows::SelectList;
using resource_rows::Traits;
using resource_rows::UpdateAndAnnounce;
using resource_rows::WriteOne;
using resource_rows::Written;
using types::v1::Host;
namespace sql = resource_sql;

}  // namespace

absl::StatusOr<Host> HostStore::Create(const Caller& caller, Host host) {
  if (host.id().empty()) return absl::InvalidArgumentError("host.id: required");
  if (host.infra_env_id().empty()) return absl::InvalidArgumentError("host.infra_env_id: required");
  if (host.status() == types::v1::HOST_STATUS_UNSPECIFIED) {
    host.set_status(host.cluster_id().empty() ? types::v1::HOST_STATUS_DISCOVERING_UNBOUND
                                              : types::v1::HOST_STATUS_DISCOVERING);
  }
  RETURN_IF_ERROR(Traits<Host>::Validate(options_.validators, host));
  // A host registers into a live infra-env the caller may see and inherits its owner. The host
  // may carry an owner only when a system caller says so.
  host.clear_owner();
  absl::StatusOr<Written<Host>> created =
      WriteOne<Host>(pool_, options_.group_commit, {host.infra_env_id(), host.id()}, [&](auto& db) {
        return Insert(db, caller, host, pg::Param(), [&](Query& q) {
          std::string from = Bind(q, sql::kOwnerInfraEnv, {host.infra_env_id()});
          from += TenancyPredicate(caller, {}, q.params());
          return OwnerSource{
              .from = std::move(from), .user = sql::kOwnerUserColumn, .org = sql::kOwnerOrgColumn};
        });
      });
  return AnnounceWritten(options_.committed, v1::CHANGE_TYPE_CREATED, std::move(created));
}

absl::StatusOr<Host> HostStore::Get(const Caller& caller, const HostKey& key,
                                    bool include_deleted) {
  return ReadOnConnection(pool_, [&](pg::Connection& db) {
    return ReadRow<Host>(db, caller, {key.infra_env_id, key.id}, include_deleted, false, nullptr);
  });
}

absl::StatusOr<v1::ListHostsResponse> HostStore::List(const Caller& caller,
                                                      const HostQuery& query) {
  Query q;
  ASSIGN_OR_RETURN(Page page,
                   PageFrom(q, query.page, options_.limits, {"created_at", "infra_env_id", "id"}));
  std::string select =
      absl::StrCat(absl::StrFormat(sql::kListHosts, SelectList<Host>()),
                   TenancyPredicate(caller, query.owner_scope, q.params()), page.where);
  if (!query.include_deleted) select += sql::kLive;
  if (!query.cluster_id.empty()) select += Bind(q, sql::kFilterClusterIs, {query.cluster_id});
  if (!query.infra_env_id.empty()) {
    select += Bind(q, sql::kFilterInfraEnvIs, {query.infra_env_id});
  }
  if (query.unbound_only) select += sql::kFilterUnbound;
  if (!query.held_by_other_than.empty()) {
    select += Bind(q, sql::kFilterHeldByOtherThan, {query.held_by_other_than});
  }
  if (!query.statuses.empty()) {
    select += AnyOf(q, "status",
                    EnumNames<types::v1::HostStatus>(query.statuses, types::v1::HostStatus_Name));
  }
  if (!query.roles.empty()) {
    select +=
        AnyOf(q, "role", EnumNames<types::v1::HostRole>(query.roles, types::v1::HostRole_Name));
  }
  select += sql::kHostsByCreation;
  return InTransaction(pool_, [&](pg::Transaction& tx) -> absl::StatusOr<v1::ListHostsResponse> {
    v1::ListHostsResponse response;
    ASSIGN_OR_RETURN(*response.mutable_next_page_token(),
                     FetchPage<Host>(
                         tx, select, q, page,
                         [](const Host& h) -> std::vector<std::string> {
                           return {MicrosText(h.created_at()), h.infra_env_id(), h.id()};
                         },
                         *response.mutable_hosts()));
    if (query.omit_reports) {
      for (Host& host : *response.mutable_hosts()) OmitReports(host);
    }
    return response;
  });
}

absl::StatusOr<Host> HostStore::Update(const Caller& caller, const Host& patch,
                                       const FieldMask& mask, const Precondition& precondition) {
  return UpdateAndAnnounce(pool_, caller, options_, patch, mask, precondition, "");
}

absl::Status HostStore::Delete(const Caller& caller, const HostKey& key,
                               const Precondition& precondition, bool purge) {
  return InTransaction(pool_,
                       [&](pg::Transaction& tx) {
                         return Remove<Host>(tx, caller, {key.infra_env_id, key.id},
                                             precondition.resource_version, purge,
                                             precondition.fence);
                       })
      .status();
}

absl::StatusOr<Host> HostStore::UpdateStatus(const Caller& caller, const HostKey& key,
                                             const HostStatusChange& change) {
  return Announce(options_.committed, v1::CHANGE_TYPE_UPDATED,
                  ChangeStatus(pool_, caller, options_, {key.infra_env_id, key.id}, change,
                               types::v1::HostStatus_Name));
}

}  // namespace assisted::inventory
