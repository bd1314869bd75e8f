// File: bench/process_figures.h
//
// What the benches read about a process they started, from /proc: its CPU time, its memory and
// how often its threads were switched out. Counts like these stay meaningful on a machine that
// other work loads, where timings do not.

#ifndef ASSISTED_BENCH_PROCESS_FIGURES_H_
#define ASSISTED_BENCH_PROCESS_FIGURES_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace assisted::bench {

// The fields of /proc/<pid>/stat after the command name, from field 3 (state) on; empty when
// the process is gone.
std::vector<std::string> StatFields(pid_t pid);

// utime + stime of `pid` (all its threads), in seconds.
double CpuSeconds(pid_t pid);

// A "VmXXX:" figure ("VmHWM:", "VmRSS:") of `pid`, in MiB.
double StatusMib(pid_t pid, const std::string& key);

// Voluntary context switches of the threads `pid` has now, summed: each is a thread that went
// to sleep and had to be woken, the price of a hand-off between threads. (Involuntary ones,
// preemptions, measure how loaded the machine is, so they are left out.) Threads that have
// exited are not counted: take the difference over a span in which the process keeps its
// threads.
int64_t VoluntaryContextSwitches(pid_t pid);

}  // namespace assisted::bench

#endif  // ASSISTED_BENCH_PROCESS_FIGURES_H_
