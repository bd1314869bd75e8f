#include "lib/time/proto_time.h"

#include "gtest/gtest.h"

namespace assisted {
namespace {

TEST(ProtoTimeTest, RoundTripKeepsMicroseconds) {
  const absl::Time at = absl::FromUnixMicros(1'700'000'000'123'456);
  const google::protobuf::Timestamp ts = ToTimestamp(at);
  EXPECT_EQ(ts.seconds(), 1'700'000'000);
  EXPECT_EQ(ts.nanos(), 123'456'000);
  EXPECT_EQ(FromTimestamp(ts), at);
}

TEST(ProtoTimeTest, ToTimestampDropsSubMicroseconds) {
  const absl::Time at = absl::FromUnixNanos(1'700'000'000'000'000'789);
  EXPECT_EQ(ToTimestamp(at).nanos(), 0);
}

TEST(ProtoTimeTest, FromTimestampReadsNanoseconds) {
  google::protobuf::Timestamp ts;
  ts.set_seconds(10);
  ts.set_nanos(5);
  EXPECT_EQ(FromTimestamp(ts), absl::FromUnixNanos(10'000'000'005));
}

TEST(ProtoTimeTest, UnsetTimestampIsTheEpoch) {
  EXPECT_EQ(FromTimestamp(google::protobuf::Timestamp()), absl::UnixEpoch());
}

TEST(ProtoTimeTest, TimesBeforeTheEpochRoundTrip) {
  const absl::Time at = absl::FromUnixMicros(-1'500'000);
  EXPECT_EQ(FromTimestamp(ToTimestamp(at)), at);
}

}  // namespace
}  // namespace assisted
