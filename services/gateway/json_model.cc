#include "services/gateway/json_model.h"

#include <iterator>
#include <limits>
#include <memory>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "assisted/types/v1/cluster.pb.h"
#include "assisted/types/v1/event.pb.h"
#include "assisted/types/v1/host.pb.h"
#include "assisted/types/v1/infra_env.pb.h"
#include "assisted/types/v1/validation.pb.h"
#include "google/protobuf/reflection.h"
#include "google/protobuf/timestamp.pb.h"
#include "lib/json/bounded.h"
#include "lib/status/status_macros.h"
#include "lib/step_reports/reference_json.h"
#include "lib/time/proto_time.h"
#include "services/gateway/operators.h"

namespace assisted::gateway {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

constexpr int kMaxDepth = 64;
constexpr char kRfc3339[] = "%Y-%m-%dT%H:%M:%E*SZ";

absl::Status FieldError(absl::string_view field, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", problem));
}

std::string FormatTimestamp(const google::protobuf::Timestamp& ts) {
  return absl::FormatTime(kRfc3339, FromTimestamp(ts), absl::UTCTimeZone());
}

const char* JsonTypeName(const Json& json) { return json.type_name(); }

// ---- proto -> JSON ----

Json SingleToJson(const Message& message, const FieldDescriptor& field, int index);

Json FieldToJson(const Message& message, const FieldDescriptor& field) {
  const Reflection& r = *message.GetReflection();
  if (field.is_map()) {
    Json object = Json::object();
    for (int i = 0; i < r.FieldSize(message, &field); ++i) {
      const Message& entry = r.GetRepeatedMessage(message, &field, i);
      const Reflection& er = *entry.GetReflection();
      const FieldDescriptor* key = entry.GetDescriptor()->FindFieldByNumber(1);
      const FieldDescriptor* value = entry.GetDescriptor()->FindFieldByNumber(2);
      object[er.GetString(entry, key)] = SingleToJson(entry, *value, -1);
    }
    return object;
  }
  if (field.is_repeated()) {
    Json array = Json::array();
    for (int i = 0; i < r.FieldSize(message, &field); ++i) {
      array.push_back(SingleToJson(message, field, i));
    }
    return array;
  }
  return SingleToJson(message, field, -1);
}

Json SingleToJson(const Message& message, const FieldDescriptor& field, int index) {
  const Reflection& r = *message.GetReflection();
  const bool rep = index >= 0;
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_BOOL:
      return rep ? r.GetRepeatedBool(message, &field, index) : r.GetBool(message, &field);
    case FieldDescriptor::CPPTYPE_INT32:
      return rep ? r.GetRepeatedInt32(message, &field, index) : r.GetInt32(message, &field);
    case FieldDescriptor::CPPTYPE_INT64:
      return rep ? r.GetRepeatedInt64(message, &field, index) : r.GetInt64(message, &field);
    case FieldDescriptor::CPPTYPE_UINT32:
      return rep ? r.GetRepeatedUInt32(message, &field, index) : r.GetUInt32(message, &field);
    case FieldDescriptor::CPPTYPE_UINT64:
      return rep ? r.GetRepeatedUInt64(message, &field, index) : r.GetUInt64(message, &field);
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return rep ? r.GetRepeatedDouble(message, &field, index) : r.GetDouble(message, &field);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return rep ? r.GetRepeatedFloat(message, &field, index) : r.GetFloat(message, &field);
    case FieldDescriptor::CPPTYPE_STRING:
      return rep ? r.GetRepeatedString(message, &field, index) : r.GetString(message, &field);
    case FieldDescriptor::CPPTYPE_ENUM:
      return EnumText(rep ? *r.GetRepeatedEnum(message, &field, index)
                          : *r.GetEnum(message, &field));
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const Message& sub =
          rep ? r.GetRepeatedMessage(message, &field, index) : r.GetMessage(message, &field);
      if (sub.GetDescriptor() == google::protobuf::Timestamp::descriptor()) {
        return FormatTimestamp(static_cast<const google::protobuf::Timestamp&>(sub));
      }
      return MessageToJson(sub);
    }
  }
  return nullptr;
}

// ---- JSON -> proto ----

absl::StatusOr<int64_t> IntegerIn(const Json& json, const std::string& path, int64_t low,
                                  int64_t high) {
  if (json.is_number_unsigned()) {
    const uint64_t value = json.get<uint64_t>();
    if (value > static_cast<uint64_t>(high)) return FieldError(path, "number out of range");
    return static_cast<int64_t>(value);
  }
  if (!json.is_number_integer()) {
    return FieldError(path, absl::StrCat("expected an integer, got ", JsonTypeName(json)));
  }
  const int64_t value = json.get<int64_t>();
  if (value < low || value > high) return FieldError(path, "number out of range");
  return value;
}

absl::Status SetSingle(const Json& json, const std::string& path, const FieldDescriptor& field,
                       Message* message, bool add);

absl::Status SetField(const Json& json, const std::string& path, const FieldDescriptor& field,
                      Message* message) {
  const Reflection& r = *message->GetReflection();
  r.ClearField(message, &field);
  if (field.is_map()) {
    if (!json.is_object()) {
      return FieldError(path, absl::StrCat("expected an object, got ", JsonTypeName(json)));
    }
    for (const auto& [key, value] : json.items()) {
      Message* entry = r.AddMessage(message, &field);
      entry->GetReflection()->SetString(entry, entry->GetDescriptor()->FindFieldByNumber(1), key);
      RETURN_IF_ERROR(SetSingle(value, absl::StrCat(path, ".", key),
                                *entry->GetDescriptor()->FindFieldByNumber(2), entry, false));
    }
    return absl::OkStatus();
  }
  if (field.is_repeated()) {
    if (!json.is_array()) {
      return FieldError(path, absl::StrCat("expected an array, got ", JsonTypeName(json)));
    }
    for (size_t i = 0; i < json.size(); ++i) {
      RETURN_IF_ERROR(SetSingle(json[i], absl::StrCat(path, "[", i, "]"), field, message, true));
    }
    return absl::OkStatus();
  }
  return SetSingle(json, path, field, message, false);
}

