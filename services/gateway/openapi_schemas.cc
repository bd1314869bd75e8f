#include "services/gateway/openapi_schemas.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "lib/enums/spelling.h"
#include "lib/status/status_macros.h"
#include "services/gateway/json_model.h"

namespace assisted::gateway {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::SourceLocation;

constexpr char kSchemaIndent[] = "    ";  // a schema's name under components/schemas

// A YAML flow mapping, written in the order its entries were added.
using Flow = std::vector<std::pair<std::string, std::string>>;

std::string Text(const Flow& flow) {
  return absl::StrCat("{",
                      absl::StrJoin(flow, ", ",
                                    [](std::string* out, const auto& entry) {
                                      absl::StrAppend(out, entry.first, ": ", entry.second);
                                    }),
                      "}");
}

// Single-quoted YAML scalar: nothing in it is special but the quote, doubled.
std::string Quote(absl::string_view text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "''"}}), "'");
}

std::string Ref(absl::string_view schema) {
  return Text({{"$ref", Quote(absl::StrCat("#/components/schemas/", schema))}});
}

bool Has(const Flow& flow, absl::string_view key) {
  for (const auto& [k, v] : flow) {
    if (k == key) return true;
  }
  return false;
}

// "ClusterNetwork" -> "cluster-network": a nested message's schema name.
std::string SchemaNameOf(const Descriptor& message) {
  std::string name;
  for (char c : message.name()) {
    if (absl::ascii_isupper(c) && !name.empty()) name += '-';
    name += absl::ascii_tolower(c);
  }
  return name;
}

// A proto comment as one line of prose.
std::string OneLine(const std::string& comment) {
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(comment, '\n', absl::SkipWhitespace())) {
    lines.emplace_back(absl::StripAsciiWhitespace(line));
  }
  return absl::StrJoin(lines, " ");
}

// What each kind of conversion adds to a field's description: the REST form, where it is not
// the proto field's.
std::string FormNote(const FieldRule& rule, FieldUse use) {
  switch (rule.kind) {
    case FieldKind::kJsonText:
      return "Carried as JSON text in a string, as upstream does.";
    case FieldKind::kValidations:
      return "JSON text: {\"<category>\": [{\"id\", \"status\", \"message\", \"hint\"}]}; "
             "\"hint\" (failure and error only) says what the user can do to make the check "
             "pass.";
    case FieldKind::kReportText:
      return "The host's last report, as upstream's JSON text.";
    case FieldKind::kCommaList:
      return "Comma-separated.";
    case FieldKind::kPullSecret:
      return "The pull secret (registry credentials as JSON text: {\"auths\": {...}}). Never shown "
             "(pull_secret_set is). In an update \"\" unsets it, as upstream does.";
    case FieldKind::kPullSecretKeptWhenEmpty:
      return "The pull secret (registry credentials as JSON text: {\"auths\": {...}}). Never shown "
             "(pull_secret_set is). In an update \"\" changes nothing, as upstream.";
    case FieldKind::kNodeLabels:
      return use == kOut ? "JSON text: {\"<key>\": \"<value>\"}."
                         : "Given as a list of {key, value}; replaces the labels.";
    case FieldKind::kUnixSeconds:
      return "Seconds since 1970.";
    case FieldKind::kUnsupported:
      return "Not supported by this service yet: only an empty value (null, \"\", [], 0) is "
             "accepted, anything else is 501.";
    default:
      return "";
  }
}

// What the API adds to a nested message's JSON beyond its proto fields.
struct Addition {
  const char* message;  // full name
  const char* json;
  const char* type;
  const char* format;
  const char* description;
};
constexpr Addition kAdditions[] = {
    {"assisted.types.v1.MonitoredOperator", "cluster_id", "string", "uuid",
     "The cluster's id; shown by GET /clusters/{cluster_id}/monitored-operators only."},
};

class SchemaWriter {
 public:
  explicit SchemaWriter(const DescriptorPool& commented) : commented_(commented) {}

