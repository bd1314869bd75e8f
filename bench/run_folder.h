// File: bench/run_folder.h
//
// A folder of one bench run's own, /tmp/assisted-<name>.XXXXXX, removed when the run ends. A
// fixed folder was emptied by whichever run started next, under the feet of one still running
// (benches in parallel worktrees, last_line_test beside a bench run by hand).

#ifndef ASSISTED_BENCH_RUN_FOLDER_H_
#define ASSISTED_BENCH_RUN_FOLDER_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace assisted::bench {

class RunFolder {
 public:
  // INTERNAL naming the template when it cannot be created.
  static absl::StatusOr<RunFolder> Create(absl::string_view name);
  RunFolder(RunFolder&& other) noexcept;
  RunFolder& operator=(RunFolder&&) = delete;
  RunFolder(const RunFolder&) = delete;
  ~RunFolder();

  const std::string& path() const { return path_; }

 private:
  explicit RunFolder(std::string path) : path_(std::move(path)) {}
  std::string path_;  // empty once moved from
};

}  // namespace assisted::bench

#endif  // ASSISTED_BENCH_RUN_FOLDER_H_