absl::Status SetSingle(const Json& json, const std::string& path, const FieldDescriptor& field,
                       Message* message, bool add) {
  const Reflection& r = *message->GetReflection();
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_BOOL:
      if (!json.is_boolean()) {
        return FieldError(path, absl::StrCat("expected a boolean, got ", JsonTypeName(json)));
      }
      add ? r.AddBool(message, &field, json.get<bool>())
          : r.SetBool(message, &field, json.get<bool>());
      return absl::OkStatus();
    case FieldDescriptor::CPPTYPE_INT32: {
      ASSIGN_OR_RETURN(int64_t v, IntegerIn(json, path, std::numeric_limits<int32_t>::min(),
                                            std::numeric_limits<int32_t>::max()));
      add ? r.AddInt32(message, &field, v) : r.SetInt32(message, &field, v);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      ASSIGN_OR_RETURN(int64_t v, IntegerIn(json, path, std::numeric_limits<int64_t>::min(),
                                            std::numeric_limits<int64_t>::max()));
      add ? r.AddInt64(message, &field, v) : r.SetInt64(message, &field, v);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      ASSIGN_OR_RETURN(int64_t v, IntegerIn(json, path, 0, std::numeric_limits<uint32_t>::max()));
      add ? r.AddUInt32(message, &field, v) : r.SetUInt32(message, &field, v);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      ASSIGN_OR_RETURN(int64_t v, IntegerIn(json, path, 0, std::numeric_limits<int64_t>::max()));
      add ? r.AddUInt64(message, &field, v) : r.SetUInt64(message, &field, v);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT: {
      if (!json.is_number()) {
        return FieldError(path, absl::StrCat("expected a number, got ", JsonTypeName(json)));
      }
      const double v = json.get<double>();
      if (field.cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE) {
        add ? r.AddDouble(message, &field, v) : r.SetDouble(message, &field, v);
      } else {
        add ? r.AddFloat(message, &field, v) : r.SetFloat(message, &field, v);
      }
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_STRING:
      if (!json.is_string()) {
        return FieldError(path, absl::StrCat("expected a string, got ", JsonTypeName(json)));
      }
      add ? r.AddString(message, &field, json.get<std::string>())
          : r.SetString(message, &field, json.get<std::string>());
      return absl::OkStatus();
    case FieldDescriptor::CPPTYPE_ENUM: {
      if (!json.is_string()) {
        return FieldError(path, absl::StrCat("expected a string, got ", JsonTypeName(json)));
      }
      ASSIGN_OR_RETURN(int v, EnumFromText(*field.enum_type(), json.get<std::string>(), path));
      add ? r.AddEnumValue(message, &field, v) : r.SetEnumValue(message, &field, v);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      Message* sub = add ? r.AddMessage(message, &field) : r.MutableMessage(message, &field);
      if (sub->GetDescriptor() == google::protobuf::Timestamp::descriptor()) {
        absl::Time time;
        std::string error;
        if (!json.is_string() ||
            !absl::ParseTime(absl::RFC3339_full, json.get<std::string>(), &time, &error)) {
          return FieldError(path, "expected an RFC 3339 date-time string");
        }
        auto* ts = static_cast<google::protobuf::Timestamp*>(sub);
        ts->set_seconds(absl::ToUnixSeconds(time));
        ts->set_nanos(static_cast<int32_t>((time - absl::FromUnixSeconds(ts->seconds())) /
                                           absl::Nanoseconds(1)));
        return absl::OkStatus();
      }
      return JsonToMessage(json, path, sub);
    }
  }
  return FieldError(path, "unsupported field type");
}

const FieldDescriptor* Resolve(const Descriptor& descriptor, absl::string_view path) {
  return ResolveProtoPath(descriptor, path);
}

// Walks to the parent message of the last component of `path`; null when an intermediate
// message is absent (read) — never for writes, which create it.
const Message* ParentForRead(const Message& message, absl::string_view path) {
  const Message* current = &message;
  std::vector<absl::string_view> parts = absl::StrSplit(path, '.');
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const FieldDescriptor* f = current->GetDescriptor()->FindFieldByName(std::string(parts[i]));
    if (f == nullptr || !current->GetReflection()->HasField(*current, f)) return nullptr;
    current = &current->GetReflection()->GetMessage(*current, f);
  }
  return current;
}

Message* ParentForWrite(Message* message, absl::string_view path) {
  Message* current = message;
  std::vector<absl::string_view> parts = absl::StrSplit(path, '.');
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const FieldDescriptor* f = current->GetDescriptor()->FindFieldByName(std::string(parts[i]));
    current = current->GetReflection()->MutableMessage(current, f);
  }
  return current;
}

bool IsSet(const Message& message, const FieldDescriptor& field) {
  const Reflection& r = *message.GetReflection();
  return field.is_repeated() ? r.FieldSize(message, &field) > 0 : r.HasField(message, &field);
}

// validations_info text: {"<category>": [{"id", "status", "message"[, "hint"]}]} in result
// order; "hint" (an addition to upstream's model) only where the check gave one.
std::string ValidationsText(const Message& message, const FieldDescriptor& field) {
  const Reflection& r = *message.GetReflection();
  Json groups = Json::object();
  for (int i = 0; i < r.FieldSize(message, &field); ++i) {
    const auto& result =
        static_cast<const types::v1::ValidationResult&>(r.GetRepeatedMessage(message, &field, i));
    std::string category = EnumText(result.category());
    if (category.empty()) category = "other";
    Json entry = {
        {"id", result.id()}, {"status", EnumText(result.status())}, {"message", result.message()}};
    if (!result.hint().empty()) entry["hint"] = result.hint();
    groups[category].push_back(std::move(entry));
  }
  return Dump(groups);
}

// Upstream's network and VIP entries carry their cluster's id, and its UI sends them back as it
// read them. Here an entry belongs to the cluster of the request's path, so that id is checked
// to be a string and otherwise ignored.
bool IsUpstreamOwnerKey(const Descriptor& type, absl::string_view key) {
  return key == "cluster_id" && TakesUpstreamOwnerKey(type);
}

// ---- Upstream's disk-encryption strings ----

// The roles upstream's enable_on names, in its order.
constexpr std::pair<types::v1::HostRole, const char*> kEncryptedRoles[] = {
    {types::v1::HOST_ROLE_MASTER, "masters"},
    {types::v1::HOST_ROLE_ARBITER, "arbiters"},
    {types::v1::HOST_ROLE_WORKER, "workers"}};

Json DiskEncryptionToJson(const types::v1::DiskEncryption& encryption) {
  Json json = Json::object();
  std::vector<std::string> roles;
  for (const auto& [role, name] : kEncryptedRoles) {
    if (absl::c_linear_search(encryption.enable_on(), role)) roles.push_back(name);
  }
  json["enable_on"] = roles.empty()                                ? std::string("none")
                      : roles.size() == std::size(kEncryptedRoles) ? std::string("all")
                                                                   : absl::StrJoin(roles, ",");
  if (std::string mode = EnumText(encryption.mode()); !mode.empty()) json["mode"] = mode;
  if (!encryption.tang_servers().empty()) {
    Json servers = Json::array();
    for (const types::v1::TangServer& server : encryption.tang_servers()) {
      servers.push_back(MessageToJson(server));
    }
    json["tang_servers"] = Dump(servers);
  }
  return json;
}

