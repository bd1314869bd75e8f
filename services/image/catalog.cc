#include "services/image/catalog.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "curl/curl.h"
#include "lib/enums/architecture.h"
#include "lib/iso/iso9660.h"
#include "lib/status/status_macros.h"
#include "lib/version/openshift_version.h"
#include "nlohmann/json.hpp"
#include "services/image/minimal_iso.h"

namespace assisted::image {
namespace {

size_t WriteToFile(char* data, size_t size, size_t count, void* file) {
  return std::fwrite(data, size, count, static_cast<std::FILE*>(file)) * size;
}

// Lower-case hex SHA-256 of the whole file behind `fd`.
absl::StatusOr<std::string> Sha256(int fd) {
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  if (context == nullptr || EVP_DigestInit_ex(context, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(context);
    return absl::InternalError("cannot start SHA-256");
  }
  std::string buffer(1 << 20, '\0');
  off_t offset = 0;
  while (true) {
    const ssize_t n = pread(fd, buffer.data(), buffer.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      EVP_MD_CTX_free(context);
      return absl::DataLossError(absl::StrCat("read failed: ", std::strerror(errno)));
    }
    if (n == 0) break;
    EVP_DigestUpdate(context, buffer.data(), n);
    offset += n;
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context, digest, &length);
  EVP_MD_CTX_free(context);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) absl::StrAppendFormat(&hex, "%02x", digest[i]);
  return hex;
}

// A file name for the cached copy of `source`: readable and unique per source.
std::string CacheName(const OsImage& source) {
  std::string name = absl::StrCat(source.openshift_version, "-", source.cpu_architecture, "-",
                                  source.version.empty() ? "unversioned" : source.version);
  for (char& c : name) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '-' && c != '_') c = '_';
  }
  return name + ".iso";
}

// Orders "4.9" < "4.16" numerically, component by component.
bool OlderVersion(absl::string_view a, absl::string_view b) {
  std::vector<absl::string_view> left = absl::StrSplit(a, '.');
  std::vector<absl::string_view> right = absl::StrSplit(b, '.');
  for (size_t i = 0; i < std::min(left.size(), right.size()); ++i) {
    int x = 0, y = 0;
    if (!absl::SimpleAtoi(left[i], &x) || !absl::SimpleAtoi(right[i], &y))
      return left[i] < right[i];
    if (x != y) return x < y;
  }
  return left.size() < right.size();
}

}  // namespace

absl::StatusOr<std::vector<OsImage>> ParseOsImages(absl::string_view json) {
  const nlohmann::json parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_array()) {
    return absl::InvalidArgumentError("os_images: not a JSON array");
  }
  std::vector<OsImage> images;
  for (size_t i = 0; i < parsed.size(); ++i) {
    const nlohmann::json& entry = parsed[i];
    const std::string where = absl::StrCat("os_images[", i, "]");
    if (!entry.is_object()) return absl::InvalidArgumentError(where + ": not an object");
    auto field = [&](const char* name, bool required) -> absl::StatusOr<std::string> {
      if (!entry.contains(name)) {
        if (!required) return std::string();
        return absl::InvalidArgumentError(absl::StrCat(where, ".", name, ": required"));
      }
      if (!entry[name].is_string()) {
        return absl::InvalidArgumentError(absl::StrCat(where, ".", name, ": not a string"));
      }
      return entry[name].get<std::string>();
    };
    OsImage image;
    ASSIGN_OR_RETURN(image.openshift_version, field("openshift_version", true));
    ASSIGN_OR_RETURN(image.cpu_architecture, field("cpu_architecture", true));
    image.cpu_architecture = enums::CanonicalOsImageArchitecture(image.cpu_architecture);
    ASSIGN_OR_RETURN(image.url, field("url", true));
    ASSIGN_OR_RETURN(image.version, field("version", false));
    ASSIGN_OR_RETURN(image.sha256, field("sha256", false));
    image.sha256 = absl::AsciiStrToLower(image.sha256);
    if (!absl::StartsWith(image.url, "file://") && !absl::StartsWith(image.url, "http://") &&
        !absl::StartsWith(image.url, "https://")) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ".url: must start with file://, http:// or https://"));
    }
    images.push_back(std::move(image));
  }
  return images;
}

