#include "services/gateway/change_stream.h"

#include <algorithm>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/config/config.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"
#include "services/gateway/api_error.h"
#include "services/gateway/json_model.h"

namespace assisted::gateway {
namespace {

namespace inv = inventory::v1;

// Callers beyond the watcher limit come back after this long (EventSource's retry field, ms).
constexpr int kBusyRetryMs = 5000;

const char* KindText(inv::ResourceKind kind) {
  switch (kind) {
    case inv::RESOURCE_KIND_CLUSTER:
      return "cluster";
    case inv::RESOURCE_KIND_INFRA_ENV:
      return "infra-env";
    case inv::RESOURCE_KIND_HOST:
      return "host";
    case inv::RESOURCE_KIND_EVENT:
      return "event";
    default:
      return nullptr;  // not shown to browsers
  }
}

const char* ChangeText(inv::ChangeType change) {
  switch (change) {
    case inv::CHANGE_TYPE_CREATED:
      return "created";
    case inv::CHANGE_TYPE_DELETED:
      return "deleted";
    default:
      return "updated";
  }
}

nlohmann::json ChangeJson(const inv::WatchEvent& event) {
  nlohmann::json json = {{"kind", KindText(event.kind())},
                         {"id", event.id()},
                         {"cluster_id", event.cluster_id()},
                         {"infra_env_id", event.infra_env_id()},
                         {"change", ChangeText(event.change_type())}};
  if (event.has_cluster_status()) json["status"] = EnumText(event.cluster_status());
  if (event.has_host_status()) json["status"] = EnumText(event.host_status());
  // Lets the browser apply `status` to its row at once, unless the row it holds is newer (a
  // change arrives twice, as a hint and numbered, and the numbered one may come after a newer
  // hint).
  if (event.resource_version() > 0) json["resource_version"] = event.resource_version();
  return json;
}

// "<boot>-<n>" of this feed, or -1 when it is another feed's (or garbage).
int64_t ParsePosition(absl::string_view text, const std::string& boot) {
  int64_t n = 0;
  if (!absl::ConsumePrefix(&text, boot) || !absl::ConsumePrefix(&text, "-") ||
      !absl::SimpleAtoi(text, &n) || n < 0) {
    return -1;
  }
  return n;
}

void AppendEvent(std::string& out, const std::string& boot, int64_t n, absl::string_view type,
                 const nlohmann::json& data) {
  absl::StrAppend(&out, "id: ", boot, "-", n, "\nevent: ", type, "\ndata: ", data.dump(), "\n\n");
}

http::Response EventStream(std::string body) {
  http::Response response;
  response.status = 200;
  response.headers.Set("Content-Type", "text/event-stream; charset=utf-8");
  response.headers.Set("Cache-Control", "no-store");
  response.body = http::Body(std::move(body));
  return response;
}

absl::Status Invalid(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", problem));
}

}  // namespace

// ---- ChangeFeed ----

ChangeFeed::ChangeFeed(std::string boot, size_t capacity)
    : boot_(std::move(boot)), capacity_(capacity == 0 ? 1 : capacity) {}

inventory_client::WatchFollower::Callbacks ChangeFeed::FollowerCallbacks() {
  return {.on_change = [this](const inv::WatchEvent& event) { Append(event); },
          .on_resync = [this] { Resync(); }};
}

void ChangeFeed::Append(const inv::WatchEvent& event) {
  if (KindText(event.kind()) == nullptr) return;
  absl::MutexLock lock(&mu_);
  ring_.push_back(Entry{.n = ++head_, .event = event});
  if (ring_.size() > capacity_) ring_.pop_front();
}

void ChangeFeed::Resync() {
  absl::MutexLock lock(&mu_);
  ring_.push_back(Entry{.n = ++head_, .resync = true});
  if (ring_.size() > capacity_) ring_.pop_front();
}

void ChangeFeed::Close() {
  absl::MutexLock lock(&mu_);
  closed_ = true;
}

int64_t ChangeFeed::head() const {
  absl::MutexLock lock(&mu_);
  return head_;
}

ChangeFeed::Batch ChangeFeed::WaitAfter(int64_t after, absl::Time deadline) const {
  absl::MutexLock lock(&mu_);
  Batch batch;
  // A position ahead of the head comes from an earlier life of this feed's boot token (which
  // cannot happen with a random token) or a forged one: start over either way.
  const int64_t oldest = ring_.empty() ? head_ + 1 : ring_.front().n;
  if (after < 0 || after > head_ || after < oldest - 1) {
    batch.head = head_;
    batch.gap = true;
    return batch;
  }
  auto ready = [this, after]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return closed_ || head_ > after; };
  mu_.AwaitWithDeadline(absl::Condition(&ready), deadline);
  batch.head = head_;
  batch.closed = closed_;
  // Entries may have been dropped while waiting, if more than the ring's capacity arrived.
  if (!ring_.empty() && ring_.front().n > after + 1) {
    batch.gap = true;
    return batch;
  }
  for (const Entry& entry : ring_) {
    if (entry.n > after) batch.entries.push_back(entry);
  }
  return batch;
}

inventory_client::WatchFollower::Callbacks FeedAfterCache(
    inventory_client::WatchFollower::Callbacks cache, std::vector<inv::ResourceKind> cache_kinds,
    ChangeFeed& feed) {
  return {
      .on_change =
          [cache = std::move(cache.on_change), kinds = std::move(cache_kinds),
           &feed](const inv::WatchEvent& event) {
            if (cache && std::find(kinds.begin(), kinds.end(), event.kind()) != kinds.end()) {
              cache(event);
            }
            feed.Append(event);
          },
      .on_resync =
          [cache = std::move(cache.on_resync), &feed] {
            if (cache) cache();
            feed.Resync();
          },
      .on_established = std::move(cache.on_established),
      .on_broken = std::move(cache.on_broken),
      .on_position = std::move(cache.on_position),
  };
}