absl::Status DiskEncryptionFromJson(const Json& json, const std::string& path,
                                    types::v1::DiskEncryption* encryption) {
  if (!json.is_object()) {
    return FieldError(path, absl::StrCat("expected an object, got ", JsonTypeName(json)));
  }
  encryption->Clear();
  for (const auto& [key, value] : json.items()) {
    const std::string child = absl::StrCat(path, ".", key);
    if (value.is_null()) continue;
    if (!value.is_string()) {
      return FieldError(child, absl::StrCat("expected a string, got ", JsonTypeName(value)));
    }
    const std::string text = value.get<std::string>();
    if (key == "enable_on") {
      if (text == "none") continue;
      for (const auto& [role, name] : kEncryptedRoles) {
        if (text == "all" || absl::c_linear_search(absl::StrSplit(text, ','), name)) {
          encryption->add_enable_on(role);
        }
      }
      const std::vector<absl::string_view> names = absl::StrSplit(text, ',');
      if (text != "all" && static_cast<size_t>(encryption->enable_on_size()) != names.size()) {
        return FieldError(child,
                          "must be none, all, or masters, arbiters and workers joined by commas");
      }
    } else if (key == "mode") {
      ASSIGN_OR_RETURN(int mode,
                       EnumFromText(*types::v1::DiskEncryptionMode_descriptor(), text, child));
      encryption->set_mode(static_cast<types::v1::DiskEncryptionMode>(mode));
    } else if (key == "tang_servers") {
      // Upstream carries the list as JSON text inside the string; it is bounded like a body.
      RETURN_IF_ERROR(untrusted::CheckJsonBounds(
          text, child, {.max_bytes = text.size(), .max_depth = kMaxDepth}));
      Json servers = Json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (!servers.is_array()) return FieldError(child, "expected a JSON array in a string");
      for (size_t i = 0; i < servers.size(); ++i) {
        RETURN_IF_ERROR(JsonToMessage(servers[i], absl::StrCat(child, "[", i, "]"),
                                      encryption->add_tang_servers()));
      }
    } else {
      return FieldError(child, "unknown field");
    }
  }
  return absl::OkStatus();
}

// Whether an upstream field this service does not support carries only its empty value.
bool IsEmptyValue(const Json& value) {
  return value.is_null() || (value.is_string() && value.get<std::string>().empty()) ||
         ((value.is_array() || value.is_object()) && value.empty()) ||
         (value.is_number() && value == 0) || (value.is_boolean() && !value.get<bool>());
}

bool HasJsonType(const Json& value, absl::string_view type) {
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_number_integer();
  if (type == "object") return value.is_object();
  return true;
}

// The list and entry field a kLegacyNetwork rule names ("cluster_networks.cidr").
std::pair<std::string, std::string> LegacyParts(const FieldRule& rule) {
  std::pair<std::string, std::string> parts = absl::StrSplit(rule.proto, absl::MaxSplits('.', 1));
  return parts;
}

Json LegacyNetworkToJson(const FieldRule& rule, const Message& message) {
  const auto [list, entry] = LegacyParts(rule);
  const FieldDescriptor* list_field = message.GetDescriptor()->FindFieldByName(list);
  const Reflection& r = *message.GetReflection();
  if (r.FieldSize(message, list_field) == 0) return nullptr;
  const Message& first = r.GetRepeatedMessage(message, list_field, 0);
  const FieldDescriptor* field = first.GetDescriptor()->FindFieldByName(entry);
  Json value = SingleToJson(first, *field, -1);
  return IsEmptyValue(value) ? Json() : value;
}

// Upstream's single-network fields of `body` into their lists (see FieldKind::kLegacyNetwork).
absl::Status ApplyLegacyNetworks(const Model& model, const Json& body, FieldUse use,
                                 const Message* current, Message* message, Decoded& decoded) {
  std::vector<std::string> lists;
  for (const FieldRule& rule : model.fields) {
    if (rule.kind != FieldKind::kLegacyNetwork || (rule.use & use) == 0) continue;
    auto given = body.find(rule.json);
    if (given == body.end() || given->is_null()) continue;
    const std::string list = LegacyParts(rule).first;
    if (!absl::c_linear_search(lists, list)) lists.push_back(list);
  }
  const Reflection& r = *message->GetReflection();
  for (const std::string& list : lists) {
    const FieldDescriptor* list_field = message->GetDescriptor()->FindFieldByName(list);
    std::unique_ptr<Message> entry(
        r.GetMessageFactory()->GetPrototype(list_field->message_type())->New());
    // Only what the body leaves out of the entry comes from the stored one (a VIP given anew
    // must not keep the old one's verification).
    size_t parts = 0, given_parts = 0;
    for (const FieldRule& rule : model.fields) {
      if (rule.kind != FieldKind::kLegacyNetwork || LegacyParts(rule).first != list) continue;
      ++parts;
      auto given = body.find(rule.json);
      if ((rule.use & use) && given != body.end() && !given->is_null()) ++given_parts;
    }
    if (given_parts == parts) {
      // The whole entry is given.
    } else if (current != nullptr &&
               current->GetReflection()->FieldSize(*current, list_field) > 0) {
      entry->CopyFrom(current->GetReflection()->GetRepeatedMessage(*current, list_field, 0));
    } else if (list == "cluster_networks") {
      JsonToMessage(
          {{"cidr", kDefaultClusterNetworkCidr}, {"host_prefix", kDefaultClusterNetworkHostPrefix}},
          "", entry.get())
          .IgnoreError();  // constant, well-formed
    }
    bool all_empty = true;
    std::string first_name;
    for (const FieldRule& rule : model.fields) {
      if (rule.kind != FieldKind::kLegacyNetwork || (rule.use & use) == 0) continue;
      const auto [rule_list, field_name] = LegacyParts(rule);
      auto given = body.find(rule.json);
      if (rule_list != list || given == body.end() || given->is_null()) continue;
      if (first_name.empty()) first_name = rule.json;
      const FieldDescriptor* field = entry->GetDescriptor()->FindFieldByName(field_name);
      RETURN_IF_ERROR(SetField(*given, rule.json, *field, entry.get()));
      all_empty = all_empty && IsEmptyValue(*given);
    }
    Json wanted = Json::array();
    if (!all_empty) wanted.push_back(MessageToJson(*entry));
    auto explicit_list = body.find(list);
    if (explicit_list != body.end() && !explicit_list->is_null()) {
      if (FieldToJson(*message, *list_field) != wanted) {
        return FieldError(first_name, absl::StrCat("conflicts with ", list, "; give one of them"));
      }
      continue;
    }
    r.ClearField(message, list_field);
    if (!all_empty) r.AddMessage(message, list_field)->CopyFrom(*entry);
    decoded.mask.add_paths(list);
  }
  return absl::OkStatus();
}

