#include "lib/coreos/installer_args.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::coreos {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(InstallerArgs, AppliesTheSupportedFlagsInBothSpellings) {
  absl::StatusOr<InstallerArgs> args =
      ParseInstallerArgs({"--append-karg", "nosmt", "--append-karg=rd.multipath=default",
                          "--delete-karg=quiet", "-n", "--network-dir", "/etc/nm"});
  ASSERT_THAT(args, IsOk());
  EXPECT_THAT(args->append_kargs, ElementsAre("nosmt", "rd.multipath=default"));
  EXPECT_THAT(args->delete_kargs, ElementsAre("quiet"));
  EXPECT_TRUE(args->copy_network);
  EXPECT_EQ(args->network_dir, "/etc/nm");
  EXPECT_THAT(ParseInstallerArgs({}), IsOk());
}

TEST(InstallerArgs, RefusesWhatIsNotAppliedNamingTheArgument) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--save-partlabel", "data"}, "\"--save-partlabel\" is not supported"},
      {{"--image-url=http://x"}, "\"--image-url=http://x\" is not supported"},
      {{"--append-karg"}, "--append-karg needs a value"},
      {{"--append-karg", "a b"}, "kernel argument \"a b\" is not a single word"},
      {{"--delete-karg="}, "kernel argument \"\" is not a single word"},
      {{"--network-dir=relative"}, "is not an absolute path"},
      {{"rm -rf /"}, "\"rm -rf /\" is not supported"},
  };
  for (const auto& [args, problem] : cases) {
    EXPECT_THAT(ParseInstallerArgs(args),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(problem)))
        << args[0];
  }
}

}  // namespace
}  // namespace assisted::coreos
