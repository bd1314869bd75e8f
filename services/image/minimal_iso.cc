#include "services/image/minimal_iso.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/iso/iso9660.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"

namespace assisted::image {
namespace {

constexpr char kKargsJson[] = "coreos/kargs.json";
constexpr char kRootfsPath[] = "images/pxeboot/rootfs.img";

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

// One word of a line: [begin, end) in the text.
struct Word {
  size_t begin = 0;
  size_t end = 0;
};

std::vector<Word> Words(absl::string_view text, size_t begin, size_t end) {
  std::vector<Word> words;
  size_t at = begin;
  while (at < end) {
    while (at < end && IsSpace(text[at])) ++at;
    const size_t start = at;
    while (at < end && !IsSpace(text[at])) ++at;
    if (at > start) words.push_back({start, at});
  }
  return words;
}

// Where the ramdisk goes into one line (the text to insert at a position), if the line loads
// initrds: grub's `initrd`/`initrdefi` lines take one more path at their end; isolinux's
// `append … initrd=a,b …` and `initrd a,b` take one more list entry.
std::vector<std::pair<size_t, std::string>> RamdiskInsertions(absl::string_view text, size_t begin,
                                                              size_t end, bool isolinux) {
  const std::string ramdisk = absl::StrCat("/", kMinimalRamdiskPath);
  const std::vector<Word> words = Words(text, begin, end);
  if (words.empty()) return {};
  const std::string first =
      absl::AsciiStrToLower(text.substr(words[0].begin, words[0].end - words[0].begin));
  if (!isolinux) {
    if (first != "initrd" && first != "initrdefi") return {};
    return {{words.back().end, absl::StrCat(" ", ramdisk)}};
  }
  if (first == "initrd" && words.size() > 1) return {{words[1].end, absl::StrCat(",", ramdisk)}};
  if (first != "append") return {};
  for (const Word& word : words) {
    if (absl::StartsWith(text.substr(word.begin), "initrd=")) {
      return {{word.end, absl::StrCat(",", ramdisk)}};
    }
  }
  return {};
}

absl::Status WriteFile(const std::filesystem::path& path, absl::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  return absl::OkStatus();
}

}  // namespace

std::string WithoutLiveIsoKarg(absl::string_view kargs) {
  std::vector<absl::string_view> kept;
  for (absl::string_view arg : absl::StrSplit(kargs, ' ', absl::SkipEmpty())) {
    if (!absl::StartsWith(arg, "coreos.liveiso=")) kept.push_back(arg);
  }
  return absl::StrJoin(kept, " ");
}

absl::StatusOr<MinimalBootConfig> EditBootConfig(absl::string_view path, absl::string_view text,
                                                 bool isolinux, uint64_t kargs_offset,
                                                 uint64_t kargs_size, absl::string_view kargs,
                                                 absl::string_view end, char pad) {
  if (kargs_offset > text.size() || kargs_size > text.size() - kargs_offset) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": the kargs area lies outside the file"));
  }
  if (kargs.size() + end.size() > kargs_size) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": the kernel arguments do not fit its kargs area"));
  }
  std::string area = absl::StrCat(kargs, end);
  area.resize(kargs_size, pad);
  std::string edited(text);
  edited.replace(kargs_offset, kargs_size, area);

  // Initrd lines, outside the kargs area (whose text is ours, not the boot loader's).
  std::vector<std::pair<size_t, std::string>> insertions;
  for (size_t line = 0; line < edited.size();) {
    size_t line_end = edited.find('\n', line);
    if (line_end == std::string::npos) line_end = edited.size();
    const size_t stop = line < kargs_offset ? std::min<size_t>(line_end, kargs_offset) : line_end;
    if (line < kargs_offset || line >= kargs_offset + kargs_size) {
      for (auto& insertion : RamdiskInsertions(edited, line, stop, isolinux)) {
        insertions.push_back(std::move(insertion));
      }
    }
    line = line_end + 1;
  }
  if (insertions.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no initrd line to add the ramdisk to"));
  }
  MinimalBootConfig result{std::move(edited), kargs_offset};
  for (auto it = insertions.rbegin(); it != insertions.rend(); ++it) {
    result.text.insert(it->first, it->second);
    if (it->first <= kargs_offset) result.kargs_offset += it->second.size();
  }
  return result;
}

