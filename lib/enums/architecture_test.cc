#include "lib/enums/architecture.h"

#include "gtest/gtest.h"
#include "lib/enums/spelling.h"

namespace assisted::enums {
namespace {

namespace types = ::assisted::types::v1;

TEST(OsImageArchitectureTest, BothArmNamesReadAarch64) {
  EXPECT_EQ(OsImageArchitecture(types::CPU_ARCHITECTURE_AARCH64), "aarch64");
  EXPECT_EQ(OsImageArchitecture(types::CPU_ARCHITECTURE_ARM64), "aarch64");
}

TEST(OsImageArchitectureTest, OtherArchitecturesReadAsTheirRestSpelling) {
  for (types::CpuArchitecture architecture :
       {types::CPU_ARCHITECTURE_X86_64, types::CPU_ARCHITECTURE_PPC64LE,
        types::CPU_ARCHITECTURE_S390X}) {
    EXPECT_EQ(OsImageArchitecture(architecture), EnumText(architecture));
  }
}

TEST(OsImageArchitectureTest, UnsetMultiAndUnknownDefaultToX86) {
  EXPECT_EQ(OsImageArchitecture(types::CPU_ARCHITECTURE_UNSPECIFIED), "x86_64");
  EXPECT_EQ(OsImageArchitecture(types::CPU_ARCHITECTURE_MULTI), "x86_64");
  EXPECT_EQ(OsImageArchitecture(static_cast<types::CpuArchitecture>(99)), "x86_64");
}

TEST(OsImageArchitectureTest, RestSpellingKeepsArm64) {
  // The API echoes what the user chose; only the OS side folds the alias.
  EXPECT_EQ(EnumText(types::CPU_ARCHITECTURE_ARM64), "arm64");
}

TEST(CpuArchitectureFromOsImageNameTest, ReadsEveryOsName) {
  EXPECT_EQ(CpuArchitectureFromOsImageName("x86_64"), types::CPU_ARCHITECTURE_X86_64);
  EXPECT_EQ(CpuArchitectureFromOsImageName("aarch64"), types::CPU_ARCHITECTURE_AARCH64);
  EXPECT_EQ(CpuArchitectureFromOsImageName("ppc64le"), types::CPU_ARCHITECTURE_PPC64LE);
  EXPECT_EQ(CpuArchitectureFromOsImageName("s390x"), types::CPU_ARCHITECTURE_S390X);
}

TEST(CpuArchitectureFromOsImageNameTest, ReadsUpstreamsArm64AsAarch64) {
  EXPECT_EQ(CpuArchitectureFromOsImageName("arm64"), types::CPU_ARCHITECTURE_AARCH64);
}

TEST(CpuArchitectureFromOsImageNameTest, RefusesOtherText) {
  EXPECT_EQ(CpuArchitectureFromOsImageName("multi"), std::nullopt);
  EXPECT_EQ(CpuArchitectureFromOsImageName("AARCH64"), std::nullopt);
  EXPECT_EQ(CpuArchitectureFromOsImageName(""), std::nullopt);
}

TEST(CanonicalOsImageArchitectureTest, FoldsArm64AndKeepsUnknownNames) {
  EXPECT_EQ(CanonicalOsImageArchitecture("arm64"), "aarch64");
  EXPECT_EQ(CanonicalOsImageArchitecture("aarch64"), "aarch64");
  EXPECT_EQ(CanonicalOsImageArchitecture("x86_64"), "x86_64");
  EXPECT_EQ(CanonicalOsImageArchitecture("riscv64"), "riscv64");
}

}  // namespace
}  // namespace assisted::enums
