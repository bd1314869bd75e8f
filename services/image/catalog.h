// File: services/image/catalog.h
//
// The base OS images the image service customises: one live ISO per (OpenShift version, CPU
// architecture), configured like assisted-service's OS_IMAGES. Each is fetched once
// (file://, http://, https://), verified (an ISO9660 image with a CoreOS embed area; its sha256
// when one is given) and kept in a cache folder under a name derived from its source, written
// atomically (a partial download is never mistaken for an image). Next to each, the minimal ISO
// derived from it (minimal_iso.h) is built once with xorriso. The service reports not-ready
// until every configured image is usable.

#ifndef ASSISTED_SERVICES_IMAGE_CATALOG_H_
#define ASSISTED_SERVICES_IMAGE_CATALOG_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "assisted/image/v1/image_service.pb.h"
#include "lib/iso/embed.h"
#include "lib/log/log.h"
#include "lib/process/subprocess.h"

namespace assisted::image {

// One configured image.
struct OsImage {
  std::string openshift_version;  // e.g. "4.16"
  std::string cpu_architecture;   // "x86_64", "aarch64", …
  std::string url;                // file://, http:// or https://
  std::string version;            // the OS build, e.g. "416.94.202405291527-0"
  std::string sha256;             // expected digest in hex; empty = not checked
};

// Parses a JSON array of {openshift_version, cpu_architecture, url, version, sha256?}.
// INVALID_ARGUMENT naming the entry and field.
absl::StatusOr<std::vector<OsImage>> ParseOsImages(absl::string_view json);

// Copies `url` to `destination` (a new file). The network edge, so tests can substitute it.
class Fetcher {
 public:
  virtual ~Fetcher() = default;
  virtual absl::Status Fetch(const std::string& url, const std::string& destination) = 0;
};

// libcurl: file://, http://, https://, following redirects, failing on HTTP errors.
class CurlFetcher final : public Fetcher {
 public:
  absl::Status Fetch(const std::string& url, const std::string& destination) override;
};

// A verified image in the cache, open for reading (the descriptor closes with it).
struct CachedImage {
  CachedImage() = default;
  CachedImage(const CachedImage&) = delete;
  CachedImage& operator=(const CachedImage&) = delete;
  ~CachedImage();

  OsImage source;
  std::string path;
  uint64_t size = 0;
  std::string sha256;
  int fd = -1;  // read-only
  iso::EmbedAreas areas;
  // The minimal ISO derived from this one (null for a minimal ISO itself).
  std::unique_ptr<CachedImage> minimal;
  // A minimal ISO's ramdisk area (images/assisted_installer_custom.img); empty otherwise.
  iso::Extent ramdisk;
};

class Catalog {
 public:
  // `runner` runs xorriso to derive the minimal ISOs.
  Catalog(std::string cache_dir, std::vector<OsImage> images, Fetcher& fetcher,
          process::ProcessRunner& runner, log::Logger log);
  ~Catalog();
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  // Fetches and verifies every image not yet usable. Returns the first failure (the others are
  // still tried); each image's state is kept for List().
  absl::Status Prepare();

  // Whether every configured image is usable.
  bool ready() const;

  // The usable image for (version, architecture): an exact version, else the newest configured
  // version with the same major.minor. NOT_FOUND otherwise.
  absl::StatusOr<const CachedImage*> Find(absl::string_view openshift_version,
                                          absl::string_view cpu_architecture) const;

  // Every configured image with its state.
  std::vector<v1::BaseImage> List() const;

 private:
  struct Entry {
    OsImage source;
    v1::BaseImageState state = v1::BASE_IMAGE_STATE_PENDING;
    std::string state_info;
    std::unique_ptr<CachedImage> image;
  };
  absl::StatusOr<std::unique_ptr<CachedImage>> Load(const OsImage& source);
  // Opens and verifies the image at `path` (removed when it is not usable).
  absl::StatusOr<std::unique_ptr<CachedImage>> Open(const OsImage& source, const std::string& path);

  const std::string cache_dir_;
  Fetcher& fetcher_;
  process::ProcessRunner& runner_;
  log::Logger log_;
  mutable absl::Mutex mu_;
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace assisted::image

#endif  // ASSISTED_SERVICES_IMAGE_CATALOG_H_
