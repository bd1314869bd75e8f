#include "services/inventory/infra_env_store.h"

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
using resource_rows::Bind;
using resource_rows::CreateWithPullSecret;
using resource_rows::FetchPage;
using resource_rows::Page;
using resource_rows::PageFrom;
using resource_rows::PullSecretOf;
using resource_rows::ReadRow;
using resource_rows::Remove;
using resource_rows::RemoveHostsWhere;
using resource_rows::SelectList;
using resource_rows::UpdateAndAnnounce;
using types::v1::InfraEnv;
namespace sql = resource_sql;

}  // namespace

absl::StatusOr<InfraEnv> InfraEnvStore::Create(const Caller& caller, InfraEnv infra_env,
                                               const std::string& pull_secret, CreateMode mode) {
  return CreateWithPullSecret(pool_, caller, options_, std::move(infra_env), pull_secret, mode);
}

absl::StatusOr<InfraEnv> InfraEnvStore::Get(const Caller& caller, const std::string& id) {
  return ReadOnConnection(pool_, [&](pg::Connection& db) {
    return ReadRow<InfraEnv>(db, caller, {"", id}, false, false, nullptr);
  });
}

absl::StatusOr<v1::ListInfraEnvsResponse> InfraEnvStore::List(const Caller& caller,
                                                              const InfraEnvQuery& query) {
  Query q;
  ASSIGN_OR_RETURN(Page page, PageFrom(q, query.page, options_.limits, {"created_at", "id"}));
  std::string select =
      absl::StrCat(absl::StrFormat(sql::kListInfraEnvs, SelectList<InfraEnv>()),
                   TenancyPredicate(caller, query.owner_scope, q.params()), page.where);
  if (!query.cluster_id.empty()) select += Bind(q, sql::kFilterClusterIs, {query.cluster_id});
  select += sql::kByCreation;
  return InTransaction(pool_,
                       [&](pg::Transaction& tx) -> absl::StatusOr<v1::ListInfraEnvsResponse> {
                         v1::ListInfraEnvsResponse response;
                         ASSIGN_OR_RETURN(*response.mutable_next_page_token(),
                                          FetchPage<InfraEnv>(
                                              tx, select, q, page,
                                              [](const InfraEnv& e) -> std::vector<std::string> {
                                                return {MicrosText(e.created_at()), e.id()};
                                              },
                                              *response.mutable_infra_envs()));
                         return response;
                       });
}

absl::StatusOr<InfraEnv> InfraEnvStore::Update(const Caller& caller, const InfraEnv& patch,
                                               const FieldMask& mask,
                                               const Precondition& precondition,
                                               const std::string& pull_secret) {
  return UpdateAndAnnounce(pool_, caller, options_, patch, mask, precondition, pull_secret);
}

absl::Status InfraEnvStore::Delete(const Caller& caller, const std::string& id,
                                   const Precondition& precondition, bool force) {
  return InTransaction(
             pool_,
             [&](pg::Transaction& tx) -> absl::StatusOr<bool> {
               ASSIGN_OR_RETURN(InfraEnv removed, Remove<InfraEnv>(tx, caller, {"", id},
                                                                   precondition.resource_version,
                                                                   false, precondition.fence));
               if (!force) {
                 ASSIGN_OR_RETURN(pg::Result hosts,
                                  tx.Exec(sql::kCountLiveHostsOfInfraEnv, {removed.id()}));
                 if (hosts.Get(0, 0) != "0") {
                   return absl::FailedPreconditionError(
                       absl::StrCat("infra-env ", removed.id(), " still has ", hosts.Get(0, 0),
                                    " hosts; delete them first or set force"));
                 }
               }
               RETURN_IF_ERROR(RemoveHostsWhere(tx, "infra_env_id", removed.id(), false));
               return true;
             })
      .status();
}

absl::StatusOr<std::string> InfraEnvStore::GetPullSecret(const Caller& caller,
                                                         const std::string& id) {
  return PullSecretOf<InfraEnv>(pool_, options_.sealer, caller, id);
}

}  // namespace assisted::inventory
