// Writes docs/state-machines.md: to the path given as the only argument, else into the workspace
// `bazel run` was started from, else to stdout.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "services/orchestrator/core/state_machine_docs.h"

int main(int argc, char** argv) {
  const std::string doc = assisted::orchestrator::core::RenderStateMachinesDoc();
  std::string path;
  if (argc > 1) {
    path = argv[1];
  } else if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    path = std::string(ws) + "/docs/state-machines.md";
  }
  if (path.empty()) {
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    return 0;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << doc;
  if (!out.good()) {
    std::fprintf(stderr, "gen_state_machines_doc: cannot write %s\n", path.c_str());
    return 1;
  }
  std::fprintf(stderr, "wrote %s\n", path.c_str());
  return 0;
}
