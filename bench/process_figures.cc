#include "bench/process_figures.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace assisted::bench {

std::vector<std::string> StatFields(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return {};
  std::istringstream stream(text.substr(close + 2));
  std::vector<std::string> fields;
  for (std::string field; stream >> field;) fields.push_back(std::move(field));
  return fields;
}

double CpuSeconds(pid_t pid) {
  const std::vector<std::string> fields = StatFields(pid);
  if (fields.size() < 13) return 0;
  // utime and stime are fields 14 and 15, so 11 and 12 here (field 3 is at 0).
  const double ticks = std::stod(fields[11]) + std::stod(fields[12]);
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double StatusMib(pid_t pid, const std::string& key) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      int64_t kib = 0;
      std::istringstream(line.substr(key.size())) >> kib;
      return static_cast<double>(kib) / 1024;
    }
  }
  return 0;
}

int64_t VoluntaryContextSwitches(pid_t pid) {
  int64_t total = 0;
  std::error_code ec;
  for (const auto& task :
       std::filesystem::directory_iterator(absl::StrCat("/proc/", pid, "/task"), ec)) {
    std::ifstream in(task.path() / "status");
    std::string line;
    while (std::getline(in, line)) {
      absl::string_view rest = line;
      if (!absl::ConsumePrefix(&rest, "voluntary_ctxt_switches:")) continue;
      int64_t count = 0;
      if (absl::SimpleAtoi(rest, &count)) total += count;
    }
  }
  return total;
}

}  // namespace assisted::bench
