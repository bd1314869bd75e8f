#include "lib/enums/architecture.h"

namespace assisted::enums {

absl::string_view OsImageArchitecture(types::v1::CpuArchitecture architecture) {
  switch (architecture) {
    case types::v1::CPU_ARCHITECTURE_AARCH64:
    case types::v1::CPU_ARCHITECTURE_ARM64:
      return "aarch64";
    case types::v1::CPU_ARCHITECTURE_PPC64LE:
      return "ppc64le";
    case types::v1::CPU_ARCHITECTURE_S390X:
      return "s390x";
    default:
      return "x86_64";
  }
}

std::optional<types::v1::CpuArchitecture> CpuArchitectureFromOsImageName(absl::string_view name) {
  if (name == "arm64") return types::v1::CPU_ARCHITECTURE_AARCH64;
  for (types::v1::CpuArchitecture architecture :
       {types::v1::CPU_ARCHITECTURE_X86_64, types::v1::CPU_ARCHITECTURE_AARCH64,
        types::v1::CPU_ARCHITECTURE_PPC64LE, types::v1::CPU_ARCHITECTURE_S390X}) {
    if (OsImageArchitecture(architecture) == name) return architecture;
  }
  return std::nullopt;
}

std::string CanonicalOsImageArchitecture(absl::string_view name) {
  std::optional<types::v1::CpuArchitecture> architecture = CpuArchitectureFromOsImageName(name);
  return std::string(architecture.has_value() ? OsImageArchitecture(*architecture) : name);
}

}  // namespace assisted::enums
