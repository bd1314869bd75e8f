// File: lib/grpc/health_client.h
//
// Client side of the standard gRPC health protocol (grpc.health.v1.Health/Check), used by the
// CLI's `health` command, the test harness, and services that wait for their dependencies.

#ifndef ASSISTED_LIB_GRPC_HEALTH_CLIENT_H_
#define ASSISTED_LIB_GRPC_HEALTH_CLIENT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"

namespace assisted::grpcutil {

// Asks `channel`'s server for the status of `service` ("" = the server as a whole). Returns
// "SERVING", "NOT_SERVING", …; NOT_FOUND for a service the server does not know, UNAVAILABLE
// or DEADLINE_EXCEEDED when the server can't be reached within `timeout`.
absl::StatusOr<std::string> CheckHealth(const std::shared_ptr<grpc::Channel>& channel,
                                        const std::string& service, absl::Duration timeout);

}  // namespace assisted::grpcutil

#endif  // ASSISTED_LIB_GRPC_HEALTH_CLIENT_H_
