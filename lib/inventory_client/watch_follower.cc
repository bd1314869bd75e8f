// File: lib/inventory_client/watch_follower.cc

#include "lib/inventory_client/watch_follower.h"

#include "grpcpp/client_context.h"
#include "lib/time/backoff.h"

namespace assisted::inventory_client {

namespace inv = inventory::v1;

WatchFollower::WatchFollower(inv::InventoryService::StubInterface& inventory, Options options,
                             Callbacks callbacks, log::Logger log)
    : inventory_(inventory),
      options_(std::move(options)),
      callbacks_(std::move(callbacks)),
      log_(std::move(log)),
      thread_([this] { Run(); }) {}

WatchFollower::~WatchFollower() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    if (current_ != nullptr) current_->TryCancel();
  }
  thread_.join();
}

void WatchFollower::Run() {
  Backoff backoff({.max = absl::Seconds(30)}, random_);
  // A stream that starts "from now" (no position yet) after an attempt failed misses what
  // changed in between: the caller is told to re-read (on_resync) before the stream counts.
  bool missed_since_start = false;
  while (true) {
    grpc::ClientContext context;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      current_ = &context;
    }
    inv::WatchRequest request;
    request.set_from_seq(seq_.load());
    for (inv::ResourceKind kind : options_.kinds) request.mutable_filter()->add_kinds(kind);
    request.set_hints(options_.hints);
    std::unique_ptr<grpc::ClientReaderInterface<inv::WatchEvent>> stream =
        inventory_.Watch(&context, request);
    inv::WatchEvent event;
    bool established = false;
    while (stream->Read(&event)) {
      if (!established) {
        established = true;
        backoff.Reset();
        if (missed_since_start && request.from_seq() == 0 && callbacks_.on_resync) {
          callbacks_.on_resync();
        }
        missed_since_start = false;
        if (callbacks_.on_established) callbacks_.on_established();
      }
      if (!event.hint()) seq_.store(event.seq());
      if (event.change_type() != inv::CHANGE_TYPE_BOOKMARK) callbacks_.on_change(event);
      if (!event.hint() && callbacks_.on_position) callbacks_.on_position(event.seq());
    }
    const grpc::Status status = stream->Finish();
    if (established && callbacks_.on_broken) callbacks_.on_broken();
    absl::Duration delay = backoff.Next();
    {
      absl::MutexLock lock(&mu_);
      current_ = nullptr;
      if (stopping_) return;
    }
    if (status.error_code() == grpc::StatusCode::OUT_OF_RANGE) {
      log_.Warning("change log trimmed past our position; re-reading", {{"seq", seq_.load()}});
      seq_.store(0);
      if (callbacks_.on_resync) callbacks_.on_resync();
      missed_since_start = false;
      delay = absl::ZeroDuration();
    } else {
      missed_since_start = missed_since_start || seq_.load() == 0;
      log_.Warning("inventory watch ended; resuming",
                   {{"seq", seq_.load()}, {"error", status.error_message()}});
    }
    absl::MutexLock lock(&mu_);
    auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; };
    mu_.AwaitWithTimeout(absl::Condition(&stopping), delay);
    if (stopping_) return;
  }
}

}  // namespace assisted::inventory_client
