// File: lib/status/grpc_status.h
//
// Conversions between absl::Status (used everywhere inside the project) and grpc::Status (used
// only at the gRPC edge). The numeric codes are identical by design, so the mapping is total
// and lossless for code and message.

#ifndef ASSISTED_LIB_STATUS_GRPC_STATUS_H_
#define ASSISTED_LIB_STATUS_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace assisted {

// Returns the grpc::Status a service handler should answer with for `status`.
grpc::Status ToGrpcStatus(const absl::Status& status);

// Returns the absl::Status a client should propagate for a failed (or OK) RPC.
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace assisted

#endif  // ASSISTED_LIB_STATUS_GRPC_STATUS_H_