// ---- ChangeStream ----

ChangeStream::ChangeStream(const ChangeFeed& feed, const Authenticator& authenticator,
                           const Clock& clock, ClusterCheck can_read_cluster, Options options)
    : feed_(feed),
      authenticator_(authenticator),
      clock_(clock),
      can_read_cluster_(std::move(can_read_cluster)),
      options_(options) {}

absl::Status ChangeStream::Register(http::Router& router) const {
  return router.Handle("GET", kPath,
                       [this](const http::Request& request) { return Serve(request); });
}

http::Response ChangeStream::Serve(const http::Request& request) const {
  absl::StatusOr<http::Response> response = Answer(request);
  if (response.ok()) return *std::move(response);
  http::Response error = ErrorResponse(response.status());
  if (error.status == 401) error.headers.Set("WWW-Authenticate", "Bearer");
  return error;
}

absl::StatusOr<http::Response> ChangeStream::Answer(const http::Request& request) const {
  ASSIGN_OR_RETURN(Principal caller, authenticator_.Authenticate(request, clock_.Now()));
  // Tokens of agents, image downloads and cluster links carry no tenant: a stream opened with
  // one would read as the gateway's own and show every tenant's changes.
  if (caller.kind != Principal::Kind::kUser && caller.kind != Principal::Kind::kSystem &&
      caller.kind != Principal::Kind::kViewer) {
    return absl::PermissionDeniedError("changes: users only");
  }
  std::string cluster_id;
  std::string position;
  for (const auto& [name, value] : request.query) {
    if (name == "cluster_id") {
      if (absl::Status uuid = config::Uuid(value); !uuid.ok()) {
        return Invalid("cluster_id", uuid.message());
      }
      cluster_id = value;
    } else if (name == "last_event_id") {
      position = value;
    } else {
      return Invalid(absl::StrCat("query parameter \"", name, "\""), "unknown");
    }
  }
  if (absl::optional<absl::string_view> header = request.headers.Get("Last-Event-ID")) {
    position = std::string(*header);
  }
  // A viewer (no credentials, --read-only-cluster) follows its one cluster and nothing else.
  if (caller.kind == Principal::Kind::kViewer &&
      (cluster_id.empty() || !absl::EqualsIgnoreCase(cluster_id, caller.cluster_id))) {
    return absl::UnauthenticatedError(
        absl::StrCat("authentication required: without credentials only cluster ",
                     caller.cluster_id, "'s changes are served"));
  }
  if (!cluster_id.empty()) RETURN_IF_ERROR(can_read_cluster_(caller, cluster_id));

  const std::string& boot = feed_.boot();
  std::string body = "retry: 0\n\n";
  if (position.empty()) {
    AppendEvent(body, boot, feed_.head(), "position", nlohmann::json::object());
    return EventStream(std::move(body));
  }
  {
    absl::MutexLock lock(&mu_);
    if (watchers_ >= options_.max_watchers) {
      std::string busy = absl::StrCat("retry: ", kBusyRetryMs, "\n\n");
      return EventStream(std::move(busy));
    }
    ++watchers_;
  }
  absl::Cleanup leave = [this] {
    absl::MutexLock lock(&mu_);
    --watchers_;
  };

  int64_t after = ParsePosition(position, boot);
  const absl::Time deadline = absl::Now() + options_.max_wait;
  // Which clusters the caller may read, asked once per cluster per answer.
  absl::flat_hash_map<std::string, bool> readable;
  auto visible = [&](const inv::WatchEvent& event) {
    if (!cluster_id.empty()) return event.cluster_id() == cluster_id;
    if (event.kind() != inv::RESOURCE_KIND_CLUSTER) return false;
    auto [it, inserted] = readable.try_emplace(event.id(), false);
    if (inserted) it->second = can_read_cluster_(caller, event.id()).ok();
    return it->second;
  };
  while (true) {
    ChangeFeed::Batch batch = feed_.WaitAfter(after, deadline);
    if (batch.gap) {
      AppendEvent(body, boot, batch.head, "resync", nlohmann::json::object());
      return EventStream(std::move(body));
    }
    // The last word on each resource is enough: the browser re-reads it anyway. Hints and
    // their numbered copies collapse here too.
    std::vector<const ChangeFeed::Entry*> shown;
    absl::flat_hash_map<std::string, size_t> slot;
    bool resync = false;
    for (const ChangeFeed::Entry& entry : batch.entries) {
      if (entry.resync) {
        resync = true;
        continue;
      }
      if (!visible(entry.event)) continue;
      const std::string key = absl::StrCat(entry.event.kind(), "/", entry.event.id());
      auto [it, inserted] = slot.try_emplace(key, shown.size());
      if (inserted) {
        shown.push_back(&entry);
      } else {
        shown[it->second] = &entry;
      }
    }
    after = batch.head;
    if (resync) {
      AppendEvent(body, boot, batch.head, "resync", nlohmann::json::object());
      return EventStream(std::move(body));
    }
    for (const ChangeFeed::Entry* entry : shown) {
      AppendEvent(body, boot, entry->n, "change", ChangeJson(entry->event));
    }
    if (!shown.empty() || batch.closed || absl::Now() >= deadline) break;
  }
  AppendEvent(body, boot, after, "position", nlohmann::json::object());
  return EventStream(std::move(body));
}

}  // namespace assisted::gateway