// upstream's disks_skip_formatting: [{"disk_id": id, "skip_formatting": bool}].
absl::Status SkipFormattingFromJson(const Json& value, const std::string& name, Decoded& decoded) {
  if (!value.is_array()) {
    return FieldError(name, absl::StrCat("expected an array, got ", JsonTypeName(value)));
  }
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string item = absl::StrCat(name, "[", i, "]");
    const Json& disk = value[i];
    if (!disk.is_object()) return FieldError(item, "expected an object");
    for (const auto& [key, v] : disk.items()) {
      if (key != "disk_id" && key != "skip_formatting") {
        return FieldError(absl::StrCat(item, ".", key), "unknown field");
      }
    }
    auto id = disk.find("disk_id");
    auto skip = disk.find("skip_formatting");
    if (id == disk.end() || !id->is_string() || id->get<std::string>().empty()) {
      return FieldError(item + ".disk_id", "required (a string)");
    }
    if (skip == disk.end() || !skip->is_boolean()) {
      return FieldError(item + ".skip_formatting", "required (a boolean)");
    }
    decoded.skip_formatting.emplace_back(id->get<std::string>(), skip->get<bool>());
  }
  return absl::OkStatus();
}

// What a response shows for a field the resource leaves unset: upstream's models always carry
// their lists and top-level booleans and numbers, and the fields they require; everything else
// (strings, enums, timestamps, objects) is left out as upstream leaves it out.
Json UnsetValue(const FieldRule& rule, const FieldDescriptor& field) {
  if (rule.use & kAlways) return "";
  if (field.is_repeated()) {
    const bool list = rule.kind == FieldKind::kPlain || rule.kind == FieldKind::kHosts;
    return list && !field.is_map() ? Json::array() : Json();
  }
  if (absl::StrContains(rule.proto, '.')) return Json();  // inside an object: omitempty
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_BOOL:
      return false;
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT:
      return 0;
    default:
      return Json();
  }
}

Json RuleToJson(const FieldRule& rule, const Message& parent, const FieldDescriptor& field) {
  switch (rule.kind) {
    case FieldKind::kJsonText:
      return Dump(FieldToJson(parent, field));
    case FieldKind::kValidations:
      return ValidationsText(parent, field);
    case FieldKind::kCommaList:
      return absl::StrJoin(parent.GetReflection()->GetRepeatedFieldRef<std::string>(parent, &field),
                           ",");
    case FieldKind::kHosts: {
      Json hosts = Json::array();
      const Reflection& r = *parent.GetReflection();
      for (int i = 0; i < r.FieldSize(parent, &field); ++i) {
        hosts.push_back(ToJson(HostModel(), r.GetRepeatedMessage(parent, &field, i)));
      }
      return hosts;
    }
    case FieldKind::kNodeLabels:
      return Dump(FieldToJson(parent, field));  // {"key": "value"} text, as upstream stores it
    case FieldKind::kReportText:
      return step_reports::ToReferenceJson(parent.GetReflection()->GetMessage(parent, &field),
                                           step_reports::FindHostReportField(field.name())->form);
    case FieldKind::kUnixSeconds:
      return static_cast<const google::protobuf::Timestamp&>(
                 parent.GetReflection()->GetMessage(parent, &field))
          .seconds();
    case FieldKind::kDiskEncryption:
      return DiskEncryptionToJson(static_cast<const types::v1::DiskEncryption&>(
          parent.GetReflection()->GetMessage(parent, &field)));
    default:
      return FieldToJson(parent, field);
  }
}

absl::Status RuleFromJson(const FieldRule& rule, const Json& value, const FieldDescriptor& field,
                          Message* parent, Decoded& decoded) {
  const std::string name = rule.json;
  switch (rule.kind) {
    case FieldKind::kPullSecret:
    case FieldKind::kPullSecretKeptWhenEmpty:
      if (!value.is_string()) {
        return FieldError(name, absl::StrCat("expected a string, got ", JsonTypeName(value)));
      }
      decoded.has_pull_secret = true;
      decoded.pull_secret = value.get<std::string>();
      return absl::OkStatus();
    case FieldKind::kDiskEncryption:
      return DiskEncryptionFromJson(value, name,
                                    static_cast<types::v1::DiskEncryption*>(
                                        parent->GetReflection()->MutableMessage(parent, &field)));
    case FieldKind::kCommaList: {
      if (!value.is_string()) {
        return FieldError(name, absl::StrCat("expected a string, got ", JsonTypeName(value)));
      }
      Json list = Json::array();
      for (absl::string_view item :
           absl::StrSplit(value.get<std::string>(), ',', absl::SkipWhitespace())) {
        list.push_back(std::string(absl::StripAsciiWhitespace(item)));
      }
      return SetField(list, name, field, parent);
    }
    case FieldKind::kDisksSelected: {
      if (!value.is_array()) {
        return FieldError(name, absl::StrCat("expected an array, got ", JsonTypeName(value)));
      }
      std::string install_disk;
      for (size_t i = 0; i < value.size(); ++i) {
        const std::string item = absl::StrCat(name, "[", i, "]");
        const Json& disk = value[i];
        if (!disk.is_object()) return FieldError(item, "expected an object");
        for (const auto& [key, v] : disk.items()) {
          if (key != "id" && key != "role")
            return FieldError(item, "unknown field \"" + key + "\"");
          if (!v.is_string()) return FieldError(absl::StrCat(item, ".", key), "expected a string");
        }
        if (!disk.contains("id") || disk["id"].get<std::string>().empty()) {
          return FieldError(item + ".id", "required");
        }
        const std::string role = disk.value("role", std::string("none"));
        if (role != "install" && role != "none") {
          return FieldError(item + ".role", "must be \"install\" or \"none\"");
        }
        if (role == "install") {
          if (!install_disk.empty()) return FieldError(name, "more than one installation disk");
          install_disk = disk["id"].get<std::string>();
        }
      }
      parent->GetReflection()->SetString(parent, &field, install_disk);
      return absl::OkStatus();
    }
    case FieldKind::kNodeLabels: {
      if (!value.is_array()) {
        return FieldError(name, absl::StrCat("expected an array, got ", JsonTypeName(value)));
      }
      Json labels = Json::object();
      for (size_t i = 0; i < value.size(); ++i) {
        const std::string item = absl::StrCat(name, "[", i, "]");
        const Json& label = value[i];
        if (!label.is_object() || label.size() != 2 || !label.contains("key") ||
            !label.contains("value") || !label["key"].is_string() || !label["value"].is_string()) {
          return FieldError(item, "expected {\"key\": string, \"value\": string}");
        }
        labels[label["key"].get<std::string>()] = label["value"];
      }
      return SetField(labels, name, field, parent);
    }
    default:
      return SetField(value, name, field, parent);
  }
}

}  // namespace

const FieldDescriptor* ResolveProtoPath(const Descriptor& descriptor, absl::string_view path) {
  const Descriptor* current = &descriptor;
  const FieldDescriptor* field = nullptr;
  for (absl::string_view part : absl::StrSplit(path, '.')) {
    if (current == nullptr) return nullptr;
    field = current->FindFieldByName(std::string(part));
    if (field == nullptr) return nullptr;
    current = field->message_type();
  }
  return field;
}

