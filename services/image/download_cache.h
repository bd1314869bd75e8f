// File: services/image/download_cache.h
//
// The Downloads built most recently, by key, so that the many requests for one image (every host
// of an infra-env booting the same ISO, BMC virtual media reading it in thousands of small
// ranges, HEAD before GET) do not each rebuild the discovery Ignition, gzip it and hash the
// overlays. A key must name everything the Download is made of (artifact, infra-env id and
// resource version, base image); a changed infra-env has a new version, so stale entries are
// never found and age out. Bounded by entry count (least recently used goes first), since each
// entry holds its overlay areas (256 KiB to 1.3 MiB). Thread-safe.

#ifndef ASSISTED_SERVICES_IMAGE_DOWNLOAD_CACHE_H_
#define ASSISTED_SERVICES_IMAGE_DOWNLOAD_CACHE_H_

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "services/image/artifacts.h"

namespace assisted::image {

class DownloadCache {
 public:
  // Keeps at most `capacity` entries (0 keeps none).
  explicit DownloadCache(size_t capacity) : capacity_(capacity) {}

  // The entry for `key` (now the most recently used), or null.
  std::shared_ptr<const Download> Find(const std::string& key);

  // Adds or replaces the entry for `key`, dropping the least recently used beyond capacity.
  void Insert(const std::string& key, std::shared_ptr<const Download> download);

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const Download>>;
  const size_t capacity_;
  absl::Mutex mu_;
  std::list<Entry> entries_ ABSL_GUARDED_BY(mu_);  // most recently used first
  absl::flat_hash_map<std::string, std::list<Entry>::iterator> index_ ABSL_GUARDED_BY(mu_);
};

}  // namespace assisted::image

#endif  // ASSISTED_SERVICES_IMAGE_DOWNLOAD_CACHE_H_
