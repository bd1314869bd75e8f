// File: services/agent/hardware/host_id.cc

#include "services/agent/hardware/host_id.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "services/agent/hardware/attributes.h"
#include "services/agent/hardware/net_devices.h"

namespace assisted::agent::hardware {
namespace {

// Placeholders firmware writes instead of a serial (compared case-insensitively).
constexpr std::array<absl::string_view, 10> kInvalidSerials = {
    "",
    "unknown",
    "none",
    "(none)",
    "-",
    "default string",
    "not specified",
    "unspecified base board serial number",
    "unspecified system serial number",
    "pca_number.acc",
};

constexpr absl::string_view kZeroUuid = "00000000-0000-0000-0000-000000000000";
// A fixed UUID shipped by some firmware on many machines at once.
constexpr absl::string_view kSharedFirmwareUuid = "03000200-0400-0500-0006-000700080009";
constexpr absl::string_view kZeroMac = "00:00:00:00:00:00";

std::string UuidLayout(absl::string_view hex) {
  return absl::StrCat(hex.substr(0, 8), "-", hex.substr(8, 4), "-", hex.substr(12, 4), "-",
                      hex.substr(16, 4), "-", hex.substr(20, 12));
}

bool ValidSerial(absl::string_view serial) {
  const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(serial));
  return std::find(kInvalidSerials.begin(), kInvalidSerials.end(), lower) == kInvalidSerials.end();
}

// 8-4-4-4-12 hex digits.
bool WellFormedUuid(absl::string_view uuid) {
  if (uuid.size() != 36) return false;
  for (size_t i = 0; i < uuid.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? uuid[i] != '-' : !absl::ascii_isxdigit(static_cast<unsigned char>(uuid[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string Md5Uuid(absl::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &length, EVP_md5(), nullptr) != 1 ||
      length != 16) {
    return std::string(kFallbackHostId);
  }
  return UuidLayout(
      absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), length)));
}

std::string DeriveHostId(const HostIdSources& sources) {
  const absl::string_view serial = absl::StripAsciiWhitespace(sources.board_serial);
  if (ValidSerial(serial)) return Md5Uuid(serial);

  const std::string uuid = absl::AsciiStrToLower(absl::StripAsciiWhitespace(sources.product_uuid));
  if (WellFormedUuid(uuid) && uuid != kZeroUuid && uuid != kSharedFirmwareUuid) return uuid;

  std::vector<std::string> macs;
  for (const std::string& mac : sources.macs) {
    std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(mac));
    if (!lower.empty() && lower != kZeroMac) macs.push_back(std::move(lower));
  }
  if (!macs.empty()) return Md5Uuid(*std::min_element(macs.begin(), macs.end()));

  return std::string(kFallbackHostId);
}

std::string HostId(const HostRoot& root) {
  HostIdSources sources;
  sources.board_serial = ReadAttribute(root, "sys/class/dmi/id/board_serial");
  sources.product_uuid = ReadAttribute(root, "sys/class/dmi/id/product_uuid");
  for (const NetDevice& device : ListNetDevices(root)) {
    if (device.type == "physical") sources.macs.push_back(device.mac);
  }
  return DeriveHostId(sources);
}

}  // namespace assisted::agent::hardware
