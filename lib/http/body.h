// File: lib/http/body.h
//
// HTTP response bodies as a sequence of segments, each either bytes in memory or a byte range of
// an open file. A 1 GiB ISO with a few KiB of per-cluster data spliced into it is three segments
// (file, memory, file): the server sends the file ranges with sendfile(2) straight from the page
// cache and writes only the memory segments, so no file byte is copied through user space and no
// response is ever materialised. Storage is shared (shared_ptr), so a body can be built once and
// served to any number of concurrent clients, and slicing it for a Range request copies nothing.
//
//   ASSIGN_OR_RETURN(std::shared_ptr<const SharedFile> iso, SharedFile::Open(path));
//   Body body;
//   ASSIGN_OR_RETURN(Segment head, Segment::File(iso, 0, embed_offset));
//   body.Append(std::move(head));
//   body.Append(Segment::Memory(std::move(ignition_area)));
//   ...
//
// Every type here is an immutable value once built and safe to share between threads.

#ifndef ASSISTED_LIB_HTTP_BODY_H_
#define ASSISTED_LIB_HTTP_BODY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace assisted::http {

// A read-only regular file, open once and shared by every segment that reads from it; the
// descriptor is closed when the last holder lets go. Reads use explicit offsets (pread,
// sendfile with an offset argument), never the shared file position, so concurrent responses
// never disturb each other.
class SharedFile {
 public:
  // Opens `path` read-only (O_CLOEXEC) and records its size and modification time.
  // NOT_FOUND when it does not exist, PERMISSION_DENIED when it cannot be read,
  // FAILED_PRECONDITION when it is not a regular file; the message names the path.
  static absl::StatusOr<std::shared_ptr<const SharedFile>> Open(const std::string& path);

  SharedFile(const SharedFile&) = delete;
  SharedFile& operator=(const SharedFile&) = delete;
  ~SharedFile();

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Size and modification time when the file was opened. Files served over HTTP must not
  // change while open: a response promises its Content-Length before sending a byte, so a file
  // that shrinks under a response makes the server drop the connection.
  uint64_t size() const { return size_; }
  absl::Time modified() const { return modified_; }

 private:
  friend class SpoolFile;
  SharedFile(int fd, std::string path, uint64_t size, absl::Time modified)
      : fd_(fd), path_(std::move(path)), size_(size), modified_(modified) {}

  const int fd_;
  const std::string path_;
  const uint64_t size_;
  const absl::Time modified_;
};

// A file written piece by piece (chunks read from a backend) and then served from disk, so that
// a large response built from many small reads never sits in memory whole. The file has no name
// (O_TMPFILE, else unlinked at once): it goes away with its last holder, even if the process dies.
// Not thread-safe while written; the SharedFile it becomes is.
//
//   ASSIGN_OR_RETURN(SpoolFile spool, SpoolFile::Create());
//   RETURN_IF_ERROR(spool.Append(chunk));  // as many times as there are chunks
//   ASSIGN_OR_RETURN(std::shared_ptr<const SharedFile> file, std::move(spool).Finish());
//   response.body.Append(Segment::WholeFile(std::move(file)));
class SpoolFile {
 public:
  // A new empty spool in `dir` (empty: $TMPDIR, else /tmp). INTERNAL naming the directory when
  // no file can be created there.
  static absl::StatusOr<SpoolFile> Create(std::string dir = "");

  SpoolFile(SpoolFile&& other) noexcept;
  SpoolFile& operator=(SpoolFile&&) = delete;
  ~SpoolFile();

  // Adds `bytes` at the end. INTERNAL (disk full, I/O error) naming the directory; the spool is
  // unusable afterwards.
  absl::Status Append(absl::string_view bytes);
  uint64_t size() const { return size_; }

  // Done writing: the content as a read-only SharedFile. FAILED_PRECONDITION after a failed
  // Append or a second Finish.
  absl::StatusOr<std::shared_ptr<const SharedFile>> Finish() &&;

 private:
  SpoolFile(int fd, std::string dir) : fd_(fd), dir_(std::move(dir)) {}

  int fd_;  // -1 once finished or failed
  std::string dir_;
  uint64_t size_ = 0;
};

// A run of body bytes: either memory or a range of a SharedFile. Cheap to copy.
class Segment {
 public:
  // Takes ownership of `bytes`.
  static Segment Memory(std::string bytes);
  // Shares `bytes` (not null) with whoever else holds it; no copy.
  static Segment Memory(std::shared_ptr<const std::string> bytes);

  // The `length` bytes of `file` starting at `offset`. OUT_OF_RANGE when the range goes past the
  // file's size; INVALID_ARGUMENT when `file` is null.
  static absl::StatusOr<Segment> File(std::shared_ptr<const SharedFile> file, uint64_t offset,
                                      uint64_t length);
  // The whole of `file` (not null).
  static Segment WholeFile(std::shared_ptr<const SharedFile> file);

  bool is_file() const { return file_ != nullptr; }
  uint64_t size() const { return length_; }

  // Memory segments: the bytes. Empty for file segments.
  absl::string_view memory() const;
  // File segments: the file (null for memory segments) and where in it the bytes start.
  const SharedFile* file() const { return file_.get(); }
  uint64_t file_offset() const { return is_file() ? offset_ : 0; }

  // The bytes [offset, offset + length) of this segment, sharing its storage. Both are clamped
  // to the segment, so a sub-segment never reaches outside it.
  Segment Sub(uint64_t offset, uint64_t length) const;

 private:
  Segment(std::shared_ptr<const std::string> bytes, std::shared_ptr<const SharedFile> file,
          uint64_t offset, uint64_t length)
      : bytes_(std::move(bytes)), file_(std::move(file)), offset_(offset), length_(length) {}

  std::shared_ptr<const std::string> bytes_;  // set for memory segments
  std::shared_ptr<const SharedFile> file_;    // set for file segments
  uint64_t offset_;                           // into *bytes_ or *file_
  uint64_t length_;
};

// A response body: segments in order. Its size is always known, so every response carries a
// Content-Length and never needs chunked encoding.
class Body {
 public:
  Body() = default;
  // A body of one memory segment.
  explicit Body(std::string bytes) { Append(Segment::Memory(std::move(bytes))); }

  // Adds `segment` at the end; empty segments are dropped.
  void Append(Segment segment);

  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::vector<Segment>& segments() const { return segments_; }

  // The bytes [offset, offset + length) of this body as a new body that shares its storage;
  // clamped to the body. Segments wholly outside are left out, the ones at the ends are cut.
  Body Slice(uint64_t offset, uint64_t length) const;

  // Reads the whole body into memory: for tests, small bodies and debugging, never for serving.
  // INTERNAL when a file read fails or comes up short.
  absl::StatusOr<std::string> ReadAll() const;

 private:
  std::vector<Segment> segments_;
  uint64_t size_ = 0;
};

}  // namespace assisted::http

#endif  // ASSISTED_LIB_HTTP_BODY_H_
