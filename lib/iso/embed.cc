#include "lib/iso/embed.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "lib/iso/cpio.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"

namespace assisted::iso {
namespace {

constexpr char kIgnInfo[] = "coreos/igninfo.json";
constexpr char kKargsJson[] = "coreos/kargs.json";
constexpr char kIgnitionImage[] = "images/ignition.img";
constexpr uint64_t kMaxKargsArea = 2048;

absl::StatusOr<nlohmann::json> ParseJson(const std::string& text, absl::string_view file) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": not a JSON object"));
  }
  return json;
}

absl::StatusOr<Extent> IgnitionArea(const IsoReader& iso) {
  absl::StatusOr<std::string> info = iso.ReadFile(kIgnInfo);
  if (absl::IsNotFound(info.status())) {
    absl::StatusOr<Extent> image = iso.Find(kIgnitionImage);
    if (absl::IsNotFound(image.status())) {
      return absl::NotFoundError(absl::StrCat(iso.volume_id(), ": no ", kIgnInfo, " nor ",
                                              kIgnitionImage, "; not a CoreOS live ISO"));
    }
    return image;
  }
  if (!info.ok()) return info.status();
  ASSIGN_OR_RETURN(nlohmann::json json, ParseJson(*info, kIgnInfo));
  if (!json.contains("file") || !json["file"].is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(kIgnInfo, ": \"file\" missing"));
  }
  ASSIGN_OR_RETURN(Extent file, iso.Find(json["file"].get<std::string>()));
  const uint64_t offset = json.contains("offset") && json["offset"].is_number_unsigned()
                              ? json["offset"].get<uint64_t>()
                              : 0;
  if (offset > file.size) {
    return absl::InvalidArgumentError(absl::StrCat(kIgnInfo, ": offset beyond its file"));
  }
  uint64_t length = file.size - offset;
  if (json.contains("length") && json["length"].is_number_unsigned()) {
    length = json["length"].get<uint64_t>();
    if (length > file.size - offset) {
      return absl::InvalidArgumentError(absl::StrCat(kIgnInfo, ": length beyond its file"));
    }
  }
  return Extent{file.offset + offset, length};
}

absl::Status KargsAreas(const IsoReader& iso, EmbedAreas& areas) {
  absl::StatusOr<std::string> text = iso.ReadFile(kKargsJson);
  if (absl::IsNotFound(text.status())) return absl::OkStatus();
  if (!text.ok()) return text.status();
  ASSIGN_OR_RETURN(nlohmann::json json, ParseJson(*text, kKargsJson));
  if (!json.contains("size") || !json["size"].is_number_unsigned() ||
      json["size"].get<uint64_t>() == 0 || json["size"].get<uint64_t>() > kMaxKargsArea) {
    return absl::InvalidArgumentError(
        absl::StrCat(kKargsJson, ": \"size\" must be 1 to ", kMaxKargsArea));
  }
  const uint64_t size = json["size"].get<uint64_t>();
  if (json.contains("default") && json["default"].is_string()) {
    areas.default_kargs = json["default"].get<std::string>();
  }
  if (!json.contains("files") || !json["files"].is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(kKargsJson, ": \"files\" missing"));
  }
  for (const nlohmann::json& file : json["files"]) {
    if (!file.is_object() || !file.contains("path") || !file["path"].is_string() ||
        !file.contains("offset") || !file["offset"].is_number_unsigned()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kKargsJson, ": every file needs \"path\" and \"offset\""));
    }
    KargsArea area;
    area.path = file["path"].get<std::string>();
    area.size = size;
    ASSIGN_OR_RETURN(Extent extent, iso.Find(area.path));
    const uint64_t offset = file["offset"].get<uint64_t>();
    if (offset > extent.size || size > extent.size - offset) {
      return absl::InvalidArgumentError(
          absl::StrCat(kKargsJson, ": the area in ", area.path, " lies outside the file"));
    }
    area.offset = extent.offset + offset;
    if (file.contains("end") && file["end"].is_string()) area.end = file["end"].get<std::string>();
    if (file.contains("pad") && file["pad"].is_string() &&
        file["pad"].get<std::string>().size() == 1) {
      area.pad = file["pad"].get<std::string>()[0];
    }
    areas.kargs.push_back(std::move(area));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<EmbedAreas> FindEmbedAreas(const IsoReader& iso) {
  EmbedAreas areas;
  ASSIGN_OR_RETURN(areas.ignition, IgnitionArea(iso));
  RETURN_IF_ERROR(KargsAreas(iso, areas));
  return areas;
}

absl::StatusOr<Patch> IgnitionPatch(const Extent& area, absl::string_view archive) {
  if (archive.size() > area.size) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "content length (", archive.size(), ") exceeds embed area size (", area.size, ")"));
  }
  Patch patch{area.offset, std::string(archive)};
  patch.bytes.resize(area.size, '\0');
  return patch;
}

absl::StatusOr<std::vector<Patch>> KargsPatches(const EmbedAreas& areas, absl::string_view extra) {
  if (areas.kargs.empty()) {
    if (extra.empty()) return std::vector<Patch>();
    return absl::FailedPreconditionError(
        "the base image has no kernel-argument areas (coreos/kargs.json)");
  }
  std::string kargs = areas.default_kargs;
  if (!extra.empty()) absl::StrAppend(&kargs, kargs.empty() ? "" : " ", extra);
  std::vector<Patch> patches;
  for (const KargsArea& area : areas.kargs) {
    if (kargs.size() + area.end.size() > area.size) {
      return absl::ResourceExhaustedError(
          absl::StrCat("kernel arguments need ", kargs.size() + area.end.size(),
                       " bytes with their line end; the area in ", area.path, " has ", area.size));
    }
    Patch patch{area.offset, absl::StrCat(kargs, area.end)};
    patch.bytes.resize(area.size, area.pad);
    patches.push_back(std::move(patch));
  }
  return patches;
}

absl::StatusOr<std::string> ReadEmbeddedIgnition(const IsoReader& iso) {
  ASSIGN_OR_RETURN(EmbedAreas areas, FindEmbedAreas(iso));
  ASSIGN_OR_RETURN(std::string area, iso.ReadAt(areas.ignition.offset, areas.ignition.size));
  if (area.find_first_not_of('\0') == std::string::npos) {
    return absl::NotFoundError("the Ignition embed area is empty (an uncustomised image)");
  }
  ASSIGN_OR_RETURN(std::string archive, Gunzip(area));
  ASSIGN_OR_RETURN(std::vector<CpioMember> members, ReadCpio(archive));
  for (CpioMember& member : members) {
    if (member.path == "config.ign" || member.path == "./config.ign") {
      return std::move(member.content);
    }
  }
  return absl::NotFoundError("the Ignition embed area holds no config.ign");
}

absl::StatusOr<std::string> ReadPatched(const IsoReader& iso, const std::vector<Patch>& patches,
                                        uint64_t offset, uint64_t length) {
  ASSIGN_OR_RETURN(std::string data, iso.ReadAt(offset, length));
  for (const Patch& patch : patches) {
    const uint64_t begin = std::max(offset, patch.offset);
    const uint64_t end = std::min(offset + length, patch.offset + patch.bytes.size());
    if (begin >= end) continue;
    data.replace(begin - offset, end - begin, patch.bytes, begin - patch.offset, end - begin);
  }
  return data;
}

}  // namespace assisted::iso
