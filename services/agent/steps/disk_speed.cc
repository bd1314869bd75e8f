// File: services/agent/steps/disk_speed.cc

#include "services/agent/steps/disk_speed.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/status/status_macros.h"
#include "services/agent/steps/block_device.h"
#include "services/agent/steps/json_args.h"
#include "services/agent/steps/simulation.h"
#include "services/agent/steps/unique_fd.h"

namespace assisted::agent::steps {

namespace {

using nlohmann::json;

constexpr int64_t kBlock = 4096;

struct Request {
  std::string path;
  absl::Duration timeout = absl::InfiniteDuration();
};

absl::StatusOr<Request> ParseRequest(const Step& step) {
  RETURN_IF_ERROR(CheckArgCount(step, 1, 2));
  ASSIGN_OR_RETURN(json args, JsonArg(step, 0, JsonKind::kObject));
  Request r;
  ASSIGN_OR_RETURN(r.path, StringField(args, "path", Need::kRequired, 4096));
  if (!absl::StartsWith(r.path, "/") || absl::StrContains(r.path, "/../") ||
      absl::EndsWith(r.path, "/..")) {
    return absl::InvalidArgumentError(absl::StrCat("\"", r.path, "\" is not an absolute path"));
  }
  if (step.args_size() == 2) {
    int seconds = 0;
    if (!absl::SimpleAtoi(step.args(1), &seconds) || seconds <= 0 || seconds > 24 * 3600) {
      return absl::InvalidArgumentError("the timeout must be a number of seconds");
    }
    r.timeout = absl::Seconds(seconds);
  }
  return r;
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace

StepResult DiskSpeedCheck::Run(const Step& step, StepContext& context) {
  absl::StatusOr<Request> request = ParseRequest(step);
  if (!request.ok()) return InvalidArgsResult(request.status());
  auto fail = [&](absl::string_view why) {
    context.log.Warning("disk speed check failed", {{"path", request->path}, {"error", why}});
    StepResult failed = FailureResult(1, why);
    failed.mutable_disk_speed()->set_path(request->path);  // the failure is the finding
    return failed;
  };

  const bool simulated = context.simulation != nullptr;
  const std::optional<absl::Duration> scripted_latency =
      simulated && context.simulation->disk_sync_latency ? context.simulation->disk_sync_latency()
                                                         : std::nullopt;
  struct stat st {};
  absl::StatusOr<std::string> resolved = ResolveDisk(request->path, context, &st);
  if (!resolved.ok()) return fail(resolved.status().message());
  const std::string& target = *resolved;
  const int flags = O_RDWR | O_CLOEXEC | (scripted_latency.has_value() ? 0 : (O_DSYNC | O_DIRECT));
  UniqueFd fd(open(target.c_str(), flags));
  if (!fd.valid() && errno == EINVAL && simulated) {
    fd = UniqueFd(open(target.c_str(), flags & ~O_DIRECT));
  }
  if (!fd.valid()) return fail(absl::StrCat("cannot open ", target, ": ", std::strerror(errno)));
  if (fstat(fd.get(), &st) != 0) return fail(absl::StrCat("cannot stat ", target));
  absl::StatusOr<int64_t> size = SizeOf(fd.get(), st);
  if (!size.ok()) return fail(size.status().message());

  // The scratch region, in whole blocks, inside the device.
  int64_t bytes = std::max<int64_t>(kBlock, options_.scratch_bytes / kBlock * kBlock);
  int64_t offset = options_.scratch_offset / kBlock * kBlock;
  if (offset + bytes > *size) offset = 0;
  bytes = std::min(bytes, *size / kBlock * kBlock);
  if (bytes < kBlock) return fail(absl::StrCat(request->path, " is smaller than one block"));

  void* raw = nullptr;
  if (posix_memalign(&raw, kBlock, bytes) != 0) return fail("out of memory");
  std::unique_ptr<void, FreeDeleter> buffer(raw);
  char* data = static_cast<char*>(raw);
  if (pread(fd.get(), data, bytes, offset) != bytes) {
    return fail(absl::StrCat("cannot read ", target, ": ", std::strerror(errno)));
  }

  const absl::Time deadline = context.clock.Now() + context.Budget(request->timeout);
  const int64_t blocks = bytes / kBlock;
  std::vector<absl::Duration> latencies;
  latencies.reserve(options_.writes);
  for (int i = 0; i < options_.writes; ++i) {
    if (context.cancelled()) return FailureResult(kExitInvalid, "disk speed check cancelled");
    if (context.clock.Now() >= deadline) break;
    const int64_t at = (i % blocks) * kBlock;
    const auto start = std::chrono::steady_clock::now();
    const ssize_t n = pwrite(fd.get(), data + at, kBlock, offset + at);
    const auto end = std::chrono::steady_clock::now();
    if (n != kBlock)
      return fail(absl::StrCat("write to ", target, " failed: ", std::strerror(errno)));
    if (scripted_latency.has_value()) {
      // The simulated disk is as slow as scripted.
      if (context.cancellation.SleepUnlessCancelled(*scripted_latency)) {
        return FailureResult(kExitInvalid, "disk speed check cancelled");
      }
      latencies.push_back(*scripted_latency);
    } else {
      latencies.push_back(absl::FromChrono(end - start));
    }
  }
  if (latencies.empty()) return fail("no write finished before the timeout");
  std::sort(latencies.begin(), latencies.end());
  const size_t rank = static_cast<size_t>(std::ceil(0.99 * latencies.size()));
  const absl::Duration p99 = latencies[std::max<size_t>(rank, 1) - 1];
  const int64_t ms = absl::ToInt64Milliseconds(absl::Ceil(p99, absl::Milliseconds(1)));
  context.log.Info(
      "disk speed measured",
      {{"path", request->path}, {"p99", absl::FormatDuration(p99)}, {"writes", latencies.size()}});
  StepResult result = SuccessResult();
  result.mutable_disk_speed()->set_io_sync_duration(
      static_cast<int32_t>(std::min<int64_t>(ms, std::numeric_limits<int32_t>::max())));
  result.mutable_disk_speed()->set_path(request->path);
  return result;
}

}  // namespace assisted::agent::steps
