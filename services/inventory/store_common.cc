#include "services/inventory/store_common.h"

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/time_util.h"
#include "lib/random/random.h"
#include "lib/status/status_macros.h"

namespace assisted::inventory {

std::string TenancyPredicate(const Caller& caller, const types::v1::Owner& scope,
                             std::vector<pg::Param>& params) {
  std::string predicate;
  auto add = [&](absl::string_view column, const std::string& value) {
    params.push_back(value);
    absl::StrAppend(&predicate, " AND ", column, " = $", params.size());
  };
  if (!caller.system) {
    if (!caller.org.empty()) {
      add("owner_org", caller.org);
    } else {
      add("owner_user", caller.user);
    }
  }
  if (!scope.org_id().empty()) {
    add("owner_org", scope.org_id());
  } else if (!scope.user_name().empty()) {
    add("owner_user", scope.user_name());
  }
  return predicate;
}

types::v1::Owner OwnerFor(const Caller& caller, const types::v1::Owner& requested) {
  if (caller.system) return requested;
  types::v1::Owner owner;
  owner.set_user_name(caller.user);
  owner.set_org_id(caller.org);
  owner.set_email_domain(requested.email_domain());
  return owner;
}

Fence FenceOf(const v1::LeaseFence& fence) {
  return {.lease = fence.name(), .epoch = fence.epoch()};
}

absl::Status CheckFence(pg::Transaction& tx, const Fence& fence) {
  if (fence.lease.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(pg::Result lease, tx.Exec("SELECT holder, epoch, expires_at > now() FROM leases "
                                             "WHERE name = $1 FOR SHARE",
                                             {fence.lease}));
  if (lease.rows() == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("lease ", fence.lease, " is not held; this write is fenced off"));
  }
  const std::string epoch(lease.Get(0, 1));
  if (epoch != absl::StrCat(fence.epoch) || lease.Get(0, 2) != "t") {
    return absl::FailedPreconditionError(
        absl::StrCat("lease ", fence.lease, " is at epoch ", epoch,
                     (lease.Get(0, 2) == "t" ? "" : " (expired)"), " held by ", lease.Get(0, 0),
                     "; a writer fenced at epoch ", fence.epoch, " may no longer write"));
  }
  return absl::OkStatus();
}

std::string ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

absl::Status FromJson(absl::string_view json, google::protobuf::Message& message) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  const auto status =
      google::protobuf::util::JsonStringToMessage(std::string(json), &message, options);
  if (!status.ok()) {
    return absl::DataLossError(absl::StrCat("stored ", message.GetDescriptor()->name(),
                                            " document is unreadable: ", status.ToString()));
  }
  return absl::OkStatus();
}

void SetTimestamp(absl::string_view micros_text, google::protobuf::Timestamp& out) {
  int64_t micros = 0;
  if (micros_text.empty() || !absl::SimpleAtoi(micros_text, &micros)) return;
  out = google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(micros);
}

std::string MicrosText(const google::protobuf::Timestamp& at) {
  return absl::StrCat(google::protobuf::util::TimeUtil::TimestampToMicroseconds(at));
}

std::string EncodePageToken(const std::vector<std::string>& keys) {
  return absl::WebSafeBase64Escape(absl::StrJoin(keys, "\n"));
}

absl::StatusOr<std::vector<std::string>> DecodePageToken(absl::string_view token,
                                                         size_t expected_keys) {
  std::string raw;
  if (!absl::WebSafeBase64Unescape(token, &raw)) {
    return absl::InvalidArgumentError("page_token: not a token this service issued");
  }
  std::vector<std::string> keys = absl::StrSplit(raw, '\n');
  if (keys.size() != expected_keys) {
    return absl::InvalidArgumentError("page_token: not a token this service issued");
  }
  return keys;
}

int64_t ToInt64(absl::string_view text) {
  int64_t value = 0;
  (void)absl::SimpleAtoi(text, &value);
  return value;
}

std::string ArrayLiteral(const std::vector<std::string>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

std::string NewUuid() {
  SystemRandom random;
  return RandomUuid(random);
}

absl::StatusOr<int> PageSize(int requested, int default_size, int max_size) {
  if (requested < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size: must not be negative, got ", requested));
  }
  if (requested == 0) return default_size;
  return std::min(requested, max_size);
}

}  // namespace assisted::inventory
