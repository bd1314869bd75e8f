#include "lib/metrics/process_collector.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace assisted::metrics {
namespace {

std::string ReadAll(const char* path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

prometheus::MetricFamily Family(std::string name, std::string help, prometheus::MetricType type,
                                double value) {
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  return {std::move(name), std::move(help), type, {metric}};
}

// The fields of /proc/self/stat after the command name, which may hold spaces and parentheses:
// fields[0] is the state (field 3 in proc(5)), so field N is fields[N - 3].
std::vector<std::string> StatFields() {
  const std::string stat = ReadAll("/proc/self/stat");
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 > stat.size()) return {};
  return absl::StrSplit(absl::string_view(stat).substr(close + 2), ' ', absl::SkipEmpty());
}

std::optional<double> Field(const std::vector<std::string>& fields, size_t proc5_number) {
  double value = 0;
  if (proc5_number < 3 || proc5_number - 3 >= fields.size() ||
      !absl::SimpleAtod(fields[proc5_number - 3], &value)) {
    return std::nullopt;
  }
  return value;
}

// Seconds since the epoch at boot ("btime" in /proc/stat).
std::optional<double> BootTime() {
  for (absl::string_view line : absl::StrSplit(ReadAll("/proc/stat"), '\n')) {
    double value = 0;
    if (absl::ConsumePrefix(&line, "btime ") && absl::SimpleAtod(line, &value)) return value;
  }
  return std::nullopt;
}

// The soft limit on open files ("Max open files" in /proc/self/limits).
std::optional<double> MaxFds() {
  for (absl::string_view line : absl::StrSplit(ReadAll("/proc/self/limits"), '\n')) {
    if (!absl::ConsumePrefix(&line, "Max open files")) continue;
    std::vector<absl::string_view> words = absl::StrSplit(line, ' ', absl::SkipEmpty());
    double value = 0;
    if (!words.empty() && absl::SimpleAtod(words[0], &value)) return value;
  }
  return std::nullopt;
}

}  // namespace

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> families;
  const std::vector<std::string> stat = StatFields();
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  std::optional<double> utime = Field(stat, 14), stime = Field(stat, 15);
  if (utime && stime && ticks > 0) {
    families.push_back(Family("process_cpu_seconds_total",
                              "Total user and system CPU time spent in seconds.",
                              MetricType::Counter, (*utime + *stime) / ticks));
  }
  if (std::optional<double> threads = Field(stat, 20)) {
    families.push_back(Family("process_threads", "Number of OS threads in the process.",
                              MetricType::Gauge, *threads));
  }
  std::optional<double> start = Field(stat, 22), boot = BootTime();
  if (start && boot && ticks > 0) {
    families.push_back(Family("process_start_time_seconds",
                              "Start time of the process since unix epoch in seconds.",
                              MetricType::Gauge, *boot + *start / ticks));
  }
  if (std::optional<double> virtual_bytes = Field(stat, 23)) {
    families.push_back(Family("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                              MetricType::Gauge, *virtual_bytes));
  }
  if (std::optional<double> rss_pages = Field(stat, 24)) {
    families.push_back(Family("process_resident_memory_bytes", "Resident memory size in bytes.",
                              MetricType::Gauge, *rss_pages * page));
  }
  std::error_code error;
  double fds = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", error), end; !error && it != end;
       it.increment(error)) {
    ++fds;
  }
  if (!error) {
    families.push_back(
        Family("process_open_fds", "Number of open file descriptors.", MetricType::Gauge, fds));
  }
  if (std::optional<double> max_fds = MaxFds()) {
    families.push_back(Family("process_max_fds", "Maximum number of open file descriptors.",
                              MetricType::Gauge, *max_fds));
  }
  return families;
}

}  // namespace assisted::metrics
