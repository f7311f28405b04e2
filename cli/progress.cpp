#include "cli/progress.h"

#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <iostream>

namespace talon::cli {
namespace {

// Short work shows nothing: a progress line appears once the work has taken this long, 1 s
// unless $TALON_PROGRESS_DELAY_MS says otherwise (the tests set 0, so that what they check
// does not depend on how fast the machine compiles).
std::chrono::milliseconds quiet_start() {
  static const std::chrono::milliseconds delay = [] {
    const char* text = std::getenv("TALON_PROGRESS_DELAY_MS");
    char* end = nullptr;
    const long value = text != nullptr ? std::strtol(text, &end, 10) : -1;
    const bool valid = text != nullptr && *text != '\0' && *end == '\0' && value >= 0;
    return std::chrono::milliseconds(valid ? value : 1000);
  }();
  return delay;
}

constexpr auto kRedraw = std::chrono::milliseconds(500);

const char* const kEraseLine = "\r\033[K";

}  // namespace

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

CountProgress::CountProgress(std::string label, int total)
    : label_(std::move(label)),
      total_(total),
      enabled_(stderr_is_terminal()),
      start_(Clock::now()),
      last_(start_) {}

void CountProgress::update(int done) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (now - start_ < quiet_start() || now - last_ < kRedraw) return;
  last_ = now;
  shown_ = true;
  draw(done);
}

void CountProgress::finish() {
  if (!shown_) return;
  draw(total_);
  std::cerr << '\n';
  shown_ = false;
}

void CountProgress::draw(int done) {
  std::cerr << kEraseLine << label_ << ' ' << done << '/' << total_ << " ("
            << (100LL * done) / std::max(total_, 1) << "%)" << std::flush;
}

ElapsedProgress::ElapsedProgress(std::string label) : label_(std::move(label)) {
  if (stderr_is_terminal()) thread_ = std::thread([this] { run(); });
}

ElapsedProgress::~ElapsedProgress() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void ElapsedProgress::run() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  if (wake_.wait_for(lock, quiet_start(), [this] { return done_; })) return;
  for (;;) {
    const auto seconds =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start);
    std::cerr << kEraseLine << label_ << "... " << seconds.count() << " s" << std::flush;
    if (wake_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; })) break;
  }
  std::cerr << kEraseLine << std::flush;
}

}  // namespace talon::cli
