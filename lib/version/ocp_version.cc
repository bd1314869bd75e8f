// File: lib/version/ocp_version.cc

#include "lib/version/ocp_version.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace assisted::version {

absl::StatusOr<OcpVersion> OcpVersion::Parse(absl::string_view text) {
  absl::string_view core = text.substr(0, text.find_first_of("-+"));
  std::vector<absl::string_view> parts = absl::StrSplit(core, '.');
  OcpVersion v;
  int* fields[] = {&v.major, &v.minor, &v.patch};
  bool ok = parts.size() == 2 || parts.size() == 3;
  for (std::size_t i = 0; ok && i < parts.size(); ++i) {
    ok = absl::SimpleAtoi(parts[i], fields[i]) && *fields[i] >= 0;
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", text, "\" is not an OpenShift version (expected e.g. \"4.16\" or \"4.16.3\")"));
  }
  return v;
}

std::string OcpVersion::ToString() const { return absl::StrCat(major, ".", minor, ".", patch); }

}  // namespace assisted::version
