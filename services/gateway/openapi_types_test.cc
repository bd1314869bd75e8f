// The served OpenAPI document (services/gateway/openapi.yaml) against the model tables that map
// JSON to protobuf (json_model.h): every field a table reads or shows is a property of the
// schema of that use, with the JSON type the field's conversion gives it, so a field added to a
// table or a conversion changed cannot be left out of the document or described wrongly.

#include <string>

#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "services/gateway/json_model.h"
#include "yaml-cpp/yaml.h"

namespace assisted::gateway {
namespace {

class OpenApiTypes : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> text = ReadFile("services/gateway/openapi.yaml", "document");
    ASSERT_TRUE(text.ok()) << text.status();
    document_ = YAML::Load(*text);
  }

  YAML::Node Schema(const std::string& name) const {
    return document_["components"]["schemas"][name];
  }

  // The JSON type a property says, following $ref (alone or as the one part of an allOf, which
  // lets a reference carry a description) to the schema that says it.
  std::string TypeOf(YAML::Node property) const {
    for (int hops = 0; hops < 8; ++hops) {
      if (property["allOf"] && property["allOf"].size() == 1) property = property["allOf"][0];
      if (!property["$ref"]) break;
      const std::string ref = property["$ref"].as<std::string>();
      property = Schema(ref.substr(ref.rfind('/') + 1));
    }
    return property["type"] ? property["type"].as<std::string>() : "(none)";
  }

  YAML::Node document_;
};

TEST_F(OpenApiTypes, EveryModelFieldIsDescribedWithTheTypeItsConversionGivesIt) {
  for (const DocumentedModel& documented : DocumentedModels()) {
    const Model& model = *documented.model;
    for (const auto& [schema, use] :
         {std::pair{documented.shown, kOut}, std::pair{documented.created, kCreate},
          std::pair{documented.updated, kUpdate}}) {
      if (std::string(schema).empty()) continue;
      const YAML::Node properties = Schema(schema)["properties"];
      ASSERT_TRUE(properties.IsMap()) << schema << " has no properties";
      for (const FieldRule& rule : model.fields) {
        if (!(rule.use & use)) continue;
        const char* expected = JsonTypeOf(model, rule, use);
        ASSERT_NE(expected, nullptr) << model.name << "." << rule.json << ": no such proto field";
        const YAML::Node property = properties[rule.json];
        ASSERT_TRUE(property.IsDefined()) << schema << " does not describe " << rule.json;
        EXPECT_EQ(TypeOf(property), expected) << schema << "." << rule.json;
      }
    }
  }
}

TEST(JsonTypeOf, FollowsTheConversionOfEachKindOfField) {
  const Model& host = HostModel();
  auto type_of = [&](const char* json, FieldUse use) -> std::string {
    for (const FieldRule& rule : host.fields) {
      if (json == std::string(rule.json) && (rule.use & use)) return JsonTypeOf(host, rule, use);
    }
    return "(no rule)";
  };
  EXPECT_EQ(type_of("node_labels", kOut), "string");     // JSON text
  EXPECT_EQ(type_of("node_labels", kUpdate), "array");   // [{key, value}]
  EXPECT_EQ(type_of("timestamp", kOut), "integer");      // Unix seconds
  EXPECT_EQ(type_of("created_at", kOut), "string");      // RFC 3339
  EXPECT_EQ(type_of("inventory", kOut), "string");       // JSON text
  EXPECT_EQ(type_of("progress_stages", kOut), "array");  // repeated enum
  EXPECT_EQ(type_of("bootstrap", kOut), "boolean");
}

}  // namespace
}  // namespace assisted::gateway