bool TakesUpstreamOwnerKey(const Descriptor& type) {
  // Matched by full name: the OpenAPI generator asks with descriptors of its own pool.
  for (const Descriptor* owned :
       {types::v1::ClusterNetwork::descriptor(), types::v1::ServiceNetwork::descriptor(),
        types::v1::MachineNetwork::descriptor(), types::v1::Vip::descriptor()}) {
    if (type.full_name() == owned->full_name()) return true;
  }
  return false;
}

bool AlwaysShown(const Model& model, const FieldRule& rule) {
  if ((rule.use & kOut) == 0) return false;
  if (rule.kind == FieldKind::kEmptyObject) return true;
  if (rule.kind == FieldKind::kLegacyNetwork || rule.proto == nullptr) return false;
  const FieldDescriptor* field = Resolve(*model.descriptor, rule.proto);
  return field != nullptr && !UnsetValue(rule, *field).is_null();
}

Json MessageToJson(const Message& message) {
  Json object = Json::object();
  std::vector<const FieldDescriptor*> fields;
  message.GetReflection()->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    Json value = FieldToJson(message, *field);
    if (value.is_string() && value.get<std::string>().empty()) continue;  // UNSPECIFIED enums
    object[field->name()] = std::move(value);
  }
  return object;
}

absl::Status JsonToMessage(const Json& json, const std::string& path, Message* message) {
  if (!json.is_object()) {
    return FieldError(path, absl::StrCat("expected an object, got ", JsonTypeName(json)));
  }
  for (const auto& [key, value] : json.items()) {
    const std::string child = path.empty() ? key : absl::StrCat(path, ".", key);
    if (IsUpstreamOwnerKey(*message->GetDescriptor(), key)) {
      if (!value.is_null() && !value.is_string()) {
        return FieldError(child, absl::StrCat("expected a string, got ", JsonTypeName(value)));
      }
      continue;
    }
    const FieldDescriptor* field = message->GetDescriptor()->FindFieldByName(key);
    if (field == nullptr) return FieldError(child, "unknown field");
    if (value.is_null()) continue;
    RETURN_IF_ERROR(SetField(value, child, *field, message));
  }
  return absl::OkStatus();
}

Json ToJson(const Model& model, const Message& message) {
  Json object = Json::object();
  for (const FieldRule& rule : model.fields) {
    if ((rule.use & kOut) == 0) continue;
    if (rule.kind == FieldKind::kEmptyObject) {
      object[rule.json] = Json::object();
      continue;
    }
    if (rule.kind == FieldKind::kLegacyNetwork) {
      if (Json value = LegacyNetworkToJson(rule, message); !value.is_null()) {
        object[rule.json] = std::move(value);
      }
      continue;
    }
    const Message* parent = ParentForRead(message, rule.proto);
    const FieldDescriptor* field = Resolve(*message.GetDescriptor(), rule.proto);
    if (field == nullptr) continue;
    if (parent == nullptr || !IsSet(*parent, *field)) {
      if (Json unset = UnsetValue(rule, *field); !unset.is_null()) object[rule.json] = unset;
      continue;
    }
    Json value = RuleToJson(rule, *parent, *field);
    if (value.is_string() && value.get<std::string>().empty() && (rule.use & kAlways) == 0) {
      continue;
    }
    object[rule.json] = std::move(value);
  }
  if (model.default_kind != nullptr && !object.contains("kind")) {
    object["kind"] = model.default_kind;
  }
  return object;
}

absl::StatusOr<Decoded> FromJson(const Model& model, const Json& body, FieldUse use,
                                 Message* message, const Message* current) {
  if (!body.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("body: expected a JSON object, got ", JsonTypeName(body)));
  }
  Decoded decoded;
  for (const auto& [key, value] : body.items()) {
    const FieldRule* rule = nullptr;
    bool known = false;
    for (const FieldRule& candidate : model.fields) {
      if (key != candidate.json) continue;
      known = true;
      if (candidate.use & use) rule = &candidate;
    }
    if (rule == nullptr) {
      return FieldError(
          key, known ? absl::StrCat("cannot be set when ",
                                    use == kCreate ? "registering" : "updating", " a ", model.name)
                     : absl::StrCat("unknown field of ", model.name));
    }
    if (value.is_null()) continue;  // explicit null: leave as is
    switch (rule->kind) {
      case FieldKind::kLegacyNetwork:
        continue;  // below, once the lists themselves are read
      case FieldKind::kUnsupported:
        if (!HasJsonType(value, rule->json_type)) {
          return FieldError(
              key, absl::StrCat("expected ", rule->json_type, ", got ", JsonTypeName(value)));
        }
        if (IsEmptyValue(value)) continue;
        return absl::UnimplementedError(absl::StrCat(
            key,
            ": not supported by this service yet (only an empty value is accepted); see "
            "docs/rest-api.md"));
      case FieldKind::kOperatorSelection: {
        // Kept as the cluster's monitored operators (the only model with this kind).
        auto* cluster = dynamic_cast<types::v1::Cluster*>(message);
        ASSIGN_OR_RETURN(
            auto monitored,
            DecodeOperatorSelection(key, value, dynamic_cast<const types::v1::Cluster*>(current)));
        if (!monitored || cluster == nullptr) continue;
        cluster->clear_monitored_operators();
        for (types::v1::MonitoredOperator& op : *monitored) {
          *cluster->add_monitored_operators() = std::move(op);
        }
        decoded.mask.add_paths("monitored_operators");
        continue;
      }
      case FieldKind::kDisksSkipFormatting:
        RETURN_IF_ERROR(SkipFormattingFromJson(value, key, decoded));
        continue;
      default:
        break;
    }
    const FieldDescriptor* field = Resolve(*message->GetDescriptor(), rule->proto);
    Message* parent = ParentForWrite(message, rule->proto);
    RETURN_IF_ERROR(RuleFromJson(*rule, value, *field, parent, decoded));
    if (rule->kind == FieldKind::kPullSecret || rule->kind == FieldKind::kPullSecretKeptWhenEmpty) {
      const bool keep = rule->kind == FieldKind::kPullSecretKeptWhenEmpty && use == kUpdate;
      if (decoded.pull_secret.empty() && (use == kCreate || keep)) {
        if (use == kCreate) return FieldError(key, "must not be empty");
        decoded.has_pull_secret = false;  // upstream: "" leaves the stored secret as it is
        continue;
      }
      decoded.mask.add_paths("pull_secret");
    } else {
      decoded.mask.add_paths(rule->proto);
    }
  }
  RETURN_IF_ERROR(ApplyLegacyNetworks(model, body, use, current, message, decoded));
  if (use == kCreate) {
    for (const FieldRule& rule : model.fields) {
      if ((rule.use & kRequired) && (!body.contains(rule.json) || body[rule.json].is_null())) {
        return FieldError(rule.json, absl::StrCat("required when registering a ", model.name));
      }
    }
  }
  return decoded;
}

