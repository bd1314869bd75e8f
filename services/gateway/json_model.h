// File: services/gateway/json_model.h
//
// The one place where the REST API's JSON meets the protos. The API is shaped after the
// assisted-service v2 models (snake_case names, enum strings such as "pending-for-input",
// "OVNKubernetes", "auto-assign"), which differ from the protos in a few places: the proxy and the
// owner are flattened into the resource (http_proxy, user_name), validations_info and inventory
// are JSON text, hosts choose disks with disks_selected_config. Each model (Cluster, InfraEnv,
// Host, Event) is one table of FieldRule rows naming its JSON field, the proto path it maps to,
// and whether it is shown, accepted on create, accepted on update or required; nested messages
// (networks, VIPs, platform, progress…) convert generically by their proto field names.
//
// Decoding is strict: an unknown field, a read-only field, a wrong JSON type, an out-of-range
// number, an unknown enum string or a missing required field fails with INVALID_ARGUMENT naming
// the field ("cluster_networks[0].host_prefix: expected an integer"). Nothing here throws.

#ifndef ASSISTED_SERVICES_GATEWAY_JSON_MODEL_H_
#define ASSISTED_SERVICES_GATEWAY_JSON_MODEL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/field_mask.pb.h"
#include "google/protobuf/message.h"
#include "lib/enums/spelling.h"
#include "nlohmann/json.hpp"

