// docs/state-machines.md must be what the tables generate today.

#include "services/orchestrator/core/state_machine_docs.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"

namespace assisted::orchestrator::core {
namespace {

using ::testing::HasSubstr;

TEST(StateMachineDocs, CheckedInCopyIsCurrent) {
  absl::StatusOr<std::string> checked_in = ReadFile("docs/state-machines.md", "docs");
  ASSERT_TRUE(checked_in.ok()) << checked_in.status();
  EXPECT_TRUE(*checked_in == RenderStateMachinesDoc())
      << "docs/state-machines.md is stale: run "
         "`bazel run //services/orchestrator/core:gen_state_machines_doc` and commit the result";
}

TEST(StateMachineDocs, HasDiagramsAndRowsOfBothMachines) {
  std::string doc = RenderStateMachinesDoc();
  EXPECT_THAT(doc, HasSubstr("## Host"));
  EXPECT_THAT(doc, HasSubstr("## Cluster"));
  EXPECT_THAT(doc, HasSubstr("```mermaid\nstateDiagram-v2"));
  EXPECT_THAT(doc, HasSubstr("  known --> discovering: RegisterHost"));
  // No row leaves "no host yet": the inventory creates hosts in their first status.
  EXPECT_THAT(doc, ::testing::Not(HasSubstr("[*] -->")));
  EXPECT_THAT(doc, HasSubstr("  state \"known-unbound\" as known_unbound"));
  EXPECT_THAT(doc, HasSubstr("| 0 | RegisterHost | discovering, known, disconnected, "));
  EXPECT_THAT(doc, HasSubstr("`has-min-cpu-cores`"));
  EXPECT_THAT(doc, HasSubstr("| host disconnection (before Rebooting) | 3 min |"));
  EXPECT_THAT(doc, HasSubstr("| day-1 | preparing-for-installation | dhcp-lease-allocate, "
                             "installation-disk-speed-check, container-image-availability |"));
}

}  // namespace
}  // namespace assisted::orchestrator::core
