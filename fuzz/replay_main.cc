// File: fuzz/replay_main.cc
//
// The driver of every <name>_replay_test: the fuzz target built as an ordinary test with the
// project's regular toolchain (no clang, no sanitizers), so `./dev test` proves every target
// still compiles and survives its corpus without a second build of the project.
//
//   <name>_replay_test CORPUS_DIR MUTATIONS
//
// Runs LLVMFuzzerTestOneInput on the empty input, on every file of CORPUS_DIR, and on MUTATIONS
// mutants of those files made by a fixed-seed generator (bit flips, interesting bytes, inserted,
// deleted and duplicated runs, splices of two files, large numbers), so the run is the same
// every time and a failure reproduces. A crash, abort or hang fails the test; the mutant that
// caused it is written to $TEST_UNDECLARED_OUTPUTS_DIR/replay-failure (bazel-testlogs/fuzz/
// <name>_replay_test/test.outputs/outputs.zip), so it can be fed to the fuzzer binary or added
// to the corpus.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string g_corpus_dir;
int g_mutations = 0;

std::vector<std::string> ReadCorpus(const std::string& dir) {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file()) paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());  // directory order is not stable; the run must be
  std::vector<std::string> files;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    files.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return files;
}

// Bytes that steer parsers into their interesting branches.
constexpr char kInterestingBytes[] = {'\0', '\n', '\r', ' ',    '"',    '\\',  '[',
                                      ']',  '{',  '}',  ',',    ':',    '-',   '%',
                                      '.',  '/',  '=',  '\x7f', '\x80', '\xff'};
constexpr const char* kInterestingNumbers[] = {
    "0", "-1", "18446744073709551616", "99999999999999999999999", "1e400", "-0", "0x7f"};

class Mutator {
 public:
  Mutator(const std::vector<std::string>& corpus) : corpus_(corpus) {}

  std::string Mutate(std::string input) {
    const int rounds = 1 + Below(4);
    for (int i = 0; i < rounds; ++i) MutateOnce(input);
    return input;
  }

 private:
  size_t Below(size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }

  void MutateOnce(std::string& s) {
    switch (Below(8)) {
      case 0:  // flip one bit
        if (!s.empty()) s[Below(s.size())] ^= static_cast<char>(1u << Below(8));
        break;
      case 1:  // one interesting byte, replaced or inserted
        if (!s.empty() && Below(2) == 0) {
          s[Below(s.size())] = kInterestingBytes[Below(sizeof(kInterestingBytes))];
        } else {
          s.insert(s.begin() + Below(s.size() + 1),
                   kInterestingBytes[Below(sizeof(kInterestingBytes))]);
        }
        break;
      case 2:  // random bytes inserted
        for (size_t n = 1 + Below(8), at = Below(s.size() + 1); n > 0; --n) {
          s.insert(s.begin() + at, static_cast<char>(Below(256)));
        }
        break;
      case 3:  // a run deleted
        if (!s.empty()) {
          const size_t at = Below(s.size());
          s.erase(at, 1 + Below(std::min<size_t>(s.size() - at, 64)));
        }
        break;
      case 4:  // a run duplicated many times (deep nesting, long fields)
        if (!s.empty()) {
          const size_t at = Below(s.size());
          const std::string run = s.substr(at, 1 + Below(std::min<size_t>(s.size() - at, 8)));
          std::string copies;
          for (size_t n = 1 + Below(200); n > 0; --n) copies += run;
          s.insert(at, copies);
        }
        break;
      case 5:  // the head of this input with the tail of another
        if (!corpus_.empty()) {
          const std::string& other = corpus_[Below(corpus_.size())];
          s = s.substr(0, Below(s.size() + 1)) + other.substr(Below(other.size() + 1));
        }
        break;
      case 6:  // truncated
        s.resize(Below(s.size() + 1));
        break;
      case 7: {  // a digit replaced with an extreme number
        const size_t at = s.find_first_of("0123456789", Below(s.size() + 1));
        if (at != std::string::npos) {
          s.replace(at, 1, kInterestingNumbers[Below(std::size(kInterestingNumbers))]);
        }
        break;
      }
    }
  }

  const std::vector<std::string>& corpus_;
  std::mt19937_64 rng_{20261126};
};

// The input being run, written out by a fatal signal (crash, abort, or Bazel's SIGTERM at the
// timeout of a hang) so the failure comes with its reproducer. Writing every input up front
// instead cost more than running them.
const std::string* g_current = nullptr;
char g_reproducer_path[4096];

void WriteReproducer(int signal_number) {
  if (g_current != nullptr) {
    const int fd = open(g_reproducer_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      (void)!write(fd, g_current->data(), g_current->size());
      close(fd);
      static constexpr char kNote[] = "replay: the failing input is in ";
      (void)!write(STDERR_FILENO, kNote, sizeof(kNote) - 1);
      (void)!write(STDERR_FILENO, g_reproducer_path, strlen(g_reproducer_path));
      (void)!write(STDERR_FILENO, "\n", 1);
    }
  }
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

void CatchFatalSignals() {
  const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  std::snprintf(g_reproducer_path, sizeof(g_reproducer_path), "%s/replay-failure",
                dir != nullptr ? dir : ".");
  for (const int signal_number : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTERM}) {
    signal(signal_number, WriteReproducer);
  }
}

void RunTarget(const std::string& input) {
  g_current = &input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

TEST(FuzzReplay, EveryCorpusFileAndSeededMutantRunsToCompletion) {
  const std::vector<std::string> corpus = ReadCorpus(g_corpus_dir);
  ASSERT_FALSE(corpus.empty()) << "no seed inputs in " << g_corpus_dir;
  CatchFatalSignals();
  RunTarget("");
  for (const std::string& input : corpus) {
    RunTarget(input);
  }
  Mutator mutator(corpus);
  for (int i = 0; i < g_mutations; ++i) {
    const std::string mutant = mutator.Mutate(corpus[i % corpus.size()]);
    RunTarget(mutant);
  }
  std::printf("replayed %zu corpus files and %d mutants\n", corpus.size(), g_mutations);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR MUTATIONS\n", argv[0]);
    return 2;
  }
  g_corpus_dir = argv[1];
  g_mutations = std::atoi(argv[2]);
  return RUN_ALL_TESTS();
}