namespace {

// A file the minimal ISO gets in place of (or besides) the full ISO's.
struct Replacement {
  std::string iso_path;  // absolute, in the image
  std::string content;
};

// The edited boot loader configs and kargs.json of the full ISO behind `reader`.
absl::StatusOr<std::vector<Replacement>> EditedKargsFiles(const iso::IsoReader& reader,
                                                          const std::string& name) {
  ASSIGN_OR_RETURN(std::string text, reader.ReadFile(kKargsJson));
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json["files"].is_array() || !json["default"].is_string() ||
      !json["size"].is_number_unsigned()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": ", kKargsJson, " needs default, files and size"));
  }
  const std::string kargs = WithoutLiveIsoKarg(json["default"].get<std::string>());
  const uint64_t size = json["size"].get<uint64_t>();
  json["default"] = kargs;
  std::vector<Replacement> replacements;
  for (size_t i = 0; i < json["files"].size(); ++i) {
    nlohmann::json& file = json["files"][i];
    if (!file.is_object() || !file["path"].is_string() || !file["offset"].is_number_unsigned()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": ", kKargsJson, ": files[", i, "] needs path and offset"));
    }
    const std::string path = file["path"].get<std::string>();
    ASSIGN_OR_RETURN(std::string config, reader.ReadFile(path));
    const std::string pad = file.value("pad", std::string("#"));
    ASSIGN_OR_RETURN(
        MinimalBootConfig edited,
        EditBootConfig(path, config,
                       absl::StrContains(path, "isolinux") || absl::StrContains(path, "syslinux"),
                       file["offset"].get<uint64_t>(), size, kargs,
                       file.value("end", std::string("\n")), pad.empty() ? '#' : pad[0]));
    file["offset"] = edited.kargs_offset;
    replacements.push_back({absl::StrCat("/", path), std::move(edited.text)});
  }
  replacements.push_back({absl::StrCat("/", kKargsJson), json.dump()});
  return replacements;
}

// Closes a descriptor when it goes out of scope.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

absl::Status BuildMinimalIso(process::ProcessRunner& runner, const std::string& full_path,
                             const std::string& work_dir, const std::string& output) {
  const FdCloser fd{open(full_path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (fd.fd < 0) return absl::NotFoundError(absl::StrCat("cannot open ", full_path));
  ASSIGN_OR_RETURN(iso::IsoReader reader, iso::IsoReader::Open(fd.fd, full_path));
  RETURN_IF_ERROR(reader.Find(kRootfsPath).status());
  ASSIGN_OR_RETURN(std::vector<Replacement> replacements, EditedKargsFiles(reader, full_path));
  replacements.push_back(
      {absl::StrCat("/", kMinimalRamdiskPath), std::string(kMinimalRamdiskBytes, '\0')});

  const std::filesystem::path dir(work_dir);
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::InternalError(absl::StrCat("cannot create ", work_dir, ": ", error.message()));
  }
  const std::string partial = output + ".partial";
  std::remove(partial.c_str());
  std::vector<std::string> argv = {
      "xorriso",     "-indev", full_path, "-outdev", partial,
      "-boot_image", "any",    "replay",  "-rm",     absl::StrCat("/", kRootfsPath),
      "--"};
  for (size_t i = 0; i < replacements.size(); ++i) {
    const std::filesystem::path local = dir / absl::StrCat("file", i);
    RETURN_IF_ERROR(WriteFile(local, replacements[i].content));
    argv.insert(argv.end(), {"-map", local.string(), replacements[i].iso_path});
  }
  argv.push_back("-end");
  ASSIGN_OR_RETURN(process::CommandResult result,
                   runner.Run({.argv = argv, .timeout = absl::Minutes(10)}));
  if (!result.ok()) {
    std::remove(partial.c_str());
    return absl::InternalError(
        absl::StrCat("xorriso could not derive the minimal ISO: ", result.stderr_data));
  }
  if (std::rename(partial.c_str(), output.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("cannot rename ", partial, " to ", output));
  }
  return absl::OkStatus();
}

}  // namespace assisted::image