namespace assisted::gateway {

using Json = nlohmann::json;

// How a field is used; rules combine these bits.
enum FieldUse : uint8_t {
  kOut = 1,       // shown in responses
  kCreate = 2,    // accepted when registering
  kUpdate = 4,    // accepted when updating (PATCH)
  kRequired = 8,  // must be present when registering
  kAlways = 16,   // shown even when empty: upstream's model requires it (the document's
                  // `required`); the ids, statuses and times so marked are never empty
};

// Conversions that are not "the proto field, generically".
enum class FieldKind {
  kPlain,        // the field converted generically
  kJsonText,     // shown as a JSON document in a string (host inventory, installer_args)
  kValidations,  // repeated ValidationResult shown as {"<category>": [{id,status,message}]} text
  kPullSecret,   // write-only secret, carried beside the proto (Decoded::pull_secret); "" in
                 // an update clears it (upstream's V2UpdateCluster)
  kPullSecretKeptWhenEmpty,  // the same, but "" in an update changes nothing (UpdateInfraEnv)
  kCommaList,                // repeated string given as one comma-separated string
  kDisksSelected,            // [{"id": "/dev/…", "role": "install"}] -> installation_disk_id
  kNodeLabels,  // [{"key": k, "value": v}] -> map<string,string>, shown as JSON object text
  kHosts,       // repeated Host shown with the Host model
  // Upstream's single-network fields (cluster_network_cidr…, api_vip): proto is
  // "<list>.<field>", the field of the list's first entry. Given, they replace the list by one
  // entry: the given parts, and for parts left out the stored first entry's (upstream's
  // defaults when registering); all given parts empty empties the list. The list given too
  // must agree. Shown (when kOut) from the first entry.
  kLegacyNetwork,
  // An upstream field this service does not support yet: accepted when empty (null, "", [], 0,
  // false), UNIMPLEMENTED naming it otherwise. proto is null; json_type is upstream's type.
  kUnsupported,
  // Upstream's operator selections (olm_operators, operator_bundles), read by operators.h:
  // olm_operators becomes the cluster's monitored operators (the stored non-OLM ones of
  // `current` kept), operator_bundles accepts only null or []. proto is null.
  kOperatorSelection,
  kDisksSkipFormatting,  // [{"disk_id", "skip_formatting"}] -> Decoded::skip_formatting
  kDiskEncryption,       // {enable_on: "masters,workers"|"all"|"none", mode, tang_servers: text}
  kUnixSeconds,          // a Timestamp shown as integer seconds (host.timestamp)
  kEmptyObject,          // shown as {} (cluster.image_info: no cluster-level image in v2 here)
  kReportText,           // a typed agent report (Host.*_report) shown as the reference's JSON text
};

struct FieldRule {
  const char* json;   // JSON name
  const char* proto;  // dotted proto path, e.g. "proxy.http_proxy"; null for kUnsupported and
                      // kOperatorSelection
  uint8_t use;        // FieldUse bits
  FieldKind kind = FieldKind::kPlain;
  const char* json_type = nullptr;  // kUnsupported: "array", "string", "integer" or "object"
  // What the OpenAPI document says of the field beyond its proto comment (the whole description
  // for a field with no proto): how the REST form differs, upstream's conventions.
  const char* doc = nullptr;
};

// Upstream's defaults for what registering a cluster leaves out.
inline constexpr char kDefaultClusterNetworkCidr[] = "10.128.0.0/14";
inline constexpr int kDefaultClusterNetworkHostPrefix = 23;
inline constexpr char kDefaultServiceNetworkCidr[] = "172.30.0.0/16";

struct Model {
  const char* name;  // "cluster", for messages
  const google::protobuf::Descriptor* descriptor;
  const char* default_kind;  // "kind" when the proto has none; null: no kind
  std::vector<FieldRule> fields;
};

const Model& ClusterModel();
// The bodies of POST /clusters/import and /clusters/disconnected (create use only), read into a
// Cluster.
const Model& ImportClusterModel();
const Model& DisconnectedClusterModel();
const Model& InfraEnvModel();
const Model& HostModel();
const Model& EventModel();

// The JSON type ("string", "integer", "number", "boolean", "array" or "object") of `rule`'s
// field as `use` reads it (kCreate, kUpdate) or shows it (kOut): what the OpenAPI document must
// say it is. Null when the rule names no field of the model's proto (a broken table).
const char* JsonTypeOf(const Model& model, const FieldRule& rule, FieldUse use);

// The field a rule's dotted proto path ("proxy.http_proxy") names, from `descriptor`; null when
// some part names no field.
const google::protobuf::FieldDescriptor* ResolveProtoPath(
    const google::protobuf::Descriptor& descriptor, absl::string_view path);

// Whether a response always carries `rule`'s field, set or not (an unset list as [], an unset
// top-level boolean or number as false or 0, a kAlways string as ""): the document's `required`.
bool AlwaysShown(const Model& model, const FieldRule& rule);

// Whether an entry of `type` (a network or VIP) accepts upstream's "cluster_id" key, which is
// checked to be a string and ignored: the entry belongs to the cluster of the request's path.
bool TakesUpstreamOwnerKey(const google::protobuf::Descriptor& type);

// Where the OpenAPI document (services/gateway/openapi.yaml) describes each model: the schema
// names of its uses ("" when the model has no such use). Every field of a use is a property of
// that schema, with the type JsonTypeOf gives it (openapi_types_test, gateway_pg_test).
struct DocumentedModel {
  const Model* model;
  const char* shown;    // kOut
  const char* created;  // kCreate
  const char* updated;  // kUpdate
  bool linked;          // responses carry href, the resource's path (added by the API)
};
const std::vector<DocumentedModel>& DocumentedModels();

// Enum values read and written as the API spells them ("pending-for-input"); the spelling is
// shared with the orchestrator and aictl (lib/enums/spelling.h).
using ::assisted::enums::EnumFromText;
using ::assisted::enums::EnumText;

// Generic conversions by proto field names (used for nested messages and simple payloads).
Json MessageToJson(const google::protobuf::Message& message);
absl::Status JsonToMessage(const Json& json, const std::string& path,
                           google::protobuf::Message* message);

// The resource as the API shows it (kind included; the caller adds href).
Json ToJson(const Model& model, const google::protobuf::Message& message);

// What a request body decoded into, besides the message itself.
struct Decoded {
  google::protobuf::FieldMask mask;  // proto paths that were given (for updates)
  bool has_pull_secret = false;
  std::string pull_secret;
  // Host updates: upstream's disks_skip_formatting, (disk id, skip) in the order given; the
  // caller applies them to the host's stored skip_formatting_disks.
  std::vector<std::pair<std::string, bool>> skip_formatting;
};

// Reads a create (use = kCreate) or update (use = kUpdate) body into `message`. `current`, the
// stored resource of an update, supplies what upstream's single-network fields leave out
// (null: upstream's defaults). INVALID_ARGUMENT naming the field for what is malformed or not
// accepted; UNIMPLEMENTED naming it for an upstream field this service does not support yet.
absl::StatusOr<Decoded> FromJson(const Model& model, const Json& body, FieldUse use,
                                 google::protobuf::Message* message,
                                 const google::protobuf::Message* current = nullptr);

// Parses a request body that must be one JSON value. INVALID_ARGUMENT for malformed JSON,
// invalid UTF-8 or nesting deeper than 64 levels.
absl::StatusOr<Json> ParseJson(absl::string_view body);
// The same for a body that must be one JSON object (INVALID_ARGUMENT for anything else).
absl::StatusOr<Json> ParseObject(absl::string_view body);

// A JSON document as compact text; invalid UTF-8 in strings is replaced, never thrown.
std::string Dump(const Json& json);

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_JSON_MODEL_H_
