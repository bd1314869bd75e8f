// Which agent streams are admitted, counted and closed for not registering in time.

#include "services/orchestrator/stream_admission.h"

#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::orchestrator {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

std::shared_ptr<Session> From(const std::string& address, int port) {
  return std::make_shared<Session>(absl::StrCat("ipv4:", address, ":", port));
}

TEST(StreamAdmission, PeerAddressDropsOnlyThePort) {
  EXPECT_EQ(PeerAddress("ipv4:10.0.0.5:41234"), "ipv4:10.0.0.5");
  EXPECT_EQ(PeerAddress("ipv6:[::1]:5"), "ipv6:[::1]");
}

TEST(StreamAdmission, UnregisteredStreamsFromOnePeerAreCapped) {
  StreamAdmission admission({.max_registered = 100, .max_unregistered_per_peer = 2});
  std::vector<std::shared_ptr<Session>> streams;
  for (int port = 1; port <= 3; ++port) streams.push_back(From("10.0.0.5", port));
  EXPECT_THAT(admission.Open(streams[0], kStart), IsOk());
  EXPECT_THAT(admission.Open(streams[1], kStart), IsOk());
  EXPECT_THAT(admission.Open(streams[2], kStart),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("10.0.0.5")));
  // Another peer is not affected.
  EXPECT_THAT(admission.Open(From("10.0.0.6", 1), kStart), IsOk());
  // A stream that registers leaves its peer's unregistered share.
  EXPECT_THAT(admission.Register(*streams[0]), IsOk());
  EXPECT_THAT(admission.Open(streams[2], kStart), IsOk());
}

TEST(StreamAdmission, OnlyRegisteredStreamsCountTowardTheGlobalCap) {
  StreamAdmission admission(
      {.max_registered = 2, .max_unregistered = 10, .max_unregistered_per_peer = 16});
  auto first = From("10.0.0.1", 1), second = From("10.0.0.2", 1), third = From("10.0.0.3", 1);
  for (const auto& stream : {first, second, third}) {
    EXPECT_THAT(admission.Open(stream, kStart), IsOk());  // unregistered: not at the cap
  }
  EXPECT_THAT(admission.Register(*first), IsOk());
  EXPECT_THAT(admission.Register(*second), IsOk());
  EXPECT_THAT(admission.Register(*third), StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_EQ(admission.registered(), 2);
  admission.Close(*first);
  EXPECT_THAT(admission.Register(*third), IsOk());
  EXPECT_THAT(admission.Register(*third), IsOk());  // again: nothing changes
  EXPECT_EQ(admission.registered(), 2);
  EXPECT_EQ(admission.open(), 2);
}

TEST(StreamAdmission, UnregisteredStreamsAreCappedInAllToo) {
  StreamAdmission admission(
      {.max_registered = 100, .max_unregistered = 2, .max_unregistered_per_peer = 16});
  EXPECT_THAT(admission.Open(From("10.0.0.1", 1), kStart), IsOk());
  EXPECT_THAT(admission.Open(From("10.0.0.2", 1), kStart), IsOk());
  EXPECT_THAT(admission.Open(From("10.0.0.3", 1), kStart),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("waiting to register")));
}

TEST(StreamAdmission, AllStreamsFromOnePeerAreCappedWhenAsked) {
  StreamAdmission admission(
      {.max_registered = 100, .max_unregistered_per_peer = 16, .max_per_peer = 1});
  auto first = From("10.0.0.5", 1);
  EXPECT_THAT(admission.Open(first, kStart), IsOk());
  EXPECT_THAT(admission.Register(*first), IsOk());
  EXPECT_THAT(admission.Open(From("10.0.0.5", 2), kStart),
              StatusIs(absl::StatusCode::kResourceExhausted));
}

TEST(StreamAdmission, AStreamThatNeverRegistersIsOverdueAfterTheDeadline) {
  StreamAdmission admission({.registration_deadline = absl::Seconds(30)});
  auto idle = From("10.0.0.5", 1), registered = From("10.0.0.6", 1), late = From("10.0.0.7", 1);
  ASSERT_THAT(admission.Open(idle, kStart), IsOk());
  ASSERT_THAT(admission.Open(registered, kStart), IsOk());
  ASSERT_THAT(admission.Register(*registered), IsOk());
  ASSERT_THAT(admission.Open(late, kStart + absl::Seconds(20)), IsOk());
  EXPECT_THAT(admission.Overdue(kStart + absl::Seconds(29)), IsEmpty());
  EXPECT_THAT(admission.Overdue(kStart + absl::Seconds(30)), ElementsAre(idle));
  admission.Close(*idle);
  EXPECT_THAT(admission.Overdue(kStart + absl::Seconds(50)), ElementsAre(late));
}

// After a restart a whole fleet reconnects at once and its registrations queue for the
// workers; a stream whose Register arrived in time is not closed for waiting its turn (it used
// to be, and each agent closed so backed off and came back later: 70 s to re-register 10,000).
TEST(StreamAdmission, AStreamWhoseRegistrationWaitsForAWorkerIsNotOverdue) {
  StreamAdmission admission({.registration_deadline = absl::Seconds(30)});
  auto waiting = From("10.0.0.5", 1), silent = From("10.0.0.6", 1);
  ASSERT_THAT(admission.Open(waiting, kStart), IsOk());
  ASSERT_THAT(admission.Open(silent, kStart + absl::Seconds(10)), IsOk());
  admission.Heard(*waiting);
  EXPECT_THAT(admission.Overdue(kStart + absl::Seconds(60)), ElementsAre(silent));
  EXPECT_EQ(admission.NextDeadline(), kStart + absl::Seconds(40));
  admission.Close(*silent);
  EXPECT_EQ(admission.NextDeadline(), absl::InfiniteFuture());
  EXPECT_THAT(admission.Overdue(kStart + absl::Seconds(600)), IsEmpty());
}

TEST(StreamAdmission, ARefusedStreamIsNotCountedAndItsCloseChangesNothing) {
  StreamAdmission admission({.max_registered = 100, .max_unregistered_per_peer = 1});
  auto first = From("10.0.0.5", 1), refused = From("10.0.0.5", 2);
  ASSERT_THAT(admission.Open(first, kStart), IsOk());
  ASSERT_THAT(admission.Open(refused, kStart), StatusIs(absl::StatusCode::kResourceExhausted));
  admission.Close(*refused);
  EXPECT_EQ(admission.open(), 1);
  EXPECT_THAT(admission.Register(*refused), StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(admission.Open(From("10.0.0.5", 3), kStart),
              StatusIs(absl::StatusCode::kResourceExhausted));
}

}  // namespace
}  // namespace assisted::orchestrator
