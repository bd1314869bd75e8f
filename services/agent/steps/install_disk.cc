// File: services/agent/steps/install_disk.cc

#include "services/agent/steps/install_disk.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/status/status_macros.h"
#include "services/agent/steps/block_device.h"
#include "services/agent/steps/unique_fd.h"

namespace assisted::agent::steps {
namespace {

// GPT header fields (UEFI 2.x, 5.3.2), little-endian.
constexpr char kGptSignature[] = "EFI PART";
constexpr size_t kHeaderCrc = 16;
constexpr size_t kMyLba = 24;
constexpr size_t kAlternateLba = 32;
constexpr size_t kLastUsableLba = 48;
constexpr size_t kEntriesLba = 72;
constexpr size_t kEntryCount = 80;
constexpr size_t kEntrySize = 84;
constexpr size_t kEntriesCrc = 88;
constexpr uint32_t kMinHeaderSize = 92;
// Partition entry fields.
constexpr size_t kEntryFirstLba = 32;
constexpr size_t kEntryLastLba = 40;
constexpr size_t kEntryName = 56;
constexpr size_t kEntryNameBytes = 72;

uint64_t Le(const std::string& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
  return v;
}
void PutLe(std::string& b, size_t at, int bytes, uint64_t v) {
  for (int i = 0; i < bytes; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
uint32_t Crc32(absl::string_view data) {
  return static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

absl::Status Pread(int fd, std::string& out, size_t n, int64_t offset, absl::string_view what) {
  out.assign(n, '\0');
  for (size_t done = 0; done < n;) {
    const ssize_t got = pread(fd, out.data() + done, n - done, offset + done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      return absl::InternalError(
          absl::StrCat("cannot read ", what, ": ", got == 0 ? "short disk" : std::strerror(errno)));
    }
    done += static_cast<size_t>(got);
  }
  return absl::OkStatus();
}

absl::Status Pwrite(int fd, absl::string_view data, int64_t offset, absl::string_view what) {
  for (size_t done = 0; done < data.size();) {
    const ssize_t n = pwrite(fd, data.data() + done, data.size() - done, offset + done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::InternalError(absl::StrCat("cannot write ", what, ": ", std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> DiskSectors(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return absl::InternalError("cannot stat the disk");
  ASSIGN_OR_RETURN(const int64_t bytes, SizeOf(fd, st));
  return bytes / kSectorBytes;
}

// A GPT header and its entry array, as read from the disk and checked.
struct Gpt {
  std::string header;   // the whole sector
  std::string entries;  // count * size bytes
  uint32_t header_size = 0;

  uint64_t Field(size_t at) const { return Le(header, at, 8); }
  size_t EntrySize() const { return static_cast<size_t>(Le(header, kEntrySize, 4)); }
  size_t EntryCount() const { return static_cast<size_t>(Le(header, kEntryCount, 4)); }
  int64_t EntrySectors() const {
    return (static_cast<int64_t>(entries.size()) + kSectorBytes - 1) / kSectorBytes;
  }
  // Recomputes the header's CRC over its first header_size bytes, CRC field zeroed.
  void Seal() {
    PutLe(header, kEntriesCrc, 4, Crc32(entries));
    PutLe(header, kHeaderCrc, 4, 0);
    PutLe(header, kHeaderCrc, 4, Crc32(absl::string_view(header).substr(0, header_size)));
  }
};

// Reads the GPT header at `lba` and its entries. NOT_FOUND without a signature.
absl::StatusOr<Gpt> ReadHeader(int fd, int64_t lba, absl::string_view which) {
  Gpt gpt;
  RETURN_IF_ERROR(Pread(fd, gpt.header, kSectorBytes, lba * kSectorBytes,
                        absl::StrCat("the ", which, " GPT header")));
  if (gpt.header.compare(0, 8, kGptSignature) != 0) {
    return absl::NotFoundError(absl::StrCat("no ", which, " GPT header at sector ", lba));
  }
  gpt.header_size = static_cast<uint32_t>(Le(gpt.header, 12, 4));
  if (gpt.header_size < kMinHeaderSize || gpt.header_size > kSectorBytes) {
    return absl::DataLossError(absl::StrCat("the ", which, " GPT header has a bad size"));
  }
  std::string copy = gpt.header.substr(0, gpt.header_size);
  PutLe(copy, kHeaderCrc, 4, 0);
  if (Crc32(copy) != Le(gpt.header, kHeaderCrc, 4)) {
    return absl::DataLossError(absl::StrCat("the ", which, " GPT header's CRC does not match"));
  }
  if (gpt.Field(kMyLba) != static_cast<uint64_t>(lba)) {
    return absl::DataLossError(absl::StrCat("the ", which, " GPT header is not at its own LBA"));
  }
  const size_t entry_size = gpt.EntrySize(), count = gpt.EntryCount();
  if (entry_size < 128 || entry_size > 4096 || count == 0 || count > 1024) {
    return absl::DataLossError(absl::StrCat("the ", which, " GPT has a bad entry array"));
  }
  RETURN_IF_ERROR(Pread(fd, gpt.entries, entry_size * count,
                        static_cast<int64_t>(gpt.Field(kEntriesLba)) * kSectorBytes,
                        absl::StrCat("the ", which, " GPT entries")));
  if (Crc32(gpt.entries) != Le(gpt.header, kEntriesCrc, 4)) {
    return absl::DataLossError(absl::StrCat("the ", which, " GPT entries' CRC does not match"));
  }
  return gpt;
}

std::string EntryName(absl::string_view entry) {
  std::string name;  // UTF-16LE; the names we look for are ASCII
  for (size_t i = kEntryName; i + 1 < kEntryName + kEntryNameBytes; i += 2) {
    const char c = entry[i];
    if (c == 0 && entry[i + 1] == 0) break;
    name.push_back(entry[i + 1] == 0 && c > 0 ? c : '?');
  }
  return name;
}

std::vector<GptPartition> Partitions(const Gpt& gpt) {
  std::vector<GptPartition> partitions;
  for (size_t i = 0; i < gpt.EntryCount(); ++i) {
    const std::string entry = gpt.entries.substr(i * gpt.EntrySize(), gpt.EntrySize());
    if (entry.find_first_not_of('\0', 0) >= 16) continue;  // unused: zero type GUID
    partitions.push_back({static_cast<int>(i) + 1, EntryName(entry), Le(entry, kEntryFirstLba, 8),
                          Le(entry, kEntryLastLba, 8)});
  }
  return partitions;
}

// debugfs takes one command per line; a path with blanks, quotes or newlines would be split.
absl::Status CheckDebugfsPath(const std::string& path) {
  if (path.empty() || path[0] == '/' || absl::StrContains(path, "..") ||
      path.find_first_of(" \t\n\"'\\") != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("bad boot partition path \"", path, "\""));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<GptPartition>> ReadGpt(int fd) {
  ASSIGN_OR_RETURN(Gpt gpt, ReadHeader(fd, 1, "primary"));
  return Partitions(gpt);
}

absl::Status RelocateBackupGpt(int fd) {
  ASSIGN_OR_RETURN(const int64_t sectors, DiskSectors(fd));
  ASSIGN_OR_RETURN(Gpt primary, ReadHeader(fd, 1, "primary"));
  const int64_t last = sectors - 1;
  const uint64_t old_backup = primary.Field(kAlternateLba);
  if (old_backup == static_cast<uint64_t>(last)) return absl::OkStatus();
  const int64_t backup_entries = last - primary.EntrySectors();
  const int64_t last_usable = backup_entries - 1;
  for (const GptPartition& p : Partitions(primary)) {
    if (p.last_lba > static_cast<uint64_t>(last_usable)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "partition ", p.number, " (", p.name, ") ends at sector ", p.last_lba,
          ", past the disk's last usable sector ", last_usable, ": the disk is too small"));
    }
  }
  PutLe(primary.header, kAlternateLba, 8, static_cast<uint64_t>(last));
  PutLe(primary.header, kLastUsableLba, 8, static_cast<uint64_t>(last_usable));
  Gpt backup = primary;
  PutLe(backup.header, kMyLba, 8, static_cast<uint64_t>(last));
  PutLe(backup.header, kAlternateLba, 8, 1);
  PutLe(backup.header, kEntriesLba, 8, static_cast<uint64_t>(backup_entries));
  primary.Seal();
  backup.Seal();
  // Backup first: until the primary points at it, a crash leaves the image's own GPT intact.
  RETURN_IF_ERROR(
      Pwrite(fd, backup.entries, backup_entries * kSectorBytes, "the backup GPT entries"));
  RETURN_IF_ERROR(Pwrite(fd, backup.header, last * kSectorBytes, "the backup GPT header"));
  RETURN_IF_ERROR(Pwrite(fd, primary.header, kSectorBytes, "the primary GPT header"));
  if (old_backup > 1 && old_backup < static_cast<uint64_t>(last)) {
    RETURN_IF_ERROR(Pwrite(fd, std::string(kSectorBytes, '\0'),
                           static_cast<int64_t>(old_backup) * kSectorBytes,
                           "the old backup GPT header"));
  }
  // The protective MBR's partition covers the disk (capped at 2^32 - 1 sectors).
  std::string mbr;
  RETURN_IF_ERROR(Pread(fd, mbr, kSectorBytes, 0, "the protective MBR"));
  if (static_cast<unsigned char>(mbr[450]) == 0xee) {
    PutLe(mbr, 458, 4, static_cast<uint64_t>(std::min<int64_t>(last, 0xffffffffLL)));
    RETURN_IF_ERROR(Pwrite(fd, mbr, 0, "the protective MBR"));
  }
  if (fsync(fd) != 0) {
    return absl::InternalError(absl::StrCat("cannot flush the GPT: ", std::strerror(errno)));
  }
  // A block device's kernel view of the partitions follows the new table (best effort: the
  // installed OS reads it at its next boot anyway).
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode)) ioctl(fd, BLKRRPART);
  return absl::OkStatus();
}

absl::Status CheckGpt(int fd) {
  ASSIGN_OR_RETURN(const int64_t sectors, DiskSectors(fd));
  ASSIGN_OR_RETURN(Gpt primary, ReadHeader(fd, 1, "primary"));
  if (primary.Field(kAlternateLba) != static_cast<uint64_t>(sectors - 1)) {
    return absl::DataLossError(absl::StrCat("the backup GPT is at sector ",
                                            primary.Field(kAlternateLba), ", not on the last (",
                                            sectors - 1, ")"));
  }
  ASSIGN_OR_RETURN(Gpt backup, ReadHeader(fd, sectors - 1, "backup"));
  if (backup.Field(kAlternateLba) != 1 || backup.entries != primary.entries ||
      backup.Field(kLastUsableLba) != primary.Field(kLastUsableLba) ||
      backup.Field(kEntriesLba) <= backup.Field(kLastUsableLba)) {
    return absl::DataLossError("the backup GPT does not mirror the primary");
  }
  return absl::OkStatus();
}

absl::StatusOr<BootPartition> BootPartition::Find(const std::string& disk,
                                                  process::ProcessRunner& processes) {
  UniqueFd fd(open(disk.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    return absl::NotFoundError(absl::StrCat("cannot open ", disk, ": ", std::strerror(errno)));
  }
  ASSIGN_OR_RETURN(std::vector<GptPartition> partitions, ReadGpt(fd.get()));
  for (GptPartition& p : partitions) {
    if (p.name == "boot") return BootPartition(disk, std::move(p), processes);
  }
  return absl::NotFoundError(absl::StrCat(disk, " has no partition named boot"));
}

absl::StatusOr<process::CommandResult> BootPartition::Debugfs(bool write,
                                                              const std::string& commands) {
  process::Command debugfs;
  // "<disk>?offset=N": libext2fs opens the file system at the partition's offset, so neither
  // a partition device node nor a mount is needed.
  debugfs.argv = {"debugfs", "-f", "-", absl::StrCat(disk_, "?offset=", partition_.offset())};
  if (write) debugfs.argv.insert(debugfs.argv.begin() + 1, "-w");
  debugfs.stdin_data = commands;
  debugfs.timeout = absl::Minutes(1);
  ASSIGN_OR_RETURN(process::CommandResult result, processes_->Run(debugfs));
  if (!result.ok()) {
    return absl::InternalError(absl::StrCat(
        "debugfs on the boot partition failed: ", result.stderr_data, result.stdout_data));
  }
  return result;
}

absl::Status BootPartition::WriteFile(const std::string& path, absl::string_view content,
                                      int mode) {
  RETURN_IF_ERROR(CheckDebugfsPath(path));
  // debugfs copies from a file of this machine: a private temporary one.
  char source[] = "/tmp/assisted-boot-file-XXXXXX";
  const int fd = mkstemp(source);
  if (fd < 0) return absl::InternalError(absl::StrCat("mkstemp: ", std::strerror(errno)));
  absl::Status wrote = Pwrite(fd, content, 0, "a temporary file");
  close(fd);
  if (!wrote.ok()) {
    unlink(source);
    return wrote;
  }
  // debugfs' mkdir of an existing folder still allocates an inode and leaves the file system
  // damaged (e2fsprogs 1.47): create only what is missing, remove only what exists.
  std::string commands;
  std::vector<std::string> parts = absl::StrSplit(path, '/');
  std::string dir;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    dir = dir.empty() ? parts[i] : absl::StrCat(dir, "/", parts[i]);
    ASSIGN_OR_RETURN(const bool exists, Exists(dir));
    if (!exists) absl::StrAppend(&commands, "mkdir ", dir, "\n");
  }
  ASSIGN_OR_RETURN(const bool exists, Exists(path));
  if (exists) absl::StrAppend(&commands, "rm ", path, "\n");
  // debugfs takes the whole i_mode: a regular file (0100000) with `mode`'s permission bits.
  absl::StrAppend(&commands, "write ", source, " ", path, "\n", "sif ", path, " mode 0",
                  absl::StrFormat("%o", 0100000 | (mode & 07777)), "\n", "sif ", path, " uid 0\n",
                  "sif ", path, " gid 0\n");
  absl::StatusOr<process::CommandResult> ran = Debugfs(/*write=*/true, commands);
  unlink(source);
  RETURN_IF_ERROR(ran.status());
  // debugfs reports a failed command on stderr and still exits 0: read the file back.
  absl::StatusOr<std::string> back = ReadFile(path);
  if (!back.ok() || *back != content) {
    return absl::InternalError(
        absl::StrCat("cannot write ", path, " on the boot partition: ", ran->stderr_data));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> BootPartition::Exists(const std::string& path) {
  ASSIGN_OR_RETURN(process::CommandResult stat, Debugfs(/*write=*/false, "stat " + path + "\n"));
  return absl::StrContains(stat.stdout_data, "Inode:");
}

absl::StatusOr<std::string> BootPartition::ReadFile(const std::string& path) {
  RETURN_IF_ERROR(CheckDebugfsPath(path));
  // `cat` of a missing file prints nothing on stdout, like an empty file.
  ASSIGN_OR_RETURN(const bool exists, Exists(path));
  if (!exists) return absl::NotFoundError(absl::StrCat(path, " is not on the boot partition"));
  ASSIGN_OR_RETURN(process::CommandResult cat, Debugfs(/*write=*/false, "cat " + path + "\n"));
  // debugfs -f echoes each command as "debugfs: <command>\n" before its output.
  const std::string echo = absl::StrCat("debugfs: cat ", path, "\n");
  if (absl::StartsWith(cat.stdout_data, echo)) return cat.stdout_data.substr(echo.size());
  return cat.stdout_data;
}

absl::StatusOr<std::string> EditKargs(absl::string_view kargs_cfg,
                                      const std::vector<std::string>& append,
                                      const std::vector<std::string>& remove) {
  constexpr absl::string_view kPrefix = "set kargs=\"";
  std::vector<std::string> lines = absl::StrSplit(kargs_cfg, '\n');
  for (std::string& line : lines) {
    if (!absl::StartsWith(line, kPrefix) || !absl::EndsWith(line, "\"")) continue;
    std::vector<std::string> args = absl::StrSplit(
        line.substr(kPrefix.size(), line.size() - kPrefix.size() - 1), ' ', absl::SkipEmpty());
    std::vector<std::string> kept;
    for (const std::string& arg : args) {
      if (std::find(remove.begin(), remove.end(), arg) == remove.end()) kept.push_back(arg);
    }
    for (const std::string& arg : append) {
      if (arg.empty() || arg.find_first_of(" \t\n\"'\\$;") != std::string::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat("installer_args: kernel argument \"", arg, "\" is not a single word"));
      }
      kept.push_back(arg);
    }
    line = absl::StrCat(kPrefix, absl::StrJoin(kept, " "), "\"");
    return absl::StrJoin(lines, "\n");
  }
  return absl::InvalidArgumentError("the boot partition's kargs.cfg has no kargs line");
}

}  // namespace assisted::agent::steps
