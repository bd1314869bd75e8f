#include "services/inventory/event_store.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/status/status_macros.h"
#include "services/inventory/change_log.h"
#include "services/inventory/event_queries.h"
#include "services/inventory/transaction.h"

namespace assisted::inventory {

absl::StatusOr<int64_t> PruneEvents(pg::Pool& pool, const EventPruning& pruning) {
  if (pruning.older_than <= absl::ZeroDuration() || pruning.batch < 1 || pruning.max_batches < 1) {
    return absl::InvalidArgumentError("event pruning: age, batch and batches must be positive");
  }
  const std::vector<pg::Param> params = {absl::StrCat(absl::ToInt64Seconds(pruning.older_than)),
                                         absl::StrCat(pruning.batch)};
  int64_t deleted = 0;
  for (int pass = 0; pass < pruning.max_batches; ++pass) {
    ASSIGN_OR_RETURN(const int64_t gone,
                     InTransaction(pool, [&](pg::Transaction& tx) -> absl::StatusOr<int64_t> {
                       ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(event_sql::kPruneBatch, params));
                       return rows.affected_rows();
                     }));
    deleted += gone;
    if (gone < pruning.batch) break;
  }
  return deleted;
}

EventRetention::EventRetention(pg::Pool& pool, EventPruning pruning, absl::Duration interval,
                               log::Logger log)
    : pool_(pool), pruning_(pruning), interval_(interval), log_(std::move(log)), thread_([this] {
        Run();
      }) {}

EventRetention::~EventRetention() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

void EventRetention::Run() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (mu_.AwaitWithTimeout(absl::Condition(&stop_), interval_)) return;
    }
    absl::StatusOr<int64_t> pruned = PruneEvents(pool_, pruning_);
    if (!pruned.ok()) {
      log_.Warning("cannot prune old events", {{"error", pruned.status().message()}});
    } else if (*pruned > 0) {
      log_.Info("pruned old events", {{"rows", *pruned}});
    }
  }
}

