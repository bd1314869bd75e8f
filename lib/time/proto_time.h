// File: lib/time/proto_time.h
//
// The one conversion between absl::Time and google.protobuf.Timestamp. Every service stores
// and sends times as Timestamps; keeping the conversion here means they all agree on the
// precision (microseconds, as PostgreSQL timestamptz keeps them) and a round trip through the
// inventory compares equal to what was written.

#ifndef ASSISTED_LIB_TIME_PROTO_TIME_H_
#define ASSISTED_LIB_TIME_PROTO_TIME_H_

#include "absl/time/time.h"
#include "google/protobuf/timestamp.pb.h"

namespace assisted {

// `time` to the microsecond (finer digits are dropped).
google::protobuf::Timestamp ToTimestamp(absl::Time time);

// The instant a Timestamp names, to the nanosecond. The default (unset) Timestamp is the Unix
// epoch, as protobuf defines it.
absl::Time FromTimestamp(const google::protobuf::Timestamp& timestamp);

}  // namespace assisted

#endif  // ASSISTED_LIB_TIME_PROTO_TIME_H_