absl::Status CurlFetcher::Fetch(const std::string& url, const std::string& destination) {
  std::FILE* file = std::fopen(destination.c_str(), "wbx");
  if (file == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot create ", destination, ": ", std::strerror(errno)));
  }
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
  // Give up on a transfer that crawls below 1 KiB/s for a minute rather than hang forever.
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteToFile);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, file);
  const CURLcode code = curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  const bool flushed = std::fflush(file) == 0 && fsync(fileno(file)) == 0;
  std::fclose(file);
  if (code != CURLE_OK) {
    return absl::UnavailableError(
        absl::StrCat("cannot fetch ", url, ": ", curl_easy_strerror(code)));
  }
  if (!flushed) return absl::InternalError(absl::StrCat("cannot write ", destination));
  return absl::OkStatus();
}

Catalog::Catalog(std::string cache_dir, std::vector<OsImage> images, Fetcher& fetcher,
                 process::ProcessRunner& runner, log::Logger log)
    : cache_dir_(std::move(cache_dir)), fetcher_(fetcher), runner_(runner), log_(std::move(log)) {
  for (OsImage& image : images) entries_.push_back(Entry{std::move(image)});
}

CachedImage::~CachedImage() {
  if (fd >= 0) close(fd);
}

Catalog::~Catalog() = default;

absl::StatusOr<std::unique_ptr<CachedImage>> Catalog::Load(const OsImage& source) {
  const std::string path = (std::filesystem::path(cache_dir_) / CacheName(source)).string();
  if (access(path.c_str(), R_OK) != 0) {
    // Fetch next to the final name, then rename: readers never see a partial image.
    const std::string partial = path + ".partial";
    std::remove(partial.c_str());
    log_.Info("fetching base image", {{"url", source.url}, {"to", path}});
    if (absl::Status fetched = fetcher_.Fetch(source.url, partial); !fetched.ok()) {
      std::remove(partial.c_str());
      return fetched;
    }
    if (std::rename(partial.c_str(), path.c_str()) != 0) {
      return absl::InternalError(
          absl::StrCat("cannot rename ", partial, ": ", std::strerror(errno)));
    }
  }
  ASSIGN_OR_RETURN(std::unique_ptr<CachedImage> image, Open(source, path));
  if (!source.sha256.empty() && source.sha256 != image->sha256) {
    std::remove(path.c_str());  // a bad copy must not be trusted next time
    return absl::DataLossError(absl::StrCat("sha256 of ", source.url, " is ", image->sha256,
                                            ", expected ", source.sha256));
  }
  // Derived once; the name changes with the derivation so an old one is never reused.
  const std::string minimal_path = absl::StrCat(path, ".minimal-v1.iso");
  if (access(minimal_path.c_str(), R_OK) != 0) {
    log_.Info("deriving the minimal ISO", {{"from", path}});
    absl::Status built = BuildMinimalIso(runner_, path, path + ".minimal-work", minimal_path);
    std::error_code ignored;
    std::filesystem::remove_all(path + ".minimal-work", ignored);
    RETURN_IF_ERROR(built);
  }
  ASSIGN_OR_RETURN(image->minimal, Open(source, minimal_path));
  ASSIGN_OR_RETURN(iso::IsoReader minimal, iso::IsoReader::Open(image->minimal->fd, minimal_path));
  ASSIGN_OR_RETURN(image->minimal->ramdisk, minimal.Find(kMinimalRamdiskPath));
  return image;
}

