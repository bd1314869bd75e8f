// Writes the generated model schemas into services/gateway/openapi.yaml (openapi_schemas.h): into
// the document given as the only argument, else into the workspace `bazel run` was started from.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "lib/file/read_file.h"
#include "services/gateway/openapi_schemas.h"

namespace {

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "write_openapi_schemas: %s\n", std::string(status.message()).c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace assisted::gateway;  // NOLINT: a tool's main
  std::string path;
  if (argc > 1) {
    path = argv[1];
  } else if (const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    path = std::string(workspace) + "/services/gateway/openapi.yaml";
  } else {
    std::fprintf(stderr, "usage: bazel run //services/gateway:write_openapi_schemas [DOCUMENT]\n");
    return 2;
  }
  absl::StatusOr<std::string> descriptors =
      assisted::ReadFile(kTypesDescriptorSetPath, "descriptor set");
  if (!descriptors.ok()) return Fail(descriptors.status());
  auto pool = CommentedPool(*descriptors);
  if (!pool.ok()) return Fail(pool.status());
  absl::StatusOr<std::string> schemas = RenderModelSchemas(**pool);
  if (!schemas.ok()) return Fail(schemas.status());
  absl::StatusOr<std::string> document = assisted::ReadFile(path, "document");
  if (!document.ok()) return Fail(document.status());
  absl::StatusOr<std::string> written = ReplaceGeneratedSchemas(*document, *schemas);
  if (!written.ok()) return Fail(written.status());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << *written;
  if (!out.good()) {
    std::fprintf(stderr, "write_openapi_schemas: cannot write %s\n", path.c_str());
    return 1;
  }
  std::fprintf(stderr, "wrote %s\n", path.c_str());
  return 0;
}
