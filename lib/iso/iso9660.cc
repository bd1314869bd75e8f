#include "lib/iso/iso9660.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/status/status_macros.h"

namespace assisted::iso {
namespace {

constexpr uint64_t kFirstDescriptor = 16 * kSectorSize;
constexpr int kMaxDescriptors = 64;
constexpr int kMaxDepth = 16;

uint32_t Le32(const unsigned char* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

// One directory record's useful fields.
struct Record {
  Extent extent;
  bool directory = false;
  std::string iso_name;  // as recorded, e.g. "IGNINFO.JSO;1"
  std::string rr_name;   // Rock Ridge NM name, if any
};

// Parses the record at `data` (`length` bytes, already bounds-checked by the caller).
Record ParseRecord(const unsigned char* data, size_t length) {
  Record record;
  record.extent.offset = uint64_t{Le32(data + 2)} * kSectorSize;
  record.extent.size = Le32(data + 10);
  record.directory = (data[25] & 0x02) != 0;
  const size_t name_length = std::min<size_t>(data[32], length - 33);
  record.iso_name.assign(reinterpret_cast<const char*>(data + 33), name_length);
  // System Use area (SUSP entries: 2-byte signature, length, version, data): Rock Ridge "NM"
  // carries the real name, possibly split over several entries with the CONTINUE flag.
  size_t pos = 33 + name_length + ((name_length % 2 == 0) ? 1 : 0);
  while (pos + 4 <= length) {
    const size_t entry_length = data[pos + 2];
    if (entry_length < 4 || pos + entry_length > length) break;
    if (data[pos] == 'N' && data[pos + 1] == 'M' && entry_length >= 5) {
      const unsigned char flags = data[pos + 4];
      if ((flags & 0x06) == 0) {  // not "current"/"parent" directory placeholders
        record.rr_name.append(reinterpret_cast<const char*>(data + pos + 5), entry_length - 5);
      }
    }
    pos += entry_length;
  }
  return record;
}

// Whether a record's name is `wanted` (lower-case, as the user wrote it).
bool NameMatches(const Record& record, absl::string_view wanted) {
  if (!record.rr_name.empty()) return absl::AsciiStrToLower(record.rr_name) == wanted;
  std::string name = absl::AsciiStrToLower(record.iso_name);
  if (const size_t version = name.find(';'); version != std::string::npos) name.resize(version);
  if (!name.empty() && name.back() == '.') name.pop_back();
  if (name == wanted) return true;
  // Level-1 names: 8 characters, a dot, 3 characters ("igninfo.json" -> "igninfo.jso").
  const size_t dot = wanted.rfind('.');
  const absl::string_view stem = wanted.substr(0, dot);
  const absl::string_view ext = dot == absl::string_view::npos ? "" : wanted.substr(dot + 1);
  std::string short_name(stem.substr(0, 8));
  if (!ext.empty()) absl::StrAppend(&short_name, ".", ext.substr(0, 3));
  return name == short_name;
}

}  // namespace

absl::StatusOr<IsoReader> IsoReader::Open(int fd, std::string name) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", std::strerror(errno)));
  }
  const uint64_t image_size = static_cast<uint64_t>(st.st_size);
  for (int i = 0; i < kMaxDescriptors; ++i) {
    const uint64_t offset = kFirstDescriptor + i * kSectorSize;
    if (offset + kSectorSize > image_size) break;
    unsigned char sector[kSectorSize];
    if (pread(fd, sector, kSectorSize, static_cast<off_t>(offset)) != kSectorSize) break;
    if (std::memcmp(sector + 1, "CD001", 5) != 0) break;
    if (sector[0] == 255) break;   // terminator
    if (sector[0] != 1) continue;  // not the primary volume descriptor
    std::string volume_id(reinterpret_cast<const char*>(sector + 40), 32);
    volume_id.erase(volume_id.find_last_not_of(' ') + 1);
    const Record root = ParseRecord(sector + 156, 34);
    if (!root.directory || root.extent.offset + root.extent.size > image_size) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": damaged root directory record"));
    }
    return IsoReader(fd, std::move(name), std::move(volume_id), root.extent, image_size);
  }
  return absl::InvalidArgumentError(
      absl::StrCat(name, ": not an ISO9660 image (no primary volume descriptor)"));
}

absl::StatusOr<std::string> IsoReader::ReadAt(uint64_t offset, uint64_t size) const {
  if (offset > image_size_ || size > image_size_ - offset) {
    return absl::OutOfRangeError(absl::StrCat(name_, ": read past the end of the image"));
  }
  std::string data(size, '\0');
  uint64_t done = 0;
  while (done < size) {
    const ssize_t n =
        pread(fd_, data.data() + done, size - done, static_cast<off_t>(offset + done));
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return absl::DataLossError(absl::StrCat(name_, ": short read at ", offset + done));
    }
    done += n;
  }
  return data;
}

absl::StatusOr<Extent> IsoReader::Find(absl::string_view path) const {
  std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  if (parts.empty() || parts.size() > kMaxDepth) {
    return absl::InvalidArgumentError(absl::StrCat("bad path \"", path, "\""));
  }
  Extent directory = root_;
  for (size_t depth = 0; depth < parts.size(); ++depth) {
    const std::string wanted = absl::AsciiStrToLower(parts[depth]);
    const bool last = depth + 1 == parts.size();
    if (directory.size > (64u << 20)) {
      return absl::DataLossError(absl::StrCat(name_, ": implausible directory size"));
    }
    ASSIGN_OR_RETURN(std::string listing, ReadAt(directory.offset, directory.size));
    const auto* data = reinterpret_cast<const unsigned char*>(listing.data());
    bool found = false;
    for (size_t pos = 0; pos < listing.size();) {
      const size_t length = data[pos];
      if (length == 0) {  // records never straddle sectors: skip to the next one
        pos = (pos / kSectorSize + 1) * kSectorSize;
        continue;
      }
      if (length < 34 || pos + length > listing.size()) break;
      const Record record = ParseRecord(data + pos, length);
      pos += length;
      if (record.iso_name.size() == 1 && (record.iso_name[0] == 0 || record.iso_name[0] == 1)) {
        continue;  // "." and ".."
      }
      if (!NameMatches(record, wanted)) continue;
      if (record.extent.offset > image_size_ ||
          record.extent.size > image_size_ - record.extent.offset) {
        return absl::DataLossError(absl::StrCat(name_, ": ", path, " points past the image"));
      }
      if (last) {
        if (record.directory) {
          return absl::InvalidArgumentError(absl::StrCat(path, " is a directory"));
        }
        return record.extent;
      }
      if (!record.directory) break;
      directory = record.extent;
      found = true;
      break;
    }
    if (!found) return absl::NotFoundError(absl::StrCat(name_, " has no ", path));
  }
  return absl::NotFoundError(absl::StrCat(name_, " has no ", path));
}

absl::StatusOr<std::string> IsoReader::ReadFile(absl::string_view path, uint64_t max_size) const {
  ASSIGN_OR_RETURN(Extent extent, Find(path));
  if (extent.size > max_size) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is ", extent.size, " bytes, more than the ", max_size, " expected"));
  }
  return ReadAt(extent.offset, extent.size);
}

}  // namespace assisted::iso