absl::StatusOr<Json> ParseJson(absl::string_view body) {
  // Bound the nesting before parsing: a deeply nested document costs stack to tear down. Its
  // size is the HTTP server's to bound (--max-body-bytes).
  RETURN_IF_ERROR(
      untrusted::CheckJsonBounds(body, "body", {.max_bytes = body.size(), .max_depth = kMaxDepth}));
  Json json = Json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return absl::InvalidArgumentError("body: malformed JSON (or not UTF-8)");
  }
  return json;
}

absl::StatusOr<Json> ParseObject(absl::string_view body) {
  ASSIGN_OR_RETURN(Json json, ParseJson(body));
  if (!json.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("body: expected a JSON object, got ", JsonTypeName(json)));
  }
  return json;
}

std::string Dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// ---- The models ----

const Model& ClusterModel() {
  static const Model* model = new Model{
      "cluster",
      types::v1::Cluster::descriptor(),
      "Cluster",
      {
          // A given id is kept (the agent-based installer creates the cluster its ISO names);
          // the inventory checks it is a UUID and answers 409 when it is taken.
          {"id", "id", kOut | kCreate | kAlways, FieldKind::kPlain, nullptr,
           "Given when registering, the id to register under (409 when taken); a new one "
           "otherwise."},
          {"kind", "kind", kOut},
          {"name", "name", kOut | kCreate | kUpdate | kRequired},
          {"openshift_version", "openshift_version", kOut | kCreate | kRequired},
          {"pull_secret", "pull_secret_set", kCreate | kUpdate | kRequired, FieldKind::kPullSecret},
          {"pull_secret_set", "pull_secret_set", kOut},
          {"ocp_release_image", "ocp_release_image", kOut | kCreate},
          {"image_info", nullptr, kOut, FieldKind::kEmptyObject, nullptr,
           "Always {}: upstream's model requires it, and in v2 the discovery image belongs to "
           "infra-envs, not clusters."},
          {"openshift_cluster_id", "openshift_cluster_id", kOut},
          {"cpu_architecture", "cpu_architecture", kOut | kCreate},
          {"control_plane_count", "control_plane_count", kOut | kCreate | kUpdate},
          {"high_availability_mode", "high_availability_mode", kOut | kCreate},
          {"platform", "platform", kOut | kCreate | kUpdate},
          {"base_dns_domain", "base_dns_domain", kOut | kCreate | kUpdate},
          {"cluster_networks", "cluster_networks", kOut | kCreate | kUpdate},
          {"service_networks", "service_networks", kOut | kCreate | kUpdate},
          {"machine_networks", "machine_networks", kOut | kCreate | kUpdate},
          {"cluster_network_cidr", "cluster_networks.cidr", kOut | kCreate | kUpdate,
           FieldKind::kLegacyNetwork, nullptr,
           "Upstream's single-network field, shown from the first entry of cluster_networks. "
           "Given, it replaces the list by one entry (the stored host prefix kept; 23 when "
           "registering); \"\" empties the list. Given with cluster_networks, the two must "
           "agree."},
          {"cluster_network_host_prefix", "cluster_networks.host_prefix", kOut | kCreate | kUpdate,
           FieldKind::kLegacyNetwork, nullptr,
           "Upstream's single-network field: the host prefix of cluster_networks' one entry (the "
           "stored CIDR kept; 10.128.0.0/14 when registering)."},
          {"service_network_cidr", "service_networks.cidr", kOut | kCreate | kUpdate,
           FieldKind::kLegacyNetwork, nullptr,
           "Upstream's single-network field, shown from the first entry of service_networks; "
           "given, it replaces the list by one entry; \"\" empties it."},
          {"machine_network_cidr", "machine_networks.cidr", kOut | kCreate | kUpdate,
           FieldKind::kLegacyNetwork, nullptr,
           "Upstream's single-network field, shown from the first entry of machine_networks; "
           "given, it replaces the list by one entry; \"\" empties it."},
          // Upstream dropped these from its models (and no longer shows them); older clients
          // still send them.
          {"api_vip", "api_vips.ip", kCreate | kUpdate, FieldKind::kLegacyNetwork, nullptr,
           "Dropped by upstream, still sent by older clients: replaces api_vips by one entry; "
           "\"\" empties it. Never shown."},
          {"ingress_vip", "ingress_vips.ip", kCreate | kUpdate, FieldKind::kLegacyNetwork, nullptr,
           "Dropped by upstream, still sent by older clients: replaces ingress_vips by one entry; "
           "\"\" empties it. Never shown."},
          {"api_vips", "api_vips", kOut | kCreate | kUpdate},
          {"ingress_vips", "ingress_vips", kOut | kCreate | kUpdate},
          {"api_vip_dns_name", "api_vip_dns_name", kOut | kCreate | kUpdate},
          {"vip_dhcp_allocation", "vip_dhcp_allocation", kOut | kCreate | kUpdate},
          {"user_managed_networking", "user_managed_networking", kOut | kCreate | kUpdate},
          {"load_balancer", "load_balancer", kOut | kCreate | kUpdate},
          {"network_type", "network_type", kOut | kCreate | kUpdate},
          {"ssh_public_key", "ssh_public_key", kOut | kCreate | kUpdate},
          {"http_proxy", "proxy.http_proxy", kOut | kCreate | kUpdate},
          {"https_proxy", "proxy.https_proxy", kOut | kCreate | kUpdate},
          {"no_proxy", "proxy.no_proxy", kOut | kCreate | kUpdate},
          {"additional_ntp_source", "additional_ntp_source", kOut | kCreate | kUpdate},
          {"ntp_sources", nullptr, kCreate | kUpdate, FieldKind::kUnsupported, "string",
           "Upstream's NTP sources of the cluster's hosts (additional_ntp_source is served)."},
          {"olm_operators", nullptr, kCreate | kUpdate, FieldKind::kOperatorSelection, nullptr,
           "The OLM operators to install: entries {\"name\", \"properties\": \"\"} naming lso or "
           "lvm (GET /supported-operators lists them), kept as monitored_operators; any other "
           "name is 400. Changing them after the installation began is 409."},
          {"operator_bundles", nullptr, kCreate | kUpdate, FieldKind::kOperatorSelection, nullptr,
           "Upstream's operator bundles: none is offered yet, so only [] (or null) is accepted; "
           "anything else is 400."},
          {"status", "status", kOut | kAlways},
          {"status_info", "status_info", kOut | kAlways},
          {"status_updated_at", "status_updated_at", kOut},
          {"resource_version", "resource_version", kOut},
          {"progress", "progress", kOut},
          {"ready_host_count", "ready_host_count", kOut},
          {"enabled_host_count", "enabled_host_count", kOut},
          {"total_host_count", "total_host_count", kOut},
          {"schedulable_masters", "schedulable_masters", kOut | kCreate | kUpdate},
          {"schedulable_masters_forced_true", "schedulable_masters_forced_true", kOut},
          {"install_started_at", "install_started_at", kOut},
          {"install_completed_at", "install_completed_at", kOut},
          {"validations_info", "validations_info", kOut, FieldKind::kValidations},
          {"logs_info", "logs_info", kOut},
          {"controller_logs_started_at", "controller_logs_started_at", kOut},
          {"controller_logs_collected_at", "controller_logs_collected_at", kOut},
          {"install_config_overrides", "install_config_overrides", kOut},
          {"connectivity_majority_groups", "connectivity_majority_groups", kOut},
          {"ip_collisions", "ip_collisions", kOut},
          {"ignored_host_validations", "ignored_host_validations", kOut, FieldKind::kJsonText},
          {"ignored_cluster_validations", "ignored_cluster_validations", kOut,
           FieldKind::kJsonText},
          {"monitored_operators", "monitored_operators", kOut},
          {"hyperthreading", "hyperthreading", kOut | kCreate | kUpdate},
          {"disk_encryption", "disk_encryption", kOut | kCreate | kUpdate,
           FieldKind::kDiskEncryption},
          {"ignition_endpoint", "ignition_endpoint", kOut | kCreate | kUpdate},
          {"imported", "imported", kOut},
          {"tags", "tags", kOut | kCreate | kUpdate},
          {"last-installation-preparation", "last_installation_preparation", kOut},
          {"org_soft_timeouts_enabled", "org_soft_timeouts_enabled", kOut},
          {"user_name", "owner.user_name", kOut},
          {"org_id", "owner.org_id", kOut},
          {"email_domain", "owner.email_domain", kOut},
          {"created_at", "created_at", kOut},
          {"updated_at", "updated_at", kOut},
          {"hosts", "hosts", kOut, FieldKind::kHosts},
      }};
  return *model;
}

