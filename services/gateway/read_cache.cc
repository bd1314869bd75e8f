#include "services/gateway/read_cache.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace assisted::gateway {
namespace {

namespace inv = inventory::v1;
namespace types = types::v1;

std::string Tag(absl::string_view kind, absl::string_view id) {
  if (id.empty()) return "";
  std::string tag = absl::StrCat(kind, ":", id);
  absl::AsciiStrToLower(&tag);
  return tag;
}

// Appends `tag` unless it is empty or already there (answers carry a handful of tags).
void AddTag(std::string tag, std::vector<std::string>& tags) {
  if (tag.empty() || std::find(tags.begin(), tags.end(), tag) != tags.end()) return;
  tags.push_back(std::move(tag));
}

void AddHostTags(const types::Host& host, std::vector<std::string>& tags) {
  AddTag(HostTag(host.id()), tags);
  AddTag(InfraEnvTag(host.infra_env_id()), tags);
  AddTag(ClusterTag(host.cluster_id()), tags);
}

}  // namespace

ReadCache::ReadCache(ReadCacheOptions options, ReadCacheMetrics& metrics, CurrentHead current_head)
    : options_(options), metrics_(metrics), current_head_(std::move(current_head)) {}

absl::StatusOr<std::shared_ptr<const std::string>> ReadCache::GetOrFetch(
    absl::string_view key, absl::FunctionRef<absl::StatusOr<Fetched>()> fetch) {
  if (std::shared_ptr<const std::string> hit =
          CurrentHit(key, absl::Now() + options_.catch_up_timeout)) {
    return hit;
  }
  bool following = false;
  uint64_t fetch_began = 0;
  {
    absl::MutexLock lock(&mu_);
    following = following_;
    fetch_began = invalidations_;
  }
  if (following) {
    metrics_.Miss();
  } else {
    metrics_.Bypassed();
  }
  absl::StatusOr<Fetched> fetched = fetch();
  if (!fetched.ok()) return fetched.status();
  auto body = std::make_shared<const std::string>(std::move(fetched->body));
  if (following) {
    absl::MutexLock lock(&mu_);
    Insert(key, body, std::move(fetched->tags), fetch_began);
  }
  return body;
}

std::shared_ptr<const std::string> ReadCache::CurrentHit(absl::string_view key,
                                                         absl::Time deadline) {
  {
    absl::MutexLock lock(&mu_);
    // Nothing to serve: the fetch reads the inventory, which needs no head.
    if (!following_ || !by_key_.contains(key)) return nullptr;
  }
  const absl::StatusOr<int64_t> head = current_head_(deadline);
  absl::MutexLock lock(&mu_);
  if (!head.ok()) {
    metrics_.Unconfirmed();
    return nullptr;
  }
  const int64_t target = *head;
  auto caught_up = [this, target]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return position_ >= target || !following_;
  };
  if (!mu_.AwaitWithDeadline(absl::Condition(&caught_up), deadline)) {
    metrics_.Unconfirmed();
    return nullptr;
  }
  // Every change up to the head has invalidated what it touched: whatever is left is current.
  auto found = by_key_.find(key);
  if (!following_ || found == by_key_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, found->second);
  metrics_.Hit();
  return found->second->body;
}

void ReadCache::Insert(absl::string_view key, std::shared_ptr<const std::string> body,
                       std::vector<std::string> tags, uint64_t fetch_began) {
  if (!following_ || !UntouchedSince(fetch_began, tags)) {
    metrics_.InsertRefused();
    return;
  }
  const int64_t bytes = static_cast<int64_t>(body->size() + key.size());
  if (bytes > options_.max_bytes) return;
  // A concurrent miss of the same key may have got here first; both answers are current.
  if (auto found = by_key_.find(key); found != by_key_.end()) Erase(found->second);
  lru_.push_front(Entry{std::string(key), std::move(body), std::move(tags), bytes});
  const auto entry = lru_.begin();
  by_key_.emplace(entry->key, entry);
  for (const std::string& tag : entry->tags) by_tag_[tag].insert(entry->key);
  bytes_ += bytes;
  int64_t evicted = 0;
  while (static_cast<int64_t>(lru_.size()) > options_.max_entries || bytes_ > options_.max_bytes) {
    Erase(std::prev(lru_.end()));
    ++evicted;
  }
  if (evicted > 0) metrics_.Evicted(evicted);
  metrics_.Entries(static_cast<int64_t>(lru_.size()));
}

bool ReadCache::UntouchedSince(uint64_t fetch_began, const std::vector<std::string>& tags) const {
  if (invalidations_ == fetch_began) return true;
  // Every invalidation numbered after fetch_began must still be in the ring to be checked.
  if (recent_.empty() || recent_.front().number > fetch_began + 1) return false;
  for (auto it = recent_.rbegin(); it != recent_.rend() && it->number > fetch_began; ++it) {
    if (std::find(tags.begin(), tags.end(), it->tag) != tags.end()) return false;
  }
  return true;
}

