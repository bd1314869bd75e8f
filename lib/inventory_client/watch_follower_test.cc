#include "lib/inventory_client/watch_follower.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"

namespace assisted::inventory_client {
namespace {

namespace inv = inventory::v1;
using ::testing::ElementsAre;

// One Watch stream the fake inventory plays: these events, then this ending.
struct Stream {
  std::vector<int64_t> seqs;  // the first is sent as a BOOKMARK; a 0 later is a hint
  grpc::Status ending;
};

// An inventory whose Watch plays scripted streams, then holds the last one open until the
// follower cancels it. It records the from_seq of every request.
class FakeInventory final : public inv::InventoryService::Service {
 public:
  explicit FakeInventory(std::vector<Stream> script) : script_(std::move(script)) {}

  grpc::Status Watch(grpc::ServerContext* context, const inv::WatchRequest* request,
                     grpc::ServerWriter<inv::WatchEvent>* writer) override {
    Stream stream;
    {
      absl::MutexLock lock(&mu_);
      from_seqs_.push_back(request->from_seq());
      asked_for_hints_ = request->hints();
      if (next_ < script_.size()) stream = script_[next_++];
    }
    for (size_t i = 0; i < stream.seqs.size(); ++i) {
      inv::WatchEvent event;
      event.set_seq(stream.seqs[i]);
      event.set_kind(i == 0 ? inv::RESOURCE_KIND_UNSPECIFIED : inv::RESOURCE_KIND_HOST);
      event.set_change_type(i == 0 ? inv::CHANGE_TYPE_BOOKMARK : inv::CHANGE_TYPE_UPDATED);
      event.set_hint(i > 0 && stream.seqs[i] == 0);
      writer->Write(event);
    }
    if (!stream.ending.ok()) return stream.ending;
    while (!context->IsCancelled()) absl::SleepFor(absl::Milliseconds(10));
    return grpc::Status::OK;
  }

  bool asked_for_hints() {
    absl::MutexLock lock(&mu_);
    return asked_for_hints_;
  }

  std::vector<int64_t> from_seqs() {
    absl::MutexLock lock(&mu_);
    return from_seqs_;
  }

 private:
  const std::vector<Stream> script_;
  absl::Mutex mu_;
  size_t next_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<int64_t> from_seqs_ ABSL_GUARDED_BY(mu_);
  bool asked_for_hints_ ABSL_GUARDED_BY(mu_) = false;
};

class WatchFollowerTest : public ::testing::Test {
 protected:
  void Serve(std::vector<Stream> script) {
    inventory_ = std::make_unique<FakeInventory>(std::move(script));
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(inventory_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    stub_ = inv::InventoryService::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()));
  }

  // `positions`: on_position is recorded too, as "at <seq>".
  void Follow(bool hints = false, bool positions = false) {
    WatchFollower::Callbacks callbacks{
        .on_change =
            [this](const inv::WatchEvent& e) { Record(e.hint() ? "hint" : absl::StrCat(e.seq())); },
        .on_resync = [this] { Record("resync"); },
        .on_established = [this] { Record("established"); },
        .on_broken = [this] { Record("broken"); }};
    if (positions) {
      callbacks.on_position = [this](int64_t seq) { Record(absl::StrCat("at ", seq)); };
    }
    follower_ = std::make_unique<WatchFollower>(
        *stub_, WatchFollower::Options{.kinds = {inv::RESOURCE_KIND_HOST}, .hints = hints},
        std::move(callbacks), log::Logger::Discard());
  }

  void Record(std::string what) {
    absl::MutexLock lock(&mu_);
    calls_.push_back(std::move(what));
  }

  // The callbacks seen once there are `count` of them (or after 10 s).
  std::vector<std::string> CallsOnceThereAre(size_t count) {
    absl::MutexLock lock(&mu_);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return calls_.size() >= count; };
    mu_.AwaitWithTimeout(absl::Condition(&enough), absl::Seconds(10));
    return calls_;
  }

  void TearDown() override {
    follower_.reset();
    if (server_ != nullptr) server_->Shutdown();
  }

  std::unique_ptr<FakeInventory> inventory_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<inv::InventoryService::Stub> stub_;
  std::unique_ptr<WatchFollower> follower_;
  absl::Mutex mu_;
  std::vector<std::string> calls_ ABSL_GUARDED_BY(mu_);
};

TEST_F(WatchFollowerTest, SaysWhenAStreamIsEstablishedAndBrokenAndResumesAfterTheLastSeq) {
  Serve({{.seqs = {10, 11, 12}, .ending = grpc::Status(grpc::StatusCode::UNAVAILABLE, "gone")},
         {.seqs = {12, 13}}});
  Follow();
  EXPECT_THAT(CallsOnceThereAre(6),
              ElementsAre("established", "11", "12", "broken", "established", "13"));
  EXPECT_THAT(inventory_->from_seqs(), ElementsAre(0, 12));
  EXPECT_EQ(follower_->seq(), 13);
}

TEST_F(WatchFollowerTest, HintsAreDeliveredButNeverBecomeThePositionToResumeFrom) {
  Serve({{.seqs = {10, 11, 0, 0}, .ending = grpc::Status(grpc::StatusCode::UNAVAILABLE, "gone")},
         {.seqs = {11, 0, 12}}});
  Follow(/*hints=*/true);
  EXPECT_THAT(CallsOnceThereAre(8), ElementsAre("established", "11", "hint", "hint", "broken",
                                                "established", "hint", "12"));
  EXPECT_TRUE(inventory_->asked_for_hints());
  EXPECT_THAT(inventory_->from_seqs(), ElementsAre(0, 11));
  EXPECT_EQ(follower_->seq(), 12);
}

TEST_F(WatchFollowerTest, ThePositionFollowsEveryNumberedMessageOnceItsChangeWasDelivered) {
  Serve({{.seqs = {10, 11, 0, 12}}});
  Follow(/*hints=*/true, /*positions=*/true);
  // The bookmark (10) moves the position too; a hint never does.
  EXPECT_THAT(CallsOnceThereAre(7),
              ElementsAre("established", "at 10", "11", "at 11", "hint", "12", "at 12"));
}

TEST_F(WatchFollowerTest, ATrimmedLogIsAResyncFromTheHeadNeverAnEstablishedStream) {
  Serve({{.seqs = {5, 6}, .ending = grpc::Status(grpc::StatusCode::UNAVAILABLE, "gone")},
         {.ending = grpc::Status(grpc::StatusCode::OUT_OF_RANGE, "trimmed")},
         {.seqs = {40}}});
  Follow();
  EXPECT_THAT(CallsOnceThereAre(5),
              ElementsAre("established", "6", "broken", "resync", "established"));
  EXPECT_THAT(inventory_->from_seqs(), ElementsAre(0, 6, 0));
}

// The orchestrator started before the inventory: its follower's first attempts failed, and the
// stream it then opened "from now" could not carry what changed meanwhile (hosts an install
// moved to preparing never got their preparation steps, and ./dev demo hung). The caller is
// told to re-read before the stream counts as established.
TEST_F(WatchFollowerTest, AFirstStreamOpenedAfterAFailedAttemptStartsWithAResync) {
  Serve({{.ending = grpc::Status(grpc::StatusCode::UNAVAILABLE, "not yet")}, {.seqs = {7, 8}}});
  Follow();
  EXPECT_THAT(CallsOnceThereAre(3), ElementsAre("resync", "established", "8"));
  EXPECT_THAT(inventory_->from_seqs(), ElementsAre(0, 0));
}

}  // namespace
}  // namespace assisted::inventory_client
