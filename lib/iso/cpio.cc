#include "lib/iso/cpio.h"

#include <algorithm>
#include <optional>

#include <zlib.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace assisted::iso {
namespace {

void PadTo4(std::string& data) {
  while (data.size() % 4 != 0) data.push_back('\0');
}

}  // namespace

void CpioWriter::AddEntry(absl::string_view path, uint32_t mode, absl::string_view content) {
  // 13 eight-digit hex fields: ino, mode, uid, gid, nlink, mtime, filesize, devmajor, devminor,
  // rdevmajor, rdevminor, namesize (with the NUL), check.
  absl::StrAppendFormat(&data_, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
                        next_inode_++, mode, 0, 0, (mode & 040000) != 0 ? 2 : 1, 0, content.size(),
                        0, 0, 0, 0, path.size() + 1, 0);
  absl::StrAppend(&data_, path);
  data_.push_back('\0');
  PadTo4(data_);
  absl::StrAppend(&data_, content);
  PadTo4(data_);
}

void CpioWriter::AddDirectory(absl::string_view path) { AddEntry(path, 040755, ""); }

void CpioWriter::AddFile(absl::string_view path, absl::string_view content, uint32_t mode) {
  AddEntry(path, 0100000 | (mode & 07777), content);
}

void CpioWriter::AddSymlink(absl::string_view path, absl::string_view target) {
  AddEntry(path, 0120777, target);
}

std::string CpioWriter::Finish() {
  AddEntry("TRAILER!!!", 0, "");
  std::string done;
  done.swap(data_);
  next_inode_ = 1;
  return done;
}

namespace {

constexpr size_t kNewcHeaderSize = 110;  // "070701" and 13 eight-digit hex fields

size_t RoundUpTo4(size_t n) { return (n + 3) & ~size_t{3}; }

// Field `index` (0 = ino … 12 = check) of the newc header at `header`.
std::optional<uint32_t> HeaderField(absl::string_view header, int index) {
  uint32_t value = 0;
  for (char c : header.substr(6 + 8 * index, 8)) {
    const int digit = absl::ascii_isdigit(c) ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (digit < 0) return std::nullopt;
    value = value * 16 + static_cast<uint32_t>(digit);
  }
  return value;
}

absl::Status BadArchive(size_t offset, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("cpio archive at byte ", offset, ": ", what));
}

}  // namespace

absl::StatusOr<std::vector<CpioMember>> ReadCpio(absl::string_view archive) {
  std::vector<CpioMember> members;
  size_t at = 0;
  while (at < archive.size()) {
    if (archive.size() - at < kNewcHeaderSize) return BadArchive(at, "truncated header");
    const absl::string_view header = archive.substr(at, kNewcHeaderSize);
    if (!absl::StartsWith(header, "070701") && !absl::StartsWith(header, "070702")) {
      return BadArchive(at, "not a newc header");
    }
    const std::optional<uint32_t> mode = HeaderField(header, 1);
    const std::optional<uint32_t> file_size = HeaderField(header, 6);
    const std::optional<uint32_t> name_size = HeaderField(header, 11);
    if (!mode || !file_size || !name_size || *name_size == 0) {
      return BadArchive(at, "a header field is not hexadecimal");
    }
    const size_t name_at = at + kNewcHeaderSize;
    const size_t content_at = RoundUpTo4(name_at + *name_size);
    const size_t end = RoundUpTo4(content_at + *file_size);
    if (content_at + *file_size > archive.size()) return BadArchive(at, "member runs past the end");
    std::string path(archive.substr(name_at, *name_size - 1));
    if (path == "TRAILER!!!") break;
    members.push_back({.path = std::move(path),
                       .mode = *mode,
                       .content = std::string(archive.substr(content_at, *file_size))});
    at = std::min(end, archive.size());
  }
  return members;
}

absl::StatusOr<std::string> Gzip(absl::string_view data) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip header and trailer rather than zlib's.
  if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return absl::InternalError("deflateInit2 failed");
  }
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  const size_t written = stream.total_out;
  deflateEnd(&stream);
  if (result != Z_STREAM_END) return absl::InternalError("gzip failed");
  out.resize(written);
  return out;
}

absl::StatusOr<std::string> Gunzip(absl::string_view data) {
  std::string out;
  size_t pos = 0;
  while (pos < data.size() && data[pos] != '\0') {
    z_stream stream{};
    if (inflateInit2(&stream, 15 + 16) != Z_OK) return absl::InternalError("inflateInit2 failed");
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + pos));
    stream.avail_in = static_cast<uInt>(data.size() - pos);
    char buffer[65536];
    int result = Z_OK;
    while (result == Z_OK) {
      stream.next_out = reinterpret_cast<Bytef*>(buffer);
      stream.avail_out = sizeof(buffer);
      result = inflate(&stream, Z_NO_FLUSH);
      out.append(buffer, sizeof(buffer) - stream.avail_out);
    }
    const size_t consumed = stream.total_in;
    inflateEnd(&stream);
    if (result != Z_STREAM_END) return absl::InvalidArgumentError("not valid gzip data");
    pos += consumed;
  }
  return out;
}

absl::StatusOr<std::string> IgnitionArchive(absl::string_view ignition_json) {
  CpioWriter cpio;
  cpio.AddFile("config.ign", ignition_json, 0644);
  absl::StatusOr<std::string> compressed = Gzip(cpio.Finish());
  if (!compressed.ok()) return compressed.status();
  PadTo4(*compressed);
  return compressed;
}

}  // namespace assisted::iso