const Model& ImportClusterModel() {
  // Upstream's import-cluster-params: an OpenShift cluster installed elsewhere, known by its API's
  // name, registered only to receive day-2 hosts.
  static const Model* model =
      new Model{"cluster import",
                types::v1::Cluster::descriptor(),
                nullptr,
                {
                    {"name", "name", kCreate | kRequired},
                    {"api_vip_dnsname", "api_vip_dns_name", kCreate | kRequired},
                    {"openshift_version", "openshift_version", kCreate},
                    {"openshift_cluster_id", "openshift_cluster_id", kCreate | kRequired},
                }};
  return *model;
}

const Model& DisconnectedClusterModel() {
  // Upstream's disconnected-cluster-create-params: the configuration of an offline installation.
  static const Model* model =
      new Model{"disconnected cluster",
                types::v1::Cluster::descriptor(),
                nullptr,
                {
                    {"name", "name", kCreate | kRequired},
                    {"openshift_version", "openshift_version", kCreate | kRequired},
                }};
  return *model;
}

const Model& InfraEnvModel() {
  static const Model* model = new Model{
      "infra-env",
      types::v1::InfraEnv::descriptor(),
      "InfraEnv",
      {
          {"id", "id", kOut | kCreate | kAlways, FieldKind::kPlain, nullptr,
           "Given when registering, the id to register under (409 when taken); a new one "
           "otherwise."},
          {"name", "name", kOut | kCreate | kUpdate | kRequired | kAlways},
          {"type", "type", kOut | kAlways},
          {"image_type", "type", kCreate | kUpdate},
          {"cluster_id", "cluster_id", kOut | kCreate},
          {"openshift_version", "openshift_version", kOut | kCreate | kUpdate},
          {"cpu_architecture", "cpu_architecture", kOut | kCreate},
          {"proxy", "proxy", kOut | kCreate | kUpdate},
          {"ssh_authorized_key", "ssh_authorized_key", kOut | kCreate | kUpdate},
          {"pull_secret", "pull_secret_set", kCreate | kUpdate | kRequired,
           FieldKind::kPullSecretKeptWhenEmpty},
          {"pull_secret_set", "pull_secret_set", kOut},
          {"static_network_config", "static_network_config", kCreate | kUpdate},
          {"static_network_config", "static_network_config", kOut, FieldKind::kJsonText},
          {"ignition_config_override", "ignition_config_override", kOut | kCreate | kUpdate},
          {"kernel_arguments", "kernel_arguments", kCreate | kUpdate},
          {"kernel_arguments", "kernel_arguments", kOut, FieldKind::kJsonText},
          {"rendezvous_ip", "rendezvous_ip", kOut | kCreate | kUpdate},
          {"ntp_sources", nullptr, kCreate | kUpdate, FieldKind::kUnsupported, "string",
           "Upstream's NTP sources of the discovery image (additional_ntp_sources is served)."},
          {"network_discovery_delay_seconds", nullptr, kCreate | kUpdate, FieldKind::kUnsupported,
           "integer", "Upstream's delay before the discovery agent reads the network, in seconds."},
          {"additional_trust_bundle", "additional_trust_bundle", kOut | kCreate | kUpdate},
          {"additional_ntp_sources", "additional_ntp_sources", kOut | kCreate | kUpdate,
           FieldKind::kCommaList},
          // Ours (upstream configures mirrors per service): registries.conf of the hosts and
          // imageContentSources of the cluster's install-config.
          {"mirror_registries", "mirror_registries", kOut | kCreate | kUpdate},
          {"download_url", "download.url", kOut},
          {"expires_at", "download.expires_at", kOut},
          {"size_bytes", "download.size_bytes", kOut},
          {"generator_version", "generator_version", kOut},
          {"user_name", "owner.user_name", kOut},
          {"org_id", "owner.org_id", kOut},
          {"email_domain", "owner.email_domain", kOut},
          {"created_at", "created_at", kOut | kAlways},
          {"updated_at", "updated_at", kOut | kAlways},
      }};
  return *model;
}