absl::StatusOr<std::unique_ptr<CachedImage>> Catalog::Open(const OsImage& source,
                                                           const std::string& path) {
  auto image = std::make_unique<CachedImage>();
  image->source = source;
  image->path = path;
  image->fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (image->fd < 0) {
    return absl::InternalError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  auto fail = [&path](absl::Status status) {
    std::remove(path.c_str());  // a bad copy must not be trusted next time
    return status;
  };
  absl::StatusOr<iso::IsoReader> reader = iso::IsoReader::Open(image->fd, path);
  if (!reader.ok()) return fail(reader.status());
  absl::StatusOr<iso::EmbedAreas> areas = iso::FindEmbedAreas(*reader);
  if (!areas.ok()) return fail(areas.status());
  image->areas = *std::move(areas);
  image->size = reader->image_size();
  absl::StatusOr<std::string> digest = Sha256(image->fd);
  if (!digest.ok()) return fail(digest.status());
  image->sha256 = *digest;
  return image;
}

absl::Status Catalog::Prepare() {
  std::error_code error;
  std::filesystem::create_directories(cache_dir_, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", cache_dir_, ": ", error.message()));
  }
  absl::Status first_failure;
  absl::MutexLock lock(&mu_);
  for (Entry& entry : entries_) {
    if (entry.state == v1::BASE_IMAGE_STATE_READY) continue;
    entry.state = v1::BASE_IMAGE_STATE_DOWNLOADING;
    absl::StatusOr<std::unique_ptr<CachedImage>> image = Load(entry.source);
    if (image.ok()) {
      entry.image = *std::move(image);
      entry.state = v1::BASE_IMAGE_STATE_READY;
      entry.state_info.clear();
      log_.Info("base image ready", {{"openshift_version", entry.source.openshift_version},
                                     {"arch", entry.source.cpu_architecture},
                                     {"bytes", entry.image->size}});
    } else {
      entry.state = v1::BASE_IMAGE_STATE_FAILED;
      entry.state_info = std::string(image.status().message());
      log_.Warning("base image unusable",
                   {{"url", entry.source.url}, {"error", image.status().message()}});
      if (first_failure.ok()) first_failure = image.status();
    }
  }
  return first_failure;
}

bool Catalog::ready() const {
  absl::MutexLock lock(&mu_);
  for (const Entry& entry : entries_) {
    if (entry.state != v1::BASE_IMAGE_STATE_READY) return false;
  }
  return true;
}

absl::StatusOr<const CachedImage*> Catalog::Find(absl::string_view openshift_version,
                                                 absl::string_view cpu_architecture) const {
  absl::MutexLock lock(&mu_);
  const CachedImage* best = nullptr;
  for (const Entry& entry : entries_) {
    if (entry.image == nullptr || entry.source.cpu_architecture != cpu_architecture) continue;
    if (entry.source.openshift_version == openshift_version) return entry.image.get();
    if (version::MinorVersion(entry.source.openshift_version) ==
            version::MinorVersion(openshift_version) &&
        (best == nullptr ||
         OlderVersion(best->source.openshift_version, entry.source.openshift_version))) {
      best = entry.image.get();
    }
  }
  if (best != nullptr) return best;
  return absl::NotFoundError(absl::StrCat("no usable base image for OpenShift ", openshift_version,
                                          " on ", cpu_architecture));
}

std::vector<v1::BaseImage> Catalog::List() const {
  absl::MutexLock lock(&mu_);
  std::vector<v1::BaseImage> images;
  for (const Entry& entry : entries_) {
    v1::BaseImage& image = images.emplace_back();
    image.set_openshift_version(entry.source.openshift_version);
    if (std::optional<types::v1::CpuArchitecture> architecture =
            enums::CpuArchitectureFromOsImageName(entry.source.cpu_architecture)) {
      image.set_cpu_architecture(*architecture);
    }
    image.set_url(entry.source.url);
    image.set_version(entry.source.version);
    image.set_state(entry.state);
    image.set_state_info(entry.state_info);
    if (entry.image != nullptr) {
      image.set_size_bytes(static_cast<int64_t>(entry.image->size));
      image.set_minimal_iso_ready(entry.image->minimal != nullptr);
    }
  }
  return images;
}

}  // namespace assisted::image