  absl::StatusOr<std::string> Render() {
    std::string out;
    for (const DocumentedModel& documented : DocumentedModels()) {
      // A schema may serve several uses (the event is both shown and created).
      std::vector<std::pair<std::string, std::vector<FieldUse>>> schemas;
      for (const auto& [name, use] :
           {std::pair{documented.shown, kOut}, std::pair{documented.created, kCreate},
            std::pair{documented.updated, kUpdate}}) {
        if (std::string(name).empty()) continue;
        auto same = std::find_if(schemas.begin(), schemas.end(),
                                 [&](const auto& s) { return s.first == name; });
        if (same == schemas.end()) {
          schemas.push_back({name, {use}});
        } else {
          same->second.push_back(use);
        }
      }
      for (const auto& [name, uses] : schemas) {
        RETURN_IF_ERROR(Claim(name));
        ASSIGN_OR_RETURN(std::string schema, ModelSchema(documented, name, uses));
        absl::StrAppend(&out, schema);
      }
    }
    // The nested messages, each once, in name order; new ones may be found while writing.
    std::map<std::string, std::string> nested;
    while (!pending_.empty()) {
      const Descriptor* message = pending_.front();
      pending_.erase(pending_.begin());
      RETURN_IF_ERROR(Claim(SchemaNameOf(*message)));
      ASSIGN_OR_RETURN(std::string schema, MessageSchema(*message));
      nested[SchemaNameOf(*message)] = std::move(schema);
    }
    for (const auto& [name, schema] : nested) absl::StrAppend(&out, schema);
    if (!undescribed_.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("no description for: ", absl::StrJoin(undescribed_, "; ")));
    }
    return out;
  }

 private:
  // Two schemas of one name would be one YAML key written twice (a message named like a model,
  // or two messages of one name in different packages).
  absl::Status Claim(const std::string& name) {
    if (names_.insert(name).second) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat("two generated schemas are named ", name));
  }

  template <typename D>
  std::string CommentOf(const D* commented) const {
    SourceLocation location;
    if (commented == nullptr || !commented->GetSourceLocation(&location)) return "";
    return OneLine(location.leading_comments);
  }
  std::string CommentOf(const FieldDescriptor& field) const {
    return CommentOf(commented_.FindFieldByName(field.full_name()));
  }
  std::string CommentOf(const Descriptor& message) const {
    return CommentOf(commented_.FindMessageTypeByName(message.full_name()));
  }

  // For an enum field, what each value means, from the values' comments ("\"ready\":
  // everything validated"); "" for other fields. A comment that does not start with the quoted
  // spelling gets it in front, so the reader always sees the text the API uses.
  std::string ValuesNote(const FieldDescriptor& field) const {
    if (field.enum_type() == nullptr) return "";
    std::vector<std::string> values;
    for (int i = 0; i < field.enum_type()->value_count(); ++i) {
      const google::protobuf::EnumValueDescriptor& value = *field.enum_type()->value(i);
      if (value.number() == 0) continue;
      std::string comment = CommentOf(commented_.FindEnumValueByName(value.full_name()));
      absl::string_view text = absl::StripSuffix(comment, ".");
      text = absl::StripPrefix(text, "Canonical string ");
      const std::string quoted = absl::StrCat("\"", enums::EnumText(value), "\"");
      values.push_back(absl::StartsWith(text, quoted) ? std::string(text)
                       : text.empty()                 ? quoted
                                                      : absl::StrCat(quoted, ": ", text));
    }
    // Sentences apart: the values' comments use semicolons themselves.
    return absl::StrCat("Values: ", absl::StrJoin(values, ". "), ".");
  }

  // The schema of one value of `field` (an element, for a repeated field), without description.
  Flow ValueSchema(const FieldDescriptor& field) {
    switch (field.cpp_type()) {
      case FieldDescriptor::CPPTYPE_BOOL:
        return {{"type", "boolean"}};
      case FieldDescriptor::CPPTYPE_INT32:
      case FieldDescriptor::CPPTYPE_UINT32:
        return {{"type", "integer"}, {"format", "int32"}};
      case FieldDescriptor::CPPTYPE_INT64:
      case FieldDescriptor::CPPTYPE_UINT64:
        return {{"type", "integer"}, {"format", "int64"}};
      case FieldDescriptor::CPPTYPE_FLOAT:
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return {{"type", "number"}};
      case FieldDescriptor::CPPTYPE_ENUM:
        return {{"type", "string"}, {"enum", EnumList(*field.enum_type())}};
      case FieldDescriptor::CPPTYPE_MESSAGE: {
        const Descriptor& message = *field.message_type();
        if (&message == google::protobuf::Timestamp::descriptor()) {
          return {{"type", "string"}, {"format", "date-time"}};
        }
        if (seen_.insert(&message).second) pending_.push_back(&message);
        return {{"$ref", Quote(absl::StrCat("#/components/schemas/", SchemaNameOf(message)))}};
      }
      default:
        return {{"type", "string"}};
    }
  }

  // Every value of `type` but UNSPECIFIED, as the API spells it.
  static std::string EnumList(const EnumDescriptor& type) {
    std::vector<std::string> values;
    for (int i = 0; i < type.value_count(); ++i) {
      if (type.value(i)->number() == 0) continue;
      values.push_back(Quote(enums::EnumText(*type.value(i))));
    }
    return absl::StrCat("[", absl::StrJoin(values, ", "), "]");
  }

  // The schema of the whole field, as the generic conversion reads and shows it.
  Flow FieldSchema(const FieldDescriptor& field) {
    if (field.is_map()) {
      return {{"type", "object"},
              {"additionalProperties", Text(ValueSchema(*field.message_type()->map_value()))}};
    }
    if (field.is_repeated()) return {{"type", "array"}, {"items", Text(ValueSchema(field))}};
    return ValueSchema(field);
  }

  // `schema` with its description; a $ref is wrapped in allOf, as OpenAPI 3.0 ignores what
  // sits beside a $ref.
  static std::string Described(Flow schema, absl::string_view description) {
    if (Has(schema, "$ref")) {
      Flow wrapped = {{"allOf", absl::StrCat("[", Text({schema.front()}), "]")}};
      wrapped.insert(wrapped.end(), schema.begin() + 1, schema.end());
      schema = std::move(wrapped);
    }
    schema.push_back({"description", Quote(description)});
    return Text(schema);
  }

  // The schema a rule's kind gives the field, for `use`.
  absl::StatusOr<Flow> RuleSchema(const Model& model, const FieldRule& rule, FieldUse use) {
    const Flow object = {{"type", "object"}};
    switch (rule.kind) {
      case FieldKind::kPlain:
      case FieldKind::kLegacyNetwork: {
        const FieldDescriptor* field = ResolveProtoPath(*model.descriptor, rule.proto);
        if (field == nullptr) break;
        return rule.kind == FieldKind::kPlain ? FieldSchema(*field) : ValueSchema(*field);
      }
      case FieldKind::kUnsupported:
        if (absl::string_view(rule.json_type) == "array") {
          return Flow{{"type", "array"}, {"items", Text(object)}};
        }
        return Flow{{"type", rule.json_type}};
      case FieldKind::kOperatorSelection:
        return Flow{{"type", "array"}, {"items", Text(object)}};
      case FieldKind::kHosts:
        return Flow{{"type", "array"}, {"items", Ref("host")}};
      case FieldKind::kDiskEncryption:
        // Upstream's strings for roles and servers: written by hand beside the generated region.
        return Flow{{"$ref", Quote("#/components/schemas/disk-encryption")}};
      case FieldKind::kEmptyObject:
        return Flow{{"type", "object"}, {"additionalProperties", "false"}};
      case FieldKind::kUnixSeconds:
        return Flow{{"type", "integer"}, {"format", "int64"}};
      case FieldKind::kNodeLabels:
        if (use == kOut) return Flow{{"type", "string"}};
        return Flow{
            {"type", "array"},
            {"items", ItemObject({"key", "value"},
                                 {{"key", "{type: string, description: 'Label name'}"},
                                  {"value", "{type: string, description: 'Label value'}"}})}};
      case FieldKind::kDisksSelected:
        return Flow{
            {"type", "array"},
            {"items",
             ItemObject({"id"}, {{"id",
                                  "{type: string, description: 'A disk id from the host''s "
                                  "inventory (its by-id path)'}"},
                                 {"role",
                                  "{type: string, enum: [install, none], description: 'install "
                                  "makes the disk the installation disk; none leaves it out'}"}})}};
      case FieldKind::kDisksSkipFormatting:
        return Flow{
            {"type", "array"},
            {"items", ItemObject({"disk_id", "skip_formatting"},
                                 {{"disk_id",
                                   "{type: string, description: 'A disk id from the "
                                   "host''s inventory'}"},
                                  {"skip_formatting",
                                   "{type: boolean, description: 'true keeps the disk''s data "
                                   "at install; false formats it again'}"}})}};
      default:  // the kinds shown or given as one string
        return Flow{{"type", "string"}};
    }
    return absl::FailedPreconditionError(
        absl::StrCat(model.name, ".", rule.json, ": names no proto field (", rule.proto, ")"));
  }

  static std::string ItemObject(const std::vector<std::string>& required, const Flow& properties) {
    return Text({{"type", "object"},
                 {"additionalProperties", "false"},
                 {"required", absl::StrCat("[", absl::StrJoin(required, ", "), "]")},
                 {"properties", Text(properties)}});
  }

  // The property a rule gives a schema serving `uses`.
  absl::StatusOr<std::string> RuleProperty(const Model& model, const FieldRule& rule, FieldUse use,
                                           const std::vector<FieldUse>& uses) {
    ASSIGN_OR_RETURN(Flow schema, RuleSchema(model, rule, use));
    const char* type = JsonTypeOf(model, rule, use);
    const std::string given = Has(schema, "$ref") ? "object" : schema.front().second;
    if (type == nullptr || given != type) {
      return absl::FailedPreconditionError(
          absl::StrCat(model.name, ".", rule.json, ": the schema says ", given, ", the conversion ",
                       type == nullptr ? "nothing" : type));
    }
    std::vector<std::string> parts;
    // A pull secret's path is pull_secret_set, whose comment is about the flag, not the secret.
    const bool secret =
        rule.kind == FieldKind::kPullSecret || rule.kind == FieldKind::kPullSecretKeptWhenEmpty;
    const FieldDescriptor* field =
        rule.proto == nullptr ? nullptr : ResolveProtoPath(*model.descriptor, rule.proto);
    if (field != nullptr && !secret) parts.push_back(CommentOf(*field));
    if (rule.doc != nullptr) parts.push_back(rule.doc);
    parts.push_back(FormNote(rule, use));
    parts.erase(std::remove(parts.begin(), parts.end(), ""), parts.end());
    if (parts.empty()) {
      undescribed_.push_back(absl::StrCat(model.name, ".", rule.json,
                                          " (comment its proto field, or give the rule a doc)"));
    }
    if (field != nullptr && !secret) parts.push_back(ValuesNote(*field));
    parts.erase(std::remove(parts.begin(), parts.end(), ""), parts.end());
    if (secret) schema.push_back({"writeOnly", "true"});
    if (uses == std::vector<FieldUse>{kOut} && !Accepted(model, rule.json)) {
      schema.push_back({"readOnly", "true"});
    }
    return Described(std::move(schema), absl::StrJoin(parts, " "));
  }

  static bool Accepted(const Model& model, absl::string_view json) {
    for (const FieldRule& rule : model.fields) {
      if (json == rule.json && (rule.use & (kCreate | kUpdate))) return true;
    }
    return false;
  }

  static std::string UseNote(FieldUse use) {
    switch (use) {
      case kCreate:
        return "The body of a create: an unknown or read-only field is 400 naming it.";
      case kUpdate:
        return "The body of an update: only the fields given change, and null leaves a field as "
               "it is; an unknown or read-only field is 400 naming it.";
      default:
        return "As responses show it.";
    }
  }

  absl::StatusOr<std::string> ModelSchema(const DocumentedModel& documented,
                                          const std::string& name,
                                          const std::vector<FieldUse>& uses) {
    const Model& model = *documented.model;
    std::vector<std::string> required;
    std::vector<std::pair<std::string, std::string>> properties;
    std::set<std::string> described;
    const bool shown = std::find(uses.begin(), uses.end(), kOut) != uses.end();
    if (shown && model.default_kind != nullptr) {
      required.push_back("kind");
      bool kind_rule = false;
      for (const FieldRule& rule : model.fields) kind_rule |= rule.json == std::string("kind");
      if (!kind_rule) {
        properties.push_back(
            {"kind", Described({{"type", "string"},
                                {"enum", absl::StrCat("[", model.default_kind, "]")},
                                {"readOnly", "true"}},
                               "The kind of resource.")});
        described.insert("kind");
      }
    }
    if (shown && documented.linked) {
      required.push_back("href");
      properties.push_back(
          {"href", Described({{"type", "string"}, {"readOnly", "true"}},
                             "The resource's path in this API (under /api/assisted-install).")});
      described.insert("href");
    }
    for (const FieldRule& rule : model.fields) {
      for (FieldUse use : uses) {
        if ((rule.use & use) == 0) continue;
        if ((use == kOut && AlwaysShown(model, rule)) ||
            (use == kCreate && (rule.use & kRequired))) {
          if (std::find(required.begin(), required.end(), rule.json) == required.end()) {
            required.push_back(rule.json);
          }
        }
        if (!described.insert(rule.json).second) continue;
        ASSIGN_OR_RETURN(std::string property, RuleProperty(model, rule, use, uses));
        properties.push_back({rule.json, std::move(property)});
      }
    }
    std::string description = CommentOf(*model.descriptor);
    for (FieldUse use : uses) absl::StrAppend(&description, " ", UseNote(use));
    return ObjectSchema(name, description, required, properties);
  }

  absl::StatusOr<std::string> MessageSchema(const Descriptor& message) {
    std::vector<std::pair<std::string, std::string>> properties;
    for (int i = 0; i < message.field_count(); ++i) {
      const FieldDescriptor& field = *message.field(i);
      const std::string comment = CommentOf(field);
      if (comment.empty()) undescribed_.push_back(field.full_name() + " (comment it)");
      const std::string values = ValuesNote(field);
      properties.push_back(
          {field.name(),
           Described(FieldSchema(field), values.empty() ? comment : comment + " " + values)});
    }
    if (TakesUpstreamOwnerKey(message)) {
      properties.push_back(
          {"cluster_id",
           "{type: string, writeOnly: true, description: 'Accepted (upstream''s entries carry it) "
           "and ignored: the entry belongs to the cluster of the path'}"});
    }
    for (const Addition& addition : kAdditions) {
      if (message.full_name() != addition.message) continue;
      properties.push_back(
          {addition.json, Described({{"type", addition.type}, {"format", addition.format}},
                                    addition.description)});
    }
    const std::string description = CommentOf(message);
    if (description.empty()) undescribed_.push_back(message.full_name() + " (comment it)");
    return ObjectSchema(SchemaNameOf(message), description, {}, properties);
  }

  static std::string ObjectSchema(const std::string& name, const std::string& description,
                                  const std::vector<std::string>& required,
                                  const std::vector<std::pair<std::string, std::string>>& props) {
    const std::string in = absl::StrCat(kSchemaIndent, "  ");
    std::string out = absl::StrCat(kSchemaIndent, name, ":\n", in, "type: object\n", in,
                                   "additionalProperties: false\n", in,
                                   "description: ", Quote(description), "\n");
    if (!required.empty()) {
      absl::StrAppend(&out, in, "required: [", absl::StrJoin(required, ", "), "]\n");
    }
    absl::StrAppend(&out, in, "properties:\n");
    for (const auto& [key, value] : props) absl::StrAppend(&out, in, "  ", key, ": ", value, "\n");
    return out;
  }

  const DescriptorPool& commented_;
  std::vector<const Descriptor*> pending_;
  std::set<const Descriptor*> seen_;
  std::set<std::string> names_;           // of the schemas written so far
  std::vector<std::string> undescribed_;  // what has no description, to fix all at once
};

}  // namespace

