// File: services/gateway/openapi_schemas.h
//
// Writes the model schemas of the OpenAPI document (services/gateway/openapi.yaml) from the same
// tables that map JSON to protobuf (json_model.h), so the document cannot drift from what the API
// reads and shows. For each documented model and use (shown, created, updated) a schema lists the
// fields of that use: names and JSON types from the rules and JsonTypeOf, enums as the API spells
// them (lib/enums/spelling.h), `required` where a response always carries the field or a create
// needs it, readOnly/writeOnly from the uses, and descriptions from the proto comments (read from
// a descriptor set with source info) plus what each rule says of its REST form. The nested
// messages the models convert generically get a schema each, named after the message
// ("ClusterNetwork" -> cluster-network).
//
// Everything else in the document (paths, operations, parameters, the error schema, the
// extensions) is written by hand. The generated schemas sit between two marker lines at the end
// of components/schemas; ReplaceGeneratedSchemas swaps only that region, and the output depends
// on nothing but the tables and the comments, so regenerating an unchanged tree changes nothing.
//
// Regenerate: bazel run //services/gateway:write_openapi_schemas

#ifndef ASSISTED_SERVICES_GATEWAY_OPENAPI_SCHEMAS_H_
#define ASSISTED_SERVICES_GATEWAY_OPENAPI_SCHEMAS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"

namespace assisted::gateway {

// The lines that open and close the generated region (each followed by a newline).
inline constexpr char kGeneratedSchemasBegin[] =
    "    # ---- BEGIN GENERATED SCHEMAS: from the model tables (json_model.cc) and the proto "
    "comments; do not edit by hand, run `bazel run //services/gateway:write_openapi_schemas`";
inline constexpr char kGeneratedSchemasEnd[] = "    # ---- END GENERATED SCHEMAS";

// Where the descriptor set of the types' protos (with comments) is, relative to the runfiles'
// workspace folder: what the generator and its test read.
inline constexpr char kTypesDescriptorSetPath[] = "proto/assisted/types/v1/types_descriptor_set.pb";

// A pool of the files in a serialized FileDescriptorSet (protoc --include_imports
// --include_source_info). INVALID_ARGUMENT when it does not parse or its files do not build.
absl::StatusOr<std::unique_ptr<google::protobuf::DescriptorPool>> CommentedPool(
    absl::string_view descriptor_set);

// The generated region's schemas, as YAML lines indented under components/schemas (without the
// markers). `commented` supplies the comments of the messages the models are made of.
// FAILED_PRECONDITION naming the field for a table row naming no proto field, or listing every
// field and message whose description would be empty (a missing proto comment).
absl::StatusOr<std::string> RenderModelSchemas(const google::protobuf::DescriptorPool& commented);

// `document` with its generated region replaced by `schemas`. FAILED_PRECONDITION when the
// markers are missing or out of order, or when a generated schema's name is also written by hand.
absl::StatusOr<std::string> ReplaceGeneratedSchemas(absl::string_view document,
                                                    absl::string_view schemas);

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_OPENAPI_SCHEMAS_H_
