// The checked-in OpenAPI document against its generator: the generated region is what the model
// tables and proto comments give today, and every property and operation of the whole document
// (generated or written by hand) says what it is.

#include "services/gateway/openapi_schemas.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "yaml-cpp/yaml.h"

namespace assisted::gateway {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kDocument[] = "services/gateway/openapi.yaml";

std::string Read(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path, path);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

std::string Generated() {
  auto pool = CommentedPool(Read(kTypesDescriptorSetPath));
  EXPECT_TRUE(pool.ok()) << pool.status();
  if (!pool.ok()) return "";
  absl::StatusOr<std::string> schemas = RenderModelSchemas(**pool);
  EXPECT_TRUE(schemas.ok()) << schemas.status();
  return schemas.value_or("");
}

TEST(OpenApiSchemas, CheckedInDocumentIsCurrent) {
  const std::string checked_in = Read(kDocument);
  absl::StatusOr<std::string> current = ReplaceGeneratedSchemas(checked_in, Generated());
  ASSERT_TRUE(current.ok()) << current.status();
  EXPECT_TRUE(*current == checked_in)
      << kDocument << " is stale: run `bazel run //services/gateway:write_openapi_schemas` and "
      << "commit the result";
}

TEST(OpenApiSchemas, GeneratingTwiceChangesNothing) {
  const std::string schemas = Generated();
  EXPECT_EQ(Generated(), schemas);
  absl::StatusOr<std::string> once = ReplaceGeneratedSchemas(Read(kDocument), schemas);
  ASSERT_TRUE(once.ok()) << once.status();
  absl::StatusOr<std::string> twice = ReplaceGeneratedSchemas(*once, schemas);
  ASSERT_TRUE(twice.ok()) << twice.status();
  EXPECT_EQ(*twice, *once);
}

TEST(OpenApiSchemas, ReplacesOnlyTheRegionBetweenItsMarkers) {
  const std::string document =
      absl::StrCat("components:\n  schemas:\n    error: {type: object}\n", kGeneratedSchemasBegin,
                   "\n    old: {}\n", kGeneratedSchemasEnd, "\n");
  absl::StatusOr<std::string> replaced =
      ReplaceGeneratedSchemas(document, "    new:\n      type: object\n");
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_EQ(*replaced, absl::StrCat("components:\n  schemas:\n    error: {type: object}\n",
                                    kGeneratedSchemasBegin, "\n    new:\n      type: object\n",
                                    kGeneratedSchemasEnd, "\n"));
}

TEST(OpenApiSchemas, RefusesADocumentWithoutMarkersOrWithAHandWrittenTwin) {
  EXPECT_THAT(ReplaceGeneratedSchemas("components:\n", "    x:\n").status().message(),
              HasSubstr("no generated region"));
  const std::string twin = absl::StrCat("components:\n  schemas:\n    host:\n      type: object\n",
                                        kGeneratedSchemasBegin, "\n", kGeneratedSchemasEnd, "\n");
  EXPECT_THAT(ReplaceGeneratedSchemas(twin, "    host:\n      type: object\n").status().message(),
              HasSubstr("schema host is generated"));
}

// `node[key]`, or a null node when `node` is not a map or lacks `key` (yaml-cpp throws on a
// key looked up below a missing one).
YAML::Node Child(const YAML::Node& node, const std::string& key) {
  if (!node.IsMap() || !node[key]) return YAML::Node(YAML::NodeType::Null);
  return node[key];
}

// Every property of `schema` (and of the schemas nested in it) has a description; each one
// missing is added to `missing` by its path.
void FindUndescribed(const YAML::Node& schema, const std::string& where,
                     std::vector<std::string>& missing) {
  if (!schema.IsMap()) return;
  for (const auto& property : Child(schema, "properties")) {
    const std::string path = where + "." + property.first.as<std::string>();
    const YAML::Node description = Child(property.second, "description");
    if (!description.IsScalar() || description.as<std::string>().empty()) missing.push_back(path);
    FindUndescribed(property.second, path, missing);
  }
  FindUndescribed(Child(schema, "items"), where + "[]", missing);
  FindUndescribed(Child(schema, "additionalProperties"), where + ".*", missing);
  for (const auto& part : Child(schema, "allOf")) FindUndescribed(part, where, missing);
}

TEST(OpenApiSchemas, EveryPropertyOperationAndParameterHasADescription) {
  const YAML::Node document = YAML::Load(Read(kDocument));
  std::vector<std::string> missing;
  for (const auto& schema : document["components"]["schemas"]) {
    FindUndescribed(schema.second, schema.first.as<std::string>(), missing);
  }
  for (const auto& path : document["paths"]) {
    for (const auto& operation : path.second) {
      const std::string method = operation.first.as<std::string>();
      if (method == "parameters") continue;
      const std::string where = method + " " + path.first.as<std::string>();
      const YAML::Node description = Child(operation.second, "description");
      if (!description.IsScalar() || description.as<std::string>().empty()) {
        missing.push_back(where);
      }
      for (const YAML::Node& parameters :
           {Child(path.second, "parameters"), Child(operation.second, "parameters")}) {
        for (const auto& listed : parameters) {
          YAML::Node parameter = listed;
          if (parameter["$ref"]) {
            const std::string ref = parameter["$ref"].as<std::string>();
            parameter = document["components"]["parameters"][ref.substr(ref.rfind('/') + 1)];
          }
          const YAML::Node said = Child(parameter, "description");
          if (!said.IsScalar() || said.as<std::string>().empty()) {
            missing.push_back(where + " parameter " + Child(parameter, "name").as<std::string>(""));
          }
        }
      }
      auto json_schema = [](const YAML::Node& holder) {
        return Child(Child(Child(holder, "content"), "application/json"), "schema");
      };
      FindUndescribed(json_schema(Child(operation.second, "requestBody")), where + " body",
                      missing);
      for (const auto& response : Child(operation.second, "responses")) {
        FindUndescribed(json_schema(response.second),
                        where + " " + response.first.as<std::string>(), missing);
      }
    }
  }
  EXPECT_THAT(missing, IsEmpty());
}

}  // namespace
}  // namespace assisted::gateway