namespace {

// A user records events only on their own resources: another tenant's cluster, infra-env or
// host is NOT_FOUND, like a missing one (the event would otherwise sit on it, and in the change
// feed of whoever follows it).
absl::Status CheckNamedResourcesVisible(pg::Transaction& tx, const Caller& caller,
                                        const types::v1::Event& event) {
  std::vector<pg::Param> params = {event.cluster_id(), event.infra_env_id(), event.host_id()};
  const std::string tenancy = TenancyPredicate(caller, types::v1::Owner(), params);
  ASSIGN_OR_RETURN(pg::Result rows,
                   tx.Exec(absl::StrFormat(event_sql::kNamedResourcesVisible, tenancy), params));
  // The id is not echoed: the caller gave it, and a 404 says no more than "not yours".
  constexpr const char* kNamed[] = {"event.cluster_id", "event.infra_env_id", "event.host_id"};
  for (int column = 0; column < 3; ++column) {
    if (rows.Get(0, column) != "t") {
      return absl::NotFoundError(absl::StrCat(kNamed[column], ": no such resource"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<types::v1::Event> EventStore::Append(const Caller& caller, types::v1::Event event) {
  if (event.message().empty()) return absl::InvalidArgumentError("event.message: required");
  if (event.severity() == types::v1::EVENT_SEVERITY_UNSPECIFIED) {
    return absl::InvalidArgumentError("event.severity: required");
  }
  if (event.message().size() > 4096) event.mutable_message()->resize(4096);
  *event.mutable_owner() = OwnerFor(caller, event.owner());
  types::v1::Event document = event;
  document.clear_id();
  const bool inherit_owner = event.owner().user_name().empty() && event.owner().org_id().empty();
  const std::vector<pg::Param> params = {
      event.cluster_id(),
      event.host_id(),
      event.infra_env_id(),
      inherit_owner ? "true" : "false",
      event.owner().user_name(),
      event.owner().org_id(),
      types::v1::EventSeverity_Name(event.severity()),
      types::v1::EventCategory_Name(event.category()),
      event.name(),
      event.message(),
      event.has_event_time() ? MicrosText(event.event_time()) : "",
      ToJson(document)};
  return InTransaction(pool_, [&](pg::Transaction& tx) -> absl::StatusOr<types::v1::Event> {
    if (!caller.system) RETURN_IF_ERROR(CheckNamedResourcesVisible(tx, caller, event));
    ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(event_sql::kInsert, params));
    event.set_id(ToInt64(rows.Get(0, 0)));
    SetTimestamp(rows.Get(0, 1), *event.mutable_event_time());
    event.mutable_owner()->set_user_name(std::string(rows.Get(0, 2)));
    event.mutable_owner()->set_org_id(std::string(rows.Get(0, 3)));
    RETURN_IF_ERROR(
        AppendChange(tx, {v1::RESOURCE_KIND_EVENT, absl::StrCat(event.id()), event.infra_env_id(),
                          event.cluster_id(), 1, v1::CHANGE_TYPE_CREATED, ""}));
    return event;
  });
}

absl::StatusOr<v1::ListEventsResponse> EventStore::List(const Caller& caller,
                                                        const EventQuery& query) {
  if (query.limit < -1) return absl::InvalidArgumentError("limit: must be -1 or more");
  if (query.offset < 0) return absl::InvalidArgumentError("offset: must not be negative");
  Query q;
  std::string filters = TenancyPredicate(caller, query.owner_scope, q.params());
  if (!query.cluster_id.empty()) {
    filters += absl::StrFormat(event_sql::kFilterClusterIs, q.Add(query.cluster_id));
  }
  if (!query.host_id.empty()) {
    filters += absl::StrFormat(event_sql::kFilterHostIs, q.Add(query.host_id));
  }
  if (!query.infra_env_id.empty()) {
    filters += absl::StrFormat(event_sql::kFilterInfraEnvIs, q.Add(query.infra_env_id));
  }
  if (!query.host_ids.empty()) {
    filters += absl::StrFormat(event_sql::kFilterHostIn, q.Add(ArrayLiteral(query.host_ids)));
  }
  if (query.cluster_level) filters += event_sql::kFilterClusterLevel;
  if (!query.severities.empty()) {
    filters += absl::StrFormat(event_sql::kFilterSeverityIn,
                               q.Add(ArrayLiteral(EnumNames<types::v1::EventSeverity>(
                                   query.severities, types::v1::EventSeverity_Name))));
  }
  if (!query.categories.empty()) {
    filters += absl::StrFormat(event_sql::kFilterCategoryIn,
                               q.Add(ArrayLiteral(EnumNames<types::v1::EventCategory>(
                                   query.categories, types::v1::EventCategory_Name))));
  }
  if (!query.message.empty()) {
    filters += absl::StrFormat(event_sql::kFilterMessageHas, q.Add(query.message));
  }
  // No caller gets more than a page, whatever it asks: the rest is reached with offset.
  const int limit =
      query.limit <= 0 || query.limit > kMaxEventsPerPage ? kMaxEventsPerPage : query.limit;
  const char* order = query.newest_first ? "DESC" : "ASC";
  const std::string select =
      absl::StrCat(event_sql::kSelectPage, filters,
                   absl::StrFormat(event_sql::kPageOrder, order, order, limit, query.offset));
  const std::string counts =
      absl::StrCat(event_sql::kCountBySeverity, filters, event_sql::kCountGroup);
  return InTransaction(pool_, [&](pg::Transaction& tx) -> absl::StatusOr<v1::ListEventsResponse> {
    v1::ListEventsResponse response;
    ASSIGN_OR_RETURN(pg::Result rows, tx.Exec(select, q.params()));
    for (int row = 0; row < rows.rows(); ++row) {
      types::v1::Event* event = response.add_events();
      RETURN_IF_ERROR(FromJson(rows.Get(row, 1), *event));
      event->set_id(ToInt64(rows.Get(row, 0)));
      SetTimestamp(rows.Get(row, 2), *event->mutable_event_time());
      event->mutable_owner()->set_user_name(std::string(rows.Get(row, 3)));
      event->mutable_owner()->set_org_id(std::string(rows.Get(row, 4)));
    }
    ASSIGN_OR_RETURN(pg::Result totals, tx.Exec(counts, q.params()));
    for (int row = 0; row < totals.rows(); ++row) {
      v1::SeverityCount* count = response.add_severity_counts();
      types::v1::EventSeverity severity;
      if (types::v1::EventSeverity_Parse(std::string(totals.Get(row, 0)), &severity)) {
        count->set_severity(severity);
      }
      count->set_count(ToInt64(totals.Get(row, 1)));
      response.set_total_count(response.total_count() + count->count());
    }
    return response;
  });
}

}  // namespace assisted::inventory
