// Progress lines on stderr for long runs. They are drawn only when stderr is a terminal:
// a log file or a pipe gets no carriage-return noise.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace talon::cli {

bool stderr_is_terminal();

// Wall-clock seconds from `start` to now (the timings `simulate --json` and `gradient` report).
double seconds_since(std::chrono::steady_clock::time_point start);

// "\rLABEL k/N (p%)", at most twice a second, once the work has taken a second; finish()
// leaves the final count on its own line.
class CountProgress {
 public:
  CountProgress(std::string label, int total);
  void update(int done);
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  void draw(int done);

  std::string label_;
  int total_;
  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_, last_;
};

// "\rLABEL... 12 s", redrawn every second from a background thread while the object lives
// (for work that reports nothing as it goes: compiling a model); nothing for the first
// second, and the line is erased at the end.
class ElapsedProgress {
 public:
  explicit ElapsedProgress(std::string label);
  ~ElapsedProgress();
  ElapsedProgress(const ElapsedProgress&) = delete;
  ElapsedProgress& operator=(const ElapsedProgress&) = delete;

 private:
  void run();

  std::string label_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

// work(), with an ElapsedProgress line while it runs.
template <class Work>
auto with_elapsed_progress(std::string label, Work&& work) {
  const ElapsedProgress progress(std::move(label));
  return work();
}

}  // namespace talon::cli
