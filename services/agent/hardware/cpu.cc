// File: services/agent/hardware/cpu.cc

#include "services/agent/hardware/cpu.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "services/agent/hardware/attributes.h"

namespace assisted::agent::hardware {
namespace {

// More CPUs than any machine has; a larger "online" list is corrupt.
constexpr int64_t kMaxCpus = 1 << 16;
// Current x86 CPUs report about 150 flags; the rest of a longer list is noise.
constexpr int kMaxFlags = 1024;

// cpuinfo's "key<TAB>: value" lines, in order.
std::vector<std::pair<std::string, std::string>> CpuinfoFields(absl::string_view text) {
  std::vector<std::pair<std::string, std::string>> fields;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    fields.emplace_back(std::string(absl::StripAsciiWhitespace(line.substr(0, colon))),
                        std::string(absl::StripAsciiWhitespace(line.substr(colon + 1))));
  }
  return fields;
}

// Number of CPUs in a kernel CPU list such as "0-3,8,10-11"; nullopt when malformed.
std::optional<int64_t> CpuListSize(absl::string_view list) {
  int64_t count = 0;
  for (absl::string_view range : absl::StrSplit(list, ',', absl::SkipWhitespace())) {
    std::pair<absl::string_view, absl::string_view> bounds =
        absl::StrSplit(range, absl::MaxSplits('-', 1));
    std::optional<int64_t> first = ParseDecimal(bounds.first);
    std::optional<int64_t> last = bounds.second.empty() ? first : ParseDecimal(bounds.second);
    if (!first || !last || *first < 0 || *last < *first || *last - *first >= kMaxCpus) {
      return std::nullopt;
    }
    count += *last - *first + 1;
    if (count > kMaxCpus) return std::nullopt;
  }
  return count;
}

// Highest cpufreq cpuinfo_max_freq in MHz, 0 when there is none.
double CpufreqMaxMhz(const HostRoot& root) {
  absl::StatusOr<std::vector<std::string>> entries = root.ListDir("sys/devices/system/cpu");
  if (!entries.ok()) return 0;
  double best = 0;
  for (const std::string& entry : *entries) {
    int index = 0;
    if (!absl::StartsWith(entry, "cpu") || !absl::SimpleAtoi(entry.substr(3), &index)) continue;
    std::optional<int64_t> khz = ReadDecimal(
        root, absl::StrCat("sys/devices/system/cpu/", entry, "/cpufreq/cpuinfo_max_freq"));
    if (khz && *khz > 0) best = std::max(best, static_cast<double>(*khz) / 1000.0);
  }
  return best;
}

std::string InferArchitecture(const std::vector<std::pair<std::string, std::string>>& fields,
                              const types::v1::Cpu& cpu) {
  for (const auto& [key, value] : fields) {
    if (key == "vendor_id" && absl::StartsWith(value, "IBM/S390")) return "s390x";
    if (key == "CPU implementer") return "aarch64";
    if (key == "cpu" && absl::StartsWithIgnoreCase(value, "POWER")) return "ppc64le";
  }
  return HasCpuFlag(cpu, "lm") ? "x86_64" : "";
}

}  // namespace

bool HasCpuFlag(const types::v1::Cpu& cpu, absl::string_view flag) {
  return std::find(cpu.flags().begin(), cpu.flags().end(), flag) != cpu.flags().end();
}

types::v1::Cpu CollectCpu(const HostRoot& root, absl::string_view architecture) {
  types::v1::Cpu cpu;
  absl::StatusOr<std::string> text = root.ReadFile("proc/cpuinfo");
  const std::vector<std::pair<std::string, std::string>> fields =
      text.ok() ? CpuinfoFields(*text) : std::vector<std::pair<std::string, std::string>>{};
  double mhz = CpufreqMaxMhz(root);
  bool have_flags = false;
  for (const auto& [key, value] : fields) {
    if (key == "processor") {
      cpu.set_count(cpu.count() + 1);
    } else if ((key == "model name" || key == "Processor" || key == "cpu") &&
               cpu.model_name().empty()) {
      cpu.set_model_name(value);
    } else if ((key == "flags" || key == "Features") && !have_flags) {
      have_flags = true;
      for (absl::string_view flag : absl::StrSplit(value, ' ', absl::SkipWhitespace())) {
        if (cpu.flags_size() == kMaxFlags) break;
        cpu.add_flags(std::string(flag));
      }
    } else if (key == "cpu MHz") {
      double value_mhz = 0;
      if (absl::SimpleAtod(value, &value_mhz) && value_mhz > 0 && value_mhz < 1e6) {
        mhz = std::max(mhz, value_mhz);
      }
    }
  }
  if (cpu.count() == 0) {
    std::optional<int64_t> online =
        CpuListSize(ReadAttribute(root, "sys/devices/system/cpu/online"));
    if (online) cpu.set_count(*online);
  }
  cpu.set_frequency(mhz);
  std::string arch(architecture);
  if (arch.empty()) arch = ReadAttribute(root, "proc/sys/kernel/arch");
  if (arch.empty()) arch = InferArchitecture(fields, cpu);
  cpu.set_architecture(arch);
  return cpu;
}

types::v1::Memory CollectMemory(const HostRoot& root) {
  types::v1::Memory memory;
  if (absl::StatusOr<std::string> meminfo = root.ReadFile("proc/meminfo"); meminfo.ok()) {
    for (absl::string_view line : absl::StrSplit(*meminfo, '\n')) {
      if (!absl::ConsumePrefix(&line, "MemTotal:")) continue;
      absl::ConsumeSuffix(&line, "kB");
      std::optional<int64_t> kib = ParseDecimal(line);
      std::optional<int64_t> bytes = kib ? CheckedMultiply(*kib, 1024) : std::nullopt;
      if (bytes) memory.set_usable_bytes(*bytes);
      break;
    }
  }
  const std::optional<uint64_t> block_size =
      ParseHex(ReadAttribute(root, "sys/devices/system/memory/block_size_bytes"));
  int64_t blocks = 0;
  if (absl::StatusOr<std::vector<std::string>> entries = root.ListDir("sys/devices/system/memory");
      entries.ok()) {
    for (const std::string& entry : *entries) {
      int index = 0;
      if (!absl::StartsWith(entry, "memory") || !absl::SimpleAtoi(entry.substr(6), &index))
        continue;
      // A block without an "online" attribute cannot be offlined: it is online.
      if (ReadAttribute(root, absl::StrCat("sys/devices/system/memory/", entry, "/online")) !=
          "0") {
        ++blocks;
      }
    }
  }
  std::optional<int64_t> physical;
  if (block_size && *block_size > 0 &&
      *block_size <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    physical = CheckedMultiply(blocks, static_cast<int64_t>(*block_size));
  }
  if (physical && *physical > 0) {
    memory.set_physical_bytes(*physical);
    memory.set_physical_bytes_method(types::v1::PHYSICAL_MEMORY_METHOD_GHW);
  } else if (memory.usable_bytes() > 0) {
    memory.set_physical_bytes(memory.usable_bytes());
    memory.set_physical_bytes_method(types::v1::PHYSICAL_MEMORY_METHOD_MEMINFO);
  }
  return memory;
}

}  // namespace assisted::agent::hardware
