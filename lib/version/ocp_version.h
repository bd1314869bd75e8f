// File: lib/version/ocp_version.h
//
// OpenShift versions as ordered values: "4.14", "4.14.3", "4.15.0-ec.1" (pre-release suffixes
// are ignored for ordering; a missing patch is 0). Used to pick version-dependent requirements.

#ifndef ASSISTED_LIB_VERSION_OCP_VERSION_H_
#define ASSISTED_LIB_VERSION_OCP_VERSION_H_

#include <string>
#include <tuple>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::version {

struct OcpVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;

  // INVALID_ARGUMENT quoting `text` unless it is "<major>.<minor>[.<patch>][-suffix]".
  static absl::StatusOr<OcpVersion> Parse(absl::string_view text);

  std::string ToString() const;

  friend bool operator<(const OcpVersion& a, const OcpVersion& b) {
    return std::tie(a.major, a.minor, a.patch) < std::tie(b.major, b.minor, b.patch);
  }
  friend bool operator==(const OcpVersion& a, const OcpVersion& b) {
    return std::tie(a.major, a.minor, a.patch) == std::tie(b.major, b.minor, b.patch);
  }
  friend bool operator<=(const OcpVersion& a, const OcpVersion& b) { return !(b < a); }
};

}  // namespace assisted::version

#endif  // ASSISTED_LIB_VERSION_OCP_VERSION_H_
