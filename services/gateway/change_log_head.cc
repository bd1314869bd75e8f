#include "services/gateway/change_log_head.h"

#include "lib/grpc/channel.h"
#include "lib/status/grpc_status.h"

namespace assisted::gateway {

absl::StatusOr<int64_t> ChangeLogHead::Current(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  // The first fetch to begin after now: the one in flight (if any) may predate this read.
  const uint64_t needed = started_ + 1;
  while (finished_ < needed) {
    if (started_ == finished_) {
      // None in flight: this read begins fetch `needed` and serves everyone waiting for it.
      const uint64_t mine = ++started_;
      mu_.Unlock();
      absl::StatusOr<int64_t> fetched = fetch_(deadline);
      mu_.Lock();
      finished_ = mine;
      last_ = std::move(fetched);
      break;
    }
    auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return started_ == finished_; };
    ++waiting_;
    const bool idle_in_time = mu_.AwaitWithDeadline(absl::Condition(&idle), deadline);
    --waiting_;
    if (!idle_in_time) {
      return absl::DeadlineExceededError("the inventory's change-log head did not arrive in time");
    }
  }
  return last_;
}

int ChangeLogHead::waiting() const {
  absl::MutexLock lock(&mu_);
  return waiting_;
}

ChangeLogHead::Fetch InventoryChangeLogHead(inventory::v1::InventoryService::StubInterface& stub) {
  return [&stub](absl::Time deadline) -> absl::StatusOr<int64_t> {
    inventory::v1::GetChangeLogHeadResponse response;
    const grpc::Status status =
        stub.GetChangeLogHead(grpcutil::ContextWithin(deadline - absl::Now()).get(), {}, &response);
    if (!status.ok()) return assisted::FromGrpcStatus(status);
    return response.seq();
  };
}

}  // namespace assisted::gateway