absl::StatusOr<std::unique_ptr<DescriptorPool>> CommentedPool(absl::string_view descriptor_set) {
  google::protobuf::FileDescriptorSet files;
  if (!files.ParseFromArray(descriptor_set.data(), static_cast<int>(descriptor_set.size()))) {
    return absl::InvalidArgumentError("descriptor set: does not parse");
  }
  auto pool = std::make_unique<DescriptorPool>();
  for (const google::protobuf::FileDescriptorProto& file : files.file()) {
    if (pool->BuildFile(file) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("descriptor set: ", file.name(), " does not build (are its imports in?)"));
    }
  }
  return pool;
}

absl::StatusOr<std::string> RenderModelSchemas(const DescriptorPool& commented) {
  return SchemaWriter(commented).Render();
}

absl::StatusOr<std::string> ReplaceGeneratedSchemas(absl::string_view document,
                                                    absl::string_view schemas) {
  const std::string begin = absl::StrCat(kGeneratedSchemasBegin, "\n");
  const std::string end = absl::StrCat(kGeneratedSchemasEnd, "\n");
  const size_t begin_at = document.find(begin);
  const size_t end_at = document.find(end);
  if (begin_at == absl::string_view::npos || end_at == absl::string_view::npos ||
      end_at < begin_at) {
    return absl::FailedPreconditionError(
        absl::StrCat("the document has no generated region: put the lines\n", begin, end,
                     "at the end of components/schemas"));
  }
  const absl::string_view before = document.substr(0, begin_at);
  const absl::string_view after = document.substr(end_at + end.size());
  // A schema written by hand under the same name would be a duplicate key.
  const size_t schemas_at = before.find("\n  schemas:\n");
  for (absl::string_view line : absl::StrSplit(schemas, '\n')) {
    if (!absl::StartsWith(line, kSchemaIndent) || absl::StartsWith(line, "     ")) continue;
    const std::string key = absl::StrCat("\n", line);
    if ((schemas_at != absl::string_view::npos &&
         before.find(key, schemas_at) != absl::string_view::npos) ||
        absl::StartsWith(after, line) || after.find(key) != absl::string_view::npos) {
      return absl::FailedPreconditionError(
          absl::StrCat("schema ", absl::StripSuffix(absl::StripAsciiWhitespace(line), ":"),
                       " is generated: remove the hand-written one"));
    }
  }
  return absl::StrCat(before, begin, schemas, end, after);
}

}  // namespace assisted::gateway
