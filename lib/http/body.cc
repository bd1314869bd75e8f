#include "lib/http/body.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace assisted::http {
namespace {

absl::Status OpenError(int error, const std::string& path) {
  const std::string message = absl::StrCat("cannot open ", path, ": ", std::strerror(error));
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace

absl::StatusOr<std::shared_ptr<const SharedFile>> SharedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return OpenError(errno, path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    return OpenError(error, path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(absl::StrCat(path, " is not a regular file"));
  }
  return std::shared_ptr<const SharedFile>(new SharedFile(
      fd, path, static_cast<uint64_t>(st.st_size), absl::TimeFromTimespec(st.st_mtim)));
}

SharedFile::~SharedFile() { ::close(fd_); }

absl::StatusOr<SpoolFile> SpoolFile::Create(std::string dir) {
  if (dir.empty()) {
    const char* tmpdir = std::getenv("TMPDIR");
    dir = tmpdir != nullptr && tmpdir[0] != '\0' ? tmpdir : "/tmp";
  }
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    // A file system without O_TMPFILE: a named file, unlinked before anyone can use the name.
    std::string path = dir + "/spool-XXXXXX";
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(path.c_str());
  }
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot create a spool file in ", dir, ": ", std::strerror(errno)));
  }
  return SpoolFile(fd, std::move(dir));
}

SpoolFile::SpoolFile(SpoolFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), dir_(std::move(other.dir_)), size_(other.size_) {}

SpoolFile::~SpoolFile() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status SpoolFile::Append(absl::string_view bytes) {
  if (fd_ < 0) return absl::FailedPreconditionError("spool file already finished or failed");
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : ENOSPC;
      ::close(std::exchange(fd_, -1));
      return absl::InternalError(
          absl::StrCat("cannot write a spool file in ", dir_, ": ", std::strerror(error)));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
    size_ += static_cast<uint64_t>(n);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const SharedFile>> SpoolFile::Finish() && {
  if (fd_ < 0) return absl::FailedPreconditionError("spool file already finished or failed");
  const int fd = std::exchange(fd_, -1);
  // Served with pread/sendfile at explicit offsets: the write position does not matter.
  return std::shared_ptr<const SharedFile>(
      new SharedFile(fd, absl::StrCat(dir_, "/(spool)"), size_, absl::Now()));
}

Segment Segment::Memory(std::string bytes) {
  return Memory(std::make_shared<const std::string>(std::move(bytes)));
}

Segment Segment::Memory(std::shared_ptr<const std::string> bytes) {
  const uint64_t length = bytes->size();
  return Segment(std::move(bytes), nullptr, 0, length);
}

absl::StatusOr<Segment> Segment::File(std::shared_ptr<const SharedFile> file, uint64_t offset,
                                      uint64_t length) {
  if (file == nullptr) return absl::InvalidArgumentError("file segment without a file");
  if (offset > file->size() || length > file->size() - offset) {
    return absl::OutOfRangeError(absl::StrCat("bytes ", offset, "+", length, " lie outside ",
                                              file->path(), " (", file->size(), " bytes)"));
  }
  return Segment(nullptr, std::move(file), offset, length);
}

Segment Segment::WholeFile(std::shared_ptr<const SharedFile> file) {
  const uint64_t length = file->size();
  return Segment(nullptr, std::move(file), 0, length);
}

absl::string_view Segment::memory() const {
  if (bytes_ == nullptr) return {};
  return absl::string_view(*bytes_).substr(offset_, length_);
}

Segment Segment::Sub(uint64_t offset, uint64_t length) const {
  offset = std::min(offset, length_);
  length = std::min(length, length_ - offset);
  return Segment(bytes_, file_, offset_ + offset, length);
}

void Body::Append(Segment segment) {
  if (segment.size() == 0) return;
  size_ += segment.size();
  segments_.push_back(std::move(segment));
}

Body Body::Slice(uint64_t offset, uint64_t length) const {
  Body slice;
  offset = std::min(offset, size_);
  uint64_t remaining = std::min(length, size_ - offset);
  uint64_t start = 0;  // of the current segment within the body
  for (const Segment& segment : segments_) {
    if (remaining == 0) break;
    const uint64_t end = start + segment.size();
    if (offset < end) {
      const uint64_t within = offset - start;
      const uint64_t take = std::min(remaining, segment.size() - within);
      slice.Append(segment.Sub(within, take));
      offset += take;
      remaining -= take;
    }
    start = end;
  }
  return slice;
}

absl::StatusOr<std::string> Body::ReadAll() const {
  std::string out;
  out.reserve(size_);
  for (const Segment& segment : segments_) {
    if (!segment.is_file()) {
      out.append(segment.memory().data(), segment.memory().size());
      continue;
    }
    const size_t base = out.size();
    out.resize(base + segment.size());
    uint64_t done = 0;
    while (done < segment.size()) {
      const ssize_t n = ::pread(segment.file()->fd(), &out[base + done], segment.size() - done,
                                static_cast<off_t>(segment.file_offset() + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        return absl::InternalError(
            absl::StrCat("reading ", segment.file()->path(), ": ",
                         n == 0 ? "unexpected end of file" : std::strerror(errno)));
      }
      done += static_cast<uint64_t>(n);
    }
  }
  return out;
}

}  // namespace assisted::http
