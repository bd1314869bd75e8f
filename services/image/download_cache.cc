#include "services/image/download_cache.h"

namespace assisted::image {

std::shared_ptr<const Download> DownloadCache::Find(const std::string& key) {
  absl::MutexLock lock(&mu_);
  const auto found = index_.find(key);
  if (found == index_.end()) return nullptr;
  entries_.splice(entries_.begin(), entries_, found->second);
  return found->second->second;
}

void DownloadCache::Insert(const std::string& key, std::shared_ptr<const Download> download) {
  if (capacity_ == 0) return;
  absl::MutexLock lock(&mu_);
  if (const auto found = index_.find(key); found != index_.end()) {
    entries_.erase(found->second);
    index_.erase(found);
  }
  entries_.emplace_front(key, std::move(download));
  index_[key] = entries_.begin();
  while (entries_.size() > capacity_) {
    index_.erase(entries_.back().first);
    entries_.pop_back();
  }
}

}  // namespace assisted::image