void ReadCache::Erase(std::list<Entry>::iterator entry) {
  for (const std::string& tag : entry->tags) {
    auto index = by_tag_.find(tag);
    if (index == by_tag_.end()) continue;
    index->second.erase(entry->key);
    if (index->second.empty()) by_tag_.erase(index);
  }
  by_key_.erase(entry->key);
  bytes_ -= entry->bytes;
  lru_.erase(entry);
}

void ReadCache::Invalidate(absl::Span<const std::string> tags) {
  absl::MutexLock lock(&mu_);
  int64_t dropped = 0;
  for (const std::string& tag : tags) {
    if (tag.empty()) continue;
    recent_.push_back({++invalidations_, tag});
    if (static_cast<int>(recent_.size()) > options_.recent_invalidations) recent_.pop_front();
    auto index = by_tag_.find(tag);
    if (index == by_tag_.end()) continue;
    // Erase() edits the index: work from a copy of the keys.
    const std::vector<absl::string_view> keys(index->second.begin(), index->second.end());
    for (absl::string_view key : keys) {
      if (auto found = by_key_.find(key); found != by_key_.end()) {
        Erase(found->second);
        ++dropped;
      }
    }
  }
  if (dropped > 0) {
    metrics_.Invalidated(dropped);
    metrics_.Entries(static_cast<int64_t>(lru_.size()));
  }
}

void ReadCache::SetFollowing(bool following) {
  absl::MutexLock lock(&mu_);
  if (following == following_) return;
  following_ = following;
  ClearLocked();
}

void ReadCache::Clear() {
  absl::MutexLock lock(&mu_);
  ClearLocked();
}

void ReadCache::ClearLocked() {
  // A new number with no ring record behind it: every fetch in flight now fails UntouchedSince.
  ++invalidations_;
  recent_.clear();
  if (!lru_.empty()) metrics_.Invalidated(static_cast<int64_t>(lru_.size()));
  by_key_.clear();
  by_tag_.clear();
  lru_.clear();
  bytes_ = 0;
  metrics_.Entries(0);
}

void ReadCache::Reached(int64_t seq) {
  absl::MutexLock lock(&mu_);
  position_ = std::max(position_, seq);
}

int64_t ReadCache::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(lru_.size());
}

std::vector<inv::ResourceKind> ReadCache::WatchedKinds() {
  return {inv::RESOURCE_KIND_CLUSTER, inv::RESOURCE_KIND_INFRA_ENV, inv::RESOURCE_KIND_HOST};
}

inventory_client::WatchFollower::Callbacks ReadCache::FollowerCallbacks() {
  return {
      .on_change = [this](const inv::WatchEvent& event) { Invalidate(TagsOfChange(event)); },
      .on_resync = [this] { Clear(); },
      .on_established = [this] { SetFollowing(true); },
      .on_broken = [this] { SetFollowing(false); },
      .on_position = [this](int64_t seq) { Reached(seq); },
  };
}

std::string ReadCacheKey(absl::Span<const absl::string_view> parts) {
  std::string key;
  for (absl::string_view part : parts) absl::StrAppend(&key, part.size(), ":", part, ";");
  return key;
}

std::string ClusterTag(absl::string_view id) { return Tag("cluster", id); }
std::string InfraEnvTag(absl::string_view id) { return Tag("infra-env", id); }
std::string HostTag(absl::string_view id) { return Tag("host", id); }

std::vector<std::string> TagsOf(const types::Cluster& cluster) {
  std::vector<std::string> tags;
  AddTag(ClusterTag(cluster.id()), tags);
  for (const types::Host& host : cluster.hosts()) AddHostTags(host, tags);
  return tags;
}

std::vector<std::string> TagsOf(const google::protobuf::RepeatedPtrField<types::Host>& hosts) {
  std::vector<std::string> tags;
  for (const types::Host& host : hosts) AddHostTags(host, tags);
  return tags;
}

std::vector<std::string> TagsOf(const types::InfraEnv& infra_env) {
  std::vector<std::string> tags;
  AddTag(InfraEnvTag(infra_env.id()), tags);
  AddTag(ClusterTag(infra_env.cluster_id()), tags);
  return tags;
}

std::vector<std::string> TagsOf(const types::Host& host) {
  std::vector<std::string> tags;
  AddHostTags(host, tags);
  return tags;
}

std::vector<std::string> TagsOfChange(const inv::WatchEvent& event) {
  std::vector<std::string> tags;
  switch (event.kind()) {
    case inv::RESOURCE_KIND_CLUSTER:
      AddTag(ClusterTag(event.id()), tags);
      break;
    case inv::RESOURCE_KIND_INFRA_ENV:
      AddTag(InfraEnvTag(event.id()), tags);
      AddTag(ClusterTag(event.cluster_id()), tags);
      break;
    case inv::RESOURCE_KIND_HOST:
      AddTag(HostTag(event.id()), tags);
      AddTag(InfraEnvTag(event.infra_env_id()), tags);
      AddTag(ClusterTag(event.cluster_id()), tags);
      break;
    default:
      break;
  }
  return tags;
}

}  // namespace assisted::gateway