const Model& HostModel() {
  static const Model* model = new Model{
      "host",
      types::v1::Host::descriptor(),
      "Host",
      {
          {"id", "id", kOut | kAlways},
          {"kind", "kind", kOut},
          {"infra_env_id", "infra_env_id", kOut},
          {"cluster_id", "cluster_id", kOut},
          {"status", "status", kOut | kAlways},
          {"status_info", "status_info", kOut | kAlways},
          {"status_updated_at", "status_updated_at", kOut},
          {"resource_version", "resource_version", kOut},
          {"validations_info", "validations_info", kOut, FieldKind::kValidations},
          {"role", "role", kOut},
          {"host_role", "role", kUpdate},
          {"suggested_role", "suggested_role", kOut},
          {"bootstrap", "bootstrap", kOut},
          {"progress", "progress", kOut},
          {"stage_started_at", "progress.stage_started_at", kOut},
          {"stage_updated_at", "progress.stage_updated_at", kOut},
          {"progress_stages", "progress_stages", kOut},
          {"inventory", "inventory", kOut, FieldKind::kJsonText},
          {"connectivity", "connectivity_report", kOut, FieldKind::kReportText},
          {"api_vip_connectivity", "api_vip_connectivity_report", kOut, FieldKind::kReportText},
          {"tang_connectivity", "tang_connectivity_report", kOut, FieldKind::kReportText},
          {"free_addresses", "free_addresses_report", kOut, FieldKind::kReportText},
          {"ntp_sources", "ntp_sources_report", kOut, FieldKind::kReportText},
          {"disks_info", "disks_info_report", kOut, FieldKind::kReportText},
          {"images_status", "images_status_report", kOut, FieldKind::kReportText},
          {"domain_name_resolutions", "domain_name_resolutions_report", kOut,
           FieldKind::kReportText},
          {"installation_disk_path", "installation_disk_path", kOut},
          {"installation_disk_id", "installation_disk_id", kOut},
          {"disks_selected_config", "installation_disk_id", kUpdate, FieldKind::kDisksSelected},
          {"disks_skip_formatting", nullptr, kUpdate, FieldKind::kDisksSkipFormatting, nullptr,
           "Adds disks to (or removes them from) skip_formatting_disks; an added disk must be one "
           "of the host's."},
          {"installer_args", "installer_args", kOut, FieldKind::kJsonText},
          {"ignition_config_overrides", "ignition_config_overrides", kOut},
          {"checked_in_at", "checked_in_at", kOut},
          {"registered_at", "registered_at", kOut},
          {"connection_timed_out", "connection_timed_out", kOut},
          {"discovery_agent_version", "discovery_agent_version", kOut},
          {"requested_hostname", "requested_hostname", kOut},
          {"host_name", "requested_hostname", kUpdate},
          {"media_status", "media_status", kOut},
          {"timestamp", "timestamp", kOut, FieldKind::kUnixSeconds},
          {"logs_info", "logs_info", kOut},
          {"logs_started_at", "logs_started_at", kOut},
          {"logs_collected_at", "logs_collected_at", kOut},
          {"machine_config_pool_name", "machine_config_pool_name", kOut | kUpdate},
          {"node_labels", "node_labels", kOut | kUpdate, FieldKind::kNodeLabels},
          {"disks_to_be_formatted", "disks_to_be_formatted", kOut, FieldKind::kCommaList},
          {"skip_formatting_disks", "skip_formatting_disks", kOut, FieldKind::kCommaList},
          {"fencing_credentials", "fencing_credentials", kUpdate},
          {"fencing_credentials", "fencing_credentials", kOut, FieldKind::kJsonText},
          {"ignition_endpoint_token", nullptr, kUpdate, FieldKind::kUnsupported, "string",
           "Upstream's token for a day-2 host's Ignition endpoint."},
          {"ignition_endpoint_http_headers", nullptr, kUpdate, FieldKind::kUnsupported, "array",
           "Upstream's HTTP headers for a day-2 host's Ignition endpoint."},
          {"ignition_endpoint_token_set", "ignition_endpoint_token_set", kOut},
          {"user_name", "owner.user_name", kOut},
          {"org_id", "owner.org_id", kOut},
          {"email_domain", "owner.email_domain", kOut},
          {"created_at", "created_at", kOut},
          {"updated_at", "updated_at", kOut},
      }};
  return *model;
}

const Model& EventModel() {
  static const Model* model = new Model{"event",
                                        types::v1::Event::descriptor(),
                                        nullptr,
                                        {
                                            // Created by users' POST /v2/events.
                                            {"name", "name", kOut | kCreate},
                                            {"cluster_id", "cluster_id", kOut | kCreate},
                                            {"host_id", "host_id", kOut | kCreate},
                                            {"infra_env_id", "infra_env_id", kOut | kCreate},
                                            {"severity", "severity", kOut | kCreate | kRequired},
                                            {"category", "category", kOut | kCreate},
                                            {"message", "message", kOut | kCreate | kRequired},
                                            {"event_time", "event_time", kOut | kCreate},
                                            {"request_id", "request_id", kOut | kCreate},
                                            {"props", "props", kOut | kCreate},
                                        }};
  return *model;
}

// ---- The JSON types the document gives the fields ----

namespace {

// The JSON type of one value of `field` (a repeated field's element) as the generic conversion
// writes and reads it.
const char* ValueType(const FieldDescriptor& field) {
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_BOOL:
      return "boolean";
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT32:
    case FieldDescriptor::CPPTYPE_UINT64:
      return "integer";
    case FieldDescriptor::CPPTYPE_FLOAT:
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return "number";
    case FieldDescriptor::CPPTYPE_MESSAGE:
      // Times are RFC 3339 text; every other message is an object of its fields.
      return field.message_type() == google::protobuf::Timestamp::descriptor() ? "string"
                                                                               : "object";
    default:  // strings, bytes and enums (spelled as the API spells them)
      return "string";
  }
}

}  // namespace

const char* JsonTypeOf(const Model& model, const FieldRule& rule, FieldUse use) {
  switch (rule.kind) {
    case FieldKind::kUnsupported:
      return rule.json_type;
    case FieldKind::kOperatorSelection:
    case FieldKind::kDisksSkipFormatting:
    case FieldKind::kDisksSelected:
    case FieldKind::kHosts:
      return "array";
    case FieldKind::kNodeLabels:
      return use == kOut ? "string" : "array";  // shown as JSON text, given as {key, value}s
    case FieldKind::kJsonText:
    case FieldKind::kValidations:
    case FieldKind::kReportText:
    case FieldKind::kPullSecret:
    case FieldKind::kPullSecretKeptWhenEmpty:
    case FieldKind::kCommaList:
      return "string";
    case FieldKind::kDiskEncryption:
    case FieldKind::kEmptyObject:
      return "object";
    case FieldKind::kUnixSeconds:
      return "integer";
    case FieldKind::kLegacyNetwork:  // the type of the list entry's field
    case FieldKind::kPlain:
      break;
  }
  const FieldDescriptor* field = Resolve(*model.descriptor, rule.proto);
  if (field == nullptr) return nullptr;
  if (rule.kind == FieldKind::kPlain && field->is_map()) return "object";
  if (rule.kind == FieldKind::kPlain && field->is_repeated()) return "array";
  return ValueType(*field);
}

const std::vector<DocumentedModel>& DocumentedModels() {
  static const auto* models = new std::vector<DocumentedModel>{
      {&ClusterModel(), "cluster", "cluster-create-params", "v2-cluster-update-params", true},
      {&ImportClusterModel(), "", "import-cluster-params", "", false},
      {&DisconnectedClusterModel(), "", "disconnected-cluster-create-params", "", false},
      {&InfraEnvModel(), "infra-env", "infra-env-create-params", "infra-env-update-params", true},
      {&HostModel(), "host", "", "host-update-params", true},
      {&EventModel(), "event", "event", "", false},
  };
  return *models;
}

}  // namespace assisted::gateway
