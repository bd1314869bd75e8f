#include "lib/version/openshift_version.h"

namespace assisted::version {

std::string MinorVersion(absl::string_view version) {
  const size_t first = version.find('.');
  if (first == absl::string_view::npos) return std::string(version);
  const size_t second = version.find('.', first + 1);
  return std::string(version.substr(0, second));
}

}  // namespace assisted::version
