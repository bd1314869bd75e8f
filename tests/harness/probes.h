// File: tests/harness/probes.h
//
// What a test uses to look at a running service from outside, the way operators' tools do:
// the standard gRPC health check, server reflection, and plain HTTP GET.

#ifndef ASSISTED_TESTS_HARNESS_PROBES_H_
#define ASSISTED_TESTS_HARNESS_PROBES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/grpc/channel.h"

namespace assisted::testing {

// grpc.health.v1.Health/Check for `service` ("" = the whole server) at `target` (host:port).
// Returns "SERVING", "NOT_SERVING", …; NOT_FOUND for a service the server doesn't know.
absl::StatusOr<std::string> CheckHealth(const std::string& target, const std::string& service,
                                        absl::Duration timeout = absl::Seconds(5));

// Waits on the standard health Watch stream (no polling) until `service` at `target` is
// SERVING; false when `timeout` passes first. `channel` says how to reach it (TLS and a client
// certificate for a listener that checks them; plaintext by default).
bool WaitServing(const std::string& target, const std::string& service, absl::Duration timeout,
                 const grpcutil::ChannelOptions& channel = {});

// The service names grpc.reflection.v1alpha.ServerReflection lists at `target`.
absl::StatusOr<std::vector<std::string>> ListServices(const std::string& target,
                                                      absl::Duration timeout = absl::Seconds(5));

struct HttpResponse {
  long status = 0;
  std::string content_type;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

// GET `url` (libcurl). An error only when no HTTP response came at all.
absl::StatusOr<HttpResponse> HttpGet(const std::string& url,
                                     absl::Duration timeout = absl::Seconds(5));

// `method` ("GET", "HEAD", …) on `url` with extra request headers ("Range: bytes=0-9").
absl::StatusOr<HttpResponse> HttpRequest(const std::string& method, const std::string& url,
                                         const std::vector<std::string>& headers,
                                         absl::Duration timeout = absl::Seconds(30));

// The sum of the samples of `name` at a Prometheus text endpoint `metrics_url` whose labels
// contain `labels` (e.g. `grpc_method="GetCluster"`; empty: every sample, or the one without
// labels); -1 when the endpoint does not answer or has no such sample.
double MetricSum(const std::string& metrics_url, const std::string& name,
                 const std::string& labels = "");

// Returns a TCP port on 127.0.0.1 that was free a moment ago, for a service a test starts
// later with that port in its flags. Taken below the kernel's ephemeral range: a port the
// kernel handed out (and took back) could go to any other process's next connection or
// port-0 listener before the service binds it, and under load one did ("Address already in
// use"). Successive calls in one process step through the range from a random start, so two
// test processes rarely try the same ports and one process never gets the same port twice.
absl::StatusOr<int> FreePort();

// Absolute path of a runfile of this workspace, e.g. "services/inventory/assisted-inventory".
std::string RunfilePath(const std::string& workspace_relative);

}  // namespace assisted::testing

#endif  // ASSISTED_TESTS_HARNESS_PROBES_H_
