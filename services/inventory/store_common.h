// File: services/inventory/store_common.h
//
// Pieces every inventory store shares: who is calling (tenancy), lease fencing, protobuf <-> JSON
// documents, timestamps and page tokens. Nothing here opens a transaction; callers pass theirs in.

#ifndef ASSISTED_SERVICES_INVENTORY_STORE_COMMON_H_
#define ASSISTED_SERVICES_INVENTORY_STORE_COMMON_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "assisted/inventory/v1/inventory_service.pb.h"
#include "assisted/types/v1/common.pb.h"
#include "google/protobuf/message.h"
#include "google/protobuf/timestamp.pb.h"
#include "lib/pg/pool.h"

namespace assisted::inventory {

// Builds a statement's parameter list alongside its text: `q.Add(v)` returns "$n".
class Query {
 public:
  std::string Add(pg::Param value) {
    params_.push_back(std::move(value));
    return "$" + std::to_string(params_.size());
  }
  std::vector<pg::Param>& params() { return params_; }

 private:
  std::vector<pg::Param> params_;
};

// Who is calling. Tenants see only their own rows: their org's when they have one, else their
// own; another tenant's resource answers NOT_FOUND, exactly like a missing one. System callers
// (the other services, authenticated by mutual TLS at the transport) see everything.
struct Caller {
  std::string user;
  std::string org;
  bool system = false;

  static Caller System() { return Caller{.system = true}; }
  static Caller User(std::string user, std::string org = "") {
    return Caller{.user = std::move(user), .org = std::move(org)};
  }
};

// An SQL predicate (" AND …") restricting rows to what `caller` may see, with its parameters
// appended to `params`. Empty for system callers. `scope` narrows further (list filters).
std::string TenancyPredicate(const Caller& caller, const types::v1::Owner& scope,
                             std::vector<pg::Param>& params);

// The owner to record for a new row: the caller's identity, or `requested` for system callers.
types::v1::Owner OwnerFor(const Caller& caller, const types::v1::Owner& requested);

// Proves that a write comes from the current holder of a lease (leader-only writers set it;
// every other writer leaves `lease` empty).
struct Fence {
  std::string lease;  // the lease's name, e.g. "orchestrator-leader"; empty: not fenced
  int64_t epoch = 0;  // the epoch the writer acquired it at
};
// The Fence a request's LeaseFence carries.
Fence FenceOf(const v1::LeaseFence& fence);

// FAILED_PRECONDITION unless `fence` is empty or names a lease currently held at its epoch.
// Locks the lease row (FOR SHARE) so it cannot change hands before `tx` commits.
absl::Status CheckFence(pg::Transaction& tx, const Fence& fence);

// Protobuf messages as JSON documents (proto field names; unknown fields ignored on the way
// back in, so older binaries read newer documents).
std::string ToJson(const google::protobuf::Message& message);
absl::Status FromJson(absl::string_view json, google::protobuf::Message& message);

// Parses such a column's text into a Timestamp (leaves it unset for NULL/empty).
void SetTimestamp(absl::string_view micros_text, google::protobuf::Timestamp& out);
// A Timestamp as microseconds since the epoch, in text (a bigint parameter).
std::string MicrosText(const google::protobuf::Timestamp& at);

// Opaque page tokens carrying the keyset position of the last row returned.
std::string EncodePageToken(const std::vector<std::string>& keys);
absl::StatusOr<std::vector<std::string>> DecodePageToken(absl::string_view token,
                                                         size_t expected_keys);

// A bigint column's text as a number (0 for NULL).
int64_t ToInt64(absl::string_view text);

// The value of an array parameter (text[], uuid[]) holding `values`, which must need no quoting
// in an array literal (enum names, UUIDs).
std::string ArrayLiteral(const std::vector<std::string>& values);

// The names of enum `values` (e.g. "HOST_STATUS_KNOWN"), as the tables store them.
template <typename Enum, typename Values>
std::vector<std::string> EnumNames(const Values& values, const std::string& (*name)(Enum)) {
  std::vector<std::string> names;
  for (auto value : values) names.push_back(name(static_cast<Enum>(value)));
  return names;
}

// A new random (version 4) UUID in canonical lower-case form.
std::string NewUuid();

// page_size 0 means `default_size`; larger than `max_size` is capped; negative is an error.
absl::StatusOr<int> PageSize(int requested, int default_size, int max_size);

}  // namespace assisted::inventory

#endif  // ASSISTED_SERVICES_INVENTORY_STORE_COMMON_H_
